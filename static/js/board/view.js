// Drawing the night's board for planning: the top line, both sides, the vaults, the hand, the
// plan bar and the controls, with the server's preview of the plan written into the vaults.

import { RULES, HEIST_URL, root, crewInfo, vaultName } from "./page.js";
import { $, h, art, cardBack, fill, say, signed } from "./dom.js";
import { api } from "./api.js";
import { state, handCard, planCost, boostBlock, planProblem, lastWinners } from "./state.js";
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
      renderVaultPowers();
      renderTomorrow();
      tour.refresh();
    } catch {
      /* the preview is a help: the seal reports any real problem */
    }
  }, 60);
}

// --- the top line and the sides ------------------------------------------------------------------

export function renderTop(heist = state.heist) {
  $("b-night").textContent = String(heist.night);
  $("b-nights-total").textContent = String(heist.nights);
  const list = $("b-nights");
  list.replaceChildren();
  for (let n = 1; n <= heist.nights; n += 1) {
    const done = n < heist.night || heist.status !== "active";
    const now = n === heist.night && heist.status === "active";
    list.append(
      h(
        "li",
        { class: done ? "done" : now ? "now" : null, "aria-current": now ? "step" : null },
        done ? "✓" : String(n),
        h("span", { class: "visually-hidden" }, done ? ` night ${n} played` : now ? " tonight" : ""),
      ),
    );
  }
  $("b-score-you").textContent = String(heist.you.score);
  $("b-score-rival").textContent = String(heist.rival.score);
  const rival = RULES.rivals?.[heist.rival.slug];
  const level = RULES.difficulties?.[heist.rival.difficulty];
  $("b-meta").replaceChildren(
    ...[
      h("span", { class: "level" }, level ? level.name : heist.rival.difficulty),
      rival ? h("span", { class: "style" }, ` · ${rival.tagline}`) : null,
      heist.encounter ? h("span", {}, ` · Encounter: ${heist.encounter.name}`) : null,
    ].filter(Boolean),
  );
  if (level) $("b-meta").title = level.description;
  root.dataset.boardTheme = heist.you.cosmetics?.board_theme || "default";
}

function heatLine(side, who) {
  const locked = side.heat >= RULES.boost_lock_heat;
  return h(
    "div",
    { class: "line heat" },
    h("span", { "aria-hidden": "true" }, "Heat"),
    h("meter", {
      min: 0,
      max: RULES.heat_max,
      low: 3,
      high: 5,
      optimum: 0,
      value: side.heat,
      "aria-label": `${who} Heat`,
      "aria-valuetext": `${side.heat} of ${RULES.heat_max}${locked ? ", Boost locked" : ""}`,
    }),
    h("b", {}, `${side.heat}/${RULES.heat_max}`),
    locked ? h("span", { class: "lock" }, "🔒", h("span", { class: "visually-hidden" }, "Boost locked")) : null,
  );
}

export function renderSides(heist = state.heist) {
  const { you, rival, phase } = heist;
  const finished = heist.status !== "active";
  const sealed = !finished && phase === "planning" && rival.commitment;
  const yourBack = you.cosmetics?.card_back;
  const rivalBack = rival.cosmetics?.card_back;
  $("b-you").replaceChildren(
    h("h2", {}, h("span", { class: "you-text side-name" }, "▲ You"), h("span", { class: "side-status" }, `Score ${you.score}`)),
    heatLine(you, "Your"),
    h(
      "p",
      { class: "side-extra" },
      h("span", { class: "energy" }, "Energy ", h("b", {}, you.energy)),
      h("span", { class: "pile" }, cardBack(yourBack, "mini"), h("span", {}, `Deck ${you.deck_count}`)),
    ),
  );
  const hand = h("span", { class: "rival-hand", role: "img", "aria-label": `Rival's hand: ${rival.hand_count} cards, face down` });
  for (let i = 0; i < rival.hand_count; i += 1) hand.append(cardBack(rivalBack, "mini"));
  $("b-rival").replaceChildren(
    h(
      "h2",
      {},
      h("span", { class: "rival-text side-name" }, `● ${rival.name}`),
      h(
        "span",
        { class: `side-status rival-status${sealed || finished ? " sealed" : ""}`, id: "b-rival-status" },
        finished ? "✓ Heist over" : sealed ? "✓ Locked" : "⋯ Planning",
        h("span", { class: "visually-hidden" }, finished ? "" : sealed ? ": the rival has locked in its plan" : " its move"),
      ),
    ),
    heatLine(rival, "Rival"),
    h(
      "p",
      { class: "side-extra" },
      h("span", { class: "energy" }, "Energy ", h("b", {}, rival.energy)),
      hand,
      h(
        "button",
        { type: "button", class: "pile-button", id: "b-piles-open", "aria-haspopup": "dialog" },
        cardBack(rivalBack, "mini"),
        h("span", { "aria-hidden": "true" }, rival.deck_count),
        h("span", { class: "visually-hidden" }, `Rival's deck (${rival.deck_count} left) and discard`),
      ),
    ),
  );
}

// --- the vaults and the hand -----------------------------------------------------------------------

function vaultPower(slug) {
  const shown = state.preview?.vaults.find((v) => v.slug === slug);
  if (!shown || !state.plan.size) return null;
  const mine = [...state.plan.values()].includes(slug);
  if (!mine) return null;
  return shown;
}

function powerParts(power) {
  if (!power) return [];
  return [
    h("span", { class: "you-power" }, "Power ", h("b", {}, power.power)),
    ...power.conditional.map((c) =>
      h("span", { class: "maybe", title: `${crewInfo(c.crew).name}: only if ${c.reason}` }, ` ${signed(c.amount)}? if ${c.reason}`),
    ),
  ];
}

/** The preview's powers, written into the vaults in place (no focus or node is lost). */
function renderVaultPowers() {
  for (const vault of state.heist.vaults) {
    const node = document.getElementById(`vault-${vault.slug}-power`);
    if (node) node.replaceChildren(...powerParts(vaultPower(vault.slug)));
  }
}

function renderVaults() {
  const box = $("b-vaults");
  box.replaceChildren();
  const winners = lastWinners();
  for (const vault of state.heist.vaults) {
    const mine = [...state.plan].filter(([, v]) => v === vault.slug).map(([card]) => crewInfo(handCard(card).crew).name);
    const id = `vault-${vault.slug}`;
    const ready = state.selected !== null && !vault.closed;
    const won = winners[vault.slug];
    box.append(
      h(
        "button",
        {
          type: "button",
          class: `vault${vault.closed ? " closed" : ""}${ready ? " ready" : ""}${mine.length ? " has-crew" : ""}`,
          "data-vault": vault.slug,
          "aria-labelledby": `${id}-name`,
          "aria-describedby": `${id}-loot ${id}-last ${id}-power ${id}-crew`,
          "aria-disabled": vault.closed ? "true" : null,
        },
        art("vault", vault.slug, "vault-art"),
        h("span", { class: "vault-name", id: `${id}-name` }, vault.name),
        h("span", { class: "loot", id: `${id}-loot` }, vault.closed ? "Closed" : `Loot ${vault.loot}`),
        h(
          "span",
          { class: `last-night${won ? ` won-${won}` : ""}`, id: `${id}-last` },
          won === "you" ? "Last night: yours" : won === "rival" ? "Last night: rival's" : "",
        ),
        h("span", { class: "vault-power", id: `${id}-power` }, powerParts(vaultPower(vault.slug))),
        h(
          "ul",
          { class: "vault-crew", id: `${id}-crew`, "aria-label": mine.length ? `Your crew here: ${mine.join(", ")}` : "No crew of yours here" },
          mine.map((name) => h("li", {}, name)),
        ),
      ),
    );
  }
}

function renderHand() {
  const box = $("b-hand");
  box.replaceChildren();
  const left = state.heist.you.energy - planCost();
  const full = state.plan.size >= RULES.max_crew;
  state.heist.you.hand.forEach(({ card, crew }, index) => {
    const info = crewInfo(crew);
    const where = state.plan.get(card);
    const id = `card-${card}`;
    const short = !where && info.cost > left;
    const why = where ? `Sent to ${vaultName(where)}` : short ? `Needs ${info.cost} Energy, ${Math.max(left, 0)} left` : full ? "Crew full tonight" : "";
    box.append(
      h(
        "li",
        {},
        h(
          "button",
          {
            type: "button",
            class: `card${where ? " sent" : ""}${short ? " unaffordable" : ""}${!where && full && !short ? " resting" : ""}`,
            "data-card": card,
            "data-crew": crew,
            "aria-pressed": state.selected === card ? "true" : "false",
            "aria-labelledby": `${id}-name`,
            "aria-describedby": `${id}-stats ${id}-text ${id}-where`,
            "aria-keyshortcuts": index < 9 ? String(index + 1) : null,
          },
          h(
            "span",
            { class: "card-stats", id: `${id}-stats` },
            h("span", { class: "cost" }, h("span", { class: "visually-hidden" }, "Cost "), info.cost),
            art("crew", crew, "emblem"),
            h("span", { class: "power" }, h("span", { class: "visually-hidden" }, ", Power "), info.power),
          ),
          h("span", { class: "card-name", id: `${id}-name` }, info.name),
          h("span", { class: "card-text", id: `${id}-text` }, info.text),
          h("span", { class: `card-where${short ? " why" : ""}`, id: `${id}-where` }, why),
        ),
      ),
    );
  });
  if (!state.heist.you.hand.length) box.append(h("li", { class: "muted" }, "No cards in hand."));
}

// --- the plan bar and the controls ------------------------------------------------------------

export function renderNote() {
  const problem = planProblem();
  const note = $("b-note");
  let text;
  let bad = Boolean(problem);
  if (problem) text = problem;
  else if (state.note) ({ text, bad } = state.note);
  else if (state.selected !== null) text = `Now tap a vault for ${crewInfo(handCard(state.selected).crew).name}.`;
  else if (state.plan.size === 0) text = "Tap a crew card, then a vault.";
  else if (state.plan.size >= RULES.max_crew) text = "Crew full: seal, or tap a sent card to take it back.";
  else text = "Send another crew, or seal. Tap a sent card to take it back.";
  note.classList.toggle("bad", bad);
  note.textContent = text;
}

function renderTomorrow() {
  const box = $("b-tomorrow");
  const p = state.preview;
  if (!p || state.heist.night >= state.heist.nights) {
    box.textContent = state.heist.night >= state.heist.nights ? "Last night" : "";
    return;
  }
  let text = `Tomorrow: Energy ${p.tomorrow.energy} (Heat ${p.tomorrow.heat})`;
  if (p.other_boost) text += `; ${p.boost ? "without" : "with"} Boost: Energy ${p.other_boost.energy} (Heat ${p.other_boost.heat})`;
  box.textContent = `${text}.`;
}

export function renderControls() {
  const heist = state.heist;
  const left = heist.you.energy - planCost();
  $("b-energy-left").replaceChildren(
    "Energy left ",
    h("b", {}, Math.max(left, 0)),
    ` of ${heist.you.energy} · Crew ${state.plan.size}/${RULES.max_crew}`,
  );
  renderNote();
  renderTomorrow();

  const boost = $("b-boost");
  const blocked = boostBlock();
  if (blocked && state.boost) state.boost = false;
  boost.setAttribute("aria-checked", String(state.boost));
  boost.setAttribute("aria-disabled", blocked ? "true" : "false");
  boost.setAttribute("aria-keyshortcuts", "B");
  boost.querySelector(".state").textContent = state.boost ? "On" : blocked ? "Locked" : "Off";
  $("b-boost-why").textContent = blocked ?? fill(RULES.text.boost_help, RULES);

  const seal = $("b-seal");
  const waiting = heist.phase !== "planning";
  seal.setAttribute("aria-disabled", planProblem() || state.sealing ? "true" : "false");
  seal.setAttribute("aria-busy", state.sealing ? "true" : "false");
  seal.setAttribute("aria-keyshortcuts", "Space");
  seal.classList.toggle("quiet", state.plan.size === 0 && !state.sealing);
  seal.textContent = state.sealing ? (waiting ? "Sealing… waiting for the rival" : "Sealing…") : `Seal night ${heist.night}`;
}

export function renderPlanning() {
  renderTop();
  renderSides();
  renderVaults();
  renderHand();
  renderControls();
  requestPreview();
  tour.refresh();
}
