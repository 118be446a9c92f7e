"""The club's ratings page (`/club/ratings`): every member's rating and uncertainty, a small chart
of its history, and statistics per rule set. Computed from the stored results in a worker
thread on each visit (a season is a few hundred results: milliseconds); `gurka ratings` prints
the same table from the command line."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, Response

from app.ratings.engine import Rated, ranked, rate
from app.ratings.sources import all_results
from app.rules.ruleset import preset_title
from app.store.db import session_scope
from app.web.club.common import db_engine, render
from app.web.club.rating_view import sparkline

router = APIRouter(prefix="/club", tags=["club"])


def club_ratings(request: Request) -> dict[str, Rated]:
    """Every rated member (blocking: call from a worker thread)."""
    with session_scope(db_engine(request)) as session:
        return rate(all_results(session))


@router.get("/ratings", response_class=HTMLResponse)
def ratings_page(request: Request) -> Response:
    table = club_ratings(request)
    rows = ranked(table)
    rulesets = sorted({k for r in rows for k in r.stats})
    return render(request, "club/ratings.html", {
        "rows": rows,
        "spark": {r.player: sparkline(r) for r in rows},
        "rulesets": [(k, preset_title(k)) for k in rulesets],
    })
