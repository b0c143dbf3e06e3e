// The heist board: the one ES module that plays a heist through the JSON API (DESIGN.md §5).
//
// Flow: GET the heist view -> plan (tap a card, tap a vault; tap the card again to take it back),
// with the server's preview of the plan (GET .../preview/: power per vault, bonuses that would
// hold, tomorrow's Energy) -> POST seal -> the reveal plays out vault by vault (the rival's
// commitment checked here with SubtleCrypto, shown as one "Fair play" badge) -> the score and the
// next night change last -> next night, or the result page.
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

const SVG = "http://www.w3.org/2000/svg";
const $ = (id) => document.getElementById(id);
/** Fill one of the server's templates (game/presenters/words.py): fill("Send at most {max_crew} crew.", RULES). */
const fill = (template, values) => template.replace(/\{(\w+)\}/g, (m, key) => String(values[key] ?? m));
const signed = (n) => (n >= 0 ? `+${n}` : `−${-n}`);
const pause = (ms) => new Promise((resolve) => window.setTimeout(resolve, ms));

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

// --- settings (this browser), sound and motion ------------------------------------------------

const SETTINGS_KEY = "veyltak.board.settings";
const TOUR_KEY = "veyltak.board.tour";
const store = {
  get(key) {
    try {
      return window.localStorage.getItem(key);
    } catch {
      return null;
    }
  },
  set(key, value) {
    try {
      window.localStorage.setItem(key, value);
    } catch {
      /* private mode: the setting lasts for this page only */
    }
  },
};

const settings = { sound: false, motion: false, speed: "normal" };
try {
  Object.assign(settings, JSON.parse(store.get(SETTINGS_KEY) ?? "{}"));
} catch {
  /* a broken entry: the defaults */
}
const systemStill = window.matchMedia?.("(prefers-reduced-motion: reduce)");
const still = () => Boolean(settings.motion || systemStill?.matches);

function applySettings() {
  root.classList.toggle("still", still());
  store.set(SETTINGS_KEY, JSON.stringify(settings));
}

let audio = null;
/** A short tone (WebAudio, no files): only when the player turned sound on. */
function sound(kind) {
  if (!settings.sound) return;
  try {
    audio ??= new (window.AudioContext || window.webkitAudioContext)();
    const tones = { pick: [520, 0.05], send: [660, 0.07], tick: [880, 0.03], win: [990, 0.18], lose: [220, 0.18], seal: [392, 0.12] };
    const [freq, length] = tones[kind] ?? tones.tick;
    const osc = audio.createOscillator();
    const gain = audio.createGain();
    osc.frequency.value = freq;
    gain.gain.setValueAtTime(0.08, audio.currentTime);
    gain.gain.exponentialRampToValueAtTime(0.0001, audio.currentTime + length);
    osc.connect(gain).connect(audio.destination);
    osc.start();
    osc.stop(audio.currentTime + length);
  } catch {
    /* no audio here */
  }
}

// --- state ----------------------------------------------------------------------------------

const RULES = root ? JSON.parse(root.dataset.rules) : null;
const HEIST_URL = root ? `${root.dataset.api}heists/${root.dataset.heist}/` : "";
const SPRITE = root ? root.dataset.sprite : "";
// The symbols of static/images/board.svg (art, not rules): anything else gets the default one.
const CREW_ART = new Set(
  "mirror-courier paper-decoy ghost-locksmith rooftop-runner signal-thief borrowed-face coolant-carrier spark emergency-vent conductor watcher capacitor fence insider night-owl cold-reader double-agent lone-wolf smoke-runner".split(
    " ",
  ),
);
const VAULT_ART = new Set(["memory-archive", "crown-vault", "signal-tower"]);

const state = {
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
};

const crewInfo = (slug) => RULES.crew[slug] ?? { name: slug, cost: 0, power: 0, text: "" };
const vaultName = (slug) => RULES.vaults.find((v) => v.slug === slug)?.name ?? slug;
const handCard = (card) => state.heist.you.hand.find((c) => c.card === card);

function art(kind, slug, className) {
  const known = kind === "crew" ? CREW_ART.has(slug) : VAULT_ART.has(slug);
  const svg = document.createElementNS(SVG, "svg");
  svg.setAttribute("class", className);
  svg.setAttribute("aria-hidden", "true");
  svg.setAttribute("focusable", "false");
  const use = document.createElementNS(SVG, "use");
  use.setAttribute("href", `${SPRITE}#${kind}-${known ? slug : "default"}`);
  svg.append(use);
  return svg;
}

function cardBack(slug, extra = "") {
  return h("span", { class: `card-back ${extra}`.trim(), "data-card-back": slug || "default", "aria-hidden": "true" });
}

function say(text) {
  // Polite live region, for screen readers only (the note line shows it to the eye): each
  // message appears once on screen.
  const live = $("b-live");
  live.textContent = "";
  window.setTimeout(() => {
    live.textContent = text;
  }, 30);
}

let noteOverride = null; // a message for the note line until the plan changes

function tell(text, bad = false) {
  noteOverride = { text, bad };
  say(text);
  renderNote();
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

const lastWinners = () => {
  const history = state.heist.history ?? [];
  const last = history[history.length - 1];
  return Object.fromEntries((last?.vaults ?? []).map((v) => [v.slug, v.winner]));
};

// --- the server's preview of the plan ---------------------------------------------------------

function planQuery() {
  const crew = [...state.plan].map(([card, vault]) => `${card}:${vault}`).join(",");
  return `night=${state.heist.night}&crew=${encodeURIComponent(crew)}&boost=${state.boost}`;
}

function requestPreview() {
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

// --- rendering: the night's board -------------------------------------------------------------

function renderTop(heist = state.heist) {
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
  const cosmetics = heist.you.cosmetics ?? {};
  root.dataset.boardTheme = cosmetics.board_theme || "default";
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

function renderSides(heist = state.heist) {
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
        { type: "button", class: "pile-button", id: "b-piles-open", "aria-haspopup": "dialog", on: { click: openPiles } },
        cardBack(rivalBack, "mini"),
        h("span", { "aria-hidden": "true" }, rival.deck_count),
        h("span", { class: "visually-hidden" }, `Rival's deck (${rival.deck_count} left) and discard`),
      ),
    ),
  );
}

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
    const power = vaultPower(vault.slug);
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
          on: { click: (event) => onVault(vault, event) },
        },
        art("vault", vault.slug, "vault-art"),
        h("span", { class: "vault-name", id: `${id}-name` }, vault.name),
        h("span", { class: "loot", id: `${id}-loot` }, vault.closed ? "Closed" : `Loot ${vault.loot}`),
        h(
          "span",
          { class: `last-night${won ? ` won-${won}` : ""}`, id: `${id}-last` },
          won === "you" ? "Last night: yours" : won === "rival" ? "Last night: rival's" : "",
        ),
        h("span", { class: "vault-power", id: `${id}-power` }, powerParts(power)),
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
            on: { click: (event) => onCard(card, event) },
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

function renderNote() {
  const problem = planProblem();
  const note = $("b-note");
  let text;
  let bad = Boolean(problem);
  if (problem) text = problem;
  else if (noteOverride) ({ text, bad } = noteOverride);
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

function renderControls() {
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

function renderPlanning() {
  renderTop();
  renderSides();
  renderVaults();
  renderHand();
  renderControls();
  requestPreview();
  tour.refresh();
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
  if (state.sealing || state.revealing) return;
  const info = crewInfo(handCard(card).crew);
  let target = `[data-card="${card}"]`;
  noteOverride = null;
  if (state.plan.has(card)) {
    const vault = state.plan.get(card);
    state.plan.delete(card);
    state.selected = null;
    say(`${info.name} taken back from ${vaultName(vault)}. Energy left ${state.heist.you.energy - planCost()}.`);
  } else if (state.selected === card) {
    state.selected = null;
    say(`${info.name} put down.`);
  } else if (state.plan.size >= RULES.max_crew) {
    state.selected = null;
    renderPlanning();
    tell(fill(RULES.text.crew_limit, RULES), true);
    focusNow(target);
    return;
  } else if (info.cost > state.heist.you.energy - planCost()) {
    state.selected = null;
    renderPlanning();
    tell(`${info.name} needs ${info.cost} Energy; you have ${Math.max(state.heist.you.energy - planCost(), 0)} left.`, true);
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

function onVault(vault, event) {
  if (state.sealing || state.revealing) return;
  noteOverride = null;
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
  const left = state.heist.you.energy - planCost();
  say(`${name} goes to ${vault.name}. Energy left ${left}.`);
  renderPlanning();
  tour.did("vault");
  if (fromKeyboard(event)) focusNow(state.plan.size >= RULES.max_crew ? "#b-seal" : `[data-card="${card}"]`);
  else focusNow(`[data-vault="${vault.slug}"]`);
}

function onBoost() {
  if (state.sealing || state.revealing) return;
  const blocked = boostBlock();
  if (blocked) {
    tell(blocked, true);
    return;
  }
  state.boost = !state.boost;
  noteOverride = null;
  sound("pick");
  say(state.boost ? fill(RULES.text.boost_on, RULES) : "Boost off.");
  renderControls();
  requestPreview();
  tour.did("boost");
}

function onSeal() {
  if (state.sealing || state.revealing) return;
  const problem = planProblem();
  if (problem) {
    say(problem);
    renderNote();
    return;
  }
  if (state.plan.size === 0) {
    const dialog = $("b-confirm");
    const cool = RULES.quiet_cooling ? ` and cools your Heat by ${RULES.quiet_cooling}` : "";
    $("b-confirm-text").textContent = `You have sent no crew: sealing now takes no vault tonight${cool}.`;
    dialog.showModal();
    $("b-confirm-no").focus();
    return;
  }
  seal();
}

async function seal() {
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
    await showReveal(answer.result, heist, answer.heist);
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

function crewRows(list, side) {
  if (!list.length) return [h("li", { class: "none muted" }, "No crew")];
  return list.map((entry) =>
    h(
      "li",
      { class: "step", "data-power": entry.power },
      art("crew", entry.crew, "emblem tiny"),
      h("b", {}, crewInfo(entry.crew).name),
      ` — Power ${entry.power}`,
      h("span", { class: "parts" }, breakdown(entry, side).join(" · ")),
    ),
  );
}

function winnerText(v, closed) {
  if (closed) return "= Closed tonight";
  if (v.winner === "you") return `✓ You take ${v.loot} Loot`;
  if (v.winner === "rival") return `✗ The rival takes ${v.loot} Loot`;
  if (v.you_power === 0 && v.rival_power === 0) return "= Nobody came: no Loot taken";
  return "= Tie: nobody takes the Loot";
}

function heatText(who, side) {
  const change = side.heat_end - side.heat_start;
  return `${who} Heat ${side.heat_start} → ${side.heat_end}${side.boost ? " (Boosted)" : ""}${change === 0 ? "" : ` (${signed(change)})`}`;
}

async function verifyCommitment(result, badge) {
  const rival = result.rival;
  const claimed = rival.commitment;
  const summary = badge.querySelector("summary");
  const detail = badge.querySelector(".fair-detail");
  if (!window.crypto?.subtle) {
    summary.textContent = "Fair play: not checked here";
    detail.textContent = "This browser cannot check the rival's locked-in plan (it needs a secure connection). The replay can be checked later.";
    return;
  }
  try {
    const canonical = canonicalPlan(rival.crew, rival.boost);
    const digest = await sha256Hex(rival.nonce + canonical);
    const shownFirst = state.seenCommitment;
    const ok = digest === claimed && (shownFirst === null || shownFirst === claimed);
    badge.classList.add(ok ? "ok" : "bad");
    summary.dataset.verified = ok ? "true" : "false";
    summary.textContent = ok ? "Fair play ✓ Verified" : "Fair play ✗ Not verified";
    detail.replaceChildren(
      h(
        "p",
        {},
        ok
          ? `The rival locked in its plan ${shownFirst ? "before you sealed yours" : "for this night"}, and the plan it showed is the one it locked in. Your browser checked it just now.`
          : "The plan the rival showed does not match the one it locked in. Please report this heist.",
      ),
      h(
        "dl",
        { class: "tech" },
        h("dt", {}, "Commitment"),
        h("dd", {}, claimed),
        h("dt", {}, "Nonce"),
        h("dd", {}, rival.nonce),
        h("dt", {}, "Check"),
        h("dd", {}, `SHA-256(nonce + plan) = ${digest}`),
      ),
    );
  } catch {
    summary.textContent = "Fair play: not checked here";
  }
}

let skipReveal = false;

function speed() {
  if (still() || settings.speed === "instant") return 0;
  return settings.speed === "fast" ? 0.35 : 1;
}

/** Wait ``ms`` scaled by the reveal speed; nothing at all in instant mode or once skipped. */
async function beat(ms) {
  const factor = speed();
  if (!factor || skipReveal) return;
  await pause(ms * factor);
}

async function countTo(node, from, to) {
  const steps = Math.max(to - from, 0);
  for (let n = from + 1; n <= to; n += 1) {
    await beat(steps > 6 ? 40 : 90);
    node.textContent = String(n);
  }
  node.textContent = String(to);
}

async function showReveal(result, before, after) {
  state.heist = after;
  state.plan = new Map();
  state.boost = false;
  state.selected = null;
  state.preview = null;
  state.previewKey = "";
  state.revealing = true;
  skipReveal = false;
  noteOverride = null;
  $("b-plan").hidden = true;

  const closed = new Set(before.vaults.filter((v) => v.closed).map((v) => v.slug));
  const youCrew = (vault) => result.you.crew.filter((c) => c.vault === vault);
  const rivalCrew = (vault) => result.rival.crew.filter((c) => c.vault === vault);
  const taken = [];
  const articles = result.vaults.map((v) => {
    const yourPower = v.you_power ?? v.player_power ?? 0;
    if (v.winner) taken.push(`${v.winner === "you" ? "You" : "The rival"} took ${vaultName(v.slug)} (${v.loot})`);
    const youTotal = h("b", { class: "count" }, "0");
    const rivalTotal = h("b", { class: "count" }, "0");
    const node = h(
      "article",
      { class: `rv pending${closed.has(v.slug) ? " closed" : ""}`, "data-vault": v.slug },
      h("h3", {}, art("vault", v.slug, "vault-art tiny"), h("span", {}, vaultName(v.slug)), h("span", { class: "loot" }, closed.has(v.slug) ? "Closed" : `Loot ${result.loot[v.slug] ?? v.loot}`)),
      h("p", { class: "small you-text" }, "▲ You"),
      h("ul", { class: "sidecrew you" }, crewRows(youCrew(v.slug), "you")),
      h("p", { class: "small rival-text" }, `● ${before.rival.name}`),
      h("ul", { class: "sidecrew rival" }, crewRows(rivalCrew(v.slug), "rival")),
      h("p", { class: "totals" }, h("span", { class: "you-text" }, "You ", youTotal), h("span", { class: "rival-text" }, "Rival ", rivalTotal)),
      h("p", { class: "winner", hidden: true }, winnerText(v, closed.has(v.slug))),
    );
    return { v, node, youTotal, rivalTotal, yourPower };
  });
  const badge = h(
    "details",
    { class: "fair" },
    h("summary", { id: "b-verify" }, "Fair play: checking…"),
    h("div", { class: "fair-detail" }, "Checking the rival's locked-in plan…"),
  );
  const skip = h("button", { type: "button", class: "button big", id: "b-next", on: { click: () => (skipReveal = true) } }, "Skip ahead");
  const after_ = h("div", { class: "after", hidden: true },
    h("p", { class: "small" }, result.you.boost ? "You Boosted. " : "You stayed quiet. ", result.rival.boost ? "The rival Boosted." : "The rival stayed quiet."),
    h("p", { class: "small" }, heatText("Your", result.you), " · ", heatText("Rival", result.rival)),
    h("p", { class: "final-score night-score" }, "Score: ", h("span", { class: "you-text" }, `You ${result.score.you}`), " · ", h("span", { class: "rival-text" }, `Rival ${result.score.rival}`)),
    badge,
  );
  const actions = h("div", { class: "actions" }, skip);
  const section = $("b-reveal");
  section.replaceChildren(
    h("h2", { id: "b-reveal-title", tabindex: "-1" }, `Night ${result.night} revealed`),
    actions,
    h("div", { class: "reveal-vaults" }, articles.map((a) => a.node)),
    after_,
  );
  section.hidden = false;
  $("b-reveal-title").focus();
  tour.did("reveal-start");
  const verified = verifyCommitment(result, badge);

  // Vault by vault: your crew, the rival's, the powers counting up, then the winner.
  for (const a of articles) {
    a.node.classList.remove("pending");
    a.node.classList.add("current");
    if (speed()) a.node.scrollIntoView({ block: "nearest", behavior: "smooth" });
    let you = 0;
    for (const row of a.node.querySelectorAll(".sidecrew.you .step")) {
      row.classList.add("shown");
      await beat(250);
      const next = you + Number(row.dataset.power);
      await countTo(a.youTotal, you, next);
      you = next;
      sound("tick");
    }
    let rival = 0;
    for (const row of a.node.querySelectorAll(".sidecrew.rival .step")) {
      row.classList.add("shown");
      await beat(250);
      const next = rival + Number(row.dataset.power);
      await countTo(a.rivalTotal, rival, next);
      rival = next;
      sound("tick");
    }
    a.youTotal.textContent = String(a.yourPower);
    a.rivalTotal.textContent = String(a.v.rival_power);
    await beat(250);
    a.node.querySelector(".winner").hidden = false;
    a.node.classList.remove("current");
    a.node.classList.add(a.v.winner === "you" ? "won-you" : a.v.winner === "rival" ? "won-rival" : "won-none", "done");
    if (a.v.winner) sound(a.v.winner === "you" ? "win" : "lose");
    await beat(500);
  }
  for (const row of section.querySelectorAll(".step")) row.classList.add("shown");

  // Last: the night's score, the header and the way on.
  after_.hidden = false;
  await verified;
  renderTop(after);
  renderSides(after);
  const finished = after.status !== "active";
  const next = finished
    ? h("a", { class: "button big", href: root.dataset.resultUrl, id: "b-next" }, "See the result")
    : h("button", { type: "button", class: "button big", id: "b-next", on: { click: nextNight } }, `Next: night ${after.night}`);
  const hadFocus = document.activeElement === skip;
  skip.replaceWith(next);
  if (hadFocus) next.focus();
  state.revealing = false;
  const summary = `${taken.length ? taken.join(". ") : "Nobody took any vault"}. Score: you ${result.score.you}, rival ${result.score.rival}.`;
  say(`Night ${result.night}: ${summary}`);
  tour.did("reveal-end");
}

function nextNight() {
  $("b-reveal").hidden = true;
  $("b-plan").hidden = false;
  renderPlanning();
  say(`Night ${state.heist.night} of ${state.heist.nights}. Tonight's loot: ${state.heist.vaults.map((v) => `${v.name} ${v.closed ? "closed" : v.loot}`).join(", ")}.`);
  window.scrollTo(0, 0);
  $("b-title").focus({ preventScroll: true });
  pollRival();
}

// --- the rival's cards, the help and the settings ------------------------------------------------

function countList(slugs) {
  if (!slugs.length) return h("p", { class: "muted small" }, "None yet.");
  const counts = new Map();
  for (const slug of slugs) counts.set(slug, (counts.get(slug) ?? 0) + 1);
  return h(
    "ul",
    { class: "pile-list" },
    [...counts].map(([slug, n]) => h("li", {}, art("crew", slug, "emblem tiny"), `${n} × ${crewInfo(slug).name}`, h("span", { class: "muted small" }, ` — ${crewInfo(slug).text}`))),
  );
}

function openPiles() {
  const { you, rival } = state.heist;
  $("b-piles-body").replaceChildren(
    h("h3", { class: "rival-text" }, `${rival.name}: discard (played)`),
    countList(rival.discard),
    h("h3", { class: "rival-text" }, `${rival.name}: whole deck`),
    countList(rival.deck),
    h("h3", { class: "you-text" }, "Your discard"),
    countList(you.discard),
  );
  $("b-piles").showModal();
}

function setupDialogs() {
  for (const dialog of root.querySelectorAll("dialog")) {
    dialog.addEventListener("click", (event) => {
      if (event.target.closest("[data-close]") || event.target === dialog) dialog.close();
    });
  }
  $("b-confirm-yes").addEventListener("click", () => {
    $("b-confirm").close();
    seal();
  });
  $("b-confirm-no").addEventListener("click", () => {
    $("b-confirm").close();
    tell("Still planning: tap a crew card, then a vault.");
  });
  // Help: the night's steps and the Heat → Energy table, from the ruleset.
  $("b-help-steps").replaceChildren(...(RULES.steps ?? []).map((s) => h("li", {}, h("b", {}, s.title), " ", s.text)));
  $("b-help-heat").textContent = RULES.boost_and_heat ?? "";
  const [heads, cells] = root.querySelectorAll(".heat-table tr");
  RULES.energy_by_heat.forEach((energy, heat) => {
    heads.append(h("td", {}, heat));
    cells.append(h("td", {}, energy));
  });
  $("b-help-open").addEventListener("click", () => $("b-help").showModal());
  $("b-tour-again").addEventListener("click", () => {
    $("b-help").close();
    tour.start(true);
  });
  // Settings: this browser's. The form is made when the dialog opens (no hidden controls).
  $("b-settings-open").addEventListener("click", () => {
    const body = $("b-settings-body");
    body.replaceChildren($("b-settings-form").content.cloneNode(true));
    $("set-sound").checked = settings.sound;
    $("set-motion").checked = still();
    for (const radio of body.querySelectorAll('[name="set-speed"]')) {
      radio.checked = radio.value === settings.speed;
      radio.addEventListener("change", () => {
        settings.speed = radio.value;
        applySettings();
      });
    }
    $("set-sound").addEventListener("change", (e) => {
      settings.sound = e.target.checked;
      applySettings();
      sound("pick");
    });
    $("set-motion").addEventListener("change", (e) => {
      settings.motion = e.target.checked;
      applySettings();
    });
    $("b-settings").showModal();
  });
  $("b-settings").addEventListener("close", () => $("b-settings-body").replaceChildren());
}

// --- the guided first heist ---------------------------------------------------------------------
// Offered once (remembered in this browser); skippable at every step; a step moves on when the
// player does what it points at, or with Next.

const tour = (() => {
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

  return {
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
})();

// --- keyboard shortcuts ---------------------------------------------------------------------------

function onKey(event) {
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
  if (state.revealing || state.sealing || $("b-plan").hidden) return;
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

async function load() {
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
  state.plan = new Map();
  state.boost = false;
  state.selected = null;
  state.revealing = false;
  $("b-reveal").hidden = true;
  $("b-plan").hidden = false;
  renderPlanning();
  pollRival();
  if (state.heist.night === 1 && !(state.heist.history ?? []).length) tour.start();
}

if (root) {
  applySettings();
  systemStill?.addEventListener?.("change", applySettings);
  $("b-boost").addEventListener("click", onBoost);
  $("b-seal").addEventListener("click", onSeal);
  $("b-tour-next").addEventListener("click", () => tour.next());
  $("b-tour-skip").addEventListener("click", () => tour.skip());
  setupDialogs();
  document.addEventListener("keydown", onKey);
  root.classList.add("ready");
  load();
}
