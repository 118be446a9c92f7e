// The new-room form says which house rules do not go together before it is sent. The pairs come
// from the rules: the form holds a note per pair (`data-clash="exchange rassi"`, hidden until
// both are ticked). While a pair is ticked its note shows, both boxes are marked invalid and the
// browser holds the form back (its own message, on the first box); the house-rules section opens
// for it. The options are swapped in by htmx when the game changes: listeners sit on the document.
(function () {
  "use strict";

  function check(form) {
    var notes = form.querySelectorAll("[data-clash]");
    var clashing = {};
    var inPairs = {};
    notes.forEach(function (note) {
      var pair = note.getAttribute("data-clash").split(" ");
      var boxes = pair.map(function (name) { return form.querySelector("input[type=checkbox][name='opt_" + name + "']"); });
      var on = boxes.every(function (box) { return box && box.checked; });
      note.hidden = !on;
      boxes.forEach(function (box) {
        if (!box) return;
        inPairs[box.name] = box;
        if (on && !clashing[box.name]) clashing[box.name] = note.textContent.trim();
      });
    });
    Object.keys(inPairs).forEach(function (name) {
      var box = inPairs[name];
      if (clashing[name]) {
        box.setAttribute("aria-invalid", "true");
        box.setCustomValidity(clashing[name]);
      } else {
        box.removeAttribute("aria-invalid");
        box.setCustomValidity("");
      }
    });
  }

  function formOf(target) {
    return target && target.closest ? target.closest("form.create") : null;
  }

  document.addEventListener("change", function (event) {
    var form = formOf(event.target);
    if (form) check(form);
  });
  document.addEventListener("invalid", function (event) {
    var details = event.target.closest && event.target.closest("details");
    if (details) details.open = true;  // the browser can only point at a box it can show
  }, true);
  document.addEventListener("DOMContentLoaded", function () {
    var form = document.querySelector("form.create");
    if (form) check(form);  // a form sent back with the pair still ticked
  });
})();
