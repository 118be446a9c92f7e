// Gurka online: the few things htmx cannot do for the table.
// - an action id on every outgoing websocket message (duplicates are refused server-side)
// - selecting several cards (sets, exchange) and sending the selection
// - keyboard: arrow keys move along the hand, Enter/Space plays
// - keep focus and open "previous trick" across pushes; announce the status line
// - copy the room link; show why a card cannot be played
(function () {
  "use strict";

  function newId() {
    if (window.crypto && crypto.randomUUID) return crypto.randomUUID();
    var a = new Uint32Array(4);
    (window.crypto || window.msCrypto).getRandomValues(a);
    return Array.prototype.map.call(a, function (x) { return x.toString(16); }).join("");
  }

  // ------------------------------------------------------------ selection
  function selected(hand) {
    return Array.prototype.filter.call(hand.querySelectorAll(".cardbtn[aria-pressed=true]"), function () { return true; })
      .map(function (b) { return b.dataset.code; });
  }

  function updateSelection(hand) {
    var table = hand.closest("#table");
    var mode = hand.dataset.select;
    var cards = selected(hand);
    var button = table.querySelector("[data-send-selection]");
    if (!button) return;
    var ok = false;
    if (mode === "select") {
      var legal = [];
      try { legal = JSON.parse(hand.dataset.legal || "[]"); } catch (e) { legal = []; }
      var want = cards.slice().sort().join(" ");
      ok = cards.length > 0 && legal.some(function (a) {
        var parts = a.split(" ");
        return parts[0] === "play" && parts.slice(1).sort().join(" ") === want;
      });
      button.textContent = cards.length ? "Play " + cards.length + (cards.length === 1 ? " card" : " cards") : "Play";
    } else if (mode === "exchange") {
      var max = parseInt(hand.dataset.max || "99", 10);
      ok = cards.length > 0 && cards.length <= max;
      button.textContent = cards.length ? "Exchange " + cards.length + (cards.length === 1 ? " card" : " cards") : "Exchange";
      var line = table.querySelector("[data-whyline]");
      if (line) line.textContent = cards.length > max ? "You may exchange at most " + max + "." : "";
    }
    button.disabled = !ok;
  }

  document.addEventListener("click", function (event) {
    var copy = event.target.closest("[data-copy]");
    if (copy) {
      var input = document.querySelector(copy.dataset.copy);
      var text = input ? input.value : location.href;
      var done = function () { copy.textContent = "Copied!"; setTimeout(function () { copy.textContent = "Copy link"; }, 1800); };
      if (navigator.clipboard && navigator.clipboard.writeText) {
        navigator.clipboard.writeText(text).then(done, function () { input.select(); document.execCommand("copy"); done(); });
      } else { input.select(); document.execCommand("copy"); done(); }
      return;
    }
    var dismiss = event.target.closest("[data-dismiss]");
    if (dismiss) { var n = document.getElementById("notice"); if (n) n.innerHTML = ""; return; }

    var card = event.target.closest(".hand .cardbtn");
    if (!card) return;
    var hand = card.closest("[data-hand]");
    var line = hand && hand.parentElement.querySelector("[data-whyline]");
    if (hand && hand.dataset.select) {
      if (card.classList.contains("blocked") && card.dataset.why) {
        if (line) line.textContent = card.dataset.why;
      }
      card.setAttribute("aria-pressed", card.getAttribute("aria-pressed") === "true" ? "false" : "true");
      updateSelection(hand);
      return;
    }
    if (card.classList.contains("blocked")) {
      if (line) line.textContent = card.dataset.why || "";
    }
  });

  // ------------------------------------------------------------ outgoing messages
  document.addEventListener("htmx:ws:before:message:outgoing", function (event) {
    var detail = event.detail || {};
    var message = detail.message;
    if (!message) return;
    var el = event.target;
    message.values = message.values || {};
    message.values.aid = newId();
    // Only what the server needs: no form fields that happen to be near the button.
    delete message.values.name;
    if (el && el.dataset && el.dataset.sendSelection) {
      var hand = document.querySelector("[data-hand]");
      var cards = hand ? selected(hand) : [];
      message.values.action = el.dataset.sendSelection + (cards.length ? " " + cards.join(" ") : "");
    }
    message.headers = {};
    var notice = document.getElementById("notice");
    if (notice) notice.innerHTML = "";
    if (el && el.classList) el.classList.add("sending");
  });

  // ------------------------------------------------------------ pushes: keep focus, details, announce
  var focusCode = null, focusIndex = -1, openKeeps = {}, lastAnnounce = "";

  document.addEventListener("toggle", function (event) {
    var d = event.target;
    if (d && d.dataset && d.dataset.keep) openKeeps[d.dataset.keep] = d.open;
  }, true);

  document.addEventListener("htmx:ws:before:message:incoming", function () {
    var a = document.activeElement;
    focusCode = null; focusIndex = -1;
    if (a && a.closest && a.closest("#table")) {
      var hand = a.closest("[data-hand]");
      if (hand && a.dataset.code) {
        focusCode = a.dataset.code;
        focusIndex = Array.prototype.indexOf.call(hand.querySelectorAll(".cardbtn"), a);
      } else if (a.id) {
        focusCode = "#" + a.id;
      }
    }
  });

  function afterPush() {
    var table = document.getElementById("table");
    if (!table) return;
    Object.keys(openKeeps).forEach(function (k) {
      var d = table.querySelector('[data-keep="' + k + '"]');
      if (d) d.open = openKeeps[k];
    });
    if (focusCode) {
      var target = null;
      if (focusCode.charAt(0) === "#") target = document.querySelector(focusCode);
      else {
        var hand = table.querySelector("[data-hand]");
        if (hand) {
          var buttons = hand.querySelectorAll(".cardbtn");
          target = hand.querySelector('.cardbtn[data-code="' + focusCode + '"]') ||
            buttons[Math.min(Math.max(focusIndex, 0), buttons.length - 1)] || null;
        }
      }
      if (target && target.focus) target.focus({ preventScroll: true });
    }
    var say = table.dataset.announce || "";
    if (say && say !== lastAnnounce) {
      lastAnnounce = say;
      var live = document.getElementById("announce");
      if (live) live.textContent = say;
    }
    document.documentElement.dataset.version = table.dataset.version || "";
    var hand2 = table.querySelector("[data-hand][data-select]");
    if (hand2) updateSelection(hand2);
  }
  document.addEventListener("htmx:ws:after:message:incoming", afterPush);
  document.addEventListener("htmx:ws:after:connection", function () {
    document.documentElement.classList.remove("offline");
  });
  document.addEventListener("htmx:ws:close", function () {
    document.documentElement.classList.add("offline");
  });
  document.addEventListener("DOMContentLoaded", function () {
    var link = document.querySelector("[data-room-link]");
    if (link) link.value = location.origin + link.value.replace(location.origin, "");
    afterPush();
  });

  // ------------------------------------------------------------ keyboard
  document.addEventListener("keydown", function (event) {
    var card = event.target.closest && event.target.closest(".hand .cardbtn");
    if (!card) return;
    var buttons = Array.prototype.slice.call(card.closest("[data-hand]").querySelectorAll("button.cardbtn"));
    var i = buttons.indexOf(card);
    var next = null;
    if (event.key === "ArrowRight" || event.key === "ArrowDown") next = buttons[(i + 1) % buttons.length];
    else if (event.key === "ArrowLeft" || event.key === "ArrowUp") next = buttons[(i - 1 + buttons.length) % buttons.length];
    else if (event.key === "Home") next = buttons[0];
    else if (event.key === "End") next = buttons[buttons.length - 1];
    if (next) { event.preventDefault(); next.focus(); }
  });
})();
