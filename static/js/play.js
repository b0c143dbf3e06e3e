// The Play page's set-up: opened, it scrolls to the top of the screen (so the pinned Start bar
// sits whole at the bottom, even in a short landscape screen), and the bar names what it will
// start (the server wrote the first line; this keeps it true as the player changes a choice).
// Without JavaScript the radios and Start work the same; only the line stays as it was drawn.
(function () {
  "use strict";
  var form = document.getElementById("setup-form");
  var summary = document.getElementById("setup-summary");
  if (!form || !summary) return;
  var setup = form.closest("details");
  var groups = ["rival", "difficulty", "encounter", "deck"];
  if (setup) {
    // Only when the player opens it (not when the page is drawn open, over an error to read).
    var asked = false;
    setup.querySelector("summary").addEventListener("click", function () {
      asked = true;
    });
    setup.addEventListener("toggle", function () {
      var opened = setup.open && asked;
      asked = false;
      if (!opened) return;
      var reduce = window.matchMedia("(prefers-reduced-motion: reduce)").matches;
      setup.scrollIntoView({ block: "start", behavior: reduce ? "auto" : "smooth" });
    });
  }
  function chosen(name) {
    var input = form.querySelector('input[name="' + name + '"]:checked');
    return input ? input.getAttribute("data-label") : "";
  }
  form.addEventListener("change", function () {
    summary.textContent = groups.map(chosen).filter(Boolean).join(" · ");
  });
})();
