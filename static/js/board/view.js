// The board around the vaults: the top line with the night tracker (a played night's dot opens
// it again), both sides (deck pile in the side's card back, Heat, Energy, the rival's face-down
// hand, the score) and the encounter's banner.

import { RULES, root, t } from "./page.js";
import { $, h, cardBack, term } from "./dom.js";
import { state } from "./state.js";
import { heatMarks, renderBanner } from "./encounter.js";

/** The night tracker. ``showing``: the night the vaults show (a recap), if not tonight's. */
export function renderTop(heist = state.heist, showing = null) {
  const title = showing ?? heist.night;
  $("b-night").textContent = String(title);
  $("b-nights-total").textContent = String(heist.nights);
  const played = heist.history?.length ?? 0;
  const list = $("b-nights");
  list.replaceChildren();
  for (let n = 1; n <= heist.nights; n += 1) {
    const done = n <= played;
    const now = n === heist.night && heist.status === "active" && !done;
    const seen = n === showing;
    const label = seen ? t("dot_seen", { n }) : done ? t("dot_played", { n }) : now ? t("dot_now", { n }) : t("dot_later", { n });
    const face = done ? "✓" : String(n);
    list.append(
      h(
        "li",
        { class: [done ? "done" : null, now ? "now" : null, seen ? "seen" : null].filter(Boolean).join(" ") || null, "aria-current": now && !showing ? "step" : null },
        done
          ? h("button", { type: "button", class: "dot", "data-night": n, "aria-label": label, "aria-pressed": seen ? "true" : "false" }, face)
          : h("span", { class: "dot", "aria-hidden": "true" }, face),
        done ? null : h("span", { class: "visually-hidden" }, label),
      ),
    );
  }
  renderBanner(heist, title);
}

function gauges(side, who, heatMark) {
  const locked = side.heat >= RULES.boost_lock_heat;
  return [
    h(
      "p",
      { class: "gauge heat" },
      h("span", { class: "gauge-word" }, term("heat", t("heat"))),
      h("meter", {
        min: RULES.heat_min ?? 0,
        max: RULES.heat_max,
        low: 3,
        high: 5,
        optimum: 0,
        value: side.heat,
        "aria-label": `${who} ${t("heat")}`,
        "aria-valuetext": `${t("heat_value", { heat: side.heat, heat_max: RULES.heat_max })}${locked ? `, ${t("boost_locked_short")}` : ""}`,
      }),
      h("b", { class: "gauge-n" }, side.heat),
      locked ? h("span", { class: "lock", title: t("boost_locked_short") }, "🔒", h("span", { class: "visually-hidden" }, t("boost_locked_short"))) : null,
      heatMark === undefined ? null : h("span", { class: "mark mark-heat tonight" }, t("mark_heat", { heat: heatMark })),
    ),
    h("p", { class: "gauge energy" }, h("span", { class: "gauge-word" }, term("energy", t("energy"))), " ", h("b", { class: "gauge-n" }, side.energy)),
  ];
}

/** Both sides. ``heist`` may be a view from before the night being revealed. */
export function renderSides(heist = state.heist) {
  const { you, rival, phase } = heist;
  const finished = heist.status !== "active";
  const sealed = !finished && phase === "planning" && rival.commitment;
  const heatMark = heist.night === 1 && !(heist.history ?? []).length ? heatMarks(heist) : {};
  root.dataset.boardTheme = you.cosmetics?.board_theme || "default";

  $("b-you-gauges").replaceChildren(...gauges(you, t("heat_yours"), heatMark.you));
  $("b-you-name").textContent = t("you");
  $("b-your-deck").textContent = String(you.deck_count);
  $("b-your-pile-label").textContent = t("your_pile", { n: you.deck_count });
  $("b-score-you").textContent = String(you.score);
  $("b-you-score-label").textContent = t("score");

  $("b-rival-gauges").replaceChildren(...gauges(rival, t("heat_rivals"), heatMark.rival));
  $("b-rival-name").textContent = rival.name;
  $("b-rival-deck").textContent = String(rival.deck_count);
  $("b-rival-pile-label").textContent = t("rival_pile", { name: rival.name, n: rival.deck_count });
  $("b-score-rival").textContent = String(rival.score);
  $("b-rival-score-label").textContent = t("score");
  const status = $("b-rival-status");
  status.className = `side-status rival-status${sealed || finished ? " sealed" : ""}`;
  status.replaceChildren(
    finished ? `✓ ${t("rival_over")}` : sealed ? h("span", {}, "✓ ", term("locked", t("rival_locked"))) : `⋯ ${t("rival_planning")}`,
    h("span", { class: "visually-hidden" }, finished ? "" : sealed ? t("rival_locked_sr") : t("rival_planning_sr")),
  );
  const hand = $("b-rival-hand");
  hand.setAttribute("aria-label", t("rival_hand", { name: rival.name, n: rival.hand_count }));
  hand.replaceChildren(...Array.from({ length: rival.hand_count }, () => cardBack(rival.cosmetics?.card_back, "hand-back")));
  for (const back of root.querySelectorAll("#b-rival .pile-back")) back.dataset.cardBack = rival.cosmetics?.card_back || "default";
  for (const back of root.querySelectorAll("#b-you .pile-back")) back.dataset.cardBack = you.cosmetics?.card_back || "default";

  const rivalInfo = RULES.rivals?.[rival.slug];
  const level = RULES.difficulties?.[rival.difficulty];
  const meta = $("b-meta");
  meta.replaceChildren(
    ...[
      h("span", { class: "level" }, level ? level.name : rival.difficulty),
      rivalInfo ? h("span", { class: "style" }, ` · ${rivalInfo.tagline}`) : null,
      heist.encounter ? h("span", { class: "enc" }, " · ", term("encounter", t("encounter", { name: heist.encounter.name }))) : null,
    ].filter(Boolean),
  );
  if (level) meta.title = level.description;
}

/** A side's score, changed as a vault's Loot reaches it (the reveal), with a "+N" that pops. */
export function bumpScore(side, score, gained) {
  const node = $(side === "you" ? "b-score-you" : "b-score-rival");
  node.textContent = String(score);
  const box = node.parentElement;
  box.querySelector(".gain")?.remove();
  if (gained) box.append(h("span", { class: "gain", "aria-hidden": "true" }, `+${gained}`));
}

/** The night's board down to Seal on one screen: where the page's header leaves too little room
 * for it, scroll the header away (never past the board's top). */
export function fitBoard() {
  const last = [$("b-plan").hidden ? $("b-next") : $("b-seal"), $("b-you")].filter(Boolean);
  const bottom = Math.max(...last.map((node) => node.getBoundingClientRect().bottom));
  const over = bottom + 6 - window.innerHeight;
  const top = root.getBoundingClientRect().top;
  if (over > 0 && top > 0) window.scrollBy(0, Math.min(over, top));
}
