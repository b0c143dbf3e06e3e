// "Copy the link" beside a challenge's link (the challenge page and the result page's section).
// Without JavaScript (or a clipboard) the button stays hidden and the link is there to copy.
(function () {
  "use strict";
  if (!navigator.clipboard) return;
  document.querySelectorAll("[data-copy-link]").forEach(function (button) {
    var id = button.getAttribute("data-copy-link");
    var link = document.getElementById(id);
    var status = document.querySelector('[data-copy-status="' + id + '"]');
    if (!link) return;
    button.hidden = false;
    link.addEventListener("focus", function () { link.select(); });
    button.addEventListener("click", function () {
      navigator.clipboard.writeText(link.value).then(
        function () { if (status) status.textContent = "Copied: send it to a friend."; },
        function () { link.select(); if (status) status.textContent = "Select the link and copy it."; }
      );
    });
  });
})();
