"""The app on a device: installable (manifest, service worker, offline page) and web push
(each device's subscription and its choices, the page's visibility report)."""
