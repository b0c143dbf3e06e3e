// The heist board: ES modules by job, no build step, under the strict CSP (DESIGN.md section 4).
// It plays a heist through the JSON API (DESIGN.md section 5) and holds only what the API shows
// the player: the rival's hand is a count, never cards.
//
//   board/page.js      what the page hands over: the ruleset's numbers, names, words, the art
//   board/dom.js       element helpers, the sprite's symbols, the live region
//   board/api.js       the API, and the check of the rival's commitment
//   board/settings.js  sound, motion and reveal speed (this browser's)
//   board/state.js     the heist view and the plan being made, the engine's refusals
//   board/view.js      drawing the night for planning, the server's preview of the plan
//   board/plan.js      taps and keys, sealing, loading, the rival's status
//   board/reveal.js    the reveal
//   board/guide.js     the guided first heist
//   board/dialogs.js   the help, the piles and the "lie low" question

import { root } from "./board/page.js";
import { setupSettings } from "./board/settings.js";
import { setupGuide } from "./board/guide.js";
import { setupDialogs } from "./board/dialogs.js";
import { keepPlanning, load, seal, setupPlanning } from "./board/plan.js";

export { canonicalPlan, sha256Hex } from "./board/api.js";

if (root) {
  setupSettings();
  setupGuide();
  setupDialogs({ onLieLow: seal, onKeepPlanning: keepPlanning });
  setupPlanning();
  root.classList.add("ready");
  load();
}
