// Planning and the night's course: tap a card, tap a vault (tap the card again to take it
// back), Boost, Seal; the keyboard's shortcuts; sealing once the rival has sealed; the reveal,
// the recap of any played night (a tap on its dot), and a page loaded after a seal it did not
// see the end of, which opens on that night instead of skipping it.

import { RULES, HEIST_URL, root, crewInfo, t, vaultName } from "./page.js";
import { $, pause, say } from "./dom.js";
import { ApiError, api } from "./api.js";
import { sound } from "./settings.js";
import { state, handCard, resetPlan, energyLeft, boostBlock, planProblem, markSeen, seenNight } from "./state.js";
import { renderControls, renderNote, renderPlanning, requestPreview, tell } from "./hand.js";
import { bumpScore, fitBoard, renderSides, renderTop } from "./view.js";
import { showNight } from "./reveal.js";
import { askLieLow, openBreakdown } from "./sheets.js";
import { claimTips, hideTip, showTip, tour } from "./guide.js";

function fromKeyboard(event) {
  // A click synthesised by Enter or Space has detail 0: move focus for keyboard players only,
  // so a tap never makes the page jump.
  return event.detail === 0;
}

function focusNow(selector) {
  // Rendering replaces the cards, so focus is set after each render, synchronously: a second
  // key press must land where the first one sent focus.
  document.querySelector(selector)?.focus();
}

const busy = () => state.sealing || state.revealing;
const planning = () => state.mode === "plan" && !busy();

export function onCard(card, event) {
  if (!planning()) return;
  const info = crewInfo(handCard(card).crew);
  let target = `[data-card="${card}"]`;
  state.note = null;
  if (state.plan.has(card)) {
    const vault = state.plan.get(card);
    state.plan.delete(card);
    state.selected = null;
    say(t("taken_back", { name: info.name, vault: vaultName(vault), left: energyLeft() }));
  } else if (state.selected === card) {
    state.selected = null;
    say(t("put_down", { name: info.name }));
  } else if (state.plan.size >= RULES.max_crew) {
    state.selected = null;
    renderPlanning();
    tell(t("crew_limit"), true);
    focusNow(target);
    return;
  } else if (info.cost > energyLeft()) {
    state.selected = null;
    renderPlanning();
    tell(t("needs_energy", { name: info.name, cost: info.cost, left: Math.max(energyLeft(), 0) }), true);
    focusNow(target);
    return;
  } else {
    state.selected = card;
    sound("pick");
    say(t("picked", { name: info.name }));
    const first = state.heist.vaults.find((v) => !v.closed);
    if (first && fromKeyboard(event)) target = `.vault-hit[data-vault="${first.slug}"]`;
    tour.did("card");
  }
  renderPlanning();
  focusNow(target);
}

export function onVault(vault, event) {
  if (!planning()) return;
  state.note = null;
  if (vault.closed) {
    tell(t("vault_closed", { vault: vault.name }), true);
    return;
  }
  if (state.selected === null) {
    tell(t("pick_first", { vault: vault.name }));
    return;
  }
  const card = state.selected;
  const name = crewInfo(handCard(card).crew).name;
  state.plan.set(card, vault.slug);
  state.selected = null;
  sound("send");
  say(t("goes_to", { name, vault: vault.name, left: energyLeft() }));
  renderPlanning();
  fitBoard();
  tour.did("vault");
  if (fromKeyboard(event)) focusNow(state.plan.size >= RULES.max_crew ? "#b-seal" : `[data-card="${card}"]`);
}

export function onBoost() {
  if (!planning()) return;
  const blocked = boostBlock();
  if (blocked) {
    tell(blocked, true);
    return;
  }
  state.boost = !state.boost;
  state.note = null;
  sound("pick");
  say(state.boost ? t("boost_on") : t("boost_off"));
  renderControls();
  requestPreview();
  tour.did("boost");
}

export function onSeal() {
  if (!planning()) return;
  const problem = planProblem();
  if (problem) {
    say(problem);
    renderNote();
    return;
  }
  if (state.plan.size === 0) {
    askLieLow();
    return;
  }
  seal();
}

export async function seal() {
  const heist = state.heist;
  const body = { night: heist.night, crew: [...state.plan].map(([card, vault]) => ({ card, vault })), boost: state.boost };
  state.seenCommitment = heist.phase === "planning" ? heist.rival.commitment : null;
  state.sealing = true;
  stopPolling();
  hideTip();
  renderControls();
  sound("seal");
  say(t("sealed_sr", { night: heist.night }));
  tour.did("seal");
  try {
    const answer = await sealOnceRivalHasSealed(body);
    state.sealing = false;
    await reveal(answer.result, heist, answer.heist);
  } catch (err) {
    state.sealing = false;
    state.revealing = false;
    if (err.code === "wrong_night" || err.code === "heist_finished") {
      say(t("reloading", { message: err.message }));
      await load();
      return;
    }
    renderControls();
    tell(err.message, true);
  }
}

// The server refuses a seal (409 rival_not_sealed) until the rival has sealed: the player must
// have seen its commitment first, and no request ever waits for the worker. So the board reads
// the heist (which seals an overdue rival night on the server) until the commitment shows, keeps
// it as the one shown before sealing, and sends the same plan again.
const RIVAL_WAIT_READS = 30;

async function waitForRivalCommitment() {
  let delay = 400;
  for (let read = 0; read < RIVAL_WAIT_READS; read += 1) {
    await pause(delay);
    const fresh = await api(HEIST_URL);
    if (fresh.night !== state.heist.night || fresh.status !== "active") throw new ApiError(409, "wrong_night", t("moved_on"));
    if (fresh.phase === "planning" && fresh.rival.commitment) {
      state.heist.phase = fresh.phase;
      state.heist.rival.commitment = fresh.rival.commitment;
      state.seenCommitment = fresh.rival.commitment;
      renderSides();
      return;
    }
    delay = Math.min(delay * 1.5, 3000);
  }
  throw new ApiError(409, "rival_not_sealed", t("rival_slow"));
}

async function sealOnceRivalHasSealed(body) {
  for (let attempt = 0; attempt < 3; attempt += 1) {
    try {
      return await api(`${HEIST_URL}seal/`, { body, viewAt: HEIST_URL });
    } catch (err) {
      if (err.code !== "rival_not_sealed") throw err;
    }
    state.heist.phase = "rival_planning";
    renderControls();
    say(t("waiting_rival"));
    await waitForRivalCommitment();
  }
  return api(`${HEIST_URL}seal/`, { body, viewAt: HEIST_URL });
}

// --- the reveal, the recap and the way on -----------------------------------------------------------

function scoresBefore(history, night) {
  const before = history.find((n) => n.night === night - 1);
  return before ? { ...before.score } : { you: 0, rival: 0 };
}

function wayOn(after) {
  if (after.status !== "active") return { label: t("result"), href: root.dataset.resultUrl };
  return { label: t("next", { night: after.night }), onClick: nextNight };
}

/** A night just sealed here (``before``: the view it was planned on), or caught mid-way by a
 * reload (``before`` null): it plays out on the vaults. */
async function reveal(result, before, after) {
  state.heist = after;
  resetPlan();
  markSeen(after.id, { revealing: result.night });
  const shown = before ?? after;
  renderTop(before ?? after, result.night);
  renderSides({ ...shown, history: after.history });
  const scores = scoresBefore(after.history, result.night);
  // Caught mid-way by a reload: the scores start from the night before, as they did here.
  bumpScore("you", scores.you, 0);
  bumpScore("rival", scores.rival, 0);
  await showNight(result, { live: true, scores, way: wayOn(after) });
  markSeen(after.id, { seen: result.night, revealing: 0 });
  renderTop(after, result.night);
  renderSides(after);
}

/** A played night, drawn on the vaults at once; the plan being made waits for the way back. */
async function recap(night, { unseen = false } = {}) {
  const result = state.heist.history.find((n) => n.night === night);
  if (!result || busy()) return;
  renderTop(state.heist, night);
  const way = unseen ? wayOn(state.heist) : { label: t("back_to", { night: state.heist.night }), onClick: backToPlanning };
  await showNight(result, { live: false, scores: scoresBefore(state.heist.history, night), way });
  if (unseen) markSeen(state.heist.id, { seen: night, revealing: 0 });
}

function backToPlanning() {
  renderPlanning();
  $("b-title").focus({ preventScroll: true });
}

export function nextNight() {
  renderPlanning();
  showTip(state.heist);
  say(t("night_sr", { night: state.heist.night, nights: state.heist.nights, vaults: state.heist.vaults.map((v) => `${v.name} ${v.closed ? t("closed") : v.loot}`).join(", ") }));
  window.scrollTo(0, 0);
  $("b-title").focus({ preventScroll: true });
  fitBoard();
  pollRival();
}

// --- keyboard shortcuts ---------------------------------------------------------------------------

export function onKey(event) {
  if (event.defaultPrevented || event.altKey || event.ctrlKey || event.metaKey) return;
  if (root.querySelector("dialog[open]")) return;
  const target = event.target;
  if (target.closest?.("input, select, textarea, summary, a, dialog")) return;
  if (event.key === "Escape" && state.selected !== null) {
    state.selected = null;
    say(t("card_put_down"));
    renderPlanning();
    return;
  }
  if (!planning()) return;
  const digit = Number.parseInt(event.key, 10);
  if (digit >= 1 && digit <= 9) {
    const entry = state.heist.you.hand[digit - 1];
    if (entry) {
      event.preventDefault();
      onCard(entry.card, { detail: 0 });
    }
    return;
  }
  if (event.key === "b" || event.key === "B") {
    event.preventDefault();
    onBoost();
    return;
  }
  // Space seals from anywhere on the board but the Boost switch and the other buttons of the
  // page (cards and vaults take Enter; Space on them seals, as the help says).
  if (event.key === " " && (!target.closest("button") || target.closest(".card, .vault-hit, #b-seal"))) {
    event.preventDefault();
    onSeal();
  }
}

// --- loading and the rival's status -------------------------------------------------------------

function stopPolling() {
  if (state.polling) window.clearTimeout(state.polling);
  state.polling = null;
}

function pollRival(delay = 800, tries = 0) {
  stopPolling();
  if (state.heist.phase !== "rival_planning" || tries > 40) return;
  state.polling = window.setTimeout(async () => {
    try {
      const fresh = await api(HEIST_URL);
      if (fresh.night === state.heist.night && fresh.status === "active" && !state.revealing) {
        state.heist.phase = fresh.phase;
        state.heist.rival.commitment = fresh.rival.commitment;
        if (state.mode === "plan") renderSides();
        renderControls();
        if (fresh.phase === "planning") {
          say(t("rival_sealed_sr"));
          return;
        }
      }
    } catch {
      /* the next seal reports any real problem */
    }
    pollRival(Math.min(delay * 1.5, 4000), tries + 1);
  }, delay);
}

/** Load the heist (``prefetched``: its view, already asked for) and show where it stands. */
export async function load(prefetched = null) {
  try {
    state.heist = await (prefetched ?? api(HEIST_URL));
  } catch (err) {
    $("b-plan").hidden = true;
    $("b-live").textContent = err.message;
    $("b-note").textContent = err.message;
    return;
  }
  const heist = state.heist;
  if (heist.status !== "active") {
    window.location.assign(root.dataset.resultUrl);
    return;
  }
  resetPlan();
  state.revealing = false;
  const history = heist.history ?? [];
  const last = history[history.length - 1];
  const seen = seenNight(heist.id);
  // A practice heist starts at a night of another heist: its earlier nights were seen there.
  const firstHere = heist.practice_of?.night ?? 1;
  pollRival();
  if (last && last.night >= firstHere && last.night > seen.seen) {
    // Sealed, and its end never shown here: play it again if it was playing, else its recap.
    if (seen.revealing === last.night) await reveal(last, null, heist);
    else await recap(last.night, { unseen: true });
    return;
  }
  renderPlanning();
  if (heist.night === 1 && !history.length) {
    claimTips(heist.id);
    tour.start();
  } else showTip(heist);
  fitBoard();
}

export function keepPlanning() {
  tell(t("still_planning"));
}

/** Cards, vaults and night dots are drawn again at every change: one delegated listener each. */
export function setupPlanning() {
  $("b-hand").addEventListener("click", (event) => {
    const button = event.target.closest("[data-card]");
    if (button) onCard(Number(button.dataset.card), event);
  });
  $("b-vaults").addEventListener("click", (event) => {
    const button = event.target.closest(".vault-hit[data-vault]");
    if (!button) return;
    if (state.mode !== "plan") {
      if (!state.revealing && state.shown) openBreakdown(button.dataset.vault, state.shown);
      return;
    }
    const vault = state.heist?.vaults.find((v) => v.slug === button.dataset.vault);
    if (vault) onVault(vault, event);
  });
  $("b-nights").addEventListener("click", (event) => {
    const dot = event.target.closest("[data-night]");
    if (!dot || busy()) return;
    const night = Number(dot.dataset.night);
    if (state.mode !== "plan" && state.shown?.night === night) backToPlanning();
    else recap(night);
  });
  $("b-boost").addEventListener("click", onBoost);
  $("b-seal").addEventListener("click", onSeal);
  document.addEventListener("keydown", onKey);
}
