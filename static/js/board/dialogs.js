// The board's sheets: the rival's piles, the help (the night's steps and the Heat -> Energy
// table, from the ruleset) and the "lie low" question before sealing with no crew.

import { RULES, root, crewInfo } from "./page.js";
import { $, h, art } from "./dom.js";
import { state } from "./state.js";
import { tour } from "./guide.js";

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

export function openPiles() {
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

/** Wire the sheets; ``onLieLow`` seals the empty plan, ``onKeepPlanning`` goes back to it. */
export function setupDialogs({ onLieLow, onKeepPlanning }) {
  for (const dialog of root.querySelectorAll("dialog")) {
    dialog.addEventListener("click", (event) => {
      if (event.target.closest("[data-close]") || event.target === dialog) dialog.close();
    });
  }
  root.addEventListener("click", (event) => {
    if (event.target.closest("#b-piles-open")) openPiles();
  });
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
  $("b-help-open").addEventListener("click", () => $("b-help").showModal());
  $("b-tour-again").addEventListener("click", () => {
    $("b-help").close();
    tour.start(true);
  });
}

/** Ask before sealing a night with no crew. */
export function askLieLow() {
  const cool = RULES.quiet_cooling ? ` and cools your Heat by ${RULES.quiet_cooling}` : "";
  $("b-confirm-text").textContent = `You have sent no crew: sealing now takes no vault tonight${cool}.`;
  $("b-confirm").showModal();
  $("b-confirm-no").focus();
}
