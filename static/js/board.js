// The heist board: the one ES module that plays a heist through the JSON API (DESIGN.md §5).
//
// Flow: GET the heist view -> plan (tap a card, tap a vault; tap the card again to take it back)
// -> POST seal -> reveal the night (both plans together, power breakdowns, the rival's
// commitment checked here with SubtleCrypto) -> next night, or the result page.
// The page holds only what the API shows the player: the rival's hand is a count, never cards.

const root = document.getElementById("board");

// --- small helpers ------------------------------------------------------------------------

/** Build an element: h("p", {class: "x", "aria-live": "polite"}, "text", child, ...). */
function h(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "on") for (const [ev, fn] of Object.entries(value)) node.addEventListener(ev, fn);
    else node.setAttribute(key, value === true ? "" : String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

const $ = (id) => document.getElementById(id);
/** Fill one of the server's templates (game/engine/text.py): fill("Send at most {max_crew} crew.", RULES). */
const fill = (template, values) => template.replace(/\{(\w+)\}/g, (m, key) => String(values[key] ?? m));
const signed = (n) => (n >= 0 ? `+${n}` : `−${-n}`);

class ApiError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

async function api(path, options = {}) {
  const init = { credentials: "same-origin", headers: { Accept: "application/json" }, ...options };
  if (options.body !== undefined) {
    init.method = "POST";
    init.headers["Content-Type"] = "application/json";
    init.headers["X-CSRFToken"] = root.dataset.csrf;
    init.body = JSON.stringify(options.body);
  }
  let response;
  try {
    response = await fetch(path, init);
  } catch {
    throw new ApiError(0, "network", "The connection dropped. Check your network and try again.");
  }
  const data = await response.json().catch(() => null);
  if (!response.ok) {
    const err = data?.error ?? {};
    throw new ApiError(response.status, err.code ?? "error", err.message ?? "Something went wrong.");
  }
  return data;
}

// --- the provably fair check (DESIGN.md §5 "Commitments") -----------------------------------

/** The canonical text of a plan, byte for byte as the server's json.dumps(sort_keys=True). */
export function canonicalPlan(crew, boost) {
  const pairs = crew.map((c) => [String(c.crew), String(c.vault)]);
  pairs.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0));
  // Keys in sorted order ("boost" < "crew"); JSON.stringify adds no spaces, like separators=(",", ":").
  return JSON.stringify({ boost: Boolean(boost), crew: pairs });
}

export async function sha256Hex(text) {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

// --- state ----------------------------------------------------------------------------------

const RULES = root ? JSON.parse(root.dataset.rules) : null;
const HEIST_URL = root ? `${root.dataset.api}heists/${root.dataset.heist}/` : "";

const state = {
  heist: null,
  plan: new Map(), // card id -> vault slug
  boost: false,
  selected: null, // card id picked and waiting for a vault
  seenCommitment: null, // the rival's commitment as shown before we sealed
  sealing: false,
  polling: null,
};

const crewInfo = (slug) => RULES.crew[slug] ?? { name: slug, cost: 0, power: 0, text: "" };
const vaultName = (slug) => RULES.vaults.find((v) => v.slug === slug)?.name ?? slug;
const handCard = (card) => state.heist.you.hand.find((c) => c.card === card);

function say(text) {
  // Polite live region: what just happened, for screen readers and as a visible line.
  const live = $("b-live");
  live.textContent = "";
  window.setTimeout(() => {
    live.textContent = text;
  }, 30);
}

// --- plan checks (the engine's refusals, heard before sealing; words from RULES.text) -------

function planCost() {
  let cost = 0;
  for (const card of state.plan.keys()) cost += crewInfo(handCard(card).crew).cost;
  return cost;
}

function boostBlock() {
  const you = state.heist.you;
  if (you.heat >= RULES.boost_lock_heat) return fill(RULES.text.boost_locked, { heat: you.heat });
  if (state.plan.size === 0) return RULES.text.boost_without_crew;
  return null;
}

function planProblem() {
  const left = state.heist.you.energy - planCost();
  if (left < 0) return fill(RULES.text.over_energy, { over: -left });
  if (state.plan.size > RULES.max_crew) return fill(RULES.text.too_many_crew, RULES);
  if (state.boost && boostBlock()) return boostBlock();
  return null;
}

// --- rendering: the night's board -------------------------------------------------------------

function renderTop() {
  const heist = state.heist;
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
  const enc = $("b-encounter");
  enc.hidden = !heist.encounter;
  if (heist.encounter) enc.textContent = `Encounter: ${heist.encounter.name}`;
}

function energyTag(side) {
  return h("span", { class: "energy" }, "Energy ", h("b", {}, side.energy));
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

function renderSides() {
  const { you, rival, phase } = state.heist;
  const sealed = phase === "planning" && rival.commitment;
  $("b-you").replaceChildren(
    h("h2", {}, h("span", { class: "you-text side-name" }, "▲ You")),
    heatLine(you, "Your"),
    h("p", { class: "side-extra" }, energyTag(you), ` · Deck ${you.deck_count}`),
  );
  $("b-rival").replaceChildren(
    h("h2", {}, h("span", { class: "rival-text side-name" }, `● ${rival.name}`)),
    heatLine(rival, "Rival"),
    h("p", { class: "side-extra" }, energyTag(rival), ` · Hand ${rival.hand_count}`),
    h(
      "p",
      { class: `side-extra rival-status${sealed ? " sealed" : ""}`, id: "b-rival-status", title: sealed ? rival.commitment : null },
      sealed ? `✓ Sealed ${rival.commitment.slice(0, 10)}…` : "⋯ Planning its move",
      sealed ? h("span", { class: "visually-hidden" }, `, commitment ${rival.commitment}`) : null,
    ),
  );
}

function renderVaults() {
  const box = $("b-vaults");
  box.replaceChildren();
  for (const vault of state.heist.vaults) {
    const mine = [...state.plan].filter(([, v]) => v === vault.slug).map(([card]) => crewInfo(handCard(card).crew).name);
    const id = `vault-${vault.slug}`;
    const ready = state.selected !== null && !vault.closed;
    box.append(
      h(
        "button",
        {
          type: "button",
          class: `vault${vault.closed ? " closed" : ""}${ready ? " ready" : ""}`,
          "data-vault": vault.slug,
          "aria-labelledby": `${id}-name`,
          "aria-describedby": `${id}-loot ${id}-crew`,
          "aria-disabled": vault.closed ? "true" : null,
          on: { click: (event) => onVault(vault, event) },
        },
        h("span", { class: "vault-name", id: `${id}-name` }, vault.name),
        h("span", { class: "loot", id: `${id}-loot` }, vault.closed ? "Closed tonight" : `Loot ${vault.loot}`),
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
  for (const { card, crew } of state.heist.you.hand) {
    const info = crewInfo(crew);
    const where = state.plan.get(card);
    const id = `card-${card}`;
    box.append(
      h(
        "li",
        {},
        h(
          "button",
          {
            type: "button",
            class: `card${where ? " sent" : ""}`,
            "data-card": card,
            "data-crew": crew,
            "aria-pressed": state.selected === card ? "true" : "false",
            "aria-labelledby": `${id}-name`,
            "aria-describedby": `${id}-stats ${id}-text ${id}-where`,
            on: { click: (event) => onCard(card, event) },
          },
          h("span", { class: "card-name", id: `${id}-name` }, info.name),
          h("span", { class: "card-stats", id: `${id}-stats` }, "Cost ", h("b", {}, info.cost), " · Power ", h("b", {}, info.power)),
          h("span", { class: "card-text", id: `${id}-text` }, info.text),
          h("span", { class: "card-where", id: `${id}-where` }, where ? `Sent to ${vaultName(where)}` : ""),
        ),
      ),
    );
  }
  if (!state.heist.you.hand.length) box.append(h("li", { class: "muted" }, "No cards in hand."));
}

function renderControls() {
  const heist = state.heist;
  const left = heist.you.energy - planCost();
  const energyEl = $("b-energy-left");
  energyEl.textContent = `Energy left ${left} of ${heist.you.energy} · Crew ${state.plan.size}/${RULES.max_crew}`;
  energyEl.classList.toggle("bad", left < 0);

  const problem = planProblem();
  const note = $("b-note");
  note.classList.toggle("bad", Boolean(problem));
  if (problem) note.textContent = problem;
  else if (state.selected !== null) note.textContent = `Now tap a vault for ${crewInfo(handCard(state.selected).crew).name}.`;
  else if (state.plan.size === 0) note.textContent = "Tap a crew card, then a vault. Or seal with no crew to lie low.";
  else note.textContent = "Ready to seal. Tap a sent card again to take it back.";

  const boost = $("b-boost");
  const blocked = boostBlock();
  if (blocked && state.boost) state.boost = false;
  boost.setAttribute("aria-checked", String(state.boost));
  boost.setAttribute("aria-disabled", blocked ? "true" : "false");
  boost.querySelector(".state").textContent = state.boost ? "On" : blocked ? "Unavailable" : "Off";
  $("b-boost-why").textContent = blocked ?? fill(RULES.text.boost_help, RULES);

  const seal = $("b-seal");
  const waiting = heist.phase !== "planning";
  seal.setAttribute("aria-disabled", problem || state.sealing ? "true" : "false");
  seal.setAttribute("aria-busy", state.sealing ? "true" : "false");
  seal.textContent = state.sealing
    ? waiting
      ? "Sealing… waiting for the rival"
      : "Sealing…"
    : `Seal night ${heist.night}`;
}

function renderPlanning() {
  renderTop();
  renderSides();
  renderVaults();
  renderHand();
  renderControls();
}

// --- planning interactions --------------------------------------------------------------------

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

function onCard(card, event) {
  if (state.sealing) return;
  const name = crewInfo(handCard(card).crew).name;
  let target = `[data-card="${card}"]`;
  if (state.plan.has(card)) {
    const vault = state.plan.get(card);
    state.plan.delete(card);
    state.selected = null;
    say(`${name} taken back from ${vaultName(vault)}. Energy left ${state.heist.you.energy - planCost()}.`);
  } else if (state.selected === card) {
    state.selected = null;
    say(`${name} put down.`);
  } else {
    state.selected = card;
    say(`${name} picked. Now choose a vault.`);
    const first = state.heist.vaults.find((v) => !v.closed);
    if (first && fromKeyboard(event)) target = `[data-vault="${first.slug}"]`;
  }
  renderPlanning();
  focusNow(target);
}

function onVault(vault, event) {
  if (state.sealing) return;
  if (vault.closed) {
    say(fill(RULES.text.vault_closed, { vault: vault.name }));
    return;
  }
  if (state.selected === null) {
    say(`Pick a crew card first, then ${vault.name}.`);
    return;
  }
  const card = state.selected;
  const name = crewInfo(handCard(card).crew).name;
  if (!state.plan.has(card) && state.plan.size >= RULES.max_crew) {
    say(fill(RULES.text.crew_limit, RULES));
    return;
  }
  state.plan.set(card, vault.slug);
  state.selected = null;
  const left = state.heist.you.energy - planCost();
  say(`${name} goes to ${vault.name}. Energy left ${left}.${left < 0 ? " That is over your Energy." : ""}`);
  renderPlanning();
  if (fromKeyboard(event)) focusNow(state.plan.size >= RULES.max_crew ? "#b-seal" : `[data-card="${card}"]`);
  else focusNow(`[data-vault="${vault.slug}"]`);
}

function onBoost() {
  if (state.sealing) return;
  const blocked = boostBlock();
  if (blocked) {
    say(blocked);
    return;
  }
  state.boost = !state.boost;
  say(state.boost ? fill(RULES.text.boost_on, RULES) : "Boost off.");
  renderControls();
}

async function onSeal() {
  if (state.sealing) return;
  const problem = planProblem();
  if (problem) {
    say(problem);
    return;
  }
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
  say(`Plan sealed for night ${heist.night}. Revealing…`);
  try {
    const answer = await sealOnceRivalHasSealed(body);
    state.sealing = false;
    showReveal(answer.result, heist, answer.heist);
  } catch (err) {
    state.sealing = false;
    if (err.code === "wrong_night" || err.code === "heist_finished") {
      say(`${err.message} Loading the heist again.`);
      await load();
      return;
    }
    renderControls();
    const note = $("b-note");
    note.textContent = err.message;
    note.classList.add("bad");
    say(err.message);
  }
}

// The server refuses a seal (409 rival_not_sealed) until the rival has sealed: the player must
// have seen its commitment first, and no request ever waits for the worker. So the board reads
// the heist (which seals an overdue rival night on the server) until the commitment shows, keeps
// it as the one shown before sealing, and sends the same plan again.
const RIVAL_WAIT_READS = 30;

const pause = (ms) => new Promise((resolve) => window.setTimeout(resolve, ms));

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

// --- the reveal -------------------------------------------------------------------------------

function breakdown(entry, side) {
  // The engine's own breakdown, as the API sends it; a rival crew's condition in the words the
  // server gives for the rival's side (RULES.rival_reasons).
  return entry.breakdown.map((part) => {
    if (part.kind === "base") return `base ${part.amount}`;
    if (part.kind === "boost") return `Boost ${signed(part.amount)}`;
    const reason = String(part.reason || "");
    const why = side === "rival" ? RULES.rival_reasons[reason] : reason.replace(/^[a-z0-9-]+:\s*/, "");
    return `bonus ${signed(part.amount)} (${why || crewInfo(entry.crew).text})`;
  });
}

function crewList(list, side) {
  if (!list.length) return h("p", { class: "muted small" }, "No crew");
  return h(
    "ul",
    { class: "sidecrew" },
    list.map((entry) =>
      h(
        "li",
        {},
        h("b", {}, crewInfo(entry.crew).name), ` — Power ${entry.power}`,
        h("span", { class: "parts" }, breakdown(entry, side).join(" · ")),
      ),
    ),
  );
}

function winnerText(v) {
  if (v.loot === 0 && v.winner === null) return "= No loot here tonight";
  if (v.winner === "you") return `✓ You take ${v.loot} Loot`;
  if (v.winner === "rival") return `✗ The rival takes ${v.loot} Loot`;
  return "= Tie: nobody takes the Loot";
}

function heatText(who, side) {
  const change = side.heat_end - side.heat_start;
  return `${who} Heat ${side.heat_start} → ${side.heat_end}${side.boost ? " (Boosted)" : ""}${change === 0 ? "" : ` (${signed(change)})`}`;
}

async function verifyCommitment(result, target) {
  const rival = result.rival;
  const claimed = rival.commitment;
  if (!window.crypto?.subtle) {
    target.textContent = "This browser cannot check the commitment here (it needs a secure connection).";
    return;
  }
  try {
    const canonical = canonicalPlan(rival.crew, rival.boost);
    const digest = await sha256Hex(rival.nonce + canonical);
    const shownFirst = state.seenCommitment;
    const ok = digest === claimed && (shownFirst === null || shownFirst === claimed);
    target.classList.add(ok ? "ok" : "bad");
    target.textContent = ok
      ? `✓ Verified: SHA-256 of the rival's nonce and plan is ${digest.slice(0, 16)}…, the commitment it sealed ${shownFirst ? "before you sealed" : "for this night"}.`
      : `✗ Not verified: the rival's revealed plan does not match its commitment (${claimed.slice(0, 16)}… ≠ ${digest.slice(0, 16)}…).`;
    target.dataset.verified = ok ? "true" : "false";
  } catch {
    target.textContent = "The commitment could not be checked in this browser.";
  }
}

function showReveal(result, before, after) {
  state.heist = after;
  state.plan = new Map();
  state.boost = false;
  state.selected = null;
  renderTop();
  renderSides();
  $("b-plan").hidden = true;

  const youCrew = (vault) => result.you.crew.filter((c) => c.vault === vault);
  const rivalCrew = (vault) => result.rival.crew.filter((c) => c.vault === vault);
  const taken = [];
  const cards = result.vaults.map((v) => {
    const yourPower = v.you_power ?? v.player_power ?? 0;
    if (v.winner) taken.push(`${v.winner === "you" ? "You" : "The rival"} took ${vaultName(v.slug)} (${v.loot})`);
    return h(
      "article",
      { class: `rv${v.winner === "you" ? " won-you" : v.winner === "rival" ? " won-rival" : ""}` },
      h("h3", {}, h("span", {}, vaultName(v.slug)), h("span", { class: "loot" }, `Loot ${result.loot[v.slug] ?? v.loot}`)),
      h("p", { class: "small you-text" }, "▲ You"),
      crewList(youCrew(v.slug), "you"),
      h("p", { class: "small rival-text" }, `● ${before.rival.name}`),
      crewList(rivalCrew(v.slug), "rival"),
      h("p", { class: "totals" }, h("span", { class: "you-text" }, `You ${yourPower}`), h("span", { class: "rival-text" }, `Rival ${v.rival_power}`)),
      h("p", { class: "winner" }, winnerText(v)),
    );
  });
  const verify = h("p", { class: "verify", id: "b-verify", "aria-live": "polite" }, "Checking the rival's commitment…");
  const finished = after.status !== "active";
  const next = finished
    ? h("a", { class: "button big", href: root.dataset.resultUrl, id: "b-next" }, "See the result")
    : h("button", { type: "button", class: "button big", id: "b-next", on: { click: nextNight } }, `Next: night ${after.night}`);
  const summary = `${taken.length ? taken.join(". ") : "Nobody took any vault"}. Score: you ${result.score.you}, rival ${result.score.rival}.`;
  const section = $("b-reveal");
  section.replaceChildren(
    h("h2", { id: "b-reveal-title", tabindex: "-1" }, `Night ${result.night} revealed`),
    h("p", { class: "small" }, result.you.boost ? "You Boosted. " : "You stayed quiet. ", result.rival.boost ? "The rival Boosted." : "The rival stayed quiet."),
    h("div", { class: "reveal-vaults" }, cards),
    h("p", { class: "small" }, heatText("Your", result.you), " · ", heatText("Rival", result.rival)),
    h("p", { class: "final-score" }, "Score: ", h("span", { class: "you-text" }, `You ${result.score.you}`), " · ", h("span", { class: "rival-text" }, `Rival ${result.score.rival}`)),
    verify,
    h("div", { class: "actions" }, next),
  );
  section.hidden = false;
  say(`Night ${result.night}: ${summary}`);
  $("b-reveal-title").focus();
  verifyCommitment(result, verify);
}

function nextNight() {
  $("b-reveal").hidden = true;
  $("b-plan").hidden = false;
  renderPlanning();
  say(`Night ${state.heist.night} of ${state.heist.nights}. Tonight's loot: ${state.heist.vaults.map((v) => `${v.name} ${v.closed ? "closed" : v.loot}`).join(", ")}.`);
  $("b-title").focus();
  pollRival();
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
      if (fresh.night === state.heist.night && fresh.status === "active") {
        state.heist.phase = fresh.phase;
        state.heist.rival.commitment = fresh.rival.commitment;
        renderSides();
        renderControls();
        if (fresh.phase === "planning") {
          say("The rival has sealed its plan.");
          return;
        }
      }
    } catch {
      /* the next seal reports any real problem */
    }
    pollRival(Math.min(delay * 1.5, 4000), tries + 1);
  }, delay);
}

async function load() {
  try {
    state.heist = await api(HEIST_URL);
  } catch (err) {
    $("b-plan").hidden = true;
    $("b-live").textContent = err.message;
    return;
  }
  if (state.heist.status !== "active") {
    window.location.assign(root.dataset.resultUrl);
    return;
  }
  state.plan = new Map();
  state.boost = false;
  state.selected = null;
  $("b-reveal").hidden = true;
  $("b-plan").hidden = false;
  renderPlanning();
  pollRival();
}

if (root) {
  $("b-boost").addEventListener("click", onBoost);
  $("b-seal").addEventListener("click", onSeal);
  document.addEventListener("keydown", (event) => {
    if (event.key === "Escape" && state.selected !== null) {
      state.selected = null;
      say("Card put down.");
      renderPlanning();
    }
  });
  root.classList.add("ready");
  load();
}
