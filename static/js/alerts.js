// Gurka online: your-turn alerts and the table talk's small helpers.
// - The page knows "it is my turn" only from the pushed table (#table[data-mode]: play, select,
//   exchange or rassi); the words (title prefix, notification text) come from the server-rendered page.
// - Title and favicon change while it is your turn; a short WebAudio beep (off by default) and an
//   opt-in browser notification (only while the page is hidden) when your turn starts.
// - Spectators never have a turn, and your own moves never start one, so nothing fires for them.
// - Chat: the message box empties once sent and gets its text back if the server refused it.
(function () {
  "use strict";

  var baseTitle = document.title;
  var iconLink = document.querySelector("link[rel=icon]");
  var baseIcon = iconLink ? iconLink.href : "";
  var turnIcon = "data:image/svg+xml," + encodeURIComponent(
    "<svg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 100 100'>" +
    "<rect x='18' y='6' width='64' height='88' rx='10' fill='#fff' stroke='#234' stroke-width='5'/>" +
    "<ellipse cx='50' cy='50' rx='15' ry='30' fill='#2f8f4f'/>" +
    "<circle cx='78' cy='22' r='20' fill='#d33' stroke='#fff' stroke-width='5'/></svg>");
  var mine = null;  // null until the first table is seen

  function store(key, value) {
    try { if (value === undefined) return localStorage.getItem(key); localStorage.setItem(key, value); }
    catch (e) { return null; }
    return null;
  }

  function beep() {
    var Ctx = window.AudioContext || window.webkitAudioContext;
    if (!Ctx) return;
    try {
      var ctx = new Ctx();
      var osc = ctx.createOscillator(), gain = ctx.createGain();
      osc.type = "sine";
      osc.frequency.value = 880;
      gain.gain.setValueAtTime(0.0001, ctx.currentTime);
      gain.gain.exponentialRampToValueAtTime(0.2, ctx.currentTime + 0.02);
      gain.gain.exponentialRampToValueAtTime(0.0001, ctx.currentTime + 0.25);
      osc.connect(gain); gain.connect(ctx.destination);
      osc.start(); osc.stop(ctx.currentTime + 0.3);
      osc.onended = function () { ctx.close(); };
    } catch (e) { /* no sound on this device */ }
  }

  function notify(table) {
    if (!document.hidden || !("Notification" in window) || Notification.permission !== "granted") return;
    if (store("gurka.notify") !== "on") return;
    try {
      var status = table.querySelector("#table-say");  // the status line as this seat reads it
      var n = new Notification(table.dataset.turnTitle || document.title,
        { body: status ? status.innerText.trim() : "", tag: "gurka-turn" });
      n.onclick = function () { window.focus(); n.close(); };
    } catch (e) { /* notifications refused by the browser */ }
  }

  function showTurn(on, table) {
    document.title = on && table.dataset.turnTitle ? table.dataset.turnTitle + " · " + baseTitle : baseTitle;
    if (iconLink) iconLink.href = on ? turnIcon : baseIcon;
  }

  function onTable() {
    var table = document.getElementById("table");
    if (!table) return;
    var now = ["play", "select", "exchange", "rassi"].indexOf(table.dataset.mode) >= 0;  // (the seat's mode)
    if (mine !== null && now && !mine) {
      if (store("gurka.sound") === "on") beep();
      notify(table);
    }
    if (now !== mine) showTurn(now, table);
    mine = now;
  }

  function setupToggles() {
    document.querySelectorAll("[data-alert-toggle]").forEach(function (box) {
      var key = "gurka." + box.dataset.alertToggle;
      box.checked = store(key) === "on";
      if (box.dataset.alertToggle === "notify" && !("Notification" in window)) box.disabled = true;
      box.addEventListener("change", function () {
        store(key, box.checked ? "on" : "off");
        if (box.checked && box.dataset.alertToggle === "sound") beep();
        if (box.checked && box.dataset.alertToggle === "notify" && Notification.permission === "default") {
          Notification.requestPermission().then(function (p) { if (p !== "granted") { box.checked = false; store(key, "off"); } });
        }
      });
    });
  }

  // ------------------------------------------------------------ chat box
  var pending = null;
  document.addEventListener("htmx:ws:after:message:outgoing", function (event) {
    var form = event.target && event.target.closest ? event.target.closest("[data-chat-form]") : null;
    if (!form) return;
    var input = form.querySelector("input[name=text]");
    pending = input ? { text: input.value, at: Date.now() } : null;
    if (input) input.value = "";
  });

  document.addEventListener("htmx:ws:after:message:incoming", function (event) {
    var message = event.detail && event.detail.message;
    var kind = null;
    try { kind = JSON.parse(typeof message === "string" ? message : (message && message.data) || "{}").kind; }
    catch (e) { kind = null; }
    if (kind === "notice" && pending && Date.now() - pending.at < 3000) {
      var input = document.getElementById("chat-text");
      if (input && !input.value) input.value = pending.text;
      pending = null;
    } else if (kind === "chat") {
      pending = null;
      var log = document.getElementById("chat-log");
      if (log) log.scrollTop = log.scrollHeight;
    }
    onTable();
  });

  // A page asks once for the talk it may have missed between its rendering and its connection
  // (a reconnect asks for the whole table and the talk with "sync", see table.js).
  var askedTalk = false;
  document.addEventListener("htmx:ws:after:connection", function (event) {
    var socket = event.detail && event.detail.connection && event.detail.connection.socket;
    if (askedTalk || !socket || socket.readyState !== 1 || !document.getElementById("chat-log")) return;
    askedTalk = true;
    socket.send(JSON.stringify({ do: "talk" }));
  });

  document.addEventListener("DOMContentLoaded", function () {
    baseTitle = document.title;
    iconLink = document.querySelector("link[rel=icon]");
    baseIcon = iconLink ? iconLink.href : "";
    setupToggles();
    var log = document.getElementById("chat-log");
    if (log) log.scrollTop = log.scrollHeight;
    onTable();
  });
})();
