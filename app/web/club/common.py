"""What every club page module shares: rendering with the viewer and CSRF token, redirects,
the elder check, and small parsers and formatters for names and dates."""

from __future__ import annotations

from datetime import date
from typing import Any
from urllib.parse import quote

from fastapi import HTTPException, Request
from fastapi.responses import RedirectResponse, Response
from sqlalchemy import Engine
from sqlmodel import Session

from app.club import Night
from app.names import display_name, name_key
from app.store import club as store
from app.web.club import auth, identity
from app.web.club import night_data as cn

NAME_MAX = 40
WEEKDAYS = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]


def db_engine(request: Request) -> Engine:
    engine: Engine = request.app.state.engine
    return engine


def render(
    request: Request, name: str, context: dict[str, Any] | None = None, *, status: int = 200
) -> Response:
    who = auth.viewer(request)
    ctx = {"viewer": who, "csrf": who.csrf, "tables": cn.TABLE_TITLE, "me": identity.remembered(request),
           **(context or {})}
    response = request.app.state.templates.TemplateResponse(request, name, ctx, status_code=status)
    return auth.finish(request, response)


def render_string(request: Request, name: str, context: dict[str, Any]) -> str:
    """A template as text, with what every club page gets (viewer, CSRF token, table titles)."""
    who = auth.viewer(request)
    ctx = {"request": request, "viewer": who, "csrf": who.csrf, "tables": cn.TABLE_TITLE,
           "me": identity.remembered(request), **context}
    return str(request.app.state.templates.env.get_template(name).render(ctx))


def redirect(url: str, request: Request | None = None) -> Response:
    response = RedirectResponse(url, status_code=303)
    if request is not None:
        auth.finish(request, response)
    return response


def require_elder(request: Request) -> auth.Viewer:
    who = auth.viewer(request)
    if not who.is_elder:
        target = quote(request.url.path)
        raise HTTPException(status_code=303, headers={"Location": f"/club/login?next={target}"})
    return who


def clean_name(raw: str | None) -> str:
    return display_name(raw, max_len=NAME_MAX)


def parse_date(raw: str | None) -> date | None:
    try:
        return date.fromisoformat((raw or "").strip())
    except ValueError:
        return None


def nice_date(d: date | None) -> str:
    return f"{WEEKDAYS[d.weekday()]} {d.day} {d.strftime('%b %Y')}" if d else ""


def night_or_404(session: Session, night_id: int) -> tuple[store.Night, list[store.NightResult], Night]:
    loaded = cn.load(session, night_id=night_id)
    if loaded is None:
        raise HTTPException(status_code=404, detail="No such night")
    return loaded


def name_error(session: Session, name: str, *, member_id: int | None = None) -> str | None:
    if not name:
        return "Write the member's name."
    if "/" in name:
        return "A name cannot contain “/”."
    key = name_key(name)
    existing = next((m for m in store.list_members(session) if name_key(m.name) == key), None)
    if existing is not None and existing.id != member_id:
        return f"There is already a member called {existing.name}."
    return None
