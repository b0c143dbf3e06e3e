// The board's sheets, in the page's one set of dialogs: details one gesture away (hold a card or
// a vault on a touch screen, or point at it with a mouse), each crew's Power at a vault of a
// played night, what a word of the board means, the decks and discards, the help (the night's
// steps, the Heat -> Energy table and every word, from the ruleset) and the "lie low" question.

import { RULES, crewInfo, define, root, t, vaultName } from "./page.js";
import { $, h, art, signed } from "./dom.js";
import { state } from "./state.js";
import { tour } from "./guide.js";

function openSheet(title, ...body) {
  $("b-detail-title").textContent = title;
  $("b-detail-body").replaceChildren(...body);
  $("b-detail").showModal();
}

// --- a crew's power, part by part ------------------------------------------------------------------

function parts(entry, side) {
  // The engine's own breakdown, as the API sends it; a rival crew's condition in the words the
  // server gives for the rival's side (RULES.rival_reasons).
  return entry.breakdown.map((part) => {
    if (part.kind === "base") return t("base", { amount: part.amount });
    if (part.kind === "boost") return t("boost_part", { amount: signed(part.amount) });
    const reason = String(part.reason || "");
    const why = side === "rival" ? RULES.rival_reasons[reason] : reason.replace(/^[a-z0-9-]+:\s*/, "");
    return t("bonus_part", { amount: signed(part.amount), why: why || crewInfo(entry.crew).text });
  });
}

function crewRows(list, side) {
  if (!list.length) return [h("li", { class: "none muted" }, t("no_crew"))];
  return list.map((entry) =>
    h(
      "li",
      { class: "step shown", "data-power": entry.power },
      art("crew", entry.crew, "emblem tiny"),
      h("b", {}, crewInfo(entry.crew).name),
      ` — ${t("crew_power", { power: entry.power })}`,
      h("span", { class: "parts" }, parts(entry, side).join(" · ")),
    ),
  );
}

/** Each crew's Power at one vault of a night turned over (the reveal or a recap). */
export function openBreakdown(slug, result) {
  const v = result.vaults.find((x) => x.slug === slug);
  const rival = state.heist.rival.name;
  openSheet(
    t("breakdown_title", { vault: vaultName(slug), night: result.night }),
    h("h3", { class: "you-text" }, t("breakdown_you"), " · ", t("breakdown_total", { power: v.you_power })),
    h("ul", { class: "sidecrew you" }, crewRows(result.you.crew.filter((c) => c.vault === slug), "you")),
    h("h3", { class: "rival-text" }, t("breakdown_rival", { rival }), " · ", t("breakdown_total", { power: v.rival_power })),
    h("ul", { class: "sidecrew rival" }, crewRows(result.rival.crew.filter((c) => c.vault === slug), "rival")),
  );
}

// --- a card, a vault, a word -------------------------------------------------------------------------

// A detail: its title, the line the note shows while pointing, and the words it uses, defined.
const defined = (...keys) => keys.map(define).filter(Boolean).map((entry) => h("p", { class: "defined" }, entry.text));

function cardDetail(crew) {
  const info = crewInfo(crew);
  return { title: info.name, line: t("card_detail", info), terms: info.when ? ["cost", "power", "if"] : ["cost", "power"] };
}

function vaultDetail(slug) {
  const vault = state.heist.vaults.find((v) => v.slug === slug);
  const lines = [vault?.closed ? t("vault_closed_detail", { vault: vaultName(slug) }) : t("vault_detail", { vault: vaultName(slug), loot: vault?.loot ?? 0 })];
  for (const mark of $(`vault-${slug}-marks`)?.querySelectorAll(".mark") ?? []) lines.push(mark.title);
  const last = $(`vault-${slug}-last`)?.textContent;
  if (last) lines.push(last);
  const marked = lines.length > 1 && state.heist.encounter;
  return { title: vaultName(slug), line: lines.join(" "), terms: marked ? ["loot", "encounter"] : ["loot"] };
}

function openDetail(detail) {
  openSheet(detail.title, h("p", {}, detail.line), ...defined(...detail.terms));
}

function detailOf(target) {
  const card = target.closest?.(".card[data-crew]");
  if (card) return cardDetail(card.dataset.crew);
  const vault = target.closest?.(".vault[data-vault]");
  if (vault && state.mode === "plan") return vaultDetail(vault.dataset.vault);
  return null;
}

export function openTerm(key) {
  const entry = define(key);
  if (entry) openSheet(entry.term, h("p", {}, entry.text));
}

// --- the piles -------------------------------------------------------------------------------------

function countList(slugs) {
  if (!slugs.length) return h("p", { class: "muted small" }, t("pile_none"));
  const counts = new Map();
  for (const slug of slugs) counts.set(slug, (counts.get(slug) ?? 0) + 1);
  return h(
    "ul",
    { class: "pile-list" },
    [...counts].map(([slug, n]) => h("li", {}, art("crew", slug, "emblem tiny"), t("pile_row", { n, name: crewInfo(slug).name }), h("span", { class: "muted small" }, ` — ${crewInfo(slug).text}`))),
  );
}

export function openPiles() {
  const { you, rival } = state.heist;
  $("b-piles-body").replaceChildren(
    h("h3", { class: "rival-text" }, t("pile_rival_discard", { name: rival.name })),
    countList(rival.discard),
    h("h3", { class: "rival-text" }, t("pile_rival_deck", { name: rival.name })),
    countList(rival.deck),
    h("h3", { class: "you-text" }, t("pile_your_discard")),
    countList(you.discard),
    h("h3", { class: "you-text" }, t("pile_your_deck")),
    countList(you.deck),
  );
  $("b-piles").showModal();
}

// --- gestures ----------------------------------------------------------------------------------------

const HOLD_MS = 500;
let held = false; // a hold opened the sheet: the click that ends it does nothing else

export function setupDetails({ onHover }) {
  let timer = null;
  root.addEventListener("pointerdown", (event) => {
    held = false;
    if (event.pointerType === "mouse") return;
    const detail = detailOf(event.target);
    if (!detail) return;
    timer = window.setTimeout(() => {
      held = true;
      openDetail(detail);
    }, HOLD_MS);
  });
  for (const ev of ["pointerup", "pointercancel", "pointerleave", "pointermove"]) {
    root.addEventListener(ev, (event) => {
      if (ev === "pointermove" && Math.abs(event.movementX) + Math.abs(event.movementY) < 6) return;
      window.clearTimeout(timer);
    });
  }
  // A hold on a touch screen opens the browser's menu too: the sheet is the menu here.
  root.addEventListener("contextmenu", (event) => {
    if (detailOf(event.target)) event.preventDefault();
  });
  root.addEventListener(
    "click",
    (event) => {
      if (held) {
        held = false;
        event.preventDefault();
        event.stopPropagation();
        return;
      }
      const word = event.target.closest?.(".term[data-term]");
      if (word) {
        event.preventDefault();
        openTerm(word.dataset.term);
        return;
      }
      if (event.target.closest?.("#b-piles-open, #b-your-pile")) openPiles();
    },
    true,
  );
  // Pointing with a mouse shows the details in the note line, which nothing else covers.
  const canHover = window.matchMedia?.("(hover: hover)")?.matches ?? true;
  root.addEventListener("pointerover", (event) => {
    if (event.pointerType !== "mouse" || !canHover) return;
    const detail = detailOf(event.target);
    onHover(detail ? detail.line : null);
  });
  root.addEventListener("pointerleave", () => onHover(null));
}

// --- the help and the "lie low" question ----------------------------------------------------------

/** Wire the sheets; ``onLieLow`` seals the empty plan, ``onKeepPlanning`` goes back to it. */
export function setupDialogs({ onLieLow, onKeepPlanning }) {
  for (const dialog of root.querySelectorAll("dialog")) {
    dialog.addEventListener("click", (event) => {
      if (event.target.closest("[data-close]") || event.target === dialog) dialog.close();
    });
  }
  $("b-confirm-yes").addEventListener("click", () => {
    $("b-confirm").close();
    onLieLow();
  });
  $("b-confirm-no").addEventListener("click", () => {
    $("b-confirm").close();
    onKeepPlanning();
  });
  $("b-help-steps").replaceChildren(...(RULES.steps ?? []).map((s) => h("li", {}, h("b", {}, s.title), " ", s.text)));
  $("b-help-heat").textContent = RULES.boost_and_heat ?? "";
  const [heads, cells] = root.querySelectorAll(".heat-table tr");
  RULES.energy_by_heat.forEach((energy, heat) => {
    heads.append(h("td", {}, heat));
    cells.append(h("td", {}, energy));
  });
  $("b-help-terms").replaceChildren(...Object.values(RULES.glossary ?? {}).flatMap((entry) => [h("dt", {}, entry.term), h("dd", {}, entry.text)]));
  $("b-help-open").addEventListener("click", () => $("b-help").showModal());
  $("b-tour-again").addEventListener("click", () => {
    $("b-help").close();
    tour.start(true);
  });
}

/** Ask before sealing a night with no crew. */
export function askLieLow() {
  $("b-confirm-text").textContent = t("lie_low_text");
  $("b-confirm").showModal();
  $("b-confirm-no").focus();
}
