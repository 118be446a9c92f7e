"""The reader's language: the switch (remembered in a cookie), else Accept-Language, else
English. Every request and websocket runs in its language (`app.i18n.use_language`)."""

from __future__ import annotations

from http.cookies import CookieError, SimpleCookie

from fastapi import APIRouter
from fastapi.responses import RedirectResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from app.i18n import DEFAULT, LANGUAGES, negotiate, use_language

COOKIE = "lang"
YEAR = 365 * 24 * 3600

router = APIRouter()


def choose(cookie_header: str | None, accept_language: str | None) -> str:
    if cookie_header:
        jar: SimpleCookie = SimpleCookie()
        try:
            jar.load(cookie_header)
        except CookieError:  # a malformed cookie header is ignored, not an error
            jar = SimpleCookie()
        chosen = jar.get(COOKIE)
        if chosen is not None and chosen.value in LANGUAGES:
            return chosen.value
    return negotiate(accept_language) or DEFAULT


class ReaderLanguage:
    """ASGI middleware: runs each HTTP request and websocket in its reader's language."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1"): v.decode("latin-1") for k, v in scope.get("headers", [])}
        lang = choose(headers.get("cookie"), headers.get("accept-language"))
        scope.setdefault("state", {})["lang"] = lang
        with use_language(lang):
            await self.app(scope, receive, send)


def safe_next(path: str | None) -> str:
    """Only a path on this site (no scheme, no other host) may be the way back."""
    if not path or not path.startswith("/") or path.startswith("//") or "\\" in path:
        return "/"
    return path


@router.get("/language/{code}", include_in_schema=False)
def switch_language(code: str, next: str | None = None) -> RedirectResponse:
    """The visible switch: remember the language and go back to the page it was chosen on."""
    response = RedirectResponse(safe_next(next), status_code=303)
    if code in LANGUAGES:
        response.set_cookie(COOKIE, code, max_age=YEAR, samesite="lax", httponly=True)
    return response
