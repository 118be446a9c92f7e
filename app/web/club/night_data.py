"""Glue between the club store and the pure club core (`app.club`), for the club pages.

A stored night is replayed through `app.club.Night` from its players, start tables, seed and
recorded rows. Everything shown (seating, dealers, standings, placement, Hall of Fame) comes
from that replay, so a correction is one changed row and everything recomputes.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any

from sqlmodel import Session

from app.club import BASE_TABLES, FINAL_TABLES, DatePoll, Night, NightSummary, RoundResult
from app.club.constants import BASE_ROUNDS, FINAL_ROUNDS, FINAL_TO_BASE, TABLE_NAMES
from app.club.hall_of_fame import HallOfFameRow, hall_of_fame_table
from app.i18n import N_, _
from app.i18n.jinja import day
from app.store import date_polls as poll_store
from app.store import members as member_store
from app.store import nights as night_store
from app.store import results as result_store

log = logging.getLogger("gurka.club")

TABLE_TITLE = TABLE_NAMES  # the tables' own names: what pages show, never their keys
TABLE_NOTE = {
    "vinder": N_("winner table"),
    "mellan": N_("middle table"),
    "taber": N_("loser table"),
    "finale": N_("final, places 1–3"),
    "mellanfinale": N_("middle final, places 4–6"),
    "taberfinale": N_("loser final, places 7–9"),
}
TABLE_SUIT = {
    "vinder": "♥", "mellan": "♦", "taber": "♣",
    "finale": "♠", "mellanfinale": "♦", "taberfinale": "♣",
}  # fmt: skip

PROGRAMME = [
    ("15:00", N_("Meet and coffee"), "meet"),
    ("15:30", N_("Base rounds 1–8"), "base1"),
    ("18:00", N_("Dinner"), "dinner"),
    ("19:00", N_("Base rounds 9–16"), "base2"),
    ("21:30", N_("Finals"), "finals"),
    ("23:00", N_("Night food"), "food"),
]


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


def load(session: Session, *, night_id: int) -> tuple[night_store.Night, list[result_store.NightResult], Night] | None:
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
    state = summary_state(night)
    current = night_store.get_night(session, night_id=row.id)  # type: ignore[arg-type]
    for key in ("rooms", "bot_level"):  # the online tables, the level of the bots for the absent
        if current is not None and key in current.state:
            state[key] = current.state[key]
    night_store.save_night_state(
        session,
        night_id=row.id,  # type: ignore[arg-type]
        state=state,
        status="done" if night.phase == "done" else "open",
        winner=night.winner,
    )


def record_table_result(
    session: Session, row: night_store.Night, night: Night, *, table: str, result: RoundResult, by: str, source: str,
) -> result_store.NightResult:
    """Record one table's result in the night's current round: the one way a result gets in,
    typed by an elder on the night page or sent from the table's phone. The club core takes it
    first (a result that does not fit raises ValueError and nothing is stored), then the row and
    the night's summary are written. Lock the night (`night_store.lock_night`) before loading it."""
    phase, number = night.stage, night.current.number
    night.record(table, result)
    saved = result_store.add_result(session, night_id=row.id, phase=phase, round_no=number,  # type: ignore[arg-type]
                             table=table, result=result.to_dict(), recorded_by=by, source=source)
    save_state(session, row, night)
    return saved


def sync_rows(session: Session, row: night_store.Night, night: Night) -> list[str]:
    """After a correction: drop stored rows the corrected night no longer holds."""
    keep: set[tuple[str, int, str]] = set()
    playoffs: list[tuple[str, tuple[str, ...]]] = []
    for event in night.events:
        if event.kind == "record":
            keep.add((event.stage, event.round_no, event.table))
        else:
            playoffs.append((event.stage, tuple(event.order)))
    dropped = []
    for result in result_store.list_results(session, night_id=row.id):  # type: ignore[arg-type]
        if result.phase == "playoff":
            key = (result.table, tuple(result.result.get("order", ())))
            if key in playoffs:
                playoffs.remove(key)
                continue
        elif (result.phase, result.round, result.table) in keep:
            continue
        dropped.append(describe_slot(result.phase, result.round, result.table))
        result_store.delete_result(session, result_id=result.id)  # type: ignore[arg-type]
    return dropped


def describe_slot(phase: str, round_no: int, table: str) -> str:
    """A recorded slot in words, in the reader's language ("base round 3 at the Vinderbord")."""
    title = TABLE_TITLE.get(table, table)
    if phase == "playoff":
        return _("the playoff after the base rounds") if table == "base" else _("the playoff after the finals")
    if phase == "base":
        return _("base round %(number)s at the %(table)s", number=round_no, table=title)
    return _("final round %(number)s at the %(table)s", number=round_no, table=title)


def result_words(data: dict[str, Any]) -> str:
    """A recorded result in a plain sentence, in the reader's language."""
    result = RoundResult.from_dict(data)
    names = {"winner": result.winner, "second": result.second_out, "first": result.first_out}
    if result.bar_rov:
        said = _("%(winner)s won bar røv, %(second)s went out second, %(first)s first", **names)
    else:
        said = _("%(winner)s won, %(second)s went out second, %(first)s first", **names)
    agurker = ", ".join(f"{p} ×{n}" for p, n in result.agurker.items() if n)
    return _("%(result)s; agurker: %(agurker)s", result=said, agurker=agurker) if agurker else said


# ------------------------------------------------------------------ where players start


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
        if table is None:
            continue
        owner = player.get("for_id") or player["member_id"]
        where[owner] = FINAL_TO_BASE.get(table, table)
    return where


# ------------------------------------------------------------------ the date poll


def poll_view(poll: poll_store.DatePoll, votes: list[poll_store.DateVote] | None, members: list[member_store.Member],
              today: date) -> dict[str, Any]:
    names = {m.id: m.name for m in members}
    core = DatePoll(
        night_date=poll.option_a - timedelta(days=1),  # not used past construction
        proposer=poll.proposed_by,
        members=tuple(sorted({*names.values(), poll.proposed_by})),
        proposed_on=poll.answer_by - timedelta(days=7),
        dates=(poll.option_a, poll.option_b),
    )
    answers: dict[str, str] = {}
    entered: dict[str, str] = {}  # member → the elder who answered for them
    late: list[str] = []
    for vote in votes or []:
        name = names.get(vote.member_id)
        if name is None or name == poll.proposed_by:
            continue
        answers[name] = vote.choice
        if vote.entered_by:
            entered[name] = vote.entered_by
        if vote.late:
            late.append(name)  # recorded and shown, but the date was settled without it
            if vote.choice in ("a", "b"):
                core.late_answers[name] = poll.option_a if vote.choice == "a" else poll.option_b
        elif vote.choice in ("a", "b"):
            core.answers[name] = poll.option_a if vote.choice == "a" else poll.option_b
    # "neither" is an answer too (the core counts only answers for one of the two dates)
    missing = [m for m in core.voters if m not in answers]
    closed = poll.chosen is not None or today > core.deadline or not missing
    chosen = poll.chosen or (core.chosen if closed else None)
    tally = core.votes()
    return {
        "poll": poll,
        "dates": [("a", poll.option_a, tally[poll.option_a]), ("b", poll.option_b, tally[poll.option_b])],
        "answers": answers,
        "entered": entered,
        "missing": missing,
        "closed": closed,
        "chosen": chosen,
        "leading": core.chosen,
        "deadline": core.deadline,
        "late": late,
        "late_now": core.is_late(today),
        "voters": [m for m in members if m.name != poll.proposed_by],
    }


# ------------------------------------------------------------------ Hall of Fame


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
        out.append(PlayedNight(row.id, row.date, row.host, placement, summary))  # type: ignore[arg-type]
    return out


SORTS: dict[str, tuple[str, bool]] = {
    # key: (HallOfFameRow field, biggest first)
    "points": ("points", True),
    "nights": ("nights", True),
    "wins": ("wins", True),
    "podiums": ("podiums", True),
    "average": ("average_place", False),
    "bar_rov": ("bar_rov", True),
    "agurker": ("agurker", True),
    "name": ("player", False),
}


def sorted_table(rows: list[HallOfFameRow], sort: str) -> list[HallOfFameRow]:
    """The Hall of Fame rows by `sort` (ties keep the Hall of Fame order)."""
    field, biggest_first = SORTS.get(sort, SORTS["points"])
    if field == "player":
        return sorted(rows, key=lambda r: r.player.lower())
    return sorted(rows, key=lambda r: getattr(r, field), reverse=biggest_first)


def table_for(nights: list[PlayedNight], year: int | None) -> list[HallOfFameRow]:
    return hall_of_fame_table([n.summary for n in nights], year)


# ------------------------------------------------------------------ the chart


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


# ------------------------------------------------------------------ where the night stands


def programme_now(night: Night) -> str:
    """Which programme item the night is at, by its progress (not by the clock)."""
    if night.phase == "done":
        return "food"
    if night.stage == "finals":
        return "finals"
    if night.phase == "playoff":
        return "finals"
    if night.round == 0:
        return "meet"
    if night.round < 8:
        return "base1"
    if night.round == 8:
        return "dinner"
    return "base2"


def round_label(night: Night) -> str:
    if night.phase == "done":
        return _("The night is over")
    if night.phase == "playoff":
        return _("Playoff after the base rounds") if night.stage == "base" else _("Playoff after the finals")
    if night.stage == "base":
        return _("Base round %(number)s of %(total)s", number=night.current.number, total=BASE_ROUNDS)
    return _("Final round %(number)s of %(total)s", number=night.current.number, total=FINAL_ROUNDS)


def tables_view(night: Night) -> list[dict[str, Any]]:
    """The current round's tables, chairs clockwise, with dealer and forhånd marked."""
    rnd = night.current
    out = []
    for table, chairs in rnd.seating.items():
        dealer = rnd.dealers.get(table)
        forhand = chairs[(chairs.index(dealer) + 1) % len(chairs)] if dealer in chairs else None
        out.append(
            {
                "key": table,
                "title": TABLE_TITLE[table],
                "note": TABLE_NOTE[table],
                "suit": TABLE_SUIT[table],
                "chairs": list(chairs),
                "dealer": dealer,
                "forhand": forhand,
                "done": table in rnd.results,
                "result": rnd.results.get(table),
            }
        )
    return out


def stage_tables(stage: str) -> tuple[str, ...]:
    return BASE_TABLES if stage == "base" else FINAL_TABLES
