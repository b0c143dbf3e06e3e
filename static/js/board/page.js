// What the page hands the board: the ruleset's numbers, names and words (data-rules, from
// game/presenters), the API's address, the art sprite and the symbols it holds (data-art).
// Nothing here is a copy of a rule: the server says it, the board reads it.

export const root = document.getElementById("board");
export const RULES = root ? JSON.parse(root.dataset.rules) : null;
export const HEIST_URL = root ? `${root.dataset.api}heists/${root.dataset.heist}/` : "";
export const SPRITE = root ? root.dataset.sprite : "";
// The symbols static/images/board.svg holds ("crew-<slug>", "vault-<slug>", ...), listed by
// the server from the sprite itself: anything else gets the default symbol of its kind.
const ART = new Set(RULES?.art ?? []);

export const crewInfo = (slug) => RULES.crew[slug] ?? { name: slug, cost: 0, power: 0, text: "" };
export const vaultName = (slug) => RULES.vaults.find((v) => v.slug === slug)?.name ?? slug;
export const artId = (kind, slug) => (ART.has(`${kind}-${slug}`) ? `${kind}-${slug}` : `${kind}-default`);
