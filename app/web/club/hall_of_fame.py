"""The Hall of Fame: all-time and per-year tables, sortable, every night's placement, and a page
per player (RULES.md §7.5)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import Any
from urllib.parse import quote

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import HTMLResponse, Response

from app.club.hall_of_fame import SORTS, hall_of_fame_table, shared_ranks, sorted_table
from app.i18n import N_, _
from app.i18n.jinja import day
from app.parsing import strict_int
from app.rules.ruleset import preset_title
from app.store import members as member_store
from app.store import night_replay
from app.store.db import session_scope
from app.web.club import duplicate_view as dv
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
        played = night_replay.played_nights(session)
    years = sorted({n.on.year for n in played}, reverse=True)
    chosen_year = wanted if wanted in years else None
    sort = sort if sort in SORTS else "points"
    rows = hall_of_fame_table([n.summary for n in played], chosen_year)
    rank = shared_ranks(rows)
    return render(
        request,
        "club/hall_of_fame.html",
        {
            "rows": sorted_table(rows, sort), "rank": rank, "sort": sort, "year": chosen_year,
            "years": years, "columns": HOF_COLUMNS,
            "nights": [n for n in reversed(played) if chosen_year is None or n.on.year == chosen_year],
            "nice_date": nice_date,
        },
    )


@router.get("/players/{name}", response_class=HTMLResponse)
def player_page(request: Request, name: str) -> Response:
    with session_scope(db_engine(request)) as session:
        member = member_store.get_member_by_name(session, name=name)
        played = night_replay.played_nights(session)
        games = games_by_night(session, member.name) if member is not None else {}
        duplicate = [(row, chart_view(score)) for row, score in dv.player_nights(session, member.name)] if member else []
    if member is None:
        raise HTTPException(status_code=404, detail=_("No such player"))
    if member.name != name:
        return redirect(f"/club/players/{quote(member.name)}", request)
    rated = club_ratings(request).get(member.name)
    rating = rating_chart(rated, title=_("%(name)s's rating, result by result", name=member.name)) if rated else None
    mine = [(n, n.placement.index(member.name) + 1) for n in played if member.name in n.placement]
    all_time = next((r for r in hall_of_fame_table([n.summary for n in played], None) if r.player == member.name), None)
    years = sorted({n.on.year for n, _ in mine}, reverse=True)
    per_year = []
    for y in years:
        table = hall_of_fame_table([n.summary for n in played], y)
        row = next(r for r in table if r.player == member.name)
        per_year.append((y, row, [r.player for r in table].index(member.name) + 1, len(table)))
    chart = places_chart([(n.on, place) for n, place in mine], title=_("%(name)s's place night by night", name=member.name))
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


@dataclass(frozen=True)
class PlacesChart:
    """A line chart of places (1 on top, 9 at the bottom) night by night, laid out for
    templates/club/_places_chart.html: every coordinate worked out, no markup."""

    title: str
    width: int
    height: int
    left: int
    right: int
    top: int
    band_height: float  # the podium band (places 1 to 3)
    rows: list[tuple[int, float]]  # (place, y) of each grid line
    path: str  # the line through the nights
    points: list[dict[str, Any]]  # each night: x, y, its class, its label, its axis label (or "")


def places_chart(points: list[tuple[date, int]], *, title: str) -> PlacesChart | None:
    """The places chart of `points` (a night's date and its place), None without nights."""
    if not points:
        return None
    width, height = 640, 220
    left, right, top, bottom = 34, 14, 14, 34
    n = len(points)
    inner_w, inner_h = width - left - right, height - top - bottom

    def x(i: int) -> float:
        return left + (inner_w / 2 if n == 1 else inner_w * i / (n - 1))

    def y(place: int) -> float:
        return top + inner_h * (place - 1) / 8

    step = max(1, (n + 5) // 6)
    # Translators: a short date pattern (Unicode CLDR) under the chart: dd day, MMM month, yy year.
    axis_pattern = _("dd MMM yy")
    return PlacesChart(
        title=title, width=width, height=height, left=left, right=right, top=top,
        band_height=y(3) - top + 12,
        rows=[(place, y(place)) for place in range(1, 10)],
        path=" ".join(f"{'M' if i == 0 else 'L'}{x(i):.1f},{y(place):.1f}" for i, (_, place) in enumerate(points)),
        points=[{"x": x(i), "y": y(place),
                 "cls": "pt win" if place == 1 else "pt podium" if place <= 3 else "pt",
                 "label": _("%(day)s: place %(place)s", day=on.isoformat(), place=place),
                 "axis": day(on, axis_pattern) if i % step == 0 or i == n - 1 else ""}
                for i, (on, place) in enumerate(points)],
    )
