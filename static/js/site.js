// Every page: the header's menu (a details element, usable without this file) closes on
// Escape, on a tap outside it and when one of its links is followed.
(function () {
  "use strict";
  var menu = document.getElementById("site-menu");
  if (!menu) return;
  var toggle = menu.querySelector("summary");
  document.addEventListener("keydown", function (event) {
    if (event.key === "Escape" && menu.open) {
      menu.open = false;
      toggle.focus();
    }
  });
  document.addEventListener("click", function (event) {
    if (menu.open && !menu.contains(event.target)) menu.open = false;
  });
})();
