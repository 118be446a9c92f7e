"""The night page (programme, tables, live standings, rounds, corrections, next date), its live
part, the online tables' Play links and bots, and deleting a night."""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import HTMLResponse, Response
from sqlmodel import Session

from app.club import Night
from app.store import club as store
from app.store.db import session_scope
from app.web.club import auth
from app.web.club import night_data as cn
from app.web.club import online as club_online
from app.web.club.common import db_engine, nice_date, night_or_404, redirect, render, require_elder
from app.web.club.night_games import night_games
from app.web.shared.security import set_seat_cookie

router = APIRouter(prefix="/club", tags=["club"])


def night_context(
    session: Session,
    row: store.Night,
    results: list[store.NightResult],
    night: Night,
    *,
    form_errors: dict[str, list[str]] | None = None,
    typed: dict[str, dict[str, Any]] | None = None,
    poll_errors: list[str] | None = None,
) -> dict[str, Any]:
    members = store.list_members(session, active_only=True)
    poll = store.get_poll(session, night_id=row.id)  # type: ignore[arg-type]
    poll_view = cn.poll_view(poll, store.list_votes(session, poll_id=poll.id) if poll else None,
                           members, date.today()) if poll else None
    corrections = store.list_corrections(session, night_id=row.id)
    debts = [d for d in store.list_debts(session) if d.night_id == row.id and d.is_owed]
    standings_stage = night.stage
    rows_by_round: dict[tuple[str, int], list[store.NightResult]] = {}
    playoff_rows: list[store.NightResult] = []
    for result in results:
        if result.phase == "playoff":
            playoff_rows.append(result)
        else:
            rows_by_round.setdefault((result.phase, result.round), []).append(result)
    corrected = {c.result_id for c in corrections}
    form_keys = set(night.pending_tables) | {f"playoff{i}" for i in range(len(night.playoffs))}
    general_errors = [e for k, errs in (form_errors or {}).items() if k not in form_keys for e in errs]
    tables_now = cn.tables_view(night)
    online_playoffs: list[dict[str, Any]] = []
    if row.mode == "online" and night.phase in ("base", "finals"):
        for t in tables_now:
            key = club_online.room_key(night.stage, night.current.number, t["key"])
            entry = club_online.room_entry(row, key)
            if entry and entry.get("players") == t["chairs"]:
                t["room_url"] = f"/r/{entry['slug']}"
                t["room_key"] = key
                t["play"] = {p: f"/club/nights/{row.id}/play/{key}/{i}" for i, p in enumerate(t["chairs"])}
    elif row.mode == "online" and night.phase == "playoff":
        groups = [sorted(g) for g in night.playoffs]
        for key, entry in row.state.get("rooms", {}).items():
            if key.startswith(f"playoff-{night.stage}-") and sorted(entry.get("players", [])) in groups:
                online_playoffs.append({
                    "room_key": key, "room_url": f"/r/{entry['slug']}", "players": entry["players"],
                    "play": {p: f"/club/nights/{row.id}/play/{key}/{i}" for i, p in enumerate(entry["players"])},
                })
    ctx: dict[str, Any] = {
        "row": row,
        "night": night,
        "title_date": nice_date(row.date),
        "programme": cn.PROGRAMME,
        "programme_now": cn.programme_now(night),
        "round_label": cn.round_label(night),
        "tables_now": tables_now,
        "online_playoffs": online_playoffs,
        "standings": night.standings(standings_stage),
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
        "describe_slot": cn.describe_slot,
        "table_note": cn.TABLE_NOTE,
        "table_suit": cn.TABLE_SUIT,
        "games": night_games(row.state),
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
    return render(request, "club/night.html", ctx, status=status)


@router.get("/nights/{night_id}", response_class=HTMLResponse)
def night_page(request: Request, night_id: int) -> Response:
    return night_page_response(request, night_id)


@router.get("/nights/{night_id}/live", response_class=HTMLResponse)
def night_live(request: Request, night_id: int) -> Response:
    """The part of the night page that htmx refreshes every few seconds."""
    with session_scope(db_engine(request)) as session:
        row, results, night = night_or_404(session, night_id)
        ctx = night_context(session, row, results, night)
    return render(request, "club/_night_live.html", ctx)


@router.post("/nights/{night_id}/play/{key}/{chair}")
async def play_at_table(request: Request, night_id: int, key: str, chair: int) -> Response:
    """A player's way into their online table: a fresh token for their seat (the previous one
    stops working: this is how a player takes their seat back on another device), the room's
    seat cookie, then the room. A POST, so that no link preview or prefetch takes a seat."""
    await auth.check_csrf(request)
    with session_scope(db_engine(request)) as session:
        row = store.get_night(session, night_id=night_id)
    if row is None:
        raise HTTPException(status_code=404, detail="No such night")
    link = await club_online.issue_seat(request.app, row, key, chair)
    if link is None:
        raise HTTPException(status_code=404, detail="No such table or seat")
    slug, seat_token = link
    response = redirect(f"/r/{slug}", request)
    response.headers["Cache-Control"] = "no-store"
    set_seat_cookie(response, slug=slug, token=seat_token,
                    secure=bool(request.app.state.settings.secure_cookies))
    return response


@router.post("/nights/{night_id}/bots/{key}", response_class=HTMLResponse)
async def bots_for_absent(request: Request, night_id: int, key: str) -> Response:
    """An elder lets bots play the seats of players who are not at their online table."""
    from app.rooms import Refused
    from app.web.shared.state import manager_of

    await auth.check_csrf(request)
    require_elder(request)
    with session_scope(db_engine(request)) as session:
        row = store.get_night(session, night_id=night_id)
        if row is None:
            raise HTTPException(status_code=404, detail="No such night")
        entry = club_online.room_entry(row, key)
    room = manager_of(request.app).get(entry["slug"]) if entry else None
    if room is None:
        raise HTTPException(status_code=404, detail="No such table")
    problems: list[str] = []
    for seat in list(room.seats):
        if room.seats[seat].botted or seat in room.present():
            continue
        try:
            await room.hand_to_bot(room.host, seat)
        except Refused as exc:
            problems.append(str(exc))
    if problems:
        return night_page_response(request, night_id, status=409, form_errors={"bots": problems})
    return redirect(f"/club/nights/{night_id}", request)


@router.post("/nights/{night_id}/delete")
async def delete_night(request: Request, night_id: int) -> Response:
    form = await auth.check_csrf(request)
    require_elder(request)
    if form.get("confirm") != "yes":
        return redirect(f"/club/nights/{night_id}", request)
    with session_scope(db_engine(request)) as session:
        if store.get_night(session, night_id=night_id) is None:
            raise HTTPException(status_code=404, detail="No such night")
        store.delete_night(session, night_id=night_id)
    return redirect("/club", request)
