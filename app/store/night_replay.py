"""A stored night read back as the club core sees it, and written back after a change.

A night is stored as what happened (its players, start tables, seed and one row per recorded
result, see `nights` and `results`); `load` replays those rows through `app.club.Night`, so
everything shown (seating, dealers, standings, placement, Hall of Fame) comes from that replay
and a correction is one changed row. `save_state` writes the night's cached summary after every
change; `played_nights` reads those summaries for the Hall of Fame without replaying a night.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date
from typing import Any

from sqlmodel import Session

from app.club import Night, NightSummary, RoundResult
from app.club.constants import FINAL_TO_BASE
from app.store import members as member_store
from app.store import nights as night_store
from app.store import results as result_store
from app.store.db import row_id

Loaded = tuple[night_store.Night, list[result_store.NightResult], Night]
Slot = tuple[str, int, str]  # (phase, round, table) of a stored result


def replay(row: night_store.Night, results: Iterable[result_store.NightResult]) -> Night:
    """The night as the club core sees it, rebuilt from its stored rows."""
    players = [p["name"] for p in row.players]
    night = Night.new(players, row.start or None, seed=row.seed)
    for result in results:
        if result.phase == "playoff":
            night.record_playoff(result.result["order"])
        else:
            night.record(result.table, RoundResult.from_dict(result.result))
    return night


def load(session: Session, *, night_id: int) -> Loaded | None:
    """The night's row, its results in recording order and its replay; None: no such night."""
    row = night_store.get_night(session, night_id=night_id)
    if row is None:
        return None
    results = result_store.list_results(session, night_id=night_id)
    return row, results, replay(row, results)


def summary_state(night: Night) -> dict[str, Any]:
    """What lists and the Hall of Fame need without replaying the night."""
    state: dict[str, Any] = {
        "phase": night.phase,
        "stage": night.stage,
        "round": night.round,
        "leader": night.standings()[0].player if night.round or night.stage == "finals" else None,
    }
    if night.phase == "done":
        s = night.summary(date.today())
        state.update(
            placement=list(s.placement),
            bar_rov=dict(s.bar_rov),
            agurker=dict(s.agurker),
            finished_at={p: t for t, ps in night.tables.items() for p in ps},
        )
    return state


def save_state(session: Session, row: night_store.Night, night: Night) -> None:
    """Write the night's summary (its phase, status and winner) after a change."""
    state = summary_state(night)
    night_id = row_id(row)
    current = night_store.get_night(session, night_id=night_id)
    for key in ("rooms", "bot_level"):  # the online tables, the level of the bots for the absent
        if current is not None and key in current.state:
            state[key] = current.state[key]
    night_store.save_night_state(
        session, night_id=night_id, state=state, status="done" if night.phase == "done" else "open",
        winner=night.winner,
    )


def add_table_result(
    session: Session, row: night_store.Night, night: Night, *, table: str, result: RoundResult, by: str, source: str,
) -> result_store.NightResult:
    """Record one table's result in the night's current round: the club core takes it first (a
    result that does not fit raises ValueError and nothing is stored), then the row and the
    night's summary are written. Lock the night (`nights.lock_night`) before loading it."""
    phase, number = night.stage, night.current.number
    night.record(table, result)
    saved = result_store.add_result(session, night_id=row_id(row), phase=phase, round_no=number, table=table,
                                    result=result.to_dict(), recorded_by=by, source=source)
    save_state(session, row, night)
    return saved


def add_playoff(session: Session, row: night_store.Night, night: Night, *, order: list[str], count: int, by: str,
                source: str = "hand") -> None:
    """Record a playoff's order (the club core takes it first) as the night's `count + 1`-th."""
    stage = night.stage
    night.record_playoff(order)
    result_store.add_result(session, night_id=row_id(row), phase="playoff", round_no=count + 1, table=stage,
                            result={"order": order}, recorded_by=by, source=source)
    save_state(session, row, night)


def sync_rows(session: Session, row: night_store.Night, night: Night) -> list[Slot]:
    """After a correction: drop the stored rows the corrected night no longer holds (their
    slots are returned)."""
    keep: set[Slot] = set()
    playoffs: list[tuple[str, tuple[str, ...]]] = []
    for event in night.events:
        if event.kind == "record":
            keep.add((event.stage, event.round_no, event.table))
        else:
            playoffs.append((event.stage, tuple(event.order)))
    dropped: list[Slot] = []
    for result in result_store.list_results(session, night_id=row_id(row)):
        if result.phase == "playoff":
            key = (result.table, tuple(result.result.get("order", ())))
            if key in playoffs:
                playoffs.remove(key)
                continue
        elif (result.phase, result.round, result.table) in keep:
            continue
        dropped.append((result.phase, result.round, result.table))
        result_store.delete_result(session, result_id=row_id(result))
    return dropped


@dataclass
class PlayedNight:
    id: int
    on: date
    host: str
    placement: list[str]  # current member names, 1st..9th
    summary: NightSummary


def played_nights(session: Session) -> list[PlayedNight]:
    """Every finished night, oldest first, with players under their current names."""
    names = {m.id: m.name for m in member_store.list_members(session)}
    out: list[PlayedNight] = []
    for row in night_store.list_nights(session, status="done", newest_first=False):
        state = row.state
        if "placement" not in state:
            continue
        current = {p["name"]: names.get(p["member_id"], p["name"]) for p in row.players}
        placement = [current.get(p, p) for p in state["placement"]]
        summary = NightSummary(
            on=row.date,
            placement=tuple(placement),
            bar_rov={current.get(p, p): n for p, n in state.get("bar_rov", {}).items()},
            agurker={current.get(p, p): n for p, n in state.get("agurker", {}).items()},
        )
        out.append(PlayedNight(row_id(row), row.date, row.host, placement, summary))
    return out


def last_night_tables(session: Session, *, before_id: int | None = None) -> dict[int, str]:
    """Member id → base table where they finished the last finished night (RULES.md §7.1).

    A reserve's place counts for the member they stood in for; the reserve's own place does
    not count for the reserve.
    """
    last = night_store.last_done_night(session, before_id=before_id)
    if last is None or "finished_at" not in last.state:
        return {}
    finished: dict[str, str] = last.state["finished_at"]
    where: dict[int, str] = {}
    for player in last.players:
        table = finished.get(player["name"])
        if table is not None:
            where[player.get("for_id") or player["member_id"]] = FINAL_TO_BASE.get(table, table)
    return where
