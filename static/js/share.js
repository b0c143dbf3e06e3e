// The result page's "Copy the summary": copies the summary line and the replay's link.
// Without JavaScript (or a clipboard) the button stays hidden and the link is there to copy.
(function () {
  "use strict";
  var button = document.getElementById("share-copy");
  if (!button || !navigator.clipboard) return;
  var link = document.getElementById(button.getAttribute("data-copy-target"));
  var line = document.getElementById(button.getAttribute("data-copy-text"));
  var status = document.getElementById("share-status");
  button.hidden = false;
  link.addEventListener("focus", function () { link.select(); });
  button.addEventListener("click", function () {
    var text = (line ? line.textContent.trim() + " " : "") + link.value;
    navigator.clipboard.writeText(text).then(
      function () { status.textContent = "Copied: paste it anywhere to share."; },
      function () { link.select(); status.textContent = "Select the link above and copy it."; }
    );
  });
})();
