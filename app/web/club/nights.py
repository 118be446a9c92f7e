"""The night page (programme, tables, live standings, rounds, corrections, next date), its live
part, the online tables' Play links and bots, and deleting a night."""

from __future__ import annotations

import asyncio
import hashlib
from datetime import date, timedelta
from typing import Any

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import HTMLResponse, Response
from markupsafe import Markup
from sqlmodel import Session

from app.club import Night
from app.i18n import _
from app.nights.words import describe_slot
from app.rooms.bot_levels import DEFAULT_LEVEL, parse_level
from app.store import absences as absence_store
from app.store import beer as beer_store
from app.store import date_polls as poll_store
from app.store import members as member_store
from app.store import nights as night_store
from app.store import results as result_store
from app.store.db import row_id, session_scope
from app.web.club import (
    absent_bots,
    auth,
    duplicate_pages,
    home_night,
    identity,
    night_view,
    table_links,
)
from app.web.club import online as club_online
from app.web.club.common import (
    db_engine,
    nice_date,
    night_or_404,
    redirect,
    render,
    render_string,
    require_elder,
)
from app.web.club.night_games import night_games
from app.web.club.poll_view import poll_view as view_of_poll
from app.web.shared.loop import on_loop
from app.web.shared.security import set_seat_cookie
from app.web.table.bot_words import level_choices

router = APIRouter(prefix="/club", tags=["club"])


def night_context(
    session: Session,
    row: night_store.Night,
    results: list[result_store.NightResult],
    night: Night,
    *,
    form_errors: dict[str, list[str]] | None = None,
    typed: dict[str, dict[str, Any]] | None = None,
    poll_errors: list[str] | None = None,
) -> dict[str, Any]:
    members = member_store.list_public(session, active_only=True)
    night_id = row_id(row)
    poll = poll_store.get_poll(session, night_id=night_id)
    votes = poll_store.list_votes(session, poll_id=poll.id) if poll is not None and poll.id is not None else None
    poll_view = view_of_poll(poll, votes, members, date.today()) if poll else None
    corrections = result_store.list_corrections(session, night_id=row.id)
    debts = [d for d in beer_store.list_debts(session) if d.night_id == row.id and d.is_owed]
    standings_stage = night.stage
    rows_by_round: dict[tuple[str, int], list[result_store.NightResult]] = {}
    playoff_rows: list[result_store.NightResult] = []
    for result in results:
        if result.phase == "playoff":
            playoff_rows.append(result)
        else:
            rows_by_round.setdefault((result.phase, result.round), []).append(result)
    corrected = {c.result_id for c in corrections}
    from_phones = {(r.phase, r.round, r.table) for r in results if r.source == "phone"}
    form_keys = set(night.pending_tables) | {f"playoff{i}" for i in range(len(night.playoffs))}
    general_errors = [e for k, errs in (form_errors or {}).items() if k not in form_keys for e in errs]
    tables_now = night_view.tables_view(night)
    for t in tables_now:
        t["from_phone"] = (night.stage, night.current.number, t["key"]) in from_phones
    online_playoffs: list[dict[str, Any]] = []
    rooms_now = club_online.current_rooms(row, night) if row.mode == "online" and row.status == "open" else {}
    if night.phase in ("base", "finals"):
        for t in tables_now:
            key = club_online.room_key(night.stage, night.current.number, t["key"])
            entry = rooms_now.get(key)
            if entry is not None:
                t["room_url"] = f"/r/{entry['slug']}"
                t["play"] = {p: f"/club/nights/{row.id}/play/{key}/{i}" for i, p in enumerate(t["chairs"])}
    elif night.phase == "playoff":
        for key, entry in rooms_now.items():
            online_playoffs.append({
                "room_url": f"/r/{entry['slug']}", "players": entry["players"],
                "play": {p: f"/club/nights/{row.id}/play/{key}/{i}" for i, p in enumerate(entry["players"])},
            })
    absences = absence_store.list_absences(session, night_id=night_id) if row.bots_for_absent_by is not None else []
    ctx: dict[str, Any] = {
        "row": row,
        "result_rows": results,
        "night": night,
        "title_date": nice_date(row.date),
        "round_label": night_view.round_label(night),
        "tables_now": tables_now,
        "online_playoffs": online_playoffs,
        "standings": night.standings(standings_stage),
        "places": night.place_labels(standings_stage),
        "carry": night.carry_over,
        "stage": standings_stage,
        "base_done": night.stage == "finals",
        "pending": night.pending_tables if night.phase in ("base", "finals") else [],
        "playoffs": night.playoffs,
        "placement": night.placement() if night.phase == "done" else [],
        "hof_points": night.hall_of_fame() if night.phase == "done" else {},
        "rounds": sorted(rows_by_round.items(), key=lambda kv: (kv[0][0] != "base", kv[0][1]), reverse=True),
        "playoff_rows": playoff_rows,
        "corrections": corrections,
        "corrected": corrected,
        "form_errors": form_errors or {},
        "general_errors": general_errors,
        "typed": typed or {},
        "poll": poll_view,
        "poll_errors": poll_errors or [],
        "members": members,
        "debts": debts,
        "lots": night.lots,
        "stand_ins": {p["name"]: p["for_name"] for p in row.players if p.get("for_name")},
        "progress": _progress(night),
        "today": date.today(),
        "week_after": row.date + timedelta(days=7),
        "nice_date": nice_date,
        "describe_slot": describe_slot,
        "table_note": night_view.TABLE_NOTE,
        "table_suit": night_view.TABLE_SUIT,
        "games": night_games(row.state),
        "bots_on": row.bots_for_absent_by is not None,
        "bots_by": row.bots_for_absent_by,
        "bots_since": row.bots_for_absent_since,
        "bots_level": absent_bots.night_level(row.state),
        "bots_level_name": dict(level_choices())[absent_bots.night_level(row.state)],
        "bot_levels": level_choices(),
        "club_moment": absent_bots.club_moment,
        "away": [a.player for a in absences],
        "botted": absent_bots.botted_players(session, list(rooms_now.values())),
        "duplicate": duplicate_pages.night_section(session, row, results),
    }
    return ctx


def _progress(night: Night) -> int:
    """Percent of the night's 22 rounds recorded."""
    done = sum(1 for r in night.history() if r.complete)
    return round(100 * done / 22)


def night_page_response(request: Request, night_id: int, *, status: int = 200, **extra: Any) -> Response:
    with session_scope(db_engine(request)) as session:
        row, results, night = night_or_404(session, night_id)
        ctx = night_context(session, row, results, night, **extra)
    return render_night(request, ctx, status=status)


UNTYPED: dict[str, Any] = {"form_errors": {}, "general_errors": [], "typed": {}, "poll_errors": []}


def shown(ctx: dict[str, Any]) -> dict[str, Any]:
    """`night_context` as the templates get it: the night's row as its pages read it
    (`night_store.public`: no seed while the night is open)."""
    return {**ctx, "row": night_store.public(ctx["row"])}


def night_body(request: Request, ctx: dict[str, Any]) -> tuple[str, str]:
    """(the night page's changing part, its stamp). The stamp is taken without this request's
    form errors and typed values, so a page showing them is not replaced until the night moves."""
    ctx = {**shown(ctx), "timetable": home_night.timetable_view(request, ctx["row"], ctx["result_rows"], ctx["night"])}
    body = render_string(request, "club/_night_body.html", ctx)
    plain = body if all(not ctx.get(k) for k in UNTYPED) else render_string(
        request, "club/_night_body.html", {**ctx, **UNTYPED})
    return body, hashlib.sha256(plain.encode()).hexdigest()[:16]


def render_night(request: Request, ctx: dict[str, Any], *, status: int = 200) -> Response:
    body, stamp = night_body(request, ctx)
    row, night = ctx["row"], ctx["night"]
    phones = (table_links.links_for_page(request, row, night.stage)
              if row.mode == "hand" and night.phase != "done" and auth.viewer(request).is_elder else None)
    return render(request, "club/night.html", {**shown(ctx), "night_body": Markup(body), "stamp": stamp,
                                               "phone_links": phones}, status=status)


@router.get("/nights/{night_id}/fresh", response_class=HTMLResponse)
def night_fresh(request: Request, night_id: int, v: str = "") -> Response:
    """The whole changing part of the night page, or 204 while it is the one the page shows."""
    with session_scope(db_engine(request)) as session:
        row, results, night = night_or_404(session, night_id)
        ctx = night_context(session, row, results, night)
    body, stamp = night_body(request, ctx)
    if stamp == v:
        return auth.finish(request, Response(status_code=204))
    html = render_string(request, "club/_night_wrap.html", {"row": night_store.public(row), "night_body": Markup(body),
                                                               "stamp": stamp})
    return auth.finish(request, HTMLResponse(html, headers={"Cache-Control": "no-store"}))


@router.get("/nights/{night_id}", response_class=HTMLResponse)
def night_page(request: Request, night_id: int) -> Response:
    return night_page_response(request, night_id)


@router.get("/nights/{night_id}/live", response_class=HTMLResponse)
def night_live(request: Request, night_id: int) -> Response:
    """The part of the night page that htmx refreshes every few seconds."""
    with session_scope(db_engine(request)) as session:
        row, results, night = night_or_404(session, night_id)
        ctx = night_context(session, row, results, night)
    return render(request, "club/_night_live.html", shown(ctx))


@router.post("/nights/{night_id}/play/{key}/{chair}")
def play_at_table(request: Request, night_id: int, key: str, chair: int, _form: auth.CsrfForm) -> Response:
    """A member's way into their own online table: only the member of that chair, on a device
    that remembers them (`identity`), gets a fresh token for the seat (the previous one stops
    working: this is how a member takes their seat back on another device), the room's seat
    cookie, then the room. Anyone else is told whose seat it is and nothing moves. A POST, so
    that no link preview or prefetch takes a seat. The seat token is issued on the event loop,
    where every room change happens."""
    with session_scope(db_engine(request)) as session:
        row = night_store.get_night(session, night_id=night_id)
    if row is None:
        raise HTTPException(status_code=404, detail=_("No such night"))
    entry = club_online.room_entry(row, key)
    players = entry.get("players", []) if entry else []
    if not 0 <= chair < len(players):
        raise HTTPException(status_code=404, detail=_("No such table or seat"))
    owner = seat_owner(row, players[chair])
    me = identity.remembered(request)
    if me is None or owner is None or me.member_id != owner:
        return seat_refused(request, row, seat_name=players[chair], me=me)
    link = on_loop(club_online.issue_seat, request.app, row, key, chair)
    if link is None:
        raise HTTPException(status_code=404, detail=_("No such table or seat"))
    slug, seat_token = link
    response = redirect(f"/r/{slug}", request)
    response.headers["Cache-Control"] = "no-store"
    set_seat_cookie(response, slug=slug, token=seat_token,
                    secure=bool(request.app.state.settings.secure_cookies))
    return response


def seat_owner(row: night_store.Night, name: str) -> int | None:
    """The member who plays under `name` at this night (a stand-in plays as themself)."""
    for p in row.players:
        if p.get("name") == name and isinstance(p.get("member_id"), int):
            return int(p["member_id"])
    return None


def seat_refused(request: Request, row: night_store.Night, *, seat_name: str, me: identity.Member | None) -> Response:
    """Pressing Play next to someone else's name (or on a device that does not know its member)."""
    return render(request, "club/seat_refused.html",
                  {"row": night_store.public(row), "seat_name": seat_name, "me": me}, status=403)


@router.post("/nights/{night_id}/bots", response_class=HTMLResponse)
async def bots_for_absent(request: Request, night_id: int, form: auth.CsrfForm) -> Response:
    """An elder turns the night's bots for the absent on (`on=yes`) or off (`on=no`): from now on
    every player not at their table is played by a bot as soon as the room allows, in every
    later room of the night, until they press Play (`absent_bots`). Back to the night page
    (POST-redirect-GET)."""
    who = await asyncio.to_thread(require_elder, request)  # reads the elder's session: off the loop
    on = form.get("on")
    if on not in ("yes", "no"):
        raise HTTPException(status_code=422, detail=_("Say whether bots should play for the absent (on or off)."))
    by = (who.name or "") if on == "yes" else None
    level = parse_level(form.get("level") or DEFAULT_LEVEL)
    if level is None:
        raise HTTPException(status_code=422, detail=_("Unknown bot level: choose easy, medium or strong."))
    if not await asyncio.to_thread(absent_bots.switch, request.app, night_id, by, level):
        raise HTTPException(status_code=404, detail=_("No open online night here."))
    await club_online.apply_bot_wishes(request.app, night_id)
    return redirect(f"/club/nights/{night_id}#live", request)


@router.post("/nights/{night_id}/delete")
def delete_night(request: Request, night_id: int, form: auth.CsrfForm) -> Response:
    require_elder(request)
    if form.get("confirm") != "yes":
        return redirect(f"/club/nights/{night_id}", request)
    with session_scope(db_engine(request)) as session:
        if night_store.get_night(session, night_id=night_id) is None:
            raise HTTPException(status_code=404, detail=_("No such night"))
        night_store.delete_night(session, night_id=night_id)
    return redirect("/club", request)
