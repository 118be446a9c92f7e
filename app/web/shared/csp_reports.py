"""Reports of Content-Security-Policy violations from the browsers, logged once per kind.

Every page's policy names this endpoint (`report-uri /csp-report`, and `report-to csp` with the
`Reporting-Endpoints` header: `app.web.shared.headers`). A browser that refuses something a page
tried (an inline style, a script from elsewhere) posts a report here, in either format: the old
`application/csp-report` (`{"csp-report": {...}}`) or the Reporting API's
`application/reports+json` (a list of `{"type": "csp-violation", "body": {...}}`).

Each kind of violation (the directive, what was blocked, the file that tried) is logged once as a
warning, with the page it was seen on: a page that violates the policy on every poll, or anyone
posting reports, cannot flood the log. At most MAX_KINDS kinds are remembered; past that, one
more line says so and the rest are dropped. What a report says is cut short and stripped of
control characters before it is logged. The answer is 204 with no body (400 for a body that is
no report, 413 for one over MAX_BYTES).
"""

from __future__ import annotations

import json
import logging
import threading
from typing import Any
from urllib.parse import urlsplit

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import Response

from app.i18n import N_
from app.web.shared.path_params import has_control

log = logging.getLogger("gurka.csp")

router = APIRouter(tags=["security"])

PATH = "/csp-report"
MAX_BYTES = 16 * 1024
MAX_KINDS = 200
MAX_SAID = 200

Kind = tuple[str, str, str]  # directive, what was blocked, the file that tried


class Seen:
    """The kinds logged so far (one app's, shared by its requests)."""

    def __init__(self, limit: int = MAX_KINDS) -> None:
        self.limit = limit
        self.kinds: set[Kind] = set()
        self.full = False
        self._lock = threading.Lock()

    def first(self, kind: Kind) -> bool | None:
        """True the first time `kind` is seen, False after; None once the memory is full (the
        first such None is said: `full` turns True)."""
        with self._lock:
            if kind in self.kinds:
                return False
            if len(self.kinds) >= self.limit:
                if self.full:
                    return False
                self.full = True
                return None
            self.kinds.add(kind)
            return True


def _clean(value: object) -> str:
    text = str(value)[:MAX_SAID] if value is not None else ""
    return "".join("?" if has_control(ch) else ch for ch in text)


def _where(url: object) -> str:
    """A URL as its origin and path (no query: it may hold a token), or the word a browser uses
    for what is no URL ("inline", "eval", "data")."""
    text = _clean(url)
    parts = urlsplit(text)
    if not parts.scheme or parts.scheme in ("data", "blob") or not parts.netloc:
        return parts.scheme or text or "inline"
    return f"{parts.scheme}://{parts.netloc}{parts.path}"


def violations(data: Any) -> list[dict[str, str]]:
    """The violations in a report of either format: directive, blocked, source, page, line."""
    found: list[dict[str, Any]] = []
    if isinstance(data, dict) and isinstance(data.get("csp-report"), dict):
        r = data["csp-report"]
        found.append({"directive": r.get("effective-directive") or r.get("violated-directive"),
                      "blocked": r.get("blocked-uri"), "source": r.get("source-file"),
                      "page": r.get("document-uri"), "line": r.get("line-number")})
    elif isinstance(data, list):
        for item in data[:20]:
            body = item.get("body") if isinstance(item, dict) else None
            if isinstance(item, dict) and item.get("type") == "csp-violation" and isinstance(body, dict):
                found.append({"directive": body.get("effectiveDirective"), "blocked": body.get("blockedURL"),
                              "source": body.get("sourceFile"), "page": body.get("documentURL") or item.get("url"),
                              "line": body.get("lineNumber")})
    return [{"directive": _clean(v["directive"]) or "?", "blocked": _where(v["blocked"]),
             "source": _where(v["source"]) if v["source"] else "", "page": _where(v["page"]),
             "line": _clean(v["line"])} for v in found]


def seen_of(request: Request) -> Seen:
    found: Seen | None = getattr(request.app.state, "csp_seen", None)
    if found is None:
        found = request.app.state.csp_seen = Seen()
    return found


@router.post(PATH, include_in_schema=False)
async def csp_report(request: Request) -> Response:
    body = b""
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_BYTES:
            raise HTTPException(status_code=413, detail=N_("That report is too large."))
    try:
        data = json.loads(body)
    except ValueError:
        raise HTTPException(status_code=400, detail=N_("That is not a report.")) from None
    found = violations(data)
    if not found:
        raise HTTPException(status_code=400, detail=N_("That is not a report."))
    seen = seen_of(request)
    for v in found:
        first = seen.first((v["directive"], v["blocked"], v["source"]))
        if first:
            log.warning("Content-Security-Policy violation: %s blocked %s at %s:%s on %s (logged once per kind)",
                        v["directive"], v["blocked"], v["source"] or "?", v["line"] or "?", v["page"])
        elif first is None:
            log.warning("Content-Security-Policy violations: more than %d kinds; no more are logged", seen.limit)
    return Response(status_code=204)
