// The three vaults: the same elements (drawn by the page) from planning through the reveal and
// the recap of a played night. Each has a rival zone above and yours below, its Loot and the
// encounter's marks on top, and one button over the whole of it: "send here" while planning,
// "each crew's Power" once a night is turned over.

import { RULES, crewInfo, t, vaultName } from "./page.js";
import { $, h, art, signed } from "./dom.js";
import { state, handCard, lastWinners } from "./state.js";
import { vaultMarks } from "./encounter.js";

const part = (slug, name) => $(`vault-${slug}-${name}`);
// What the vault's one button is described by: everything the vault shows.
const PARTS = ["loot", "marks", "last", "power", "you", "rival", "verdict"];
const describe = (slug) => part(slug, "hit").setAttribute("aria-describedby", PARTS.map((name) => `vault-${slug}-${name}`).join(" "));
export const vaultEl = (slug) => $(`vault-${slug}`);
export const vaultSlugs = () => RULES.vaults.map((v) => v.slug);

/** A crew on a vault: its emblem, its name and (once known) its Power. */
export function chip(slug, side, power = null, extra = "") {
  return h(
    "li",
    { class: `chip ${side} ${extra}`.trim(), "data-crew": slug },
    art("crew", slug, "chip-art"),
    h("span", { class: "chip-name" }, crewInfo(slug).name),
    power === null ? null : h("b", { class: "chip-power", "aria-label": t("crew_power", { power }) }, power),
  );
}

function drawMarks(slug, night) {
  const marks = vaultMarks(state.heist, night)[slug] ?? [];
  part(slug, "marks").replaceChildren(
    ...marks.map((m) => h("span", { class: `mark mark-${m.kind}${m.tonight ? " tonight" : " later"}`, title: m.title }, m.label, h("span", { class: "visually-hidden" }, ` (${m.title})`))),
  );
}

function setLoot(slug, loot, closed, night) {
  // A vault the encounter closes tonight says so by its mark; any other closed vault in words.
  const marked = (vaultMarks(state.heist, night)[slug] ?? []).some((m) => m.kind === "closed" && m.tonight);
  const parts = closed
    ? [marked ? null : h("span", { class: "closed-word" }, t("closed"))]
    : [h("span", { class: "coin", "aria-hidden": "true" }), h("b", { class: "loot-n" }, loot), h("span", { class: "loot-word" }, ` ${t("loot")}`)];
  part(slug, "loot").replaceChildren(...parts.filter(Boolean));
}

function resetZones(slug) {
  for (const side of ["you", "rival"]) {
    const zone = part(slug, side);
    zone.querySelector(".chips").replaceChildren();
    zone.querySelector(".chips").removeAttribute("aria-label");
    const total = zoneTotal(slug, side);
    total.hidden = true;
    total.textContent = "";
    total.classList.remove("won", "lost");
    zone.classList.remove("won", "lost");
  }
  part(slug, "verdict").replaceChildren();
  vaultEl(slug).classList.remove("won-you", "won-rival", "won-none", "current", "done", "pending", "loot-you", "loot-rival");
}

// --- planning ------------------------------------------------------------------------------------

function previewOf(slug) {
  const shown = state.preview?.vaults.find((v) => v.slug === slug);
  if (!shown || ![...state.plan.values()].includes(slug)) return null;
  return shown;
}

/** The server's preview of the plan, written into the vaults in place (no focus is lost). */
export function drawPowers() {
  if (state.mode !== "plan") return;
  for (const vault of state.heist.vaults) {
    const p = previewOf(vault.slug);
    const node = part(vault.slug, "power");
    node.replaceChildren(
      ...(p
        ? [
            h("span", { class: "you-power" }, `${t("power")} `, h("b", {}, p.power)),
            ...p.conditional.map((c) =>
              h(
                "span",
                { class: "maybe", title: t("maybe_long", { amount: signed(c.amount), reason: c.reason }) },
                ` ${t("maybe", { amount: signed(c.amount) })}`,
                h("span", { class: "maybe-why" }, ` ${c.reason}`),
              ),
            ),
          ]
        : []),
    );
  }
}

export function drawPlanVaults() {
  const heist = state.heist;
  const winners = lastWinners();
  for (const vault of heist.vaults) {
    const slug = vault.slug;
    const node = vaultEl(slug);
    if (!node) continue;
    resetZones(slug);
    const mine = [...state.plan].filter(([, v]) => v === slug).map(([card]) => handCard(card).crew);
    node.classList.toggle("closed", vault.closed);
    node.classList.toggle("ready", state.selected !== null && !vault.closed);
    node.classList.toggle("has-crew", mine.length > 0);
    node.dataset.mode = "plan";
    setLoot(slug, vault.loot, vault.closed, heist.night);
    drawMarks(slug, heist.night);
    part(slug, "you").querySelector(".chips").replaceChildren(...mine.map((crew) => chip(crew, "you")));
    part(slug, "you").querySelector(".chips").setAttribute("aria-label", mine.length ? t("your_crew_here", { names: mine.map((c) => crewInfo(c).name).join(", ") }) : t("no_crew_here"));
    const won = winners[slug];
    const last = part(slug, "last");
    last.className = `last-night${won ? ` won-${won}` : ""}`;
    last.textContent = won === "you" ? t("last_yours") : won === "rival" ? t("last_rivals") : "";
    const hit = part(slug, "hit");
    describe(slug);
    hit.replaceChildren(h("span", { class: "visually-hidden" }, t("send_to", { vault: vault.name })));
    if (vault.closed) hit.setAttribute("aria-disabled", "true");
    else hit.removeAttribute("aria-disabled");
  }
  drawPowers();
}

// --- a night turned over ------------------------------------------------------------------------

/** Set the vaults up for ``result`` (a night result): its Loot, marks and closed vaults, both
 * zones empty; the reveal (or the recap) then fills them. */
export function prepareNight(result, mode) {
  const closed = new Set(result.closed ?? []);
  for (const slug of vaultSlugs()) {
    const node = vaultEl(slug);
    resetZones(slug);
    node.dataset.mode = mode;
    node.classList.remove("ready", "has-crew");
    node.classList.toggle("closed", closed.has(slug));
    node.classList.add("pending");
    setLoot(slug, result.loot[slug] ?? 0, closed.has(slug), result.night);
    drawMarks(slug, result.night);
    part(slug, "power").replaceChildren();
    part(slug, "last").textContent = "";
    const hit = part(slug, "hit");
    describe(slug);
    hit.replaceChildren(h("span", { class: "visually-hidden" }, t("vault_night", { vault: vaultName(slug) })));
    hit.removeAttribute("aria-disabled");
  }
}

export function zoneChips(slug, side) {
  return part(slug, side).querySelector(".chips");
}

/** A side's total Power at a vault, in the duel line between the two zones. */
export function zoneTotal(slug, side) {
  return part(slug, "duel").querySelector(side === "you" ? ".you-total" : ".rival-total");
}

export function verdict(slug) {
  return part(slug, "verdict");
}

export function lootNode(slug) {
  return part(slug, "loot");
}
