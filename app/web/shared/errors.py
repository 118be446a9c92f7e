"""Error pages: every refusal is a short HTML page with a plain message, never a traceback.

HTTP errors keep their status and headers (an elder-only page redirects to the login with 303);
a failed validation of the path or query is a 400 that says which part was wrong; anything
unexpected is logged once and answered with a 500 page that shows no internals.
"""

from __future__ import annotations

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from markupsafe import escape
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.responses import HTMLResponse, PlainTextResponse, Response

from app.i18n import N_, _, say, use_language
from app.web.shared.language import choose

TITLES = {400: N_("That request was not understood"), 403: N_("Not allowed"), 404: N_("Not found"),
          405: N_("Not allowed"), 413: N_("Too large"), 429: N_("Too many requests"),
          500: N_("Something went wrong")}


def error_page(request: Request, status: int, message: str, headers: dict[str, str] | None = None) -> Response:
    if status < 400:  # a redirect raised as an exception (the elder check)
        return Response(status_code=status, headers=headers)
    title = TITLES.get(status, N_("That did not work"))
    templates = getattr(request.app.state, "templates", None)
    if templates is None:
        return PlainTextResponse(f"{say(title)}: {say(message)}", status_code=status, headers=headers)
    back = "/club" if request.url.path.startswith("/club") else "/"
    page: Response = templates.TemplateResponse(
        request, "shared/error.html", {"title": title, "message": message, "back": back},
        status_code=status, headers=headers,
    )
    return page


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
            title = escape(_("Something went wrong"))
            sorry = escape(_("The server could not answer this request. Nothing was changed; try again."))
            return HTMLResponse(
                f"<!doctype html><title>{title}</title><h1>{title}</h1><p>{sorry}</p>", status_code=500,
            )
