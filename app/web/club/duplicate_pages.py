"""Duplicate deals on the club's pages: a round's deal-by-deal comparison (once the round is
over at every table), the night's duplicate scores, and a player's over their duplicate nights.
The night's own scoring never changes: the duplicate score is an extra view, labelled so."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import HTMLResponse, Response
from sqlmodel import Session

from app.club.duplicate import DuplicateScore, HandRow, matchpoints
from app.i18n import _
from app.nights.words import describe_slot
from app.rules.cards import pretty_cards
from app.store import nights as night_store
from app.store import results as result_store
from app.store.db import session_scope
from app.web.club import duplicate_view as dv
from app.web.club.common import db_engine, night_or_404, render

router = APIRouter(prefix="/club", tags=["club"])


def round_title(stage: str, number: int) -> str:
    return _("Base round %(number)s", number=number) if stage == "base" else _("Final round %(number)s", number=number)


def scores_view(scores: dict[str, DuplicateScore]) -> list[dict[str, Any]]:
    """Players by duplicate share, best first."""
    rows = [{"player": p, "share": s.share, "points": s.points, "comparisons": s.comparisons}
            for p, s in scores.items() if s.share is not None]
    return sorted(rows, key=lambda r: (-r["share"], r["player"]))


def night_section(session: Session, row: night_store.Night, results: list[result_store.NightResult]) -> dict[str, Any] | None:
    """The night page's duplicate section: the rounds to compare and the night's duplicate scores."""
    if not row.duplicate:
        return None
    rounds = [{"title": round_title(stage, number), "url": f"/club/nights/{row.id}/duplicate/{stage}/{number}"}
              for stage, number in dv.finished_rounds(results)]
    return {"rounds": rounds, "scores": scores_view(dv.night_scores(session, row, results))}


def chart_view(score: DuplicateScore) -> dict[str, Any]:
    """A night's duplicate share round by round, for the picture (`_duplicate_chart.html`)."""
    bars = [{"label": label, "share": pts / n if n else 0.5} for label, (pts, n) in score.by_round.items()]
    return {"bars": bars, "share": score.share}


@router.get("/nights/{night_id}/duplicate/{stage}/{number}", response_class=HTMLResponse)
def duplicate_round(request: Request, night_id: int, stage: str, number: int) -> Response:
    if stage not in ("base", "finals") or not 1 <= number <= 16:
        raise HTTPException(status_code=404, detail=_("No such round"))
    with session_scope(db_engine(request)) as session:
        row, results, _night = night_or_404(session, night_id)
        if not row.duplicate:
            raise HTTPException(status_code=404, detail=_("This night was not played with duplicate deals."))
        view = dv.round_view(session, row, results, stage, number)
    ctx: dict[str, Any] = {"row": night_store.public(row), "view": view, "title": round_title(stage, number),
                           "cards": pretty_cards, "matchpoints": _cell_points}
    if view is None:
        ctx["waiting"] = True
        return render(request, "club/duplicate.html", ctx, status=403)
    ctx["slots"] = {t.table: describe_slot(stage, number, t.table) for t in view.tables}
    return render(request, "club/duplicate.html", ctx)


def _cell_points(row: HandRow) -> dict[str, tuple[float, int]]:
    return matchpoints(row)
