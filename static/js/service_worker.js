// Gurka online's service worker (served as /service-worker.js by app/web/device/shell.py).
//
// - Installable: it is there, and it answers fetches.
// - A table phone survives a dead network: its page (/club/nights/<id>/table/<table>/<secret>)
//   and its changing part (…/fresh) go to the network first and are kept when they arrive;
//   with no network the kept page is shown, and the page's own outbox (static/js/table_phone.js,
//   localStorage) sends its results when the connection is back. Whenever the changing part
//   changes, the kept page is fetched again, so a reload offline shows the latest round.
// - The static files of those pages are kept too (stale while revalidate), so the kept page has
//   its style sheets and scripts; other pages' files are left to the network and the browser's
//   cache. Any other page with no network shows /offline.
// - Web push: a message becomes a notification (title, body, the page to open), and a click
//   opens that page or brings its window forward.
"use strict";

var VERSION = "gurka-v1";
var SHELL = VERSION + "-shell";
var PAGES = VERSION + "-pages";
var PRECACHE = [
  "/offline",
  "/static/css/app.css", "/static/css/club.css", "/static/css/home_night.css",
  "/static/vendor/htmx/htmx.min.js", "/static/vendor/htmx/ext/hx-ws.min.js",
  "/static/js/table.js", "/static/js/table_phone.js", "/static/js/app_shell.js",
  "/static/icons/icon-192.png",
];
var PHONE_PAGE = /^\/club\/nights\/\d+\/table\/[a-z]+\/[A-Za-z0-9_-]+$/;
var PHONE_FRESH = /^(\/club\/nights\/\d+\/table\/[a-z]+\/[A-Za-z0-9_-]+)\/fresh$/;

self.addEventListener("install", function (event) {
  event.waitUntil(caches.open(SHELL).then(function (cache) { return cache.addAll(PRECACHE); })
    .then(function () { return self.skipWaiting(); }));
});

self.addEventListener("activate", function (event) {
  event.waitUntil(caches.keys().then(function (names) {
    return Promise.all(names.filter(function (name) { return name.indexOf(VERSION) !== 0; })
      .map(function (name) { return caches.delete(name); }));
  }));
  // No clients.claim(): a page loaded without the worker stays so until its next load, so a page
  // never changes hands while it is being used.
});

function keepPage(path, response) {
  return caches.open(PAGES).then(function (cache) { return cache.put(path, response); });
}

function phonePage(request, path) {
  return fetch(request).then(function (response) {
    if (response.status === 200) keepPage(path, response.clone());
    return response;
  }).catch(function () {
    return caches.open(PAGES).then(function (cache) { return cache.match(path); })
      .then(function (kept) { return kept || caches.match("/offline"); });
  });
}

function phoneFresh(request, pagePath) {
  return fetch(request).then(function (response) {
    // The night moved on: keep the whole page as it is now, for a reload with no network.
    if (response.status === 200) {
      fetch(pagePath, { credentials: "same-origin", cache: "no-store" }).then(function (page) {
        if (page.status === 200) return keepPage(pagePath, page);
      }).catch(function () { /* offline again: the page kept before stays */ });
    }
    return response;
  }).catch(function () {
    return new Response(null, { status: 204 });  // no network: nothing new to show
  });
}

function staticFile(request) {
  return caches.open(SHELL).then(function (cache) {
    return cache.match(request).then(function (kept) {
      var fresh = fetch(request).then(function (response) {
        if (response.status === 200) cache.put(request, response.clone());
        return response;
      });
      if (kept) { fresh.catch(function () {}); return kept; }
      return fresh;
    });
  });
}

function keptPage(referrer) {
  if (!referrer) return false;
  var from = new URL(referrer);
  return from.origin === self.location.origin && (PHONE_PAGE.test(from.pathname) || from.pathname === "/offline");
}

self.addEventListener("fetch", function (event) {
  var request = event.request;
  if (request.method !== "GET") return;
  var url = new URL(request.url);
  if (url.origin !== self.location.origin) return;
  var fresh = PHONE_FRESH.exec(url.pathname);
  if (fresh) { event.respondWith(phoneFresh(request, fresh[1])); return; }
  if (PHONE_PAGE.test(url.pathname)) { event.respondWith(phonePage(request, url.pathname)); return; }
  // Static files only for the pages that must work with no network (a table phone, /offline):
  // every other page gets its files from the network and the browser's cache, untouched.
  if (url.pathname.indexOf("/static/") === 0 && keptPage(request.referrer)) {
    event.respondWith(staticFile(request));
    return;
  }
  if (request.mode === "navigate") {
    event.respondWith(fetch(request).catch(function () { return caches.match("/offline"); }));
  }
});

// ------------------------------------------------------------------ web push
self.addEventListener("push", function (event) {
  var message = {};
  try { message = event.data ? event.data.json() : {}; } catch (e) { message = {}; }
  var title = message.title || "Gurka online";
  event.waitUntil(self.registration.showNotification(title, {
    body: message.body || "",
    tag: message.tag || undefined,
    icon: "/static/icons/icon-192.png",
    data: { url: typeof message.url === "string" && message.url.charAt(0) === "/" ? message.url : "/" },
  }));
});

// A click opens the message's page: its window if one shows it already, else a window of ours
// taken there, else a new one.
function openPage(path) {
  var target = new URL(path, self.location.origin).href;
  return self.clients.matchAll({ type: "window", includeUncontrolled: true }).then(function (list) {
    for (var i = 0; i < list.length; i++) {
      if (list[i].url === target) return list[i].focus().catch(function () { return list[i]; });
    }
    var ours = list.filter(function (client) { return "navigate" in client; })[0];
    if (ours) {
      return ours.navigate(target).then(function (client) {
        return client ? client.focus().catch(function () { return client; }) : self.clients.openWindow(target);
      });
    }
    return self.clients.openWindow(target);
  });
}

self.addEventListener("notificationclick", function (event) {
  event.notification.close();
  event.waitUntil(openPage((event.notification.data && event.notification.data.url) || "/"));
});
