// Teaching the first heist. The guide (offered once on night 1, remembered in this browser,
// skippable at every step; a step moves on when the player does what it points at, or with
// Next) and short tips on nights 2 and 3. Both live in the dock, in the flow of the page: they
// never cover the board they talk about.

import { root, crewInfo, t } from "./page.js";
import { $ } from "./dom.js";
import { store } from "./settings.js";

const TOUR_KEY = "veyltak.board.tour";
const TIPS_KEY = "veyltak.board.tips";

const steps = [
  { id: "offer", target: null, text: "tour_offer", next: "tour_show_me" },
  { id: "card", target: ".card:not(.unaffordable)", text: "tour_card", waits: "card" },
  { id: "vault", target: ".vault:not(.closed)", text: "tour_vault", waits: "vault" },
  { id: "boost", target: "#b-boost", text: "tour_boost", next: "tour_next" },
  { id: "seal", target: "#b-seal", text: "tour_seal", waits: "seal" },
  { id: "reveal", target: "#b-vaults", text: "tour_reveal", next: "tour_got_it" },
];

let at = -1;
const box = () => $("b-tour");

function clearTarget() {
  for (const node of root.querySelectorAll(".tour-target")) node.classList.remove("tour-target");
}

function show() {
  clearTarget();
  const step = steps[at];
  if (!step) return end("done");
  $("b-tour-text").textContent = t(step.text);
  $("b-tour-next").textContent = t(step.next ?? "tour_next");
  $("b-tour-skip").textContent = t(step.id === "offer" ? "tour_no_thanks" : "tour_skip");
  box().hidden = false;
  box().dataset.step = step.id;
  root.querySelector(step.target)?.classList.add("tour-target");
}

function end(how) {
  at = -1;
  clearTarget();
  box().hidden = true;
  store.set(TOUR_KEY, how);
}

export const tour = {
  /** Point again after a render replaced the target. */
  refresh() {
    if (at < 0) return;
    const target = steps[at].target ? root.querySelector(steps[at].target) : null;
    if (target && !target.classList.contains("tour-target")) {
      clearTarget();
      target.classList.add("tour-target");
    }
  },
  start(force = false) {
    if (!force && store.get(TOUR_KEY)) return;
    store.set(TOUR_KEY, "offered");
    at = force ? 1 : 0;
    show();
  },
  active: () => at >= 0,
  did(what) {
    if (at < 0) return;
    const step = steps[at];
    if (step.id === "offer") {
      // Playing without answering the offer declines it.
      end("declined");
      return;
    }
    if (what === "reveal-start") {
      at = steps.findIndex((s) => s.id === "reveal");
      show();
      return;
    }
    if (step.waits === what) {
      at += 1;
      show();
    } else if (what === "card" || what === "vault") {
      // Done out of order (a second card...): keep pointing where the plan stands.
      show();
    }
  },
  next() {
    if (at < 0) return;
    if (steps[at].id === "reveal") return end("done");
    at += 1;
    show();
  },
  skip: () => end("skipped"),
};

// --- tips on nights 2 and 3 of the first heist --------------------------------------------------

function tipsSeen() {
  try {
    return JSON.parse(store.get(TIPS_KEY) ?? "null");
  } catch {
    return null;
  }
}

/** The first heist this browser plays is the one the tips belong to. */
export function claimTips(heistId) {
  if (!tipsSeen()) store.set(TIPS_KEY, JSON.stringify({ heist: heistId, shown: [] }));
}

function tipFor(heist) {
  const { you, night } = heist;
  if (night === 2) return t("tip_heat", { heat: you.heat, energy: you.energy });
  if (night !== 3) return null;
  // Night 2's tip has said what a Boost costs; night 3's says what a conditional crew in hand
  // waits for, or (with none in hand) when a Boost pays.
  const conditional = you.hand.map((c) => crewInfo(c.crew)).find((info) => info.when);
  return conditional ? t("tip_conditional", { name: conditional.name, when: conditional.when }) : t("tip_boost");
}

/** Show tonight's tip, once, in the first heist's nights 2 and 3. */
export function showTip(heist) {
  const tip = $("b-tip");
  const seen = tipsSeen();
  const text = heist.status === "active" ? tipFor(heist) : null;
  if (!text || at >= 0 || !seen || seen.heist !== heist.id || seen.shown.includes(heist.night)) {
    tip.hidden = true;
    return;
  }
  $("b-tip-label").textContent = t("tip_label");
  $("b-tip-text").textContent = text;
  $("b-tip-ok").textContent = t("tip_ok");
  tip.dataset.night = String(heist.night);
  tip.hidden = false;
}

export function hideTip() {
  const tip = $("b-tip");
  if (tip.hidden) return;
  tip.hidden = true;
  const seen = tipsSeen();
  const night = Number(tip.dataset.night);
  if (seen && !seen.shown.includes(night)) store.set(TIPS_KEY, JSON.stringify({ ...seen, shown: [...seen.shown, night] }));
}

export function setupGuide() {
  $("b-tour-next").addEventListener("click", () => tour.next());
  $("b-tour-skip").addEventListener("click", () => tour.skip());
  $("b-tip-ok").addEventListener("click", hideTip);
}
