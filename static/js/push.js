// Web push on this device (templates/device/push.html), and every room page's visibility report.
//
// - The panel: "Turn on" asks for permission, subscribes through the service worker with the
//   server's VAPID public key, and posts the subscription to /push/subscriptions; "Turn it all
//   off" also lets the browser's subscription go.
// - A room page (/r/<slug>) says whether it is visible: on load, on each change and every 20 s
//   while it is; the server sends no "your turn" while one of the seat's pages is visible.
(function () {
  "use strict";
  var HEARTBEAT_MS = 20000;

  function b64ToBytes(text) {
    var padded = text.replace(/-/g, "+").replace(/_/g, "/") + "===".slice((text.length + 3) % 4);
    var raw = atob(padded), out = new Uint8Array(raw.length);
    for (var i = 0; i < raw.length; i++) out[i] = raw.charCodeAt(i);
    return out;
  }

  function panel() {
    var on = document.querySelector("[data-push-on]");
    if (!on) return;
    var words = document.querySelector("[data-push-words]").dataset;
    var say = document.getElementById("push-say");
    if (!("serviceWorker" in navigator) || !("PushManager" in window) || !("Notification" in window)) {
      document.getElementById("push-unsupported").hidden = false;
      return;
    }
    on.hidden = false;
    on.addEventListener("click", function () {
      on.disabled = true;
      Notification.requestPermission().then(function (permission) {
        if (permission !== "granted") throw new Error("denied");
        return navigator.serviceWorker.register("/service-worker.js", { scope: "/" })
          .then(function () { return navigator.serviceWorker.ready; });
      }).then(function (registration) {
        return registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: b64ToBytes(on.dataset.key) });
      }).then(function (subscription) {
        return fetch("/push/subscriptions", {
          method: "POST", credentials: "same-origin", headers: { "Content-Type": "application/json" },
          body: JSON.stringify({ subscription: subscription.toJSON() }),
        });
      }).then(function (response) {
        return response.json().then(function (answer) {
          say.textContent = answer.message;
          if (answer.ok) location.reload();
          else on.disabled = false;
        });
      }).catch(function (error) {
        on.disabled = false;
        say.textContent = error && error.message === "denied" ? words.denied : words.failed;
      });
    });
    var off = document.querySelector("[data-push-off]");
    if (off) off.addEventListener("submit", function () {
      navigator.serviceWorker.ready.then(function (registration) {
        return registration.pushManager.getSubscription();
      }).then(function (subscription) { if (subscription) subscription.unsubscribe(); }).catch(function () {});
    });
  }

  function visibility() {
    var match = /^\/r\/([A-Za-z0-9_-]+)$/.exec(location.pathname);
    if (!match) return;
    var url = "/r/" + match[1] + "/visible";
    var page = Math.random().toString(36).slice(2) + Date.now().toString(36);
    var count = 0;  // the server keeps the newest report of each page, whatever order they arrive in
    function report() {
      count += 1;
      var body = JSON.stringify({ page: page, n: count, visible: document.visibilityState === "visible" });
      fetch(url, { method: "POST", credentials: "same-origin", keepalive: true,
                   headers: { "Content-Type": "application/json" }, body: body }).catch(function () {});
    }
    document.addEventListener("visibilitychange", report);
    addEventListener("pagehide", function () {
      count += 1;
      var body = JSON.stringify({ page: page, n: count, visible: false });
      if (navigator.sendBeacon) navigator.sendBeacon(url, new Blob([body], { type: "application/json" }));
    });
    setInterval(function () { if (document.visibilityState === "visible") report(); }, HEARTBEAT_MS);
    report();
  }

  panel();
  visibility();
})();
