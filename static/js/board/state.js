// The board's one state: the heist view as the API last sent it and the plan being made, with
// the engine's refusals heard before sealing (the server's words, the ruleset's numbers).

import { RULES, crewInfo, t } from "./page.js";

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
  hover: null, // the details of the card or vault the mouse points at
  mode: "plan", // what the vaults show: "plan", "reveal" (a night turning over) or "recap"
  shown: null, // the night result the vaults show in "reveal" and "recap"
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
  if (you.heat >= RULES.boost_lock_heat) return t("boost_locked", { heat: you.heat });
  if (state.plan.size === 0) return t("boost_without_crew");
  return null;
}

export function planProblem() {
  const left = energyLeft();
  if (left < 0) return t("over_energy", { over: -left });
  if (state.plan.size > RULES.max_crew) return t("too_many_crew");
  if (state.boost && boostBlock()) return boostBlock();
  return null;
}

/** Who won each vault last night: {slug: "you" | "rival" | null}. */
export function lastWinners() {
  const history = state.heist.history ?? [];
  const last = history[history.length - 1];
  return Object.fromEntries((last?.vaults ?? []).map((v) => [v.slug, v.winner]));
}

// What this browser has seen of the heist: the last night whose reveal it finished, and the one
// it was revealing when the page went away. A page loaded after a seal it did not see the end of
// (a reload mid-reveal, another tab, another device) opens on that night instead of skipping it.
const seenKey = (id) => `veyltak.board.seen.${id}`;

export function seenNight(id) {
  try {
    return JSON.parse(window.localStorage.getItem(seenKey(id)) ?? "null") ?? { seen: 0, revealing: 0 };
  } catch {
    return { seen: 0, revealing: 0 };
  }
}

export function markSeen(id, patch) {
  try {
    window.localStorage.setItem(seenKey(id), JSON.stringify({ ...seenNight(id), ...patch }));
  } catch {
    /* private mode: a reload shows the night's recap, as on another device */
  }
}
