// Gurka online replay: the arrow keys follow the step links the server rendered.
// ← → one move, Shift+← → one deal, ↑ ↓ one trick, Home/End the start and the end.
(function () {
  "use strict";
  var keys = { ArrowLeft: "prev", ArrowRight: "next", ArrowUp: "prev-trick", ArrowDown: "next-trick",
               Home: "first", End: "last" };
  var shifted = { ArrowLeft: "prev-deal", ArrowRight: "next-deal" };
  document.addEventListener("keydown", function (event) {
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    var t = event.target;
    if (t && (t.tagName === "INPUT" || t.tagName === "TEXTAREA" || t.isContentEditable)) return;
    var name = (event.shiftKey ? shifted[event.key] : null) || keys[event.key];
    if (!name) return;
    var link = document.querySelector('a[data-nav="' + name + '"]');
    if (!link) return;
    event.preventDefault();
    location.href = link.href;
  });
})();
