"""Security helpers: the seat cookie and the websocket Origin check."""

from __future__ import annotations

from urllib.parse import urlsplit

from starlette.requests import HTTPConnection
from starlette.responses import Response

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


def _origin_of(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}".lower()


def origin_allowed(conn: HTTPConnection, allowed: list[str]) -> bool:
    """Browsers always send Origin on a websocket: it must be this site or an allowed origin.

    A client that sends no Origin at all is not a browser (so no cross-site request can ride on
    a victim's cookie) and is let through; it still needs the seat cookie to act.
    """
    origin = conn.headers.get("origin")
    if origin is None:
        return True
    origin = origin.strip().rstrip("/").lower()
    if origin == "null" or "://" not in origin:
        return False
    host = (conn.headers.get("host") or "").lower()
    if host and urlsplit(origin).netloc == host:
        return True
    return origin in {_origin_of(o) if "://" in o else o.lower() for o in allowed}
