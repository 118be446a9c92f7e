"""Setting up a night: date, host, the nine players, reserves and newcomers; everyone else starts
where they finished last night (RULES.md §7.1). An online night opens its first rooms at once."""

from __future__ import annotations

import secrets
from datetime import date
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, Response
from sqlmodel import Session

from app.club import Night, start_tables
from app.club.constants import BASE_TABLES, PLAYERS
from app.club.night_records import reason_of
from app.i18n import Text, _
from app.store import date_polls as poll_store
from app.store import members as member_store
from app.store import night_replay
from app.store import nights as night_store
from app.store.db import row_id, session_scope
from app.web.club import auth
from app.web.club import online as club_online
from app.web.club.common import (
    clean_name,
    db_engine,
    form_text,
    name_error,
    nice_date,
    parse_date,
    redirect,
    render,
    require_elder,
)
from app.web.club.poll_view import poll_view
from app.web.shared.loop import on_loop

router = APIRouter(prefix="/club", tags=["club"])


def _setup_defaults(session: Session) -> dict[str, Any]:
    members = member_store.list_public(session, active_only=True)
    by_id = {m.id: m for m in member_store.list_members(session)}
    last = night_store.last_done_night(session)
    host = ""
    players: list[dict[str, str]] = []
    day = date.today()
    if last is not None:
        host_id = next((p["member_id"] for p in last.players if p["name"] == last.winner), None)
        host = by_id[host_id].name if host_id in by_id else (last.winner or "")
        for p in last.players:
            owner = by_id.get(p.get("for_id") or p["member_id"])
            if owner is not None and owner.active:
                players.append({"player": str(owner.id), "new": "", "for": "", "table": "auto"})
        poll = poll_store.get_poll(session, night_id=row_id(last))
        if poll is not None:
            day = poll_view(poll, None, members, date.today())["chosen"] or day
    while len(players) < PLAYERS:
        players.append({"player": "", "new": "", "for": "", "table": "auto"})
    return {"date": day.isoformat(), "host": host, "mode": "hand", "turn_seconds": str(TURN_DEFAULT),
            "duplicate": False, "rows": players[:PLAYERS]}


def _setup_page(request: Request, typed: dict[str, Any], errors: list[str], status: int = 200) -> Response:
    with session_scope(db_engine(request)) as session:
        members = member_store.list_public(session, active_only=True)
        where = night_replay.last_night_tables(session)
        last = night_store.last_done_night(session)
    return render(
        request,
        "club/night_new.html",
        {
            "members": members,
            "where": where,
            "typed": typed,
            "errors": errors,
            "last": last,
            "base_tables": BASE_TABLES,
            "nice_date": nice_date,
        },
        status=status,
    )


@router.get("/nights/new", response_class=HTMLResponse)
def new_night_form(request: Request) -> Response:
    require_elder(request)
    with session_scope(db_engine(request)) as session:
        typed = _setup_defaults(session)
    return _setup_page(request, typed, [])


@router.post("/nights/new", response_class=HTMLResponse)
def new_night_submit(request: Request, form: auth.CsrfForm) -> Response:
    who = require_elder(request)
    rows = [
        {
            "player": str(form.get(f"player_{i}") or ""),
            "new": clean_name(form_text(form, f"new_{i}")),
            "for": str(form.get(f"for_{i}") or ""),
            "table": str(form.get(f"table_{i}") or "auto"),
        }
        for i in range(PLAYERS)
    ]
    typed: dict[str, Any] = {
        "date": str(form.get("date") or ""),
        "host": clean_name(form_text(form, "host")),
        "mode": "online" if form.get("mode") == "online" else "hand",
        "turn_seconds": str(form.get("turn_seconds") or TURN_DEFAULT).strip(),
        "duplicate": form.get("duplicate") == "yes",
        "rows": rows,
    }
    errors: list[str] = []
    turn_seconds = parse_turn_seconds(typed["turn_seconds"])
    if turn_seconds is None:
        errors.append(_("The turn timer is 0 (off) or %(min)s to %(max)s seconds.", min=TURN_MIN, max=TURN_MAX))
    day = parse_date(typed["date"])
    if day is None:
        errors.append(_("Choose the night's date."))
    with session_scope(db_engine(request)) as session:
        by_id = {str(m.id): m for m in member_store.list_members(session)}
        players: list[dict[str, Any]] = []
        newcomers: dict[str, str] = {}
        stand_ins: dict[str, str] = {}
        to_create: list[str] = []
        for i, row in enumerate(rows, start=1):
            name, member_id = "", None
            if row["new"]:
                existing = member_store.get_member_by_name(session, name=row["new"])
                if existing is not None:
                    row["player"], row["new"] = str(existing.id), ""
                else:
                    error = name_error(session, row["new"])
                    if error:
                        errors.append(_("Player %(number)s: %(error)s", number=i, error=error))
                        continue
                    to_create.append(row["new"])
                    name = row["new"]
            if not row["new"]:
                member = by_id.get(row["player"])
                if member is None:
                    errors.append(_("Player %(number)s: choose a member or write a new player's name.", number=i))
                    continue
                name, member_id = member.name, member.id
            stands_for = by_id.get(row["for"]) if row["for"] else None
            if stands_for is not None and stands_for.name == name:
                errors.append(_("Player %(number)s: %(name)s cannot stand in for themselves.", number=i, name=name))
                continue
            players.append(
                {
                    "name": name,
                    "member_id": member_id,
                    "for_id": stands_for.id if stands_for else None,
                    "for_name": stands_for.name if stands_for else None,
                }
            )
            if stands_for is not None:
                stand_ins[name] = stands_for.name
            if row["table"] in BASE_TABLES:
                newcomers[name] = row["table"]
        names = [p["name"] for p in players]
        for name in sorted({n for n in names if names.count(n) > 1}):
            errors.append(_("%(name)s is listed twice: each player plays once.", name=name))
        host = typed["host"]
        if not host:
            errors.append(_("Choose the host."))
        start: dict[str, str] | None = None
        where_ids = night_replay.last_night_tables(session)
        where = {by_id[str(mid)].name: t for mid, t in where_ids.items() if str(mid) in by_id}
        if not errors and len(players) == PLAYERS:
            nobody_known = not any(
                p["name"] in where or (p["for_name"] in where) for p in players
            )
            if nobody_known and not newcomers:
                start = None  # the first night: the tables are drawn by lot
            else:
                try:
                    start = start_tables(where, names, stand_ins=stand_ins, newcomers=newcomers)
                except ValueError as exc:
                    errors.append(_start_message(exc))
        elif not errors:
            errors.append(_("A Gurka Night needs %(num)s players.", num=PLAYERS))
        night_id = None
        if not errors:
            seed = secrets.randbits(62)
            try:
                Night.new(names, start, seed=seed)
            except ValueError as exc:
                errors.append(reason_of(exc))
        if not errors and day is not None:  # (no date is one of the errors)
            for name in to_create:
                member = member_store.add_member(session, name=name)
                for p in players:
                    if p["name"] == name:
                        p["member_id"] = member.id
            night_row = night_store.create_night(
                session, day=day, host=host, seed=seed, players=players, start=start or {},
                mode=typed["mode"], created_by=who.name or "", turn_seconds=turn_seconds or 0,
                duplicate=typed["duplicate"] and typed["mode"] == "online",
            )
            night_replay.save_state(session, night_row, night_replay.replay(night_row, []))
            night_id = row_id(night_row)
    if errors:
        return _setup_page(request, typed, errors, status=422)
    assert night_id is not None  # stored: no errors
    if typed["mode"] == "online":
        on_loop(club_online.advance, request.app, night_id)
    return redirect(f"/club/nights/{night_id}", request)


TURN_DEFAULT = 60
TURN_MIN, TURN_MAX = 10, 600


def parse_turn_seconds(raw: str) -> int | None:
    """The night's turn timer from its form: 0 (off) or 10-600 seconds; None if neither."""
    if not raw.isdigit() or len(raw) > 4:
        return None
    value = int(raw)
    return value if value == 0 or TURN_MIN <= value <= TURN_MAX else None


def _start_message(exc: ValueError) -> str:
    reason = reason_of(exc)
    if isinstance(reason, Text) and reason.msgid.endswith("(newcomers)"):
        return _("%(player)s did not play last night: the host places them — choose a start table for them",
                 **reason.params)
    return reason
