// Gurka online: the few things htmx cannot do for the table.
// - an action id on every outgoing websocket message (duplicates are refused server-side),
//   and one action per table version (a double click does not send twice)
// - selecting several cards (sets, exchange) and sending the selection
// - keyboard: arrow keys move along the hand, Enter/Space plays or selects
// - apply a push of the table's changed fragments (its version, the section's attributes), or ask
//   for the whole table when it does not start from the version shown
// - keep focus and an open <details> when their own part is replaced; announce the status
// - copy a link shown in a field (the room link, a personal link), saying so to screen readers too;
//   show why a card cannot be played
// - count the turn timer down (the server sends the seconds left with each push)
(function () {
  "use strict";

  function newId() {
    if (window.crypto && crypto.randomUUID) return crypto.randomUUID();
    var a = new Uint32Array(4);
    (window.crypto || window.msCrypto).getRandomValues(a);
    return Array.prototype.map.call(a, function (x) { return x.toString(16); }).join("");
  }

  function all(root, selector) { return Array.prototype.slice.call(root.querySelectorAll(selector)); }

  // ------------------------------------------------------------ selection
  function selected(hand) {
    return all(hand, ".cardbtn[aria-pressed=true]").map(function (b) { return b.dataset.code; });
  }

  function plural(n, word) { return n + " " + word + (n === 1 ? "" : "s"); }
  // The page's own words, in its reader's language (the server renders them into data-*).
  function labelFor(button, n, fallback) {
    try { var all = JSON.parse(button.dataset.labels || "[]"); if (all[n]) return all[n]; } catch (e) { /* fallback */ }
    return fallback;
  }

  function updateSelection(hand) {
    var table = hand.closest("#table");
    var mode = hand.dataset.select;
    var cards = selected(hand);
    var button = table.querySelector("[data-send-selection]");
    if (!button) return;
    var ok = false;
    var line = table.querySelector("[data-whyline]");
    if (mode === "select") {
      var legal = [];
      try { legal = JSON.parse(hand.dataset.legal || "[]"); } catch (e) { legal = []; }
      var want = cards.slice().sort().join(" ");
      ok = cards.length > 0 && legal.some(function (a) {
        var parts = a.split(" ");
        return parts[0] === "play" && parts.slice(1).sort().join(" ") === want;
      });
      button.textContent = labelFor(button, cards.length, cards.length ? "Play " + plural(cards.length, "card") : "Play");
      if (line && cards.length && !ok) line.textContent = line.dataset.notTogether || "These cards cannot be played together now.";
      else if (line && ok) line.textContent = "";
    } else if (mode === "exchange") {
      var max = parseInt(hand.dataset.max || "99", 10);
      ok = cards.length > 0 && cards.length <= max;
      button.textContent = labelFor(button, cards.length, cards.length ? "Exchange " + plural(cards.length, "card") : "Exchange");
      if (line) line.textContent = cards.length > max ? (line.dataset.tooMany || "You may exchange at most " + max + ".") : "";
    }
    button.disabled = !ok;
  }

  document.addEventListener("click", function (event) {
    var copy = event.target.closest("[data-copy]");
    if (copy) {
      var input = document.querySelector(copy.dataset.copy);
      var text = input ? input.value : location.href;
      var label = copy.dataset.label || (copy.dataset.label = copy.textContent);
      var done = function () {
        copy.textContent = copy.dataset.copied || "Copied!";
        setTimeout(function () { copy.textContent = label; }, 1800);
        var live = document.getElementById("announce");  // a screen reader hears it too
        if (live) { live.textContent = ""; setTimeout(function () { live.textContent = copy.dataset.copied || "Copied!"; }, 50); }
      };
      var fallback = function () { if (input) { input.select(); document.execCommand("copy"); } done(); };
      if (navigator.clipboard && navigator.clipboard.writeText) navigator.clipboard.writeText(text).then(done, fallback);
      else fallback();
      return;
    }
    var dismiss = event.target.closest("[data-dismiss]");
    if (dismiss) { var n = document.getElementById("notice"); if (n) n.innerHTML = ""; return; }

    var card = event.target.closest(".hand .cardbtn");
    if (!card) return;
    var hand = card.closest("[data-hand]");
    var line = hand && hand.parentElement.querySelector("[data-whyline]");
    if (hand && hand.dataset.select) {
      card.setAttribute("aria-pressed", card.getAttribute("aria-pressed") === "true" ? "false" : "true");
      updateSelection(hand);
      if (line && card.dataset.why && card.getAttribute("aria-pressed") === "true" && !line.textContent) {
        line.textContent = card.dataset.why;
      }
      return;
    }
    if (line) line.textContent = card.classList.contains("playable") ? "" : (card.dataset.why || (hand && hand.dataset.why) || "");
  });

  // ------------------------------------------------------------ outgoing messages
  document.addEventListener("htmx:ws:before:message:outgoing", function (event) {
    var detail = event.detail || {};
    var message = detail.message;
    if (!message) return;
    var el = event.target;
    var table = el && el.closest ? el.closest("#table") : null;
    if (table) {
      // one action per table version: a double click or a second card sends nothing
      if (table.dataset.sent) { detail.cancelled = true; return; }
      table.dataset.sent = "1";
    }
    message.values = message.values || {};
    message.values.aid = newId();
    // The table version this page shows: an action taken on an older table is refused (the
    // buttons carry no version, so a new version does not change them)
    if (table && message.values.v === undefined) message.values.v = parseInt(table.dataset.version || "", 10);
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

  // ------------------------------------------------------------ pushes
  // A push carries only the parts of the table that changed (app/web/table/publisher.py), so
  // what the reader holds elsewhere on the page (focus on a card, a selection, a name being
  // typed, the open score sheet) stays as it is. Only when its own part is replaced (or the
  // whole table: a sync after a reconnect) does the page put it back below: focus into the hand
  // after a move, the previous trick left open, a name half typed.
  var focusKey = null, focusIndex = -1, openKeeps = {}, lastAnnounce = "", awaitingTable = false;
  // What is being typed in the table (the name to join with), kept as it is typed. Not a
  // snapshot taken when a push arrives: htmx swaps a push in and then waits to settle before it
  // is done, and a key pressed meanwhile lands in the fresh, empty field after the snapshot.
  var typed = {}, caret = null;
  document.addEventListener("input", function (event) {
    var i = event.target;
    if (!i || !i.id || i.tagName !== "INPUT" || !i.closest || !i.closest("#table")) return;
    if (i.value) typed[i.id] = i.value; else delete typed[i.id];
  });
  // The caret as it is the moment before a swap (same task as the swap: nothing moves it between).
  document.addEventListener("htmx:before:swap", function () {
    var a = document.activeElement;
    caret = a && a.id && typeof a.selectionStart === "number"
      ? { id: a.id, start: a.selectionStart, end: a.selectionEnd } : null;
  });
  function restoreTyped() {
    var table = document.getElementById("table");
    if (!table) return;
    Object.keys(typed).forEach(function (id) {
      var input = document.getElementById(id);
      if (!input || !table.contains(input)) { delete typed[id]; return; }
      if (input.value) return;
      input.value = typed[id];
      if (caret && caret.id === id && document.activeElement === input) {
        try { input.setSelectionRange(caret.start, caret.end); } catch (e) { /* not a text field */ }
      }
    });
  }
  // Right after the new fragments are in the page, in the same task: no keystroke can land between.
  document.addEventListener("htmx:before:settle", restoreTyped);

  document.addEventListener("toggle", function (event) {
    var d = event.target;
    if (d && d.dataset && d.dataset.keep) openKeeps[d.dataset.keep] = d.open;
  }, true);

  function keyOf(el) {
    if (!el || !el.closest || !el.closest("#table")) return null;
    if (el.dataset.code && el.closest("[data-hand]")) return "card:" + el.dataset.code;
    if (el.dataset.key) return "key:" + el.dataset.key;
    var keep = el.closest("[data-keep]");
    if (keep && el.tagName === "SUMMARY") return "keep:" + keep.dataset.keep;
    if (el.id) return "id:" + el.id;
    return "table";
  }

  function askForTable(detail, shown) {
    var socket = detail.connection && detail.connection.socket;
    if (awaitingTable || !socket || socket.readyState !== 1) return;
    awaitingTable = true;
    socket.send(JSON.stringify({ do: "sync", v: isNaN(shown) ? null : shown }));
  }

  // A push of fragments says which table version it starts from ("from") and brings the table
  // to ("version"): it applies to that table only. A page showing another version missed a push
  // and asks for the whole table instead.
  document.addEventListener("htmx:ws:before:message:incoming", function (event) {
    var detail = event.detail || {};
    if (!detail.message || !detail.waitUntil) return;
    // the open state and focus as they are now (a "toggle" event fires later, maybe after this swap)
    all(document, "#table details[data-keep]").forEach(function (d) { openKeeps[d.dataset.keep] = d.open; });
    var a = document.activeElement;
    focusKey = keyOf(a);
    var hand = document.querySelector("#table [data-hand]");
    focusIndex = hand && a ? all(hand, ".cardbtn").indexOf(a) : -1;
    detail.waitUntil(detail.message.json().then(function (frame) {
      if (!frame) return;
      if (frame.kind === "table") { awaitingTable = false; return; }
      if (frame.kind !== "fragments") return;
      var table = document.getElementById("table");
      var shown = table ? parseInt(table.dataset.version || "", 10) : NaN;
      if (!table || shown !== frame.from) { detail.cancelled = true; askForTable(detail, shown); return; }
      var attrs = frame.attrs || {};
      Object.keys(attrs).forEach(function (name) { table.setAttribute(name, attrs[name]); });
      table.dataset.version = String(frame.version);
      if (frame.version !== frame.from) {  // a new table version: its actions may be sent
        delete table.dataset.sent;
        all(table, ".sending").forEach(function (el) { el.classList.remove("sending"); });
      }
    }, function () { /* not JSON: nothing to check */ }));
  });

  function restoreFocus(table) {
    if (!focusKey) return;
    var now = document.activeElement;
    if (now && now !== document.body && document.contains(now)) return;  // its fragment stayed: focus did too
    var hand = table.querySelector("[data-hand]");
    var buttons = hand ? all(hand, ".cardbtn") : [];
    var target = null;
    if (focusKey.indexOf("card:") === 0) {
      target = hand && hand.querySelector('.cardbtn[data-code="' + focusKey.slice(5) + '"]');
      if (!target && buttons.length) target = buttons[Math.min(Math.max(focusIndex, 0), buttons.length - 1)];
    } else if (focusKey.indexOf("key:") === 0) {
      target = table.querySelector('[data-key="' + focusKey.slice(4) + '"]');
    } else if (focusKey.indexOf("keep:") === 0) {
      target = table.querySelector('[data-keep="' + focusKey.slice(5) + '"] summary');
    } else if (focusKey.indexOf("id:") === 0) {
      target = document.getElementById(focusKey.slice(3));
    }
    // The focused control went away (a button after its action): stay in the hand.
    if (!target) target = table.querySelector("[data-hand] .cardbtn.playable") || buttons[0] || null;
    if (target && target.focus) target.focus({ preventScroll: true });
  }

  // One tab stop for the whole hand (roving tabindex): Tab enters the hand, the arrows move
  // inside it, and the next Tab goes on to Play / Exchange.
  function rove(hand, current) {
    var buttons = all(hand, "button.cardbtn");
    if (!buttons.length) return;
    if (buttons.indexOf(current) < 0) current = hand.querySelector("button.cardbtn.playable") || buttons[0];
    buttons.forEach(function (b) { b.tabIndex = b === current ? 0 : -1; });
  }
  document.addEventListener("focusin", function (event) {
    var card = event.target.closest && event.target.closest(".hand .cardbtn");
    if (card) rove(card.closest("[data-hand]"), card);
  });

  // When your turn starts and your hand (or its buttons) is below the fold, bring it up.
  var wasMyTurn = false;
  function showHandOnTurn(table) {
    var mine = ["play", "select", "exchange", "rassi"].indexOf(table.dataset.mode) >= 0;
    if (mine && !wasMyTurn) {
      var wrap = table.querySelector(".handwrap");
      if (wrap && wrap.getBoundingClientRect().bottom > window.innerHeight) {
        var still = window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches;
        wrap.scrollIntoView({ block: "end", behavior: still ? "auto" : "smooth" });
      }
    }
    wasMyTurn = mine;
  }

  function afterPush() {
    var table = document.getElementById("table");
    if (!table) return;
    // The seat is no longer this page's (it moved to another device with its rejoin code): the
    // page only watches now, and the code it shows is spent.
    var ownCode = document.querySelector("#rejoin[data-own-code]");
    if (ownCode && !table.querySelector(".seat.me")) ownCode.remove();
    showHandOnTurn(table);
    var hand = table.querySelector("[data-hand]");
    if (hand) rove(hand, null);
    Object.keys(openKeeps).forEach(function (k) {
      var d = table.querySelector('[data-keep="' + k + '"]');
      if (d && d.open !== openKeeps[k]) d.open = openKeeps[k];
    });
    restoreTyped();
    var selecting = table.querySelector("[data-hand][data-select]");
    if (selecting) updateSelection(selecting);  // a selection made for you (one possible play) can be sent
    restoreFocus(table);
    focusKey = null;
    var say = table.dataset.announce || "";
    if (say && say !== lastAnnounce) {
      lastAnnounce = say;
      var live = document.getElementById("announce");
      if (live) live.textContent = say;
    }
    document.documentElement.dataset.version = table.dataset.version || "";
  }
  document.addEventListener("htmx:ws:after:message:incoming", afterPush);
  // The socket closes on a restart or deploy (1012, 1001), a dropped slow link (1013), a lost
  // network (1006) or any other end the server gives it (1000); htmx reconnects by itself
  // meanwhile the status bar says "reconnecting…". Once back, the page says which table version
  // it shows and the server answers with the full table. Only a refusal (1008: too many messages,
  // too many connections from here, no such room) is not retried, as it would only be refused
  // again: the page says so and offers to reload.
  var REFUSED = 1008;
  htmx.config.ws = htmx.config.ws || {};
  htmx.config.ws.reconnectCodes = [1000, 1001, 1005, 1006, 1011, 1012, 1013, 1014];
  var connectedBefore = false;
  document.addEventListener("htmx:ws:after:connection", function (event) {
    document.documentElement.classList.remove("offline");
    var socket = event.detail && event.detail.connection && event.detail.connection.socket;
    if (connectedBefore && socket && socket.readyState === 1) {
      var v = parseInt(document.documentElement.dataset.version || "", 10);
      socket.send(JSON.stringify({ do: "sync", v: isNaN(v) ? null : v }));
    }
    connectedBefore = true;
  });
  document.addEventListener("htmx:ws:close", function (event) {
    var code = event.detail && event.detail.code;
    document.documentElement.dataset.closeCode = String(code || "");
    if (code === REFUSED) { refused(); return; }
    document.documentElement.classList.add("offline");
  });
  function refused() {
    var room = document.getElementById("room"), notice = document.getElementById("notice");
    document.documentElement.classList.add("refused");
    if (!room || !notice) return;
    var toast = document.createElement("div"), words = document.createElement("span");
    var reload = document.createElement("button");
    toast.className = "toast error";
    words.textContent = room.dataset.refused || "";
    reload.type = "button";
    reload.className = "btn";
    reload.textContent = room.dataset.reload || "Reload";
    reload.addEventListener("click", function () { location.reload(); });
    toast.appendChild(words);
    toast.appendChild(reload);
    notice.replaceChildren(toast);
  }
  document.addEventListener("DOMContentLoaded", function () {
    var link = document.querySelector("[data-room-link]");
    if (link) link.value = location.origin + link.value.replace(location.origin, "");
    afterPush();
  });

  // ------------------------------------------------------------ keyboard
  document.addEventListener("keydown", function (event) {
    var card = event.target.closest && event.target.closest(".hand .cardbtn");
    if (!card || event.altKey || event.ctrlKey || event.metaKey) return;
    var buttons = all(card.closest("[data-hand]"), "button.cardbtn");
    var i = buttons.indexOf(card);
    var next = null;
    if (event.key === "ArrowRight" || event.key === "ArrowDown") next = buttons[(i + 1) % buttons.length];
    else if (event.key === "ArrowLeft" || event.key === "ArrowUp") next = buttons[(i - 1 + buttons.length) % buttons.length];
    else if (event.key === "Home") next = buttons[0];
    else if (event.key === "End") next = buttons[buttons.length - 1];
    if (next) { event.preventDefault(); next.focus(); }
  });
  // ------------------------------------------------------------ turn timer
  // Each push carries the seconds left for the seat to act; count them down locally. The server
  // alone decides when time is up (it plays the bot's move and pushes the new table).
  var countdown = { el: null, end: 0 };
  function startCountdown() {
    var el = document.querySelector("[data-countdown]");
    if (!el) { countdown.el = null; return; }
    if (el === countdown.el) return;
    countdown.el = el;
    countdown.end = Date.now() + 1000 * parseInt(el.dataset.countdown || "0", 10);
  }
  setInterval(function () {
    startCountdown();
    var el = countdown.el;
    if (!el || !el.isConnected) return;
    var left = Math.max(0, Math.ceil((countdown.end - Date.now()) / 1000));
    el.textContent = left + " s";
    el.classList.toggle("short", left <= 10);
  }, 250);
})();

// The live night page polls every 4 s; while an elder is typing in one of its forms, a poll
// would replace what they typed, so it waits. (A listener, not an hx-trigger filter: the
// Content-Security-Policy allows no eval, which htmx needs for filter expressions.)
document.addEventListener("htmx:before:request", function (event) {
  var page = event.target && event.target.closest ? event.target.closest("#night-page") : null;
  var typing = document.activeElement && document.activeElement.closest
    ? document.activeElement.closest("#night-page form") : null;
  if (page && typing) event.preventDefault();
});
