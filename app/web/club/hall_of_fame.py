"""The Hall of Fame: all-time and per-year tables, sortable, every night's placement, and a page
per player (RULES.md §7.5)."""

from __future__ import annotations

from urllib.parse import quote

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import HTMLResponse, Response

from app.club.hall_of_fame import shared_ranks
from app.i18n import N_, _
from app.parsing import strict_int
from app.rules.ruleset import preset_title
from app.store import club as store
from app.store.db import session_scope
from app.web.club import duplicate_view as dv
from app.web.club import night_data as cn
from app.web.club.common import db_engine, nice_date, redirect, render
from app.web.club.duplicate_pages import chart_view
from app.web.club.night_games import games_by_night
from app.web.club.rating_view import rating_chart
from app.web.club.ratings import club_ratings

router = APIRouter(prefix="/club", tags=["club"])


HOF_COLUMNS = [
    ("name", N_("Player"), False),
    ("points", N_("HoF points"), True),
    ("nights", N_("Nights"), True),
    ("wins", N_("Wins"), True),
    ("podiums", N_("Podiums"), True),
    ("average", N_("Avg. place"), True),
    ("bar_rov", N_("Bar røv"), True),
    ("agurker", N_("Agurker"), True),
]


@router.get("/hall-of-fame", response_class=HTMLResponse)
def hall_of_fame(request: Request, sort: str = "points", year: str = "") -> Response:
    wanted = strict_int(year, lo=1, hi=9999, max_digits=4) if year.strip() else None
    if year.strip() and wanted is None:
        raise HTTPException(status_code=400, detail=_("The year must be a year such as 2025."))
    with session_scope(db_engine(request)) as session:
        played = cn.played_nights(session)
    years = sorted({n.on.year for n in played}, reverse=True)
    chosen_year = wanted if wanted in years else None
    sort = sort if sort in cn.SORTS else "points"
    rows = cn.table_for(played, chosen_year)
    rank = shared_ranks(rows)
    return render(
        request,
        "club/hall_of_fame.html",
        {
            "rows": cn.sorted_table(rows, sort), "rank": rank, "sort": sort, "year": chosen_year,
            "years": years, "columns": HOF_COLUMNS,
            "nights": [n for n in reversed(played) if chosen_year is None or n.on.year == chosen_year],
            "nice_date": nice_date,
        },
    )


@router.get("/players/{name}", response_class=HTMLResponse)
def player_page(request: Request, name: str) -> Response:
    with session_scope(db_engine(request)) as session:
        member = store.get_member_by_name(session, name=name)
        played = cn.played_nights(session)
        games = games_by_night(session, member.name) if member is not None else {}
        duplicate = [(row, chart_view(score)) for row, score in dv.player_nights(session, member.name)] if member else []
    if member is None:
        raise HTTPException(status_code=404, detail=_("No such player"))
    if member.name != name:
        return redirect(f"/club/players/{quote(member.name)}", request)
    rated = club_ratings(request).get(member.name)
    rating = rating_chart(rated, title=_("%(name)s's rating, result by result", name=member.name)) if rated else None
    mine = [(n, n.placement.index(member.name) + 1) for n in played if member.name in n.placement]
    all_time = next((r for r in cn.table_for(played, None) if r.player == member.name), None)
    years = sorted({n.on.year for n, _ in mine}, reverse=True)
    per_year = []
    for y in years:
        table = cn.table_for(played, y)
        row = next(r for r in table if r.player == member.name)
        per_year.append((y, row, [r.player for r in table].index(member.name) + 1, len(table)))
    chart = cn.places_chart([(n.on, place) for n, place in mine], title=_("%(name)s's place night by night", name=member.name))
    return render(
        request,
        "club/player.html",
        {
            "member": member, "mine": list(reversed(mine)), "all_time": all_time, "per_year": per_year,
            "chart": chart, "nice_date": nice_date, "games": games, "duplicate": duplicate,
            "hof": dict(zip(range(1, 10), (9, 8, 7, 6, 5, 4, 3, 2, 1), strict=True)),
            "rated": rated, "rating_plot": rating, "preset_title": preset_title,
        },
    )
