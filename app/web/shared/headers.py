"""Security headers on every page, and no state-changing request from another site.

- Content-Security-Policy: scripts and styles only from this site (no inline script, no eval,
  no style element or attribute: a bar's length is a `<meter>`'s value, the hand's width is counted
  by CSS), nothing may frame the pages (`frame-ancestors 'none'`, and X-Frame-Options DENY for
  old browsers), forms post only here; a violation is reported to `/csp-report`
  (`app.web.shared.csp_reports`: logged once per kind); plus Referrer-Policy and
  X-Content-Type-Options (`no-referrer` on every answer of a route whose address is a
  credential: SecretAddressRoute).
- Club pages (`/club...`) are `Cache-Control: no-store` unless their handler says otherwise:
  they show what one viewer may see (an elder's forms, a member's own links), and on a club's
  shared laptop neither the disk cache nor the back button may show them to the next person
  after a logout. (`private, no-cache` would still store them, and history navigation shows a
  stored page without asking; with no validators to revalidate against, it would save nothing.)
- A POST (PUT, PATCH, DELETE) whose browser says it came from another site is refused with 403:
  `Sec-Fetch-Site: cross-site`/`same-site`, or an `Origin` that is not this site's own origin
  (scheme, host and port) or one of `ALLOWED_ORIGINS`. Clients that send neither header are
  not browsers, so no victim's cookie can ride on them. The refusal is the app's error page
  (`app.web.shared.errors`) in the reader's language.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import Any

from fastapi import Request, Response
from fastapi.routing import APIRoute
from starlette.datastructures import Headers
from starlette.requests import HTTPConnection
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.web.shared.csp_reports import PATH as REPORT_PATH
from app.web.shared.errors import CROSS_SITE, error_page
from app.web.shared.security import own_origin, same_origin

CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; "
    "img-src 'self' data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; "
    "base-uri 'none'; object-src 'none'; "
    f"report-uri {REPORT_PATH}; report-to csp"  # a violation is reported (logged once per kind)
)
SECURITY_HEADERS = [
    (b"content-security-policy", CSP.encode()),
    (b"reporting-endpoints", f'csp="{REPORT_PATH}"'.encode()),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"same-origin"),
    (b"x-content-type-options", b"nosniff"),
]
CLUB_CACHE = (b"cache-control", b"no-store")
UNSAFE_METHODS = {"POST", "PUT", "PATCH", "DELETE"}


def is_club_page(path: str) -> bool:
    return path == "/club" or path.startswith("/club/")


def cross_site(scope: Scope, allowed: list[str]) -> bool:
    """True when a browser says this request was sent by a page of another site."""
    headers = Headers(scope=scope)
    fetch_site = headers.get("sec-fetch-site")
    if fetch_site in ("cross-site", "same-site"):
        origin = headers.get("origin")
        return not (origin and same_origin(origin, own_origin(scope), allowed))
    origin = headers.get("origin")
    if origin is None:
        return False
    return not same_origin(origin, own_origin(scope), allowed)


class SecurityHeaders:
    """Pure ASGI middleware (websockets pass straight through)."""

    def __init__(self, app: ASGIApp, *, allowed_origins: list[str]) -> None:
        self.app = app
        self.allowed = allowed_origins

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        defaults = SECURITY_HEADERS + [CLUB_CACHE] if is_club_page(scope["path"]) else SECURITY_HEADERS

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                names = {k.lower() for k, _ in message.get("headers", [])}
                extra = [(k, v) for k, v in defaults if k not in names]
                message["headers"] = list(message.get("headers", [])) + extra
            await send(message)

        if scope["method"] in UNSAFE_METHODS and cross_site(scope, self.allowed):
            refusal = error_page(HTTPConnection(scope), 403, CROSS_SITE)
            await refusal(scope, receive, send_with_headers)
            return
        await self.app(scope, receive, send_with_headers)


class SecretAddressRoute(APIRoute):
    """A route whose address is a credential (a table phone's link, a member's personal link):
    every answer it makes, a page, JSON, a refusal or a 204, says `Referrer-Policy: no-referrer`,
    so the address never leaves in a Referer header. Use it as a router's `route_class`."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = super().get_route_handler()

        async def no_referrer(request: Request) -> Response:
            response = await handler(request)
            response.headers["Referrer-Policy"] = "no-referrer"
            return response

        return no_referrer
