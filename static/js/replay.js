// Gurka online replay: the arrow keys follow the step links the server rendered.
// ← → one move, Shift+← → one deal, ↑ ↓ one trick, Home/End the start and the end.
//
// With htmx a step link swaps the page's #replay in place and goes into the history (see
// templates/table/replay.html). A key pressed, or a step link clicked, while a step is still
// loading waits its turn and then follows the link of the step shown by then: three quick
// presses of → move three steps. After each step in place the page's live region says where
// the replay is (deal, move, the analysis of the move once there is one, step), as a new page
// was read before.
//
// The analysis section (templates/table/_analysis.html) replaces itself: after "Analyse" the
// focus, whose button is gone, goes to its heading, and the live region says when the analysis
// starts (or is refused) and when it is done, not each second of its progress.
(function () {
  "use strict";
  var keys = { ArrowLeft: "prev", ArrowRight: "next", ArrowUp: "prev-trick", ArrowDown: "next-trick",
               Home: "first", End: "last" };
  var shifted = { ArrowLeft: "prev-deal", ArrowRight: "next-deal" };
  var loading = false;   // a step is on its way
  var waiting = [];      // the steps asked for meanwhile (link names), in order
  var following = false; // this script is clicking a link itself

  function linkFor(name) {
    return document.querySelector('#replay a[data-nav="' + name + '"]');
  }

  function follow(name) {
    var link = linkFor(name);
    if (!link) {  // the start or the end is reached: what was asked beyond it is dropped
      waiting = [];
      return;
    }
    if (window.htmx) loading = true;  // from the click on, not from htmx's request a moment later
    following = true;
    try {
      link.click();  // htmx asks for the step; without htmx the browser follows the link
    } finally {
      following = false;
    }
  }

  function ask(name) {
    if (loading) waiting.push(name);
    else follow(name);
  }

  function announce() {
    var region = document.getElementById("announce");
    var step = document.getElementById("replay-step");
    if (!region || !step) return;
    var parts = [step.querySelector("h2"), step.querySelector(".what"), step.querySelector(".verdict p"),
                 document.querySelector("#replay .where")];
    region.textContent = "";
    region.textContent = parts.filter(Boolean).map(function (el) { return el.textContent.trim(); }).join(". ");
  }

  function stepDone() {
    if (!loading) return;
    loading = false;
    if (waiting.length) follow(waiting.shift());
  }

  document.addEventListener("keydown", function (event) {
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    var t = event.target;
    if (t && (t.tagName === "INPUT" || t.tagName === "TEXTAREA" || t.tagName === "SELECT" || t.isContentEditable)) return;
    var name = (event.shiftKey ? shifted[event.key] : null) || keys[event.key];
    if (!name || (!loading && !linkFor(name))) return;
    event.preventDefault();
    ask(name);
  });

  // A click on a step link while a step is loading: counted, not lost on the link being replaced.
  document.addEventListener("click", function (event) {
    if (following || event.button !== 0 || event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) return;
    var link = event.target.closest && event.target.closest("#replay a[data-nav]");
    if (!link) return;
    if (!loading) {
      if (window.htmx) loading = true;  // htmx asks for this step
      return;
    }
    event.preventDefault();
    event.stopImmediatePropagation();
    waiting.push(link.getAttribute("data-nav"));
  }, true);

  // the analysis asking for its own progress (or being started) is no step
  function analysisOwn(elt) {
    return !!(elt && elt.closest && (elt.id === "analysis" || elt.closest("#analysis form")));
  }

  document.addEventListener("htmx:before:request", function (event) {
    if (event.target.closest && event.target.closest("#replay") && !analysisOwn(event.target)) loading = true;
  });
  document.addEventListener("htmx:after:settle", function (event) {
    if (event.target.id === "replay") announce();
  });
  // once per request, swapped or failed (htmx says it on the document when the link that asked
  // was swapped away): the next step asked for may go
  document.addEventListener("htmx:finally:request", function (event) {
    if (!analysisOwn(event.target)) stepDone();
  });
  document.addEventListener("htmx:before:history:restore", function () { waiting = []; });

  var analysisAsked = false;  // "Analyse" was pressed: its answer takes the focus
  var analysisSaid = null;    // the analysis's status the live region said last
  document.addEventListener("click", function (event) {
    if (event.target.closest && event.target.closest("#analyse")) analysisAsked = true;
  });
  document.addEventListener("htmx:after:settle", function (event) {
    var section = event.target;
    if (!section || section.id !== "analysis") return;
    if (analysisAsked) {
      analysisAsked = false;
      var heading = document.getElementById("analysis-title");
      if (heading && !section.contains(document.activeElement)) heading.focus({ preventScroll: true });
    }
    var status = section.getAttribute("data-status");
    if (status === analysisSaid) return;
    analysisSaid = status;
    var line = section.querySelector(".form-error, .status-line");
    var region = document.getElementById("announce");
    if (line && region) {
      region.textContent = "";
      region.textContent = line.textContent.replace(/\s+/g, " ").trim();
    }
  });
})();
