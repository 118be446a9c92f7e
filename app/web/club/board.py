"""The board: `/club/nights/<id>/board`, a night for a TV or a laptop across the room.

The three tables with their chairs and first dealers, the round in progress and which tables
are in, the standings, the moves after a complete round, the timetable against the clock, then
the finals and the placement, in big type. It reads what the night page shows to anyone, so it
needs no login (a TV at the host's home has none).

It stays live by polling: `/board/fresh?v=` answers 204 while the night's data (a digest of its
rows, `night_store.night_fingerprint`), the reader's language and the clock's minute are what the page
shows, else the board's new content, swapped in one piece (no reload, no flicker). Everything
comes from the database, so any app process answers alike.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import HTMLResponse, Response
from sqlmodel import Session

from app.i18n import _, current_language
from app.store import night_replay
from app.store import nights as night_store
from app.store.db import session_scope
from app.web.club import home_night, night_view
from app.web.club.common import db_engine, nice_date, render, render_string

router = APIRouter(prefix="/club", tags=["club"])

POLL_SECONDS = 1


def board_stamp(request: Request, session: Session, night_id: int) -> str | None:
    """What the board shows depends on: the night's rows, the language, the clock's minute."""
    found = night_store.night_fingerprint(session, night_id=night_id)
    if found is None:
        return None
    minute = datetime.now(UTC).astimezone(home_night.club_zone(request)).strftime("%H%M")
    return f"{found}-{current_language()}-{minute}"


def board_context(request: Request, session: Session, night_id: int) -> dict[str, Any]:
    stamp = board_stamp(request, session, night_id)
    loaded = night_replay.load(session, night_id=night_id)
    if loaded is None or stamp is None:
        raise HTTPException(status_code=404, detail=_("No such night"))
    row, results, night = loaded
    moved_after, moves = home_night.last_moves(night)
    playing = night.phase in home_night.PLAYING
    tables = night_view.tables_view(night) if night.phase != "done" else []
    for t in tables:
        t["dealer_note"] = home_night.dealer_note(night, t["key"]) if playing else ""
    return {
        "row": night_store.public(row), "night": night, "stamp": stamp, "poll": POLL_SECONDS,
        "title_date": nice_date(row.date), "round_label": night_view.round_label(night),
        "tables_now": tables, "moved_after": moved_after, "moves": moves,
        "timetable": home_night.timetable_view(request, row, results, night),
        "playoffs": night.playoffs, "pending": night.pending_tables,
        **home_night.standings_view(night), **home_night.finals_view(night),
    }


@router.get("/nights/{night_id}/board", response_class=HTMLResponse)
def board_page(request: Request, night_id: int) -> Response:
    with session_scope(db_engine(request)) as session:
        ctx = board_context(request, session, night_id)
    return render(request, "club/board.html", ctx)


@router.get("/nights/{night_id}/board/fresh", response_class=HTMLResponse)
def board_fresh(request: Request, night_id: int, v: str = "") -> Response:
    """The board's content, or 204 while it is the one the page shows."""
    with session_scope(db_engine(request)) as session:
        stamp = board_stamp(request, session, night_id)
        if stamp is None:
            raise HTTPException(status_code=404, detail=_("No such night"))
        if stamp == v:
            return Response(status_code=204)
        ctx = board_context(request, session, night_id)
    return HTMLResponse(render_string(request, "club/_board.html", ctx))
