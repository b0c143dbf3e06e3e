// Talking to the JSON API (DESIGN.md section 5) and the provably fair check of the rival's plan
// (DESIGN.md "Commitments").

import { root, t } from "./page.js";

export class ApiError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

// The last answer to each read that came with an ETag: {etag, text}. The next read of the same
// address sends it back (If-None-Match) and a 304 Not Modified reuses the text, so the board's
// polling while the rival plans costs the server almost nothing. Each read gets a fresh copy
// (the board changes the view it holds). The answers say no-store: this is the page's own
// memory, never the browser's cache. A seal's answer holds the new view and names its tag
// (Heist-ETag): with `viewAt` (the view's address) it is kept as that address's last read, so
// the next read is a 304 while the rival still plans.
const kept = new Map();

export async function api(path, { viewAt, ...options } = {}) {
  const init = { credentials: "same-origin", headers: { Accept: "application/json" }, ...options };
  const read = options.body === undefined;
  if (!read) {
    init.method = "POST";
    init.headers["Content-Type"] = "application/json";
    init.headers["X-CSRFToken"] = root.dataset.csrf;
    init.body = JSON.stringify(options.body);
  }
  const known = read ? kept.get(path) : undefined;
  if (known) {
    init.headers["If-None-Match"] = known.etag;
    init.cache = "no-store";
  }
  let response;
  try {
    response = await fetch(path, init);
  } catch {
    throw new ApiError(0, "network", t("network"));
  }
  if (response.status === 304 && known) return JSON.parse(known.text);
  const text = await response.text().catch(() => "");
  let data = null;
  try {
    data = JSON.parse(text);
  } catch {
    /* not JSON: reported below as an error */
  }
  if (!response.ok) {
    const err = data?.error ?? {};
    throw new ApiError(response.status, err.code ?? "error", err.message ?? t("error"));
  }
  const etag = response.headers.get("ETag");
  if (read && etag && data !== null) kept.set(path, { etag, text });
  const viewTag = response.headers.get("Heist-ETag");
  if (!read && viewAt && viewTag && data?.heist) {
    kept.set(viewAt, { etag: viewTag, text: JSON.stringify(data.heist) });
  }
  return data;
}

/** The canonical text of a plan, byte for byte as the server's json.dumps(sort_keys=True). */
export function canonicalPlan(crew, boost) {
  const pairs = crew.map((c) => [String(c.crew), String(c.vault)]);
  pairs.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0));
  // Keys in sorted order ("boost" < "crew"); JSON.stringify adds no spaces, like separators=(",", ":").
  return JSON.stringify({ boost: Boolean(boost), crew: pairs });
}

export async function sha256Hex(text) {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** Does the revealed rival plan match its commitment (and the one shown before we sealed)?
 * {ok, digest} or null where this browser cannot check (no SubtleCrypto off a secure origin). */
export async function checkCommitment(rival, shownFirst) {
  if (!window.crypto?.subtle) return null;
  const digest = await sha256Hex(rival.nonce + canonicalPlan(rival.crew, rival.boost));
  const ok = digest === rival.commitment && (shownFirst === null || shownFirst === rival.commitment);
  return { ok, digest };
}
