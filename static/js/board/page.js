// What the page hands the board: the heist's API address, the art sprite, and the address of
// the ruleset's numbers, names and words (game/presenters, the same for every player and cached
// for a year), loaded once before anything is drawn. Nothing here is a copy of a rule or a
// sentence: the server says it, the board fills in the night's values.

export const root = document.getElementById("board");
export const HEIST_URL = root ? `${root.dataset.api}heists/${root.dataset.heist}/` : "";
export const SPRITE = root ? root.dataset.sprite : "";
export let RULES = null;
let ART = new Set();
let WORDS = {};

/** Fetch the ruleset's data for the board (the page preloads it). */
export async function loadRules() {
  const response = await fetch(root.dataset.rulesUrl, { credentials: "include", headers: { Accept: "application/json" } });
  if (!response.ok) throw new Error(`board data: ${response.status}`);
  RULES = await response.json();
  // The sprite's symbols ("crew-<slug>", "vault-<slug>"), listed by the server from the file:
  // anything else gets the default symbol of its kind.
  ART = new Set(RULES.art ?? []);
  WORDS = RULES.words ?? {};
}

/** Fill a template: {key} from ``values``, an unknown key left as it is. */
export const fill = (template, values = {}) => String(template ?? "").replace(/\{(\w+)\}/g, (m, key) => String(values[key] ?? m));
/** The board's words: t("seal", {night: 2}) -> "Seal night 2". */
export const t = (key, values) => fill(WORDS[key] ?? key, values);
/** A term of the glossary by its key: {term, text}, or null. */
export const define = (key) => RULES?.glossary?.[key] ?? null;

export const crewInfo = (slug) => RULES.crew[slug] ?? { name: slug, cost: 0, power: 0, text: "", when: null };
export const vaultName = (slug) => RULES.vaults.find((v) => v.slug === slug)?.name ?? slug;
export const artId = (kind, slug) => (ART.has(`${kind}-${slug}`) ? `${kind}-${slug}` : `${kind}-default`);
