// A table's phone at a night on real cards (templates/club/table_phone.html).
//
// - The result form: tap who went out first and second, the winner follows; steppers for the
//   agurker; "Check the result" shows it with the names to read out, "Save" sends it.
// - Never lose a result on bad wifi: a result is put in this phone's outbox (localStorage, per
//   night and table) before it is sent, and leaves it only when the server has answered. Without
//   a connection it waits there, the page says so, and it is sent again when the connection
//   comes back (the "online" event, and every few seconds). Each result carries the entry id the
//   server drew into the form, so a result sent twice is recorded once. A result the server
//   refuses as another slot's entry ("mismatch") is never dropped: it stays here, held (not sent
//   again by itself), with the server's words, until someone removes it.
// - The page's changing part is polled; a poll waits while the table is entering a result, and
//   an answer that arrives meanwhile is not swapped in.
(function () {
  "use strict";
  var page = document.querySelector("[data-table-phone]");
  if (!page) return;
  var words = page.querySelector("[data-words]").dataset;
  var storeKey = page.dataset.store;
  var RETRY_MS = 4000;
  var sending = false;

  function load() {
    try {
      var list = JSON.parse(localStorage.getItem(storeKey) || "[]");
      return Array.isArray(list) ? list : [];
    } catch (e) { return []; }
  }
  function keep(list) {
    try { localStorage.setItem(storeKey, JSON.stringify(list)); } catch (e) { /* private mode: memory only */ }
    memory = list;
  }
  var memory = load();
  function outbox() { var stored = load(); return stored.length || !memory.length ? stored : memory; }
  function drop(id) { keep(outbox().filter(function (item) { return item.id !== id; })); }

  function say(text, kind) {
    var el = document.getElementById("phone-say");
    el.textContent = text || "";
    el.dataset.kind = kind || "";
  }
  function form() { return document.querySelector("[data-result-form]"); }
  function confirmBox() { return document.querySelector("[data-confirm]"); }
  function refresh() {
    var live = document.getElementById("phone-live");
    if (live) live.dispatchEvent(new CustomEvent("phone-refresh"));
  }

  // ------------------------------------------------------------ the outbox
  function drawOutbox() {
    var list = outbox();
    var waiting = list.filter(function (item) { return item.waiting || item.held; });
    var ul = document.getElementById("outbox-list");
    var template = document.getElementById("outbox-item");
    ul.replaceChildren();
    waiting.forEach(function (item) {
      var li = template.content.firstElementChild.cloneNode(true);
      li.querySelector("[data-what]").textContent = item.what;
      li.querySelector("[data-note]").textContent = item.held ? item.note : "";
      li.querySelector("[data-cancel]").dataset.cancel = item.id;
      ul.appendChild(li);
    });
    document.getElementById("outbox").hidden = waiting.length === 0;
    document.querySelector("[data-outbox-offline]").hidden = !list.some(function (item) { return item.waiting && !item.held; });
    document.querySelector("[data-outbox-held]").hidden = !list.some(function (item) { return item.held; });
    var f = form();
    if (f) {
      var queued = list.some(function (item) { return item.slot === f.dataset.slot && !item.held; });
      var note = document.querySelector("[data-queued-note]");
      if (queued) { f.hidden = true; confirmBox().hidden = true; }
      else if (confirmBox().hidden) f.hidden = false;
      if (note) note.hidden = !queued;
    }
  }

  function markWaiting(id) {
    keep(outbox().map(function (item) {
      if (item.id === id) item.waiting = true;
      return item;
    }));
  }

  function hold(id, note) {
    keep(outbox().map(function (item) {
      if (item.id === id) { item.held = true; item.note = note; }
      return item;
    }));
  }
  function sendable() { return outbox().filter(function (item) { return !item.held; }); }

  function flush() {
    if (sending) return;
    var list = sendable();
    if (!list.length) return;
    var item = list[0];
    sending = true;
    if (!item.waiting) say(words.sending, "wait");
    fetch(page.dataset.send, {
      method: "POST", body: item.body, credentials: "same-origin", cache: "no-store",
      headers: { "Accept": "application/json", "Content-Type": "application/x-www-form-urlencoded" },
    }).then(function (response) {
      if (response.status === 429 || response.status >= 500) throw new Error("later");
      return response.json();
    }).then(function (answer) {
      sending = false;
      if (answer.outcome === "mismatch") hold(item.id, answer.message);
      else drop(item.id);
      say(answer.message, answer.outcome);
      var f = form();
      if (f && f.dataset.slot === item.slot && answer.outcome !== "invalid") { f.reset(); update(f); }
      drawOutbox();
      refresh();
      flush();
    }).catch(function () {
      sending = false;
      markWaiting(item.id);
      say(words.queued, "wait");
      drawOutbox();
    });
  }
  window.addEventListener("online", flush);
  setInterval(function () { if (sendable().length) flush(); }, RETRY_MS);

  // ------------------------------------------------------------ the result form
  function checked(f, name) {
    var input = f.querySelector("input[name='" + name + "']:checked");
    return input ? input.value : "";
  }
  function names(f) {
    return Array.prototype.map.call(f.querySelectorAll("input[name='first_out']"), function (i) { return i.value; });
  }
  function winnerOf(f) {
    var first = checked(f, "first_out"), second = checked(f, "second_out");
    if (!first || !second || first === second) return "";
    return names(f).filter(function (n) { return n !== first && n !== second; })[0] || "";
  }
  function update(f) {
    var first = checked(f, "first_out");
    f.querySelectorAll("input[name='second_out']").forEach(function (input) {
      input.disabled = input.value === first;
      if (input.disabled) input.checked = false;
    });
    var winner = winnerOf(f);
    f.querySelectorAll("[data-fill='winner']").forEach(function (el) { el.textContent = winner; });
    f.querySelector("[data-winner-line]").hidden = !winner;
  }
  function agurker(f) {
    var said = [];
    f.querySelectorAll(".stepper input").forEach(function (input) {
      var n = parseInt(input.value, 10) || 0;
      if (n > 0) said.push(input.dataset.name + " ×" + n);
    });
    return said.join(", ");
  }
  function dirty(f) {
    if (!f || f.hidden) return false;
    if (f.querySelector("input[type='radio']:checked, input[type='checkbox']:checked")) return true;
    return Array.prototype.some.call(f.querySelectorAll(".stepper input"), function (i) { return (parseInt(i.value, 10) || 0) !== 0; });
  }

  document.addEventListener("change", function (event) {
    var f = event.target.closest && event.target.closest("[data-result-form]");
    if (f) update(f);
  });
  document.addEventListener("reset", function (event) {
    var f = event.target.closest && event.target.closest("[data-result-form]");
    if (f) setTimeout(function () { update(f); }, 0);
  });

  document.addEventListener("submit", function (event) {
    var f = event.target.closest && event.target.closest("[data-result-form]");
    if (f) {
      event.preventDefault();
      if (!winnerOf(f)) { say(words.missing, "error"); return; }
      var box = confirmBox();
      box.querySelector("[data-fill='first_out']").textContent = checked(f, "first_out");
      box.querySelector("[data-fill='second_out']").textContent = checked(f, "second_out");
      box.querySelector("[data-fill='winner']").textContent = winnerOf(f);
      box.querySelector("[data-if='bar_rov']").hidden = !f.querySelector("input[name='bar_rov']:checked");
      box.querySelector("[data-fill='agurker']").textContent = agurker(f) || words.none;
      say("", "");
      f.hidden = true;
      box.hidden = false;
      box.focus();
      return;
    }
    var undo = event.target.closest && event.target.closest("[data-undo-form]");
    if (undo) {
      event.preventDefault();
      var button = undo.querySelector("button");
      button.disabled = true;
      fetch(page.dataset.undo, {
        method: "POST", body: new URLSearchParams(new FormData(undo)).toString(), credentials: "same-origin",
        cache: "no-store", headers: { "Accept": "application/json", "Content-Type": "application/x-www-form-urlencoded" },
      }).then(function (response) { return response.json(); }).then(function (answer) {
        say(answer.message, answer.outcome);
        refresh();
      }).catch(function () {
        button.disabled = false;
        say(words.undoOffline, "error");
      });
    }
  });

  function save() {
    var f = form();
    if (!f) return;
    var data = new FormData(f);
    var id = String(data.get("entry"));
    var what = words.summary.replace("{slot}", f.dataset.slotWords).replace("{winner}", winnerOf(f))
      .replace("{second}", checked(f, "second_out")).replace("{first}", checked(f, "first_out"));
    var list = outbox();
    if (!list.some(function (item) { return item.id === id; })) {
      list.push({ id: id, slot: f.dataset.slot, body: new URLSearchParams(data).toString(), what: what, waiting: false });
      keep(list);
    }
    drawOutbox();
    flush();
  }

  document.addEventListener("click", function (event) {
    var target = event.target;
    if (!target.closest) return;
    var step = target.closest("[data-step]");
    if (step) {
      var input = document.getElementById(step.getAttribute("aria-controls"));
      var n = (parseInt(input.value, 10) || 0) + parseInt(step.dataset.step, 10);
      input.value = String(Math.max(0, Math.min(parseInt(input.max, 10) || 30, n)));
      return;
    }
    if (target.closest("[data-save]")) { save(); return; }
    if (target.closest("[data-change]")) {
      confirmBox().hidden = true;
      var f = form();
      f.hidden = false;
      f.querySelector("input").focus();
      return;
    }
    var cancel = target.closest("[data-cancel]");
    if (cancel) {
      drop(cancel.dataset.cancel);
      say(words.cancelled, "wait");
      drawOutbox();
    }
  });

  // ------------------------------------------------------------ the poll
  // (held back while a result is being entered or checked: not asked, and an answer that was on
  // its way when the table began to tap is not swapped in over what they tapped)
  function entering() {
    var box = confirmBox();
    return dirty(form()) || !!(box && !box.hidden);
  }
  document.addEventListener("htmx:before:request", function (event) {
    if (event.target && event.target.id === "phone-live" && entering()) event.preventDefault();
  });
  document.addEventListener("htmx:before:swap", function (event) {
    if (event.target && event.target.id === "phone-live" && entering()) event.preventDefault();
  });
  document.addEventListener("htmx:after:swap", function () {
    if (document.querySelector("#phone-live.refused")) say("", "");  // the link stopped working
    var f = form();
    if (f) update(f);
    drawOutbox();
  });

  drawOutbox();
  var f0 = form();
  if (f0) update(f0);
  flush();
})();
