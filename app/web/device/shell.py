"""What makes the site an installable app: the web app manifest (in the reader's language), the
service worker (a static file of ours, served from the site's root so that it controls every page)
and the page it shows when there is no network.

The worker is `static/js/service_worker.js`: no inline script, so the Content-Security-Policy is
unchanged (`worker-src` falls back to `script-src 'self'`, the manifest to `default-src 'self'`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import FileResponse, HTMLResponse, JSONResponse, Response

from app.i18n import current_language, gettext
from app.web.state import templates_of

STATIC = Path(__file__).resolve().parents[3] / "static"
WORKER = STATIC / "js" / "service_worker.js"
THEME = "#1f5f3f"
BACKGROUND = "#f4f1ea"

router = APIRouter(tags=["device"])


def manifest() -> dict[str, Any]:
    """The web app manifest, in the reader's language."""
    return {
        "id": "/",
        "name": "Gurka online",  # not shown (the brand, the same in every language)
        "short_name": "Gurka",
        "description": gettext("Play Gurka with your club, run Gurka Night and keep the Hall of Fame."),
        "lang": current_language(),
        "start_url": "/?from=app",
        "scope": "/",
        "display": "standalone",
        "orientation": "any",
        "theme_color": THEME,
        "background_color": BACKGROUND,
        "icons": [
            {"src": "/static/icons/icon-192.png", "sizes": "192x192", "type": "image/png", "purpose": "any"},
            {"src": "/static/icons/icon-512.png", "sizes": "512x512", "type": "image/png", "purpose": "any"},
            {"src": "/static/icons/icon-maskable-512.png", "sizes": "512x512", "type": "image/png",
             "purpose": "maskable"},
        ],
    }


@router.get("/manifest.webmanifest", include_in_schema=False)
def web_manifest() -> Response:
    # Varies by the language cookie and Accept-Language: a shared cache must not mix them.
    return JSONResponse(manifest(), media_type="application/manifest+json",
                        headers={"Cache-Control": "no-cache", "Vary": "Cookie, Accept-Language"})  # not shown


@router.get("/service-worker.js", include_in_schema=False)
def service_worker() -> Response:
    # Served from the root so that its scope is the whole site; browsers check a worker for
    # updates at every navigation, and no-cache makes them ask us each time.
    return FileResponse(WORKER, media_type="text/javascript",
                        headers={"Cache-Control": "no-cache", "Service-Worker-Allowed": "/"})


@router.get("/offline", response_class=HTMLResponse, include_in_schema=False)
def offline(request: Request) -> Response:
    """What the worker shows for a page it cannot fetch and has not kept."""
    return templates_of(request.app).TemplateResponse(request, "device/offline.html", {})
