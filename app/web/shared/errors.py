"""Error pages: every refusal is a short HTML page with a plain message, never a traceback.

HTTP errors keep their status and headers (an elder-only page redirects to the login with 303);
a failed validation of the path or query is a 400 that says which part was wrong; anything
unexpected is logged once and answered with a 500 page that shows no internals.
"""

from __future__ import annotations

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.responses import HTMLResponse, PlainTextResponse, Response

TITLES = {400: "That request was not understood", 403: "Not allowed", 404: "Not found",
          405: "Not allowed", 413: "Too large", 429: "Too many requests", 500: "Something went wrong"}


def error_page(request: Request, status: int, message: str, headers: dict[str, str] | None = None) -> Response:
    if status < 400:  # a redirect raised as an exception (the elder check)
        return Response(status_code=status, headers=headers)
    title = TITLES.get(status, "That did not work")
    templates = getattr(request.app.state, "templates", None)
    if templates is None:
        return PlainTextResponse(f"{title}: {message}", status_code=status, headers=headers)
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
        parts.append(f"{where or 'the request'} is not valid")
    return "; ".join(parts).capitalize() + ". Check the link and try again."


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
        # Starlette re-raises after this answer, so the server still logs the traceback once.
        return HTMLResponse(
            "<!doctype html><title>Something went wrong</title><h1>Something went wrong</h1>"
            "<p>The server could not answer this request. Nothing was changed; try again.</p>",
            status_code=500,
        )
