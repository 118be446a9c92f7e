"""The night's timetable (RULES.md §7.6) and how the real night keeps to it.

The plan: 15:00 meet and coffee, 15:30 base rounds 1-8, 18:00 dinner, 19:00 base rounds 9-16,
21:30 finals, 23:00 night food. Readings:
- A block's rounds share its time evenly: base rounds 1-8 end at 15:30 + n x 150/8 minutes, base
  rounds 9-16 at 19:00 + (n - 8) x 150/8, final round n at 21:30 + n x 15.
- A round is over when its last table's result is in: that moment, against the plan's end of that
  round, is how late (or early) the night is. A round still open past its planned end makes the
  night at least that late, minute by minute, before its result arrives.
- Real moments the plan can be checked against: dinner starts when base round 8 is over, the
  finals when the finals are seated (after base round 16, and the playoff if one is needed), night
  food when the finals are over.

Times are the club's wall-clock times (naive datetimes in the club's time zone): the caller turns
stored moments into them. Pure: no clock is read here.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from typing import TYPE_CHECKING

from app.club.constants import BASE_ROUNDS, FINAL_ROUNDS, Stage

if TYPE_CHECKING:
    from app.club.night import Night

#: (key, planned start): the keys the night page's programme uses.
PLAN: tuple[tuple[str, time], ...] = (
    ("meet", time(15, 0)),
    ("base1", time(15, 30)),
    ("dinner", time(18, 0)),
    ("base2", time(19, 0)),
    ("finals", time(21, 30)),
    ("food", time(23, 0)),
)
_STARTS = dict(PLAN)
HALF = BASE_ROUNDS // 2
BASE_BLOCK = timedelta(minutes=150)  # 15:30-18:00 and 19:00-21:30
FINALS_BLOCK = timedelta(minutes=90)  # 21:30-23:00
#: How far from the plan still counts as on time (minutes).
ON_TIME = 5


def planned_end(day: date, stage: Stage, number: int) -> datetime:
    """When the plan has round `number` of `stage` over (the club's wall clock)."""
    if stage == "base":
        if not 1 <= number <= BASE_ROUNDS:
            raise ValueError(f"no base round {number}")
        block, index = ("base1", number) if number <= HALF else ("base2", number - HALF)
        return datetime.combine(day, _STARTS[block]) + BASE_BLOCK * index / HALF
    if not 1 <= number <= FINAL_ROUNDS:
        raise ValueError(f"no final round {number}")
    return datetime.combine(day, _STARTS["finals"]) + FINALS_BLOCK * number / FINAL_ROUNDS


@dataclass(frozen=True)
class PlanRow:
    """One item of the programme: its key, planned start and, once known, the real start."""

    key: str
    planned: datetime
    actual: datetime | None


@dataclass(frozen=True)
class Timetable:
    rows: tuple[PlanRow, ...]
    #: Minutes behind the plan (negative: ahead); None when the night is not being played now.
    late: int | None

    @property
    def on_time(self) -> bool:
        return self.late is not None and abs(self.late) < ON_TIME


def timetable(
    day: date,
    finished: Mapping[tuple[Stage, int], datetime],
    *,
    current: tuple[Stage, int] | None,
    finals_seated: datetime | None,
    now: datetime,
) -> Timetable:
    """The plan of the night on `day` against what happened.

    `finished` maps each complete round to the moment its last result came in; `current` is the
    round being played (None once the night is over); `finals_seated` when the finals were
    seated; `now` the club's wall clock. The lateness is given only while the night is on (it
    is not over, and `now` is between the coffee and the next morning).
    """
    food = finished.get(("finals", FINAL_ROUNDS))
    actual = {"dinner": finished.get(("base", HALF)), "finals": finals_seated, "food": food}
    rows = tuple(PlanRow(key, datetime.combine(day, start), actual.get(key)) for key, start in PLAN)
    opening = datetime.combine(day, _STARTS["meet"])
    live = current is not None and opening - timedelta(hours=3) <= now <= opening + timedelta(hours=15)
    return Timetable(rows, _lateness(day, finished, current, now) if live else None)


def _lateness(
    day: date, finished: Mapping[tuple[Stage, int], datetime], current: tuple[Stage, int] | None,
    now: datetime,
) -> int:
    late = timedelta(0)
    order = sorted(finished, key=lambda sr: (sr[0] != "base", sr[1]))
    if order:
        last = order[-1]
        late = finished[last] - planned_end(day, *last)
    if current is not None:
        overdue = now - planned_end(day, *current)
        late = max(late, overdue)
    return round(late.total_seconds() / 60)


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
