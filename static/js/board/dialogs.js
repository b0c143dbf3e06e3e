// The board's sheets: the help (the night's steps, the Heat -> Energy table and every word of
// the board, from the ruleset) and the "lie low" question before sealing with no crew.

import { RULES, root, t } from "./page.js";
import { $, h } from "./dom.js";
import { tour } from "./guide.js";

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
