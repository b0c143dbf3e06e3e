// The dock while planning: the note line, the hand (Cost and Power labelled on every card), the
// Energy left, Boost and Seal in the thumb zone, and tomorrow's Energy from the server's preview.

import { RULES, HEIST_URL, crewInfo, t, vaultName } from "./page.js";
import { $, h, art, say, signed, term } from "./dom.js";
import { api } from "./api.js";
import { state, handCard, energyLeft, boostBlock, planProblem } from "./state.js";
import { drawPlanVaults, drawPowers } from "./vaults.js";
import { renderSides, renderTop } from "./view.js";
import { tour } from "./guide.js";

/** A message for the note line (and screen readers) until the plan changes. */
export function tell(text, bad = false) {
  state.note = { text, bad };
  say(text);
  renderNote();
}

// --- the server's preview of the plan ---------------------------------------------------------

function planQuery() {
  const crew = [...state.plan].map(([card, vault]) => `${card}:${vault}`).join(",");
  return `night=${state.heist.night}&crew=${encodeURIComponent(crew)}&boost=${state.boost}`;
}

export function requestPreview() {
  window.clearTimeout(state.previewTimer);
  if (!state.heist || state.heist.status !== "active" || planProblem()) {
    state.preview = null;
    state.previewKey = "";
    return;
  }
  const key = planQuery();
  if (key === state.previewKey && state.preview) return;
  state.previewKey = key;
  state.previewTimer = window.setTimeout(async () => {
    try {
      const answer = await api(`${HEIST_URL}preview/?${key}`);
      if (key !== state.previewKey || state.revealing) return;
      state.preview = answer;
      drawPowers();
      renderTomorrow();
      renderNote();
      tour.refresh();
    } catch {
      /* the preview is a help: the seal reports any real problem */
    }
  }, 60);
}

// --- the hand ------------------------------------------------------------------------------------

function stat(kind, word, value) {
  return h("span", { class: `stat stat-${kind}` }, h("b", { class: kind === "cost" ? "cost" : "power" }, value), h("small", {}, word));
}

function renderHand() {
  const box = $("b-hand");
  box.replaceChildren();
  const left = energyLeft();
  const full = state.plan.size >= RULES.max_crew;
  state.heist.you.hand.forEach(({ card, crew }, index) => {
    const info = crewInfo(crew);
    const where = state.plan.get(card);
    const id = `card-${card}`;
    const short = !where && info.cost > left;
    const why = where ? t("sent_to", { vault: vaultName(where) }) : short ? t("needs", { cost: info.cost, left: Math.max(left, 0) }) : full ? t("crew_full") : "";
    box.append(
      h(
        "li",
        {},
        h(
          "button",
          {
            type: "button",
            class: `card${where ? " sent" : ""}${short ? " unaffordable" : ""}${!where && full && !short ? " resting" : ""}${info.when ? " conditional" : ""}`,
            "data-card": card,
            "data-crew": crew,
            "aria-pressed": state.selected === card ? "true" : "false",
            "data-picked": t("picked_badge"),
            "aria-labelledby": `${id}-name`,
            "aria-describedby": `${id}-stats ${id}-text ${id}-where`,
            "aria-keyshortcuts": index < 9 ? String(index + 1) : null,
          },
          h("span", { class: "card-stats", id: `${id}-stats` }, stat("cost", t("cost"), info.cost), art("crew", crew, "emblem"), stat("power", t("power"), info.power)),
          h("span", { class: "card-name", id: `${id}-name` }, info.name),
          h("span", { class: "card-text", id: `${id}-text` }, info.text),
          h("span", { class: `card-where${short ? " why" : ""}`, id: `${id}-where` }, why),
        ),
      ),
    );
  });
  if (!state.heist.you.hand.length) box.append(h("li", { class: "muted" }, t("no_cards")));
}

// --- the note line, tomorrow and the controls ------------------------------------------------------

function conditionalNote() {
  // A sent crew whose bonus depends on the reveal: say what it depends on, once it is sent.
  const c = state.preview?.vaults.flatMap((v) => v.conditional)[0];
  return c ? t("maybe_note", { name: crewInfo(c.crew).name, amount: signed(c.amount), reason: c.reason }) : null;
}

export function renderNote() {
  const problem = planProblem();
  const note = $("b-note");
  let text;
  let bad = Boolean(problem);
  if (problem) text = problem;
  else if (state.note) ({ text, bad } = state.note);
  else if (state.hover) text = state.hover;
  else if (state.selected !== null) text = t("note_pick_vault", { name: crewInfo(handCard(state.selected).crew).name });
  else if (state.plan.size === 0) text = t("note_start");
  else text = conditionalNote() ?? (state.plan.size >= RULES.max_crew ? t("note_full") : t("note_more"));
  note.classList.toggle("bad", bad);
  note.classList.toggle("hover", !problem && !state.note && Boolean(state.hover));
  note.textContent = text;
}

function renderTomorrow() {
  const box = $("b-tomorrow");
  const p = state.preview;
  if (state.heist.night >= state.heist.nights) {
    box.textContent = t("last_night");
    return;
  }
  if (!p) {
    box.textContent = "";
    return;
  }
  let text = t("tomorrow", p.tomorrow);
  if (p.other_boost) text += t(p.boost ? "tomorrow_without" : "tomorrow_with", p.other_boost);
  box.textContent = `${text}.`;
}

export function renderControls() {
  const heist = state.heist;
  const left = energyLeft();
  $("b-energy-left").replaceChildren(
    term("energy", t("energy_left")),
    " ",
    h("b", {}, Math.max(left, 0)),
    t("of_energy", { energy: heist.you.energy }),
    h("span", { class: "crew-count" }, ` · ${t("crew_count", { n: state.plan.size })}`),
  );
  $("b-energy-left").classList.toggle("bad", left < 0);
  renderNote();
  renderTomorrow();

  const boost = $("b-boost");
  const blocked = boostBlock();
  if (blocked && state.boost) state.boost = false;
  boost.setAttribute("aria-checked", String(state.boost));
  boost.setAttribute("aria-disabled", blocked ? "true" : "false");
  boost.setAttribute("aria-keyshortcuts", "B");
  boost.querySelector(".state").textContent = state.boost ? t("on") : blocked ? t("locked") : t("off");
  $("b-boost-why").textContent = blocked ?? t("boost_help");

  const seal = $("b-seal");
  const waiting = heist.phase !== "planning";
  seal.setAttribute("aria-disabled", planProblem() || state.sealing ? "true" : "false");
  seal.setAttribute("aria-busy", state.sealing ? "true" : "false");
  seal.setAttribute("aria-keyshortcuts", "Space");
  seal.classList.toggle("quiet", state.plan.size === 0 && !state.sealing);
  seal.textContent = state.sealing ? (waiting ? t("sealing_wait") : t("sealing")) : t("seal", { night: heist.night });
}

/** Pointing at a card or a vault shows its details in the note line (null: the usual note). */
export function hoverNote(text) {
  if (state.hover === text || state.mode !== "plan") return;
  state.hover = text;
  renderNote();
}

/** The whole night's board for planning. */
export function renderPlanning() {
  state.mode = "plan";
  state.shown = null;
  $("b-plan").hidden = false;
  $("b-reveal").hidden = true;
  renderTop();
  renderSides();
  drawPlanVaults();
  renderHand();
  renderControls();
  requestPreview();
  tour.refresh();
}
