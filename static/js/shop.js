// The shop with JavaScript: Buy opens a confirmation (price, balance, balance after) and
// Confirm asks POST /api/v1/shop/purchases/ with an Idempotency-Key; Wear / Take off ask
// PUT /api/v1/collection/equipped/. After each, the shelf is drawn again from the server's own
// page, so the page says exactly what it says without JavaScript (where every one of these is
// a plain form: templates/shop/).
const root = document.getElementById("shop");

async function api(path, method, body, headers = {}) {
  const response = await fetch(root.dataset.api + path, {
    method,
    credentials: "same-origin",
    headers: {
      Accept: "application/json",
      "Content-Type": "application/json",
      "X-CSRFToken": root.dataset.csrf,
      ...headers,
    },
    body: JSON.stringify(body),
  });
  let data = null;
  try {
    data = await response.json();
  } catch {
    data = null;
  }
  return { ok: response.ok, status: response.status, data };
}

function say(text, bad = false) {
  const live = document.getElementById("shop-live");
  live.textContent = text;
  live.classList.toggle("bad", bad);
}

/** Draw the shelf and the balance again from the page the server renders. */
async function redraw() {
  const response = await fetch(window.location.pathname, {
    credentials: "same-origin",
    headers: { Accept: "text/html" },
  });
  const doc = new DOMParser().parseFromString(await response.text(), "text/html");
  for (const id of ["shop-shelf", "shop-balance", "header-signs"]) {
    const fresh = doc.getElementById(id);
    const here = document.getElementById(id);
    if (fresh && here) here.replaceWith(fresh);
  }
}

function errorText(result) {
  return result.data?.error?.message ?? `The shop did not answer (${result.status}). Try again.`;
}

if (root && root.dataset.signedIn === "true") {
  const dialog = document.getElementById("shop-confirm");
  const field = (name) => dialog.querySelector(`[data-field="${name}"]`);
  const confirmButton = document.getElementById("confirm-buy");
  let pending = null; // {slug, name, price, key}

  function openConfirm(li) {
    const balance = Number(document.getElementById("shop-balance").dataset.balance);
    const price = Number(li.dataset.price);
    // One key per purchase the player means: a retry after a lost answer reuses it, so the
    // server buys once whatever the network did.
    pending = {
      slug: li.dataset.slug,
      name: li.dataset.name,
      kind: li.dataset.kind,
      price,
      key: crypto.randomUUID(),
    };
    field("name").textContent = pending.name;
    field("price").textContent = String(price);
    field("balance").textContent = String(balance);
    field("after").textContent = balance >= price ? String(balance - price) : "not enough";
    field("message").textContent =
      balance >= price ? "" : `You need ${price - balance} more Signs for ${pending.name}.`;
    confirmButton.disabled = balance < price;
    dialog.showModal();
  }

  async function confirmPurchase() {
    if (!pending) return;
    confirmButton.disabled = true;
    const { slug, name, kind, price, key } = pending;
    const result = await api(
      "shop/purchases/",
      "POST",
      { item: slug, price },
      { "Idempotency-Key": key },
    );
    confirmButton.disabled = false;
    if (!result.ok) {
      field("message").textContent = errorText(result);
      if (result.status !== 409 || result.data?.error?.code !== "request_in_progress") {
        pending.key = crypto.randomUUID(); // refused: nothing was bought with that key
      }
      return;
    }
    pending = null;
    dialog.close();
    await redraw();
    say(`You bought ${name} for ${price} Signs. You hold ${result.data.balance} Signs now.`);
    if (kind !== "crew") {
      unveil(slug, name, kind);
      return;
    }
    focusItem(slug);
  }

  function focusItem(slug) {
    document.getElementById(`name-${slug}`)?.setAttribute("tabindex", "-1");
    document.getElementById(`name-${slug}`)?.focus();
  }

  // A cosmetic just bought, shown big once: its own art from the shelf, in a dialog.
  const unveilDialog = document.getElementById("shop-unveil");
  let unveiled = null; // {slug, name, kind}

  function unveil(slug, name, kind) {
    const body = document.getElementById("unveil-template").content.cloneNode(true);
    body.querySelector('[data-field="unveil-name"]').textContent = name;
    const art = document.querySelector(`#item-${slug} .item-art`);
    if (art) body.querySelector('[data-field="unveil-art"]').append(art.cloneNode(true));
    for (const line of body.querySelectorAll("[data-kind-line]")) {
      if (line.dataset.kindLine !== kind) line.remove();
    }
    unveilDialog.querySelector('[data-field="unveil"]').replaceChildren(body);
    unveilDialog.querySelector('[data-field="unveil-message"]').textContent = "";
    unveiled = { slug, name, kind };
    unveilDialog.showModal();
  }

  function closeUnveil() {
    const slug = unveiled?.slug;
    unveiled = null;
    unveilDialog.close();
    if (slug) focusItem(slug);
  }

  async function equip(form) {
    // namedItem: `elements.item` is the collection's own item() method, not the field.
    const kind = form.elements.namedItem("kind").value;
    const item = form.elements.namedItem("item").value || null;
    await wear(kind, item);
  }

  async function wear(kind, item) {
    const result = await api("collection/equipped/", "PUT", { kind, item });
    if (!result.ok) {
      say(errorText(result), true);
      return false;
    }
    await redraw();
    const li = item ? document.getElementById(`item-${item}`) : null;
    say(item ? `You now wear ${li?.dataset.name ?? item}.` : "Taken off: back to the default.");
    return true;
  }

  root.addEventListener("click", (event) => {
    const buy = event.target.closest("a[data-buy]");
    if (!buy) return;
    event.preventDefault();
    openConfirm(buy.closest("li[data-slug]"));
  });
  root.addEventListener("submit", (event) => {
    const form = event.target.closest("form.equip-form");
    if (!form) return;
    event.preventDefault();
    equip(form);
  });
  confirmButton.addEventListener("click", confirmPurchase);
  document.getElementById("unveil-close").addEventListener("click", closeUnveil);
  unveilDialog.addEventListener("close", () => {
    unveiled = null;
  });
  document.getElementById("unveil-wear").addEventListener("click", async () => {
    if (!unveiled) return;
    if (await wear(unveiled.kind, unveiled.slug)) closeUnveil();
  });
  document.getElementById("confirm-cancel").addEventListener("click", () => {
    pending = null;
    dialog.close();
  });
}
