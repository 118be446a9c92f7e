"""The club's front page: open and past nights, the next date, the Hall of Fame's top five."""

from __future__ import annotations

from datetime import date

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, Response

from app.club.hall_of_fame import hall_of_fame_table
from app.store import beer as beer_store
from app.store import date_polls as poll_store
from app.store import members as member_store
from app.store import night_replay
from app.store import nights as night_store
from app.store.db import session_scope
from app.web.club.common import db_engine, nice_date, render
from app.web.club.poll_view import poll_view

router = APIRouter(prefix="/club", tags=["club"])


@router.get("", response_class=HTMLResponse)
def club_home(request: Request) -> Response:
    with session_scope(db_engine(request)) as session:
        nights = night_store.list_nights(session)
        no_elder = member_store.count_elders(session) == 0
        members = member_store.list_public(session, active_only=True)
        polls: dict[int | None, poll_store.DatePoll] = {p.night_id: p for p in poll_store.list_polls(session)}
        debts = beer_store.list_debts(session, open_only=True)
        played = night_replay.played_nights(session)
    this_year = date.today().year
    table = hall_of_fame_table([n.summary for n in played], None)[:5]
    next_date = None
    for night in nights:
        poll = polls.get(night.id)
        if poll is not None:
            next_date = poll_view(poll, None, members, date.today())
            next_date["night"] = night
            break
    return render(
        request,
        "club/index.html",
        {
            "nights": nights,
            "open_nights": [n for n in nights if n.status == "open"],
            "no_elder": no_elder,
            "members": members,
            "top": table,
            "this_year": this_year,
            "next_date": next_date,
            "open_debts": debts,
            "nice_date": nice_date,
        },
    )
