// An encounter on the board: a mark on every vault it changes (and on a side whose start Heat
// it sets), tonight's in full colour and later nights' smaller, and a one-line banner on the
// night it fires. Its modifiers come with the heist view (disclosed in full before play).

import { t, vaultName } from "./page.js";
import { $, h } from "./dom.js";

const MARK = { double: "mark_double", closed: "mark_closed", raise: "mark_raise", fixed: "mark_fixed" };
const FIRES = { double: "fires_double", closed: "fires_closed", raise: "fires_raise", fixed: "fires_fixed" };

function nightsWord(nights) {
  // Short, for a mark that fires on a later night.
  const sorted = [...nights].sort((a, b) => a - b);
  const run = sorted.length > 1 && sorted.every((n, i) => i === 0 || n === sorted[i - 1] + 1);
  if (run) return t("nights_short", { first: sorted[0], last: sorted[sorted.length - 1] });
  return sorted.map((n) => t("night_short", { n })).join(",");
}

/** {vault slug: [{kind, label, tonight, title}]} for night ``night`` of ``heist``. */
export function vaultMarks(heist, night) {
  const out = {};
  const mods = heist.encounter?.modifiers?.vault_mods ?? [];
  for (const mod of mods) {
    const nights = (mod.nights ?? []).filter((n) => n >= night);
    if (!nights.length) continue;
    const tonight = nights.includes(night);
    const label = t(MARK[mod.kind] ?? "mark_raise", { amount: mod.amount });
    const line = t(FIRES[mod.kind] ?? "fires_raise", { vault: vaultName(mod.vault), amount: mod.amount });
    (out[mod.vault] ??= []).push({
      kind: mod.kind,
      tonight,
      label: tonight ? label : t("mark_later", { mark: label, when: nightsWord(nights) }),
      title: `${heist.encounter.name}: ${line}`,
    });
  }
  return out;
}

/** The sides whose start Heat the encounter set: {you: heat, rival: heat}. */
export function heatMarks(heist) {
  const start = heist.encounter?.modifiers?.start_heat ?? {};
  const out = {};
  if (start.player !== undefined) out.you = start.player;
  if (start.rival !== undefined) out.rival = start.rival;
  return out;
}

const SHORT = { double: "short_double", closed: "short_closed", raise: "short_raise", fixed: "short_fixed" };

/** What the encounter does on ``night``: [{short, long}], its start Heat on night 1. */
function changes(heist, night) {
  const out = [];
  for (const mod of heist.encounter.modifiers?.vault_mods ?? []) {
    if (!(mod.nights ?? []).includes(night)) continue;
    const values = { vault: vaultName(mod.vault), amount: mod.amount };
    out.push({ short: t(SHORT[mod.kind] ?? "short_raise", values), long: t(FIRES[mod.kind] ?? "fires_raise", values) });
  }
  if (night === 1) {
    const heat = heatMarks(heist);
    if (heat.you !== undefined) out.push({ short: t("short_heat_you", { heat: heat.you }), long: t("fires_heat_you", { heat: heat.you }) });
    if (heat.rival !== undefined) out.push({ short: t("short_heat_rival", { heat: heat.rival }), long: t("fires_heat_rival", { heat: heat.rival }) });
  }
  return out;
}

/** The encounter's line on the board, its name in full: what it does tonight (``tonight``),
 * else on the next night it changes something, else its name alone. Null without one. */
export function bannerLine(heist, night) {
  if (!heist.encounter) return null;
  const name = heist.encounter.name;
  const join = (list, key) => list.map((c) => c[key]).join(key === "short" ? ", " : t("and"));
  const tonight = changes(heist, night);
  if (tonight.length) return { tonight: true, text: t("banner", { name, lines: join(tonight, "short") }), long: t("banner_sr", { name, lines: join(tonight, "long") }) };
  for (let n = night + 1; n <= heist.nights; n += 1) {
    const later = changes(heist, n);
    if (later.length) return { tonight: false, text: t("banner_next", { name, n, lines: join(later, "short") }), long: null };
  }
  return { tonight: false, text: t("banner_done", { name }), long: null };
}

export function renderBanner(heist, night) {
  const banner = $("b-banner");
  const line = heist.status === "active" ? bannerLine(heist, night) : null;
  banner.hidden = !line;
  banner.classList.toggle("tonight", Boolean(line?.tonight));
  if (!line) return banner.replaceChildren();
  const parts = [
    h("span", { class: "banner-mark", "aria-hidden": "true" }, line.tonight ? "★" : "☆"),
    " ",
    h("span", { "aria-hidden": line.long ? "true" : null }, line.text),
    line.long ? h("span", { class: "visually-hidden" }, line.long) : null,
  ];
  banner.replaceChildren(...parts.filter(Boolean));
}
