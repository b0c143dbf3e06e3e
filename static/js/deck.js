// The Heist board (deck builder): live counts and reasons. Without this module every + and −
// is a form submit and the server answers with the same reasons, so the page works either way.
// The words are the server's (data-texts, from game/presenters/words.py).
const form = document.getElementById("deck-form");

/** Fill a server template: fill("Add {missing} more cards", {missing: 2}). */
const fill = (template, values) => template.replace(/\{(\w+)\}/g, (m, key) => String(values[key] ?? m));

if (form) {
  const size = Number(form.dataset.size);
  const maxCopies = Number(form.dataset.maxCopies);
  const TEXT = JSON.parse(form.dataset.texts);
  const totalEl = document.getElementById("deck-total");
  const countEl = document.getElementById("deck-count");
  const reasonEl = document.getElementById("deck-reason");
  const rows = new Map();
  for (const li of form.querySelectorAll("li[data-slug]")) {
    rows.set(li.dataset.slug, {
      li,
      name: li.querySelector(".name").textContent,
      input: li.querySelector("input[type=hidden]"),
      output: li.querySelector("output"),
    });
  }
  const count = (slug) => Number(rows.get(slug).input.value);
  const total = () => [...rows.keys()].reduce((sum, slug) => sum + count(slug), 0);

  function legalReason() {
    const n = total();
    if (n < size) return fill(TEXT[size - n === 1 ? "short_one" : "short"], { missing: size - n, size });
    if (n > size) return fill(TEXT.long, { extra: n - size, size });
    return null;
  }

  function say(text, bad) {
    reasonEl.textContent = text;
    reasonEl.classList.toggle("bad", bad);
    reasonEl.classList.toggle("good", !bad);
  }

  function set(slug, n) {
    const row = rows.get(slug);
    row.input.value = String(n);
    row.output.textContent = String(n);
    row.li.classList.toggle("in-deck", n > 0);
  }

  function refresh(refusal) {
    const n = total();
    totalEl.textContent = String(n);
    countEl.classList.toggle("full", n === size);
    if (refusal) {
      say(refusal, true);
    } else {
      const reason = legalReason();
      say(reason ?? TEXT.legal_unsaved, reason !== null);
    }
  }

  form.addEventListener("click", (event) => {
    const button = event.target.closest("button[name=action]");
    if (!button) return;
    const [op, slug] = button.value.split(":");
    // Save and delete are real submits: the server validates and stores (or deletes).
    if (!["add", "remove", "clear", "starter"].includes(op)) return;
    event.preventDefault();
    let refusal = null;
    if (op === "add") {
      const row = rows.get(slug);
      if (count(slug) >= maxCopies) refusal = fill(TEXT.too_many_copies, { max_copies: maxCopies, name: row.name });
      else if (total() >= size) refusal = fill(TEXT.full, { size });
      else set(slug, count(slug) + 1);
    } else if (op === "remove") {
      set(slug, Math.max(0, count(slug) - 1));
    } else if (op === "clear" || op === "starter") {
      for (const key of rows.keys()) set(key, 0);
      for (const s of (button.dataset.deck || "").split(",").filter(Boolean)) set(s, count(s) + 1);
    }
    refresh(refusal);
  });
}
