// The jobs section of a player with no time zone yet: the browser says where it is, once
// (PUT /api/v1/me/time-zone/ with if_unset, so a zone the player chose is never overridden),
// and the section is drawn again from the server's own page with the day's new end whenever
// the zone in force is not the one it was drawn in (another tab may have set it meanwhile).
(async function () {
  "use strict";
  const section = document.getElementById("jobs");
  if (!section || !("zoneUnset" in section.dataset)) return;
  let zone = "";
  try {
    zone = Intl.DateTimeFormat().resolvedOptions().timeZone || "";
  } catch {
    return;
  }
  if (!zone) return;
  let answer;
  try {
    const response = await fetch(section.dataset.zoneApi, {
      method: "PUT",
      credentials: "same-origin",
      headers: {
        Accept: "application/json",
        "Content-Type": "application/json",
        "X-CSRFToken": section.dataset.csrf,
      },
      body: JSON.stringify({ time_zone: zone, if_unset: true }),
    });
    if (!response.ok) return; // a zone this server does not know: the player picks one
    answer = await response.json();
  } catch {
    return;
  }
  if (answer.time_zone === section.dataset.zone) return;
  const page = await fetch(window.location.href, {
    credentials: "same-origin",
    headers: { Accept: "text/html" },
  });
  const doc = new DOMParser().parseFromString(await page.text(), "text/html");
  const fresh = doc.getElementById("jobs");
  if (fresh) section.replaceWith(fresh);
})();
