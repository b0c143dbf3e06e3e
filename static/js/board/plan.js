// Planning: tap a card, tap a vault (tap the card again to take it back), Boost, Seal; the
// keyboard's shortcuts; sealing once the rival has sealed; loading the heist and waiting for the
// rival's commitment.

import { RULES, HEIST_URL, root, crewInfo, vaultName } from "./page.js";
import { $, fill, pause, say } from "./dom.js";
import { ApiError, api } from "./api.js";
import { sound } from "./settings.js";
import { state, handCard, resetPlan, energyLeft, boostBlock, planProblem } from "./state.js";
import { renderControls, renderNote, renderPlanning, renderSides, requestPreview, tell } from "./view.js";
import { showReveal } from "./reveal.js";
import { askLieLow } from "./dialogs.js";
import { tour } from "./guide.js";

function fromKeyboard(event) {
  // A click synthesised by Enter or Space has detail 0: move focus for keyboard players only,
  // so a tap never makes the page jump.
  return event.detail === 0;
}

function focusNow(selector) {
  // Rendering replaces the buttons, so focus is set after each render, synchronously: a second
  // key press must land where the first one sent focus.
  document.querySelector(selector)?.focus();
}

function busy() {
  return state.sealing || state.revealing;
}

export function onCard(card, event) {
  if (busy()) return;
  const info = crewInfo(handCard(card).crew);
  let target = `[data-card="${card}"]`;
  state.note = null;
  if (state.plan.has(card)) {
    const vault = state.plan.get(card);
    state.plan.delete(card);
    state.selected = null;
    say(`${info.name} taken back from ${vaultName(vault)}. Energy left ${energyLeft()}.`);
  } else if (state.selected === card) {
    state.selected = null;
    say(`${info.name} put down.`);
  } else if (state.plan.size >= RULES.max_crew) {
    state.selected = null;
    renderPlanning();
    tell(fill(RULES.text.crew_limit, RULES), true);
    focusNow(target);
    return;
  } else if (info.cost > energyLeft()) {
    state.selected = null;
    renderPlanning();
    tell(`${info.name} needs ${info.cost} Energy; you have ${Math.max(energyLeft(), 0)} left.`, true);
    focusNow(target);
    return;
  } else {
    state.selected = card;
    sound("pick");
    say(`${info.name} picked. Now choose a vault.`);
    const first = state.heist.vaults.find((v) => !v.closed);
    if (first && fromKeyboard(event)) target = `[data-vault="${first.slug}"]`;
    tour.did("card");
  }
  renderPlanning();
  focusNow(target);
}

export function onVault(vault, event) {
  if (busy()) return;
  state.note = null;
  if (vault.closed) {
    tell(fill(RULES.text.vault_closed, { vault: vault.name }), true);
    return;
  }
  if (state.selected === null) {
    tell(`Pick a crew card first, then ${vault.name}.`);
    return;
  }
  const card = state.selected;
  const name = crewInfo(handCard(card).crew).name;
  state.plan.set(card, vault.slug);
  state.selected = null;
  sound("send");
  say(`${name} goes to ${vault.name}. Energy left ${energyLeft()}.`);
  renderPlanning();
  tour.did("vault");
  if (fromKeyboard(event)) focusNow(state.plan.size >= RULES.max_crew ? "#b-seal" : `[data-card="${card}"]`);
  else focusNow(`[data-vault="${vault.slug}"]`);
}

export function onBoost() {
  if (busy()) return;
  const blocked = boostBlock();
  if (blocked) {
    tell(blocked, true);
    return;
  }
  state.boost = !state.boost;
  state.note = null;
  sound("pick");
  say(state.boost ? fill(RULES.text.boost_on, RULES) : "Boost off.");
  renderControls();
  requestPreview();
  tour.did("boost");
}

export function onSeal() {
  if (busy()) return;
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
  const body = {
    night: heist.night,
    crew: [...state.plan].map(([card, vault]) => ({ card, vault })),
    boost: state.boost,
  };
  state.seenCommitment = heist.phase === "planning" ? heist.rival.commitment : null;
  state.sealing = true;
  stopPolling();
  renderControls();
  sound("seal");
  say(`Plan sealed for night ${heist.night}. Revealing…`);
  tour.did("seal");
  try {
    const answer = await sealOnceRivalHasSealed(body);
    state.sealing = false;
    await showReveal(answer.result, heist, answer.heist, { onNext: nextNight });
  } catch (err) {
    state.sealing = false;
    state.revealing = false;
    if (err.code === "wrong_night" || err.code === "heist_finished") {
      say(`${err.message} Loading the heist again.`);
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
    if (fresh.night !== state.heist.night || fresh.status !== "active") {
      throw new ApiError(409, "wrong_night", "The heist has moved on.");
    }
    if (fresh.phase === "planning" && fresh.rival.commitment) {
      state.heist.phase = fresh.phase;
      state.heist.rival.commitment = fresh.rival.commitment;
      state.seenCommitment = fresh.rival.commitment;
      renderSides();
      return;
    }
    delay = Math.min(delay * 1.5, 3000);
  }
  throw new ApiError(409, "rival_not_sealed", "The rival is slow to seal its plan tonight. Try sealing again in a moment.");
}

async function sealOnceRivalHasSealed(body) {
  for (let attempt = 0; attempt < 3; attempt += 1) {
    try {
      return await api(`${HEIST_URL}seal/`, { body });
    } catch (err) {
      if (err.code !== "rival_not_sealed") throw err;
    }
    state.heist.phase = "rival_planning";
    renderControls();
    say("Waiting for the rival to seal its plan…");
    await waitForRivalCommitment();
  }
  return api(`${HEIST_URL}seal/`, { body });
}

export function nextNight() {
  $("b-reveal").hidden = true;
  $("b-plan").hidden = false;
  renderPlanning();
  say(`Night ${state.heist.night} of ${state.heist.nights}. Tonight's loot: ${state.heist.vaults.map((v) => `${v.name} ${v.closed ? "closed" : v.loot}`).join(", ")}.`);
  window.scrollTo(0, 0);
  $("b-title").focus({ preventScroll: true });
  pollRival();
}

// --- keyboard shortcuts ---------------------------------------------------------------------

export function onKey(event) {
  if (event.defaultPrevented || event.altKey || event.ctrlKey || event.metaKey) return;
  if (root.querySelector("dialog[open]")) return;
  const target = event.target;
  if (target.closest?.("input, select, textarea, summary, a, dialog")) return;
  if (event.key === "Escape" && state.selected !== null) {
    state.selected = null;
    say("Card put down.");
    renderPlanning();
    return;
  }
  if (busy() || $("b-plan").hidden) return;
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
  if (event.key === " " && (!target.closest("button") || target.closest(".card, .vault, #b-seal"))) {
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
        renderSides();
        renderControls();
        if (fresh.phase === "planning") {
          say("The rival has locked in its plan.");
          return;
        }
      }
    } catch {
      /* the next seal reports any real problem */
    }
    pollRival(Math.min(delay * 1.5, 4000), tries + 1);
  }, delay);
}

export async function load() {
  try {
    state.heist = await api(HEIST_URL);
  } catch (err) {
    $("b-plan").hidden = true;
    $("b-live").textContent = err.message;
    $("b-note").textContent = err.message;
    return;
  }
  if (state.heist.status !== "active") {
    window.location.assign(root.dataset.resultUrl);
    return;
  }
  resetPlan();
  state.revealing = false;
  $("b-reveal").hidden = true;
  $("b-plan").hidden = false;
  renderPlanning();
  pollRival();
  if (state.heist.night === 1 && !(state.heist.history ?? []).length) tour.start();
}

/** Cards and vaults are drawn again at every change: one delegated listener each. */
export function setupPlanning() {
  $("b-hand").addEventListener("click", (event) => {
    const button = event.target.closest("[data-card]");
    if (button) onCard(Number(button.dataset.card), event);
  });
  $("b-vaults").addEventListener("click", (event) => {
    const button = event.target.closest("[data-vault]");
    const vault = button && state.heist?.vaults.find((v) => v.slug === button.dataset.vault);
    if (vault) onVault(vault, event);
  });
  $("b-boost").addEventListener("click", onBoost);
  $("b-seal").addEventListener("click", onSeal);
  document.addEventListener("keydown", onKey);
}

export function keepPlanning() {
  tell("Still planning: tap a crew card, then a vault.");
}
