"""Security helpers: the seat cookie and the websocket Origin check."""

from __future__ import annotations

from urllib.parse import urlsplit

from starlette.datastructures import Headers
from starlette.requests import HTTPConnection
from starlette.responses import Response
from starlette.types import Scope

COOKIE_MAX_AGE = 60 * 60 * 24 * 30


def seat_cookie_name(slug: str) -> str:
    return f"gurka_seat_{slug}"


def set_seat_cookie(response: Response, *, slug: str, token: str, secure: bool) -> None:
    """The seat token lives only here: HttpOnly, SameSite=Lax, scoped to the room's path."""
    response.set_cookie(
        seat_cookie_name(slug),
        token,
        max_age=COOKIE_MAX_AGE,
        path=f"/r/{slug}",
        httponly=True,
        samesite="lax",
        secure=secure,
    )


def seat_token(conn: HTTPConnection, slug: str) -> str | None:
    token = conn.cookies.get(seat_cookie_name(slug))
    if token and len(token) <= 128:
        return token
    return None


DEFAULT_PORTS = {"http": 80, "https": 443}
WEB_SCHEMES = {"ws": "http", "wss": "https", "http": "http", "https": "https"}


def normal_origin(url: str) -> tuple[str, str, int] | None:
    """(scheme, host, port) of an origin or URL, default ports filled in; None if malformed."""
    try:
        parts = urlsplit(url.strip().rstrip("/").lower())
        port = parts.port
    except ValueError:
        return None
    scheme = WEB_SCHEMES.get(parts.scheme)
    if scheme is None or not parts.hostname:
        return None
    return scheme, parts.hostname, port or DEFAULT_PORTS[scheme]


def own_origin(scope: Scope) -> tuple[str, str, int] | None:
    """This site's origin as the request reached it (behind a proxy: X-Forwarded-Proto via
    uvicorn's proxy headers): the page's scheme and the Host header."""
    host = Headers(scope=scope).get("host") or ""
    scheme = WEB_SCHEMES.get(str(scope.get("scheme", "http")), "http")
    return normal_origin(f"{scheme}://{host}") if host else None


def same_origin(origin: str, own: tuple[str, str, int] | None, allowed: list[str]) -> bool:
    """True when `origin` is this site's own origin (scheme, host and port) or an allowed one."""
    sent = normal_origin(origin)
    if sent is None:
        return False
    if own is not None and sent == own:
        return True
    return sent in {normal_origin(o) for o in allowed}


def origin_allowed(conn: HTTPConnection, allowed: list[str]) -> bool:
    """Browsers always send Origin on a websocket: it must be this site or an allowed origin,
    compared by scheme, host and port (http://host is not https://host).

    A client that sends no Origin at all is not a browser (so no cross-site request can ride on
    a victim's cookie) and is let through; it still needs the seat cookie to act.
    """
    origin = conn.headers.get("origin")
    if origin is None:
        return True
    if origin.strip().lower() == "null":
        return False
    return same_origin(origin, own_origin(conn.scope), allowed)
