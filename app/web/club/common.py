"""What every club page module shares: rendering with the viewer and CSRF token, redirects,
the elder check, and small parsers and formatters for names and dates."""

from __future__ import annotations

from datetime import date, datetime
from decimal import Decimal
from typing import Any
from urllib.parse import quote

from babel.numbers import format_decimal
from fastapi import HTTPException, Request
from fastapi.responses import RedirectResponse, Response
from sqlalchemy import Engine
from sqlmodel import Session
from starlette.datastructures import FormData

from app.club import Night
from app.club.constants import TABLE_NAMES
from app.i18n import _, current_language
from app.i18n.jinja import day, moment
from app.names import display_name, name_key
from app.nights.words import upper_first
from app.store import members as member_store
from app.store import night_replay
from app.store import nights as night_store
from app.store import results as result_store
from app.web.club import auth, identity

NAME_MAX = 40


def db_engine(request: Request) -> Engine:
    engine: Engine = request.app.state.engine
    return engine


def render(
    request: Request, name: str, context: dict[str, Any] | None = None, *, status: int = 200
) -> Response:
    who = auth.viewer(request)
    ctx = {"viewer": who, "csrf": who.csrf, "tables": TABLE_NAMES, "me": identity.remembered(request),
           **FORMATS, **(context or {})}
    response = request.app.state.templates.TemplateResponse(request, name, ctx, status_code=status)
    return auth.finish(request, response)


def render_string(request: Request, name: str, context: dict[str, Any]) -> str:
    """A template as text, with what every club page gets (viewer, CSRF token, table titles)."""
    who = auth.viewer(request)
    ctx = {"request": request, "viewer": who, "csrf": who.csrf, "tables": TABLE_NAMES,
           "me": identity.remembered(request), **FORMATS, **context}
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


def form_text(form: FormData, name: str) -> str:
    """A posted form's text field (an uploaded file or a missing field: empty)."""
    value = form.get(name)
    return value if isinstance(value, str) else ""


def clean_name(raw: str | None) -> str:
    return display_name(raw, max_len=NAME_MAX)


def parse_date(raw: str | None) -> date | None:
    try:
        return date.fromisoformat((raw or "").strip())
    except ValueError:
        return None


def nice_date(d: date | None) -> str:
    """A night's date with its weekday, in the reader's language ("Mon 3 Mar 2025")."""
    # Translators: a date pattern (Unicode CLDR): EEE weekday, d day, MMM month, y year.
    return day(d, _("EEE d MMM y")) if d else ""


def nice_day(at: datetime) -> str:
    """The day something happened ("03 Mar 2025")."""
    # Translators: a date pattern (Unicode CLDR): dd day, MMM month, y year.
    return day(at, _("dd MMM y"))


def nice_moment(at: datetime) -> str:
    """When something happened, to the minute ("03 Mar 2025 14:05")."""
    # Translators: a date and time pattern (Unicode CLDR): dd day, MMM month, y year, HH:mm time.
    return moment(at, _("dd MMM y HH:mm"))


def nice_average(value: float) -> str:
    """An average with two decimals, in the reader's way of writing numbers ("2.50", "2,50")."""
    return format_decimal(Decimal(f"{value:.2f}"), format="0.00", locale=current_language())


# What every club template can call to show dates and numbers in the reader's language.
FORMATS = {"nice_date": nice_date, "nice_day": nice_day, "nice_moment": nice_moment, "nice_average": nice_average,
           "upper_first": upper_first}


def night_or_404(session: Session, night_id: int) -> tuple[night_store.Night, list[result_store.NightResult], Night]:
    loaded = night_replay.load(session, night_id=night_id)
    if loaded is None:
        raise HTTPException(status_code=404, detail=_("No such night"))
    return loaded


def name_error(session: Session, name: str, *, member_id: int | None = None) -> str | None:
    if not name:
        return _("Write the member's name.")
    if "/" in name:
        return _("A name cannot contain “/”.")
    key = name_key(name)
    existing = next((m for m in member_store.list_members(session) if name_key(m.name) == key), None)
    if existing is not None and existing.id != member_id:
        return _("There is already a member called %(name)s.", name=existing.name)
    return None
