// The heist board: ES modules by job, no build step, under the strict CSP (DESIGN.md section 4).
// It plays a heist through the JSON API (DESIGN.md section 5) and holds only what the API shows
// the player: the rival's hand is a count, never cards. Every word comes from the page.
//
//   board/page.js       what the page hands over, and the ruleset's numbers, names and words
//   board/dom.js        element helpers, the sprite's symbols, the glossary's words, the live region
//   board/api.js        the API, and the check of the rival's commitment
//   board/settings.js   sound, motion and reveal speed (this browser's)
//   board/state.js      the heist view and the plan being made, the engine's refusals, nights seen
//   board/view.js       the night tracker and both sides (piles, Heat, Energy, scores)
//   board/vaults.js     the three vaults, from planning through the reveal
//   board/encounter.js  the encounter's marks on the vaults and its banner
//   board/hand.js       the dock while planning: the hand, Boost, Seal, the server's preview
//   board/reveal.js     a night turned over on the vaults, and its recap
//   board/plan.js       taps and keys, sealing, loading, the recap of a played night
//   board/guide.js      the guided first heist and the tips of its nights 2 and 3
//   board/sheets.js     details on a hold or a hover, the words' definitions, the piles, the help
//                       and the "lie low" question

import { HEIST_URL, loadRules, root } from "./board/page.js";
import { api } from "./board/api.js";
import { setupSettings } from "./board/settings.js";
import { setupGuide } from "./board/guide.js";
import { setupDetails, setupDialogs } from "./board/sheets.js";
import { hoverNote } from "./board/hand.js";
import { keepPlanning, load, seal, setupPlanning } from "./board/plan.js";

export { canonicalPlan, sha256Hex } from "./board/api.js";

async function start() {
  // The heist and the ruleset's words are fetched together; nothing is drawn before both.
  const heist = api(HEIST_URL);
  heist.catch(() => {}); // load() reports it
  await loadRules();
  setupSettings();
  setupGuide();
  setupDialogs({ onLieLow: seal, onKeepPlanning: keepPlanning });
  setupDetails({ onHover: hoverNote });
  setupPlanning();
  root.classList.add("ready");
  await load(heist);
}

if (root) start();
