// The guided first heist. Offered once (remembered in this browser); skippable at every step; a
// step moves on when the player does what it points at, or with Next.

import { root } from "./page.js";
import { $ } from "./dom.js";
import { store } from "./settings.js";

const TOUR_KEY = "veyltak.board.tour";

const steps = [
  { id: "offer", target: null, text: "First heist? A short guide points at each step of a night.", next: "Show me" },
  { id: "card", target: ".card:not(.unaffordable)", text: "Tap a crew card. Its cost is top left, its power top right, its effect below.", waits: "card" },
  { id: "vault", target: ".vault:not(.closed)", text: "Now tap a vault to send that crew there. Your power shows on the vault.", waits: "vault" },
  { id: "boost", target: "#b-boost", text: "Boost adds power to every crew you send tonight, but raises your Heat, and Heat lowers tomorrow's Energy.", next: "Next" },
  { id: "seal", target: "#b-seal", text: "Seal locks your plan. The rival has already locked its own.", waits: "seal" },
  { id: "reveal", target: "#b-reveal", text: "Both plans turn over, vault by vault: the higher power takes the loot. Your score changes at the end.", next: "Got it" },
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
  $("b-tour-text").textContent = step.text;
  $("b-tour-next").textContent = step.next ?? "Next";
  $("b-tour-skip").textContent = step.id === "offer" ? "No thanks" : "Skip the guide";
  const target = step.target ? root.querySelector(step.target) : null;
  box().hidden = false;
  box().dataset.step = step.id;
  box().classList.remove("at-top", "at-bottom");
  if (target) {
    target.classList.add("tour-target");
    const rect = target.getBoundingClientRect();
    box().classList.add(rect.top + rect.height / 2 > window.innerHeight / 2 ? "at-top" : "at-bottom");
  } else box().classList.add("at-bottom");
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
    const step = steps[at];
    const target = step.target ? root.querySelector(step.target) : null;
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

export function setupGuide() {
  $("b-tour-next").addEventListener("click", () => tour.next());
  $("b-tour-skip").addEventListener("click", () => tour.skip());
}
