// Gurka online: the few things htmx cannot do for the table.
// - an action id on every outgoing websocket message (duplicates are refused server-side),
//   and one action per table version (a double click does not send twice)
// - the hand: every card is a button that plays it; the seat's move (#table-move: its legal
//   moves, why the other cards wait) says which are playable now, and the page marks them
// - selecting several cards (sets, exchange) and sending the selection
// - keyboard: arrow keys move along the hand, Enter/Space plays or selects
// - apply a push: the shared changes of the table (from the seq the page shows) and the seat's
//   own, or ask for the whole table when a push does not start from what the page shows; htmx
//   morphs each piece in, so focus, typed text and an open <details> stay where they are
// - put focus back into the hand when your own card (the focused button) was played
// - announce the status line; count the turn timer down (the server sends the seconds left)
// - copy a link shown in a field (the room link, a personal link), saying so to screen readers too
(function () {
  "use strict";

  function newId() {
    if (window.crypto && crypto.randomUUID) return crypto.randomUUID();
    var a = new Uint32Array(4);
    (window.crypto || window.msCrypto).getRandomValues(a);
    return Array.prototype.map.call(a, function (x) { return x.toString(16); }).join("");
  }

  function all(root, selector) { return Array.prototype.slice.call(root.querySelectorAll(selector)); }
  function json(text, fallback) { try { return text ? JSON.parse(text) : fallback; } catch (e) { return fallback; } }

  // A morph keeps what the reader holds on the page: a folded section stays open, a selection of
  // cards stays selected (the server never sends either)
  htmx.config.morphIgnore = (htmx.config.morphIgnore || []).concat(["open", "aria-pressed"]);

  // ------------------------------------------------------------ the seat's move
  // What the seat may do now, as the server pushed it (#table-move) and the mode (#table[data-mode])
  function moveOf(table) {
    var move = table.querySelector("#table-move");
    var d = move ? move.dataset : {};
    var why = {}, advice = move ? move.querySelector("#advice") : null;
    var said = advice ? advice.textContent.trim() : "";  // (a reason of null: the advice says it)
    json(d.why, []).forEach(function (pair) {
      pair[1].forEach(function (code) { why[code] = pair[0] === null ? said : pair[0]; });
    });
    return { mode: table.dataset.mode || "", legal: json(d.legal, []), why: why,
             preselect: (d.preselect || "").split(" ").filter(Boolean), max: parseInt(d.max || "99", 10),
             tooMany: d.tooMany || "" };
  }

  function singles(legal) {
    var out = {};
    legal.forEach(function (a) { var p = a.split(" "); if (p[0] === "play" && p.length === 2) out[p[1]] = true; });
    return out;
  }

  function inPlays(legal) {
    var out = {};
    legal.forEach(function (a) { var p = a.split(" "); if (p[0] === "play") p.slice(1).forEach(function (c) { out[c] = true; }); });
    return out;
  }

  // Mark each card: playable (and its name says "Play …"), held back with its reason, or idle
  var lastMode = null;
  function markHand(table) {
    var hand = table.querySelector("[data-hand]");
    if (!hand) return;
    var wrap = hand.closest(".handwrap");
    var move = moveOf(table);
    var one = singles(move.legal), some = inPlays(move.legal);
    var selecting = move.mode === "select" || move.mode === "exchange";
    var idle = wrap && wrap.dataset.idle && table.dataset.toAct !== "" && !selecting && move.mode !== "play" ? wrap.dataset.idle : "";
    if (selecting) { hand.dataset.select = move.mode; } else { delete hand.dataset.select; }
    all(hand, ".cardbtn").forEach(function (b) {
      // the card's own name, as the server wrote it on the button (kept: the label changes below)
      var code = b.dataset.code;
      var name = b.dataset.name || (b.dataset.name = b.getAttribute("aria-label") || code);
      var ok = move.mode === "play" ? !!one[code] : move.mode === "exchange" ? true : move.mode === "select" ? !!some[code] : false;
      var why = ok ? "" : (move.why[code] || (move.mode === "play" || move.mode === "select" ? "" : idle));
      b.classList.toggle("playable", ok);
      b.classList.toggle("blocked", !ok && (move.mode === "play" || move.mode === "select"));
      b.classList.toggle("idle", !ok && move.mode !== "play" && move.mode !== "select");
      if (ok || selecting) b.removeAttribute("aria-disabled"); else b.setAttribute("aria-disabled", "true");
      if (why) b.dataset.why = why; else delete b.dataset.why;
      var label = move.mode === "play" && ok && wrap && wrap.dataset.play ? wrap.dataset.play.replace("@", name)
        : move.mode === "play" && !ok ? name + ": " + why : name;
      b.setAttribute("aria-label", label);
      var tip = b.querySelector(".why");
      if (move.mode === "play" && !ok && why) {
        if (!tip) { tip = document.createElement("span"); tip.className = "why"; tip.setAttribute("aria-hidden", "true"); b.appendChild(tip); }
        tip.textContent = why;
      } else if (tip) { tip.remove(); }
      if (!selecting) b.removeAttribute("aria-pressed");
      else if (!b.hasAttribute("aria-pressed") || move.mode !== lastMode) {
        b.setAttribute("aria-pressed", move.preselect.indexOf(code) >= 0 ? "true" : "false");
      }
    });
    if (selecting && move.preselect.length && move.mode !== lastMode) {
      // one possible play: its cards are selected already (each copy once)
      var left = move.preselect.slice();
      all(hand, ".cardbtn").forEach(function (b) {
        var i = left.indexOf(b.dataset.code);
        b.setAttribute("aria-pressed", i >= 0 ? "true" : "false");
        if (i >= 0) left.splice(i, 1);
      });
    }
    lastMode = move.mode;
    if (selecting) updateSelection(hand);
  }

  // ------------------------------------------------------------ selection
  function selected(hand) {
    return all(hand, ".cardbtn[aria-pressed=true]").map(function (b) { return b.dataset.code; });
  }

  function plural(n, word) { return n + " " + word + (n === 1 ? "" : "s"); }
  // The page's own words, in its reader's language (the server renders them into data-*).
  function labelFor(button, n, fallback) {
    var all = json(button.dataset.labels, []);
    return all[n] || fallback;
  }

  function updateSelection(hand) {
    var table = hand.closest("#table");
    var move = moveOf(table);
    var cards = selected(hand);
    var button = table.querySelector('[data-modes~="' + move.mode + '"] [data-send-selection]');
    if (!button) return;
    var ok = false;
    var line = table.querySelector("[data-whyline]");
    if (move.mode === "select") {
      var want = cards.slice().sort().join(" ");
      ok = cards.length > 0 && move.legal.some(function (a) {
        var parts = a.split(" ");
        return parts[0] === "play" && parts.slice(1).sort().join(" ") === want;
      });
      button.textContent = labelFor(button, cards.length, cards.length ? "Play " + plural(cards.length, "card") : "Play");
      if (line && cards.length && !ok) line.textContent = line.dataset.notTogether || "These cards cannot be played together now.";
      else if (line && ok) line.textContent = "";
    } else if (move.mode === "exchange") {
      ok = cards.length > 0 && cards.length <= move.max;
      button.textContent = labelFor(button, cards.length, cards.length ? "Exchange " + plural(cards.length, "card") : "Exchange");
      if (line) line.textContent = cards.length > move.max ? (move.tooMany || "You may exchange at most " + move.max + ".") : "";
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
    var line = document.querySelector("#table [data-whyline]");
    if (hand && hand.dataset.select) {
      card.setAttribute("aria-pressed", card.getAttribute("aria-pressed") === "true" ? "false" : "true");
      updateSelection(hand);
      if (line && card.dataset.why && card.getAttribute("aria-pressed") === "true" && !line.textContent) {
        line.textContent = card.dataset.why;
      }
      return;
    }
    if (line) line.textContent = card.classList.contains("playable") ? "" : (card.dataset.why || "");
  });

  // ------------------------------------------------------------ outgoing messages
  document.addEventListener("htmx:ws:before:message:outgoing", function (event) {
    var detail = event.detail || {};
    var message = detail.message;
    if (!message) return;
    var el = event.target;
    var table = el && el.closest ? el.closest("#table") : null;
    // a card plays itself only when the move says it is playable now (not while selecting)
    var card = el && el.classList && el.classList.contains("cardbtn") ? el : null;
    if (card && (!card.classList.contains("playable") || card.closest("[data-hand]").dataset.select)) {
      detail.cancelled = true;
      return;
    }
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
    if (card) message.values.action = "play " + card.dataset.code;
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
  // A push morphs in only the pieces of the table that changed (app/web/table/publisher.py), so
  // what the reader holds elsewhere on the page (focus on a card, a selection, a name or a chat
  // line being typed, an open score sheet) stays as it is. One case is left: your own card was
  // the focused button and it is gone once played; focus goes back into the hand.
  var focusInHand = false, lastAnnounce = "", awaitingTable = false;

  function askForTable(detail, shown) {
    var socket = detail.connection && detail.connection.socket;
    if (awaitingTable || !socket || socket.readyState !== 1) return;
    awaitingTable = true;
    socket.send(JSON.stringify({ do: "sync", v: isNaN(shown) ? null : shown }));
  }

  // The section's data-* attributes that changed: the head's names but kind, version and seq,
  // without "data-" (null: taken away)
  var HEAD_OWN = { kind: true, version: true, seq: true };
  function setAttrs(el, head) {
    Object.keys(head).forEach(function (name) {
      if (HEAD_OWN[name]) return;
      if (head[name] === null) el.removeAttribute("data-" + name); else el.setAttribute("data-" + name, head[name]);
    });
  }

  // A frame of the table is a line of JSON that says what it is, then its HTML (the pieces, each
  // with its htmx swap; app/web/table/publisher.py). A push of changes brings the table to its "seq"
  // from the one before: it applies to that table only; the seat's
  // own changes ("private") apply at "seq". A page showing another table missed a push and asks
  // for the whole table instead.
  function head(text) {
    var end = text.indexOf("\n");
    return end > 0 ? json(text.slice(0, end), null) : null;
  }

  document.addEventListener("htmx:ws:before:message:incoming", function (event) {
    var detail = event.detail || {};
    if (!detail.message || !detail.waitUntil) return;
    var a = document.activeElement;
    focusInHand = !!(a && a.closest && a.closest("#table [data-hand]"));
    detail.waitUntil(detail.message.text().then(function (text) {
      var frame = head(text);
      if (!frame) return;  // (a notice, the talk: JSON of its own)
      if (frame.kind === "table") { awaitingTable = false; return; }
      if (frame.kind !== "fragments" && frame.kind !== "private") return;
      var table = document.getElementById("table");
      var shown = table ? parseInt(table.dataset.seq || "", 10) : NaN;
      if (!table || shown !== (frame.kind === "fragments" ? frame.seq - 1 : frame.seq)) {
        detail.cancelled = true;
        if (frame.kind === "fragments") askForTable(detail, parseInt(table ? table.dataset.version : "", 10));
        return;
      }
      var version = table.dataset.version;
      setAttrs(table, frame);
      table.dataset.seq = String(frame.seq);
      if (frame.version !== undefined) table.dataset.version = String(frame.version);
      if (table.dataset.version !== version) {  // a new table version: its actions may be sent
        delete table.dataset.sent;
        all(table, ".sending").forEach(function (el) { el.classList.remove("sending"); });
      }
    }));
  });

  // When your turn starts and your hand (or its buttons) is below the fold, bring it up.
  var wasMyTurn = false;
  function showHandOnTurn(table) {
    var mine = table.dataset.myTurn === "true";  // (set by afterPush from the mode)
    if (mine && !wasMyTurn) {
      var wrap = table.querySelector(".handwrap");
      if (wrap && wrap.getBoundingClientRect().bottom > window.innerHeight) {
        var still = window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches;
        wrap.scrollIntoView({ block: "end", behavior: still ? "auto" : "smooth" });
      }
    }
    wasMyTurn = mine;
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

  // The status line as this seat reads it (the others' words are hidden)
  function statusText(table) {
    var status = table.querySelector("#table-say");
    return status ? status.innerText.replace(/\s+/g, " ").trim() : "";
  }

  // What needs the page laid out (where the hand is, which words show) waits for a quiet moment,
  // at most 100 ms: a page catching up with many pushes at once (back from a tunnel) would lay
  // itself out for each one. The status line is said to screen readers when it changed.
  var settling = 0;
  function settleSoon() {
    if (settling) return;
    settling = setTimeout(function () {
      settling = 0;
      var table = document.getElementById("table");
      if (!table) return;
      showHandOnTurn(table);
      var say = statusText(table);
      if (say && say !== lastAnnounce) {
        lastAnnounce = say;
        var live = document.getElementById("announce");
        if (live) live.textContent = say;
      }
    }, 100);
  }

  // The previous trick's plays come when it is opened, and again while it stays open once the
  // next trick is taken (the section's data-previous says which trick it is)
  function fillPrevious() {
    var table = document.getElementById("table");
    var box = table && table.querySelector("#table-previous details");
    var plays = box && box.querySelector(".lastplays");
    if (!plays) return;
    var shown = plays.firstElementChild ? plays.firstElementChild.getAttribute("data-trick") : null;
    if (shown !== null && shown !== table.dataset.previous) plays.innerHTML = "";
    if (box.open && !plays.childElementCount && window.htmx) htmx.trigger(box, "refresh");
  }
  document.addEventListener("toggle", function (event) {
    if (event.target.matches && event.target.matches("#table-previous details")) fillPrevious();
  }, true);

  function afterPush() {
    var table = document.getElementById("table");
    if (!table) return;
    fillPrevious();
    // The seat is no longer this page's (it moved to another device with its rejoin code): the
    // page only watches now, and the code it shows is spent.
    var ownCode = document.querySelector("#rejoin[data-own-code]");
    if (ownCode && table.dataset.me === "") ownCode.remove();
    // its own row (the table everyone sees names no viewer)
    all(table, ".seat.me").forEach(function (row) { if (row.dataset.seat !== table.dataset.me) row.classList.remove("me"); });
    var own = table.dataset.me ? table.querySelector("#table-seat-" + table.dataset.me) : null;
    if (own) own.classList.add("me");
    // whose turn it is, the seat's mode says; the page marks it for its styles (and alerts.js)
    table.dataset.myTurn = String(["play", "select", "exchange", "rassi"].indexOf(table.dataset.mode) >= 0);
    markHand(table);
    var hand = table.querySelector("[data-hand]");
    if (hand) rove(hand, null);
    var now = document.activeElement;
    if (focusInHand && hand && (!now || now === document.body || !document.contains(now))) {
      var target = hand.querySelector(".cardbtn.playable") || hand.querySelector(".cardbtn");
      if (target) target.focus({ preventScroll: true });
    }
    focusInHand = false;
    settleSoon();
    startCountdown(table);
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
  // Each push carries the seconds left for the seat to act (#table[data-turn-left]); count them
  // down locally in the clock of the row whose turn it is. The server alone decides when time is
  // up (it plays the bot's move and pushes the new table).
  var countdown = { end: 0, key: null };
  function startCountdown(table) {
    var left = table.dataset.turnLeft;
    var key = [table.dataset.version, table.dataset.toAct, left].join(":");  // a new turn, or a new reading
    if (key === countdown.key) return;
    countdown.key = key;
    countdown.end = left === undefined ? 0 : Date.now() + 1000 * parseInt(left || "0", 10);
    tick();
  }
  function tick() {
    if (!countdown.end) return;
    var left = Math.max(0, Math.ceil((countdown.end - Date.now()) / 1000));
    all(document, "#table .tag.clock").forEach(function (el) {
      el.textContent = left + " s";
      el.classList.toggle("short", left <= 10);
    });
  }
  setInterval(tick, 250);
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
