"""What the replay viewer shows of a game's analysis (`app.rooms.analyses`): the "Analyse" button,
its progress, and once done every decision judged, a summary per player and, in the step view,
the judgement of the move the step shows. Shared by a room's replay, an opened file's replay and
the analysis fragment (`app.web.table.analysis`), so this module imports none of them.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any

from fastapi import FastAPI

from app.i18n import N_
from app.rooms.analyses import Analyses, State
from app.rules.analysis import BLUNDER, INACCURACY, MISTAKE, Judged, summarise
from app.rules.text import Text
from app.web.state import manager_of

# The marks' names and signs (the signs are chess's: ?! ? ??), said in the reader's language.
MARK_TEXT = {"inaccuracy": N_("inaccuracy"), "mistake": N_("mistake"), "blunder": N_("blunder")}
MARK_SIGN = {"inaccuracy": "?!", "mistake": "?", "blunder": "??"}
THRESHOLDS = {"inaccuracy": INACCURACY, "mistake": MISTAKE, "blunder": BLUNDER}
# A move's word when it is not cards played: an exchange, or a rassi answer.
MOVE_WORD = {"keep": N_("keep the hand"), "exchange": N_("swap"), "free": N_("free cards"),
             "double": N_("double"), "redouble": N_("redouble"), "pass": N_("keep the hand")}


@dataclass(frozen=True)
class Move:
    """A move as the analysis table draws it: a word (or none, for cards played) and cards."""

    word: str | None
    cards: tuple[str, ...]


def move_of(action: str) -> Move:
    kind, *cards = action.split()
    if kind == "play":
        return Move(None, tuple(cards))
    if kind == "exchange":
        return Move(MOVE_WORD["exchange" if cards else "keep"], tuple(cards))
    return Move(MOVE_WORD.get(kind, kind), tuple(cards))


@dataclass(frozen=True)
class Row:
    step: int
    seat: int
    name: str
    played: Move
    best: Move
    same: bool  # the move played is the best found
    cost: float  # place points, one decimal
    mark: str | None


@dataclass(frozen=True)
class PlayerSummary:
    name: str
    decisions: int
    lost: float
    accuracy: int  # %
    marks: dict[str, int]


_MAKING = threading.Lock()


def analyses_of(app: FastAPI) -> Analyses:
    """The app's analyses (made as the app starts, `app.web.running`, or on first use: pages are
    drawn in threads), with the rooms' bot pool."""
    found: Analyses | None = getattr(app.state, "analyses", None)
    if found is None:
        with _MAKING:
            found = getattr(app.state, "analyses", None)
            if found is None:
                manager = manager_of(app)
                found = app.state.analyses = Analyses(manager.db, manager.bot_pool)
    return found


def rows_of(judged: tuple[Judged, ...], names: list[str]) -> list[tuple[int, list[Row]]]:
    """Every judged decision, by deal: (deal number, rows)."""
    deals: dict[int, list[Row]] = {}
    for j in judged:
        deals.setdefault(j.deal_no, []).append(Row(j.step, j.seat, names[j.seat], move_of(j.played), move_of(j.best),
                                                   j.best == j.played, round(j.cost, 1), j.mark))
    return sorted(deals.items())


def summaries_of(judged: tuple[Judged, ...], names: list[str]) -> list[PlayerSummary]:
    return [PlayerSummary(names[s.seat], s.decisions, round(s.lost, 1), round(s.accuracy),
                          {"inaccuracy": s.inaccuracies, "mistake": s.mistakes, "blunder": s.blunders})
            for s in summarise(judged, len(names))]


def analysis_context(state: State, *, url: str, names: list[str], step: int,
                     message: str | Text | None = None, can_start: bool = True) -> dict[str, Any]:
    """The template's `analysis`: `url` is the fragment's address for this game and step (GET: the
    fragment, POST: start); `message` a refusal to show; `can_start`: offer the button."""
    judged = state.judged
    deals = rows_of(judged, names) if judged else []
    return {
        "state": state,
        "url": url,
        "message": message,
        "can_start": can_start and state.status in (None, "failed"),
        "percent": round(100 * state.done / state.total) if state.total else 0,
        "deals": deals,
        "players": summaries_of(judged, names) if judged else [],
        "step": step,
        "verdict": next((r for _no, rows in deals for r in rows if r.step == step), None),
        "marked": sum(1 for j in judged if j.mark),
        "mark_text": MARK_TEXT,
        "mark_sign": MARK_SIGN,
        "thresholds": THRESHOLDS,
    }


def room_key(room_id: int, number: int) -> str:
    """What a room's game is called in the stored analyses."""
    return f"room:{room_id}:{number}"


def file_key(key: str, number: int) -> str:
    """What a game of an opened history file is called in the stored analyses."""
    return f"file:{key}:{number}"


def section_for(app: FastAPI, key: str, base: str, number: int, names: list[str], step: int) -> dict[str, Any]:
    """The replay page's `analysis` for game `number` at `step` (`base`: the game's analysis
    address without its query). Blocking (a database read): call it in a worker thread."""
    state = analyses_of(app).state(key)
    return analysis_context(state, url=f"{base}?game={number}&step={step}", names=names, step=step)
