// The board's one state: the heist view as the API last sent it and the plan being made, with
// the engine's refusals heard before sealing (words from RULES.text, numbers from the ruleset).

import { RULES, crewInfo } from "./page.js";
import { fill } from "./dom.js";

export const state = {
  heist: null,
  plan: new Map(), // card id -> vault slug
  boost: false,
  selected: null, // card id picked and waiting for a vault
  seenCommitment: null, // the rival's commitment as shown before we sealed
  sealing: false,
  revealing: false,
  polling: null,
  preview: null, // the server's preview of the current plan
  previewKey: "",
  previewTimer: null,
  note: null, // a message for the note line until the plan changes: {text, bad}
};

export const handCard = (card) => state.heist.you.hand.find((c) => c.card === card);

export function resetPlan() {
  state.plan = new Map();
  state.boost = false;
  state.selected = null;
  state.preview = null;
  state.previewKey = "";
  state.note = null;
}

export function planCost() {
  let cost = 0;
  for (const card of state.plan.keys()) cost += crewInfo(handCard(card).crew).cost;
  return cost;
}

export const energyLeft = () => state.heist.you.energy - planCost();

export function boostBlock() {
  const you = state.heist.you;
  if (you.heat >= RULES.boost_lock_heat) return fill(RULES.text.boost_locked, { heat: you.heat });
  if (state.plan.size === 0) return RULES.text.boost_without_crew;
  return null;
}

export function planProblem() {
  const left = energyLeft();
  if (left < 0) return fill(RULES.text.over_energy, { over: -left });
  if (state.plan.size > RULES.max_crew) return fill(RULES.text.too_many_crew, RULES);
  if (state.boost && boostBlock()) return boostBlock();
  return null;
}

/** Who won each vault last night: {slug: "you" | "rival" | null}. */
export function lastWinners() {
  const history = state.heist.history ?? [];
  const last = history[history.length - 1];
  return Object.fromEntries((last?.vaults ?? []).map((v) => [v.slug, v.winner]));
}
