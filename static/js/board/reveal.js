// A night turned over on the board: in each vault, one vault at a time, your crew and the
// rival's face up side by side, the powers counting up, the winner's side marked and its Loot
// going to that side's score. The same drawing, at once, is the recap of any played night.
// Below, in the dock (never over a vault): what each side did, the Heat changes by their parts,
// the score and the check of the rival's commitment.

import { crewInfo, t, vaultName } from "./page.js";
import { $, h, pause, say, signed, term } from "./dom.js";
import { checkCommitment } from "./api.js";
import { sound, speed } from "./settings.js";
import { state } from "./state.js";
import { chip, lootNode, prepareNight, vaultEl, vaultSlugs, verdict, zoneChips, zoneTotal } from "./vaults.js";
import { bumpScore } from "./view.js";
import { tour } from "./guide.js";

let skipping = false;

/** Wait ``ms`` scaled by the reveal speed; nothing at all in instant mode or once skipped. */
async function beat(ms) {
  const factor = speed();
  if (!factor || skipping) return;
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

// --- words for a night --------------------------------------------------------------------------

/** "Rival Heat 0 → 0: Boost +2, 2 × <a cooling crew> −2": a Heat change by its parts. */
export function heatExplained(who, side) {
  const words = [];
  let sum = 0;
  const effects = new Map();
  for (const part of side.heat_parts ?? []) {
    sum += part.amount;
    if (part.kind === "boost") words.push(t("heat_boost", { amount: signed(part.amount) }));
    else if (part.kind === "quiet") words.push(t("heat_quiet", { amount: signed(part.amount) }));
    else {
      const slug = String(part.reason || "").split(":")[0];
      const seen = effects.get(slug) ?? { count: 0, amount: 0 };
      effects.set(slug, { count: seen.count + 1, amount: seen.amount + part.amount });
    }
  }
  for (const [slug, e] of effects) {
    const name = crewInfo(slug).name;
    words.push(t(e.count > 1 ? "heat_effect_many" : "heat_effect", { name, count: e.count, amount: signed(e.amount) }));
  }
  const raw = side.heat_start + sum;
  if (raw < side.heat_end) words.push(t("heat_floor"));
  else if (raw > side.heat_end) words.push(t("heat_ceiling"));
  return t("heat_line", { who, start: side.heat_start, end: side.heat_end, parts: words.join(", ") || t("heat_none") });
}

function verdictText(v, closed) {
  if (closed) return t("closed_tonight");
  if (v.winner === "you") return t("won_you", { loot: v.loot });
  if (v.winner === "rival") return t("won_rival", { loot: v.loot });
  if (v.you_power === 0 && v.rival_power === 0) return t("nobody");
  return t("tie");
}

function verdictLong(v, closed) {
  if (closed) return t("closed_tonight");
  if (v.winner === "you") return t("won_you_long", { loot: v.loot });
  if (v.winner === "rival") return t("won_rival_long", { loot: v.loot });
  if (v.you_power === 0 && v.rival_power === 0) return t("nobody_long");
  return t("tie_long");
}

/** ``shownFirst``: the commitment this page showed before sealing (a night just sealed here), or
 * null (a recap, a reload), when only the plan against its own commitment can be checked. */
async function verifyCommitment(result, badge, shownFirst) {
  const summary = badge.querySelector("summary");
  const detail = badge.querySelector(".fair-detail");
  let check = null;
  try {
    check = await checkCommitment(result.rival, shownFirst);
  } catch {
    check = null;
  }
  if (!check) {
    summary.textContent = t("fair_unchecked");
    detail.textContent = t("fair_unchecked_long");
    return;
  }
  badge.classList.add(check.ok ? "ok" : "bad");
  summary.dataset.verified = check.ok ? "true" : "false";
  summary.textContent = check.ok ? t("fair_ok") : t("fair_bad");
  detail.replaceChildren(
    h("p", {}, check.ok ? t(shownFirst ? "fair_ok_before" : "fair_ok_night") : t("fair_bad_long")),
    h(
      "dl",
      { class: "tech" },
      h("dt", {}, t("fair_commitment")),
      h("dd", {}, result.rival.commitment),
      h("dt", {}, t("fair_nonce")),
      h("dd", {}, result.rival.nonce),
      h("dt", {}, t("fair_check")),
      h("dd", {}, t("fair_digest", { digest: check.digest })),
    ),
  );
}

function afterWords(result) {
  const badge = h("details", { class: "fair" }, h("summary", { id: "b-verify" }, t("fair_checking")), h("div", { class: "fair-detail" }, t("fair_checking_long")));
  const did = (boosted, yes, no) => (boosted ? term("boost", t(yes)) : term("quiet", t(no)));
  const box = h(
    "div",
    { class: "after", id: "b-after" },
    h("p", { class: "did" }, did(result.you.boost, "you_boosted", "you_quiet"), " ", did(result.rival.boost, "rival_boosted", "rival_quiet")),
    h("p", { class: "heat-change you-text" }, heatExplained(t("heat_yours"), result.you)),
    h("p", { class: "heat-change rival-text" }, heatExplained(t("heat_rivals"), result.rival)),
    h(
      "p",
      { class: "night-score" },
      t("score_line", { night: result.night }),
      " ",
      h("span", { class: "you-text" }, t("score_you", result.score)),
      " · ",
      h("span", { class: "rival-text" }, t("score_rival", result.score)),
    ),
    badge,
    h("p", { class: "hint" }, t("recap_hint")),
  );
  return { box, badge };
}

// --- the night on the vaults -------------------------------------------------------------------

function crewAt(result, side, slug) {
  return result[side].crew.filter((c) => c.vault === slug);
}

/** Turn ``result`` over on the vaults. ``scores``: each side's score before the night (the
 * Loot is added as it reaches it); ``animate``: false draws it at once (a recap). */
async function turnOver(result, scores, animate) {
  const closed = new Set(result.closed ?? []);
  const running = { ...scores };
  for (const slug of vaultSlugs()) {
    const v = result.vaults.find((x) => x.slug === slug);
    const node = vaultEl(slug);
    node.classList.remove("pending");
    node.classList.add("current");
    if (animate) $("b-reveal-status").textContent = t("revealing", { vault: vaultName(slug) });
    const isClosed = closed.has(slug);
    for (const side of ["you", "rival"]) {
      const list = zoneChips(slug, side);
      const total = zoneTotal(slug, side);
      const crew = crewAt(result, side, slug);
      let power = 0;
      total.hidden = isClosed;
      total.textContent = "0";
      for (const entry of crew) {
        list.append(chip(entry.crew, side, entry.power, animate ? "flip" : ""));
        if (animate) await beat(side === "rival" ? 350 : 200);
        const next = power + entry.power;
        if (animate) await countTo(total, power, next);
        power = next;
        total.textContent = String(power);
        sound("tick");
      }
      if (!crew.length && !isClosed) list.append(h("li", { class: "chip none" }, t("no_crew")));
    }
    zoneTotal(slug, "you").textContent = String(v.you_power);
    zoneTotal(slug, "rival").textContent = String(v.rival_power);
    if (animate) await beat(300);
    const won = v.winner ?? "none";
    node.classList.remove("current");
    node.classList.add(`won-${won}`, "done");
    if (v.winner) {
      const loser = v.winner === "you" ? "rival" : "you";
      for (const [side, mark] of [[v.winner, "won"], [loser, "lost"]]) {
        $(`vault-${slug}-${side}`).classList.add(mark);
        zoneTotal(slug, side).classList.add(mark);
      }
    }
    verdict(slug).replaceChildren(h("span", { "aria-hidden": "true" }, verdictText(v, isClosed)), h("span", { class: "visually-hidden" }, verdictLong(v, isClosed)));
    if (v.winner) {
      sound(v.winner === "you" ? "win" : "lose");
      // The Loot goes to the winner's score: a coin leaves the vault, the score takes it.
      if (animate) {
        const coin = h("span", { class: `flyer fly-${v.winner}`, "aria-hidden": "true" }, h("span", { class: "coin" }), v.loot);
        lootNode(slug).append(coin);
        await beat(550);
        coin.remove();
      }
      running[v.winner] += v.loot;
      if (animate) bumpScore(v.winner, running[v.winner], v.loot);
    }
    if (animate) await beat(350);
  }
  bumpScore("you", result.score.you, 0);
  bumpScore("rival", result.score.rival, 0);
}

function summaryLine(result) {
  const taken = result.vaults
    .filter((v) => v.winner)
    .map((v) => t("took", { who: t(v.winner === "you" ? "took_you" : "took_rival"), vault: vaultName(v.slug), loot: v.loot }));
  return t("night_summary_sr", { night: result.night, taken: taken.length ? taken.join(". ") : t("nobody_took"), you: result.score.you, rival: result.score.rival });
}

/** Show ``result`` on the board and wait for it to be played out.
 * ``live``: it was just sealed here (or a reload caught it mid-way): it plays, unless motion is
 * off; else it is drawn at once (a recap). ``scores``: each side's score before the night.
 * ``way``: {label, href?, onClick?} the way on once it is over. */
export async function showNight(result, { live, scores, way, title }) {
  state.mode = live ? "reveal" : "recap";
  state.shown = result;
  state.revealing = live;
  skipping = false;
  $("b-plan").hidden = true;
  prepareNight(result, state.mode);

  const section = $("b-reveal");
  const button = h("button", { type: "button", class: "button big", id: "b-next", on: { click: () => (skipping = true) } }, t("skip"));
  const { box, badge } = afterWords(result);
  box.hidden = live;
  section.replaceChildren(
    h("div", { class: "reveal-head" }, h("h2", { id: "b-reveal-title", tabindex: "-1" }, title ?? t(live ? "reveal_title" : "recap_title", { night: result.night })), button),
    h("p", { class: "reveal-status", id: "b-reveal-status", hidden: !live }),
    box,
  );
  section.hidden = false;
  section.dataset.night = String(result.night);
  $("b-reveal-title").focus({ preventScroll: true });
  if (live) tour.did("reveal-start");
  const verified = verifyCommitment(result, badge, live ? state.seenCommitment : null);

  await turnOver(result, scores, live && speed() > 0);
  $("b-reveal-status").hidden = true;
  box.hidden = false;
  await verified;

  const next = way.href
    ? h("a", { class: "button big", href: way.href, id: "b-next" }, way.label)
    : h("button", { type: "button", class: "button big", id: "b-next", on: { click: way.onClick } }, way.label);
  const hadFocus = document.activeElement === button;
  button.replaceWith(next);
  if (hadFocus) next.focus();
  state.revealing = false;
  say(summaryLine(result));
  if (live) tour.did("reveal-end");
}
