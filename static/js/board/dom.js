// Small DOM helpers shared by the board's modules. No inline style anywhere (strict CSP): looks
// are classes and data attributes the stylesheet knows.

import { SPRITE, artId, define, t } from "./page.js";

/** Build an element: h("p", {class: "x", "aria-live": "polite"}, "text", child, ...). */
export function h(tag, attrs = {}, ...children) {
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
export const $ = (id) => document.getElementById(id);
export const signed = (n) => (n >= 0 ? `+${n}` : `−${-n}`);
export const pause = (ms) => new Promise((resolve) => window.setTimeout(resolve, ms));

/** A symbol of the board's sprite: art("crew", slug, "emblem"), art("vault", slug, ...). */
export function art(kind, slug, className) {
  const svg = document.createElementNS(SVG, "svg");
  svg.setAttribute("class", className);
  svg.setAttribute("aria-hidden", "true");
  svg.setAttribute("focusable", "false");
  const use = document.createElementNS(SVG, "use");
  use.setAttribute("href", `${SPRITE}#${artId(kind, slug)}`);
  svg.append(use);
  return svg;
}

export function cardBack(slug, extra = "") {
  return h("span", { class: `card-back ${extra}`.trim(), "data-card-back": slug || "default", "aria-hidden": "true" });
}

/** A word of the board's glossary (by its key), defined where it appears: a tap opens it. */
export function term(key, shown) {
  const entry = define(key);
  if (!entry) return shown;
  return h("button", { type: "button", class: "term", "data-term": key, "aria-label": `${shown}: ${t("term_label", { term: entry.term })}` }, shown);
}

/** Polite live region, for screen readers only (the note line shows it to the eye). */
export function say(text) {
  const live = $("b-live");
  live.textContent = "";
  window.setTimeout(() => {
    live.textContent = text;
  }, 30);
}
