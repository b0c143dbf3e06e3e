// The reveal: both plans turn over vault by vault, the powers count up, then the winner; the
// night's score and the header change last. The rival's commitment is checked here.

import { RULES, root, crewInfo, vaultName } from "./page.js";
import { $, h, art, pause, say, signed } from "./dom.js";
import { checkCommitment } from "./api.js";
import { sound, speed } from "./settings.js";
import { state, resetPlan } from "./state.js";
import { renderSides, renderTop } from "./view.js";
import { tour } from "./guide.js";

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
  const summary = badge.querySelector("summary");
  const detail = badge.querySelector(".fair-detail");
  let check;
  try {
    check = await checkCommitment(rival, state.seenCommitment);
  } catch {
    summary.textContent = "Fair play: not checked here";
    return;
  }
  if (!check) {
    summary.textContent = "Fair play: not checked here";
    detail.textContent = "This browser cannot check the rival's locked-in plan (it needs a secure connection). The replay can be checked later.";
    return;
  }
  const { ok, digest } = check;
  const shownFirst = state.seenCommitment;
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
      h("dd", {}, rival.commitment),
      h("dt", {}, "Nonce"),
      h("dd", {}, rival.nonce),
      h("dt", {}, "Check"),
      h("dd", {}, `SHA-256(nonce + plan) = ${digest}`),
    ),
  );
}

let skipReveal = false;

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

export async function showReveal(result, before, after, { onNext }) {
  state.heist = after;
  resetPlan();
  state.revealing = true;
  skipReveal = false;
  $("b-plan").hidden = true;

  const closed = new Set(before.vaults.filter((v) => v.closed).map((v) => v.slug));
  const youCrew = (vault) => result.you.crew.filter((c) => c.vault === vault);
  const rivalCrew = (vault) => result.rival.crew.filter((c) => c.vault === vault);
  const taken = [];
  const articles = result.vaults.map((v) => {
    const yourPower = v.you_power ?? 0;
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
  const afterBox = h(
    "div",
    { class: "after", hidden: true },
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
    afterBox,
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
  afterBox.hidden = false;
  await verified;
  renderTop(after);
  renderSides(after);
  const finished = after.status !== "active";
  const next = finished
    ? h("a", { class: "button big", href: root.dataset.resultUrl, id: "b-next" }, "See the result")
    : h("button", { type: "button", class: "button big", id: "b-next", on: { click: onNext } }, `Next: night ${after.night}`);
  const hadFocus = document.activeElement === skip;
  skip.replaceWith(next);
  if (hadFocus) next.focus();
  state.revealing = false;
  const summary = `${taken.length ? taken.join(". ") : "Nobody took any vault"}. Score: you ${result.score.you}, rival ${result.score.rival}.`;
  say(`Night ${result.night}: ${summary}`);
  tour.did("reveal-end");
}
