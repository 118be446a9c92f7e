"""Error pages: every refusal is a short HTML page with a plain message, never a traceback.

HTTP errors keep their status and headers (an elder-only page redirects to the login with 303);
a failed validation of the path or query is a 400 that says which part was wrong; anything
unexpected is logged once and answered with a 500 page that shows no internals. A form sent from
another site gets the same page (403, from `app.web.shared.headers`).

Every such page is the template `shared/error.html` in the reader's language. Only if rendering
it fails (a broken template, the app half built) is the answer a line of plain text, and that
failure is logged once per kind of error: the page that says something went wrong never fails.
"""

from __future__ import annotations

import logging

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.requests import HTTPConnection
from starlette.responses import HTMLResponse, PlainTextResponse, Response

from app.i18n import N_, _, say, use_language
from app.web.shared.language import choose

log = logging.getLogger("gurka.errors")

TITLES = {400: N_("That request was not understood"), 403: N_("Not allowed"), 404: N_("Not found"),
          405: N_("Not allowed"), 413: N_("Too large"), 429: N_("Too many requests"),
          500: N_("Something went wrong")}
SERVER_ERROR = N_("The server could not answer this request. Nothing was changed; try again.")
CROSS_SITE = N_("This form was sent from another site. Open the page on this site and send it again.")
_failed_kinds: set[str] = set()  # kinds of rendering failure logged already (once each)


def error_page(request: HTTPConnection, status: int, message: str, headers: dict[str, str] | None = None) -> Response:
    """The error page for `status` saying `message` (a sentence to translate, or said already)."""
    if status < 400:  # a redirect raised as an exception (the elder check)
        return Response(status_code=status, headers=headers)
    title = TITLES.get(status, N_("That did not work"))
    back = "/club" if request.url.path.startswith("/club") else "/"
    try:
        templates = request.app.state.templates
        html = templates.get_template("shared/error.html").render(
            request=request, title=title, message=message, back=back,
        )
    except Exception as exc:  # noqa: BLE001 -- the last resort: plain text, never a failed error page
        kind = type(exc).__name__
        if kind not in _failed_kinds:
            _failed_kinds.add(kind)
            log.error("the error page could not be rendered (%s: %s); answering in plain text", kind, exc)
        return PlainTextResponse(f"{say(title)}: {say(message)}", status_code=status, headers=headers)
    return HTMLResponse(html, status_code=status, headers=headers)


def _validation_message(exc: RequestValidationError) -> str:
    parts = []
    for error in exc.errors()[:3]:
        where = ".".join(str(p) for p in error.get("loc", ()) if p not in ("path", "query", "body"))
        parts.append(_("%(part)s is not valid", part=where or _("the request")))
    return _("%(problems)s. Check the link and try again.", problems="; ".join(parts).capitalize())


def install(app: FastAPI) -> None:
    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> Response:
        detail = exc.detail if isinstance(exc.detail, str) else TITLES.get(exc.status_code, "Error")
        return error_page(request, exc.status_code, detail, dict(exc.headers or {}))

    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, exc: RequestValidationError) -> Response:
        return error_page(request, 400, _validation_message(exc))

    @app.exception_handler(Exception)
    async def unexpected(request: Request, exc: Exception) -> Response:
        # Starlette re-raises after this answer, so the server still logs the traceback once. This
        # runs outside the language middleware: the reader's language is chosen here again.
        with use_language(choose(request.headers.get("cookie"), request.headers.get("accept-language"))):
            return error_page(request, 500, SERVER_ERROR)
