// The result page while its debrief is being worked out: ask the API again after the
// Retry-After it gives, and reload the page once the debrief is stored. Without JavaScript the
// paragraph's Refresh link does the same by hand.
(function () {
  "use strict";
  var status = document.getElementById("debrief-status");
  if (!status || !window.fetch) return;
  var url = status.getAttribute("data-debrief-url");
  var tries = 0;
  function ask() {
    tries += 1;
    fetch(url, { credentials: "same-origin", headers: { Accept: "application/json" } })
      .then(function (response) {
        if (response.status === 200) {
          window.location.reload();
          return;
        }
        if (response.status !== 202 || tries > 60) return;
        var wait = parseInt(response.headers.get("Retry-After") || "2", 10);
        window.setTimeout(ask, Math.max(1, Math.min(wait, 30)) * 1000);
      })
      .catch(function () {
        if (tries <= 60) window.setTimeout(ask, 5000);
      });
  }
  window.setTimeout(ask, 1000);
})();
