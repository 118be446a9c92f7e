// Every page: register the service worker (static/js/service_worker.js, served from the root so
// that it controls every page). A browser without service workers, or one that refuses (a
// private window), simply has a web site.
(function () {
  "use strict";
  if (!("serviceWorker" in navigator)) return;
  navigator.serviceWorker.register("/service-worker.js", { scope: "/" }).catch(function () {});
})();
