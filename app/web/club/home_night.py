"""What a night shows on its tables' phones and on the board: the tables of the round, the moves
after a complete round and the next first dealers, the timetable against the clock, and the
standings, finals and placement exactly as the night page has them (the same `app.club.Night`,
replayed from the same rows)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any
from zoneinfo import ZoneInfo

from fastapi import Request

from app.club import BASE_TABLES, Night
from app.club.constants import Stage
from app.club.night_records import RoundRecord
from app.club.seating import forhand_of
from app.club.timetable import ON_TIME, programme_now, timetable
from app.i18n import N_, _, ngettext
from app.store import nights as night_store
from app.store import results as result_store

PLAYING = ("base", "finals")

PROGRAMME = [
    ("15:00", N_("Meet and coffee"), "meet"),
    ("15:30", N_("Base rounds 1–8"), "base1"),
    ("18:00", N_("Dinner"), "dinner"),
    ("19:00", N_("Base rounds 9–16"), "base2"),
    ("21:30", N_("Finals"), "finals"),
    ("23:00", N_("Night food"), "food"),
]


@dataclass(frozen=True)
class Move:
    """One player changing tables after a base round (RULES.md §7.3)."""

    player: str
    come_from: str
    go_to: str
    chair: int  # 1-based, at the new table


def last_moves(night: Night) -> tuple[int, list[Move]]:
    """(the base round just completed, who moved after it) while the next base round is being
    played; (0, []) otherwise."""
    if night.phase != "base" or night.current.number < 2:
        return 0, []
    rounds = night.history("base")
    before, now = rounds[-2], rounds[-1]
    where_before = {p: t for t, ps in before.seating.items() for p in ps}
    moves = [
        Move(p, where_before[p], table, i + 1)
        for table, chairs in now.seating.items() for i, p in enumerate(chairs)
        if where_before[p] != table
    ]
    order = {t: i for i, t in enumerate(BASE_TABLES)}
    return before.number, sorted(moves, key=lambda m: (order[m.come_from], order[m.go_to]))


def dealer_note(night: Night, table: str) -> str:
    """How the round's first dealer at `table` was chosen, in words."""
    rnd = night.current
    dealer = rnd.dealers.get(table)
    if dealer is None:
        return ""
    if rnd.stage == "finals" and rnd.number > 1:
        before = night.history("finals")[-2].results[table]
        return _("%(dealer)s deals first: %(player)s went out first last round and leads (forhånd).",
                 dealer=dealer, player=before.first_out)
    return _("%(dealer)s deals first (drawn by lot).", dealer=dealer)


def chairs_of(rnd: RoundRecord, table: str) -> list[dict[str, Any]]:
    chairs = list(rnd.seating[table])
    dealer = rnd.dealers.get(table)
    forhand = forhand_of(chairs, dealer) if dealer in chairs else None
    return [{"name": p, "dealer": p == dealer, "forhand": p == forhand} for p in chairs]


# ------------------------------------------------------------------ the timetable


def club_zone(request: Request) -> ZoneInfo:
    return ZoneInfo(request.app.state.settings.club_time_zone)


def _utc(at: datetime) -> datetime:
    return at if at.tzinfo is not None else at.replace(tzinfo=UTC)  # SQLite keeps no zone


def finish_times(results: list[result_store.NightResult], zone: ZoneInfo) -> dict[tuple[Stage, int], datetime]:
    """Each complete round and the moment (the club's wall clock) its last table came in."""
    by_round: dict[tuple[Stage, int], list[datetime]] = {}
    for r in results:
        if r.phase == "base":
            by_round.setdefault(("base", r.round), []).append(_utc(r.at))
        elif r.phase == "finals":
            by_round.setdefault(("finals", r.round), []).append(_utc(r.at))
    return {k: max(v).astimezone(zone).replace(tzinfo=None) for k, v in by_round.items() if len(v) == 3}


def finals_seated_at(results: list[result_store.NightResult], night: Night, zone: ZoneInfo) -> datetime | None:
    """When the finals were seated: the last result before them (base round 16 or the playoff)."""
    if night.stage != "finals":
        return None
    before = [_utc(r.at) for r in results if r.phase == "base" or (r.phase == "playoff" and r.table == "base")]
    return max(before).astimezone(zone).replace(tzinfo=None) if before else None


def timetable_view(request: Request, row: night_store.Night, results: list[result_store.NightResult], night: Night,
                   *, now: datetime | None = None) -> dict[str, Any]:
    """The programme with its planned and real times, where the night is, and how late."""
    zone = club_zone(request)
    clock = (now or datetime.now(UTC)).astimezone(zone).replace(tzinfo=None)
    current: tuple[Stage, int] | None
    if night.phase == "done":
        current = None
    elif night.phase == "playoff" and night.stage == "base":
        current = ("finals", 1)  # the playoff holds up the finals
    else:
        current = (night.stage, night.current.number)
    plan = timetable(row.date, finish_times(results, zone), current=current,
                     finals_seated=finals_seated_at(results, night, zone), now=clock)
    labels = {key: label for _time, label, key in PROGRAMME}
    now_key = programme_now(night)
    keys = [r.key for r in plan.rows]
    rows = [{"key": r.key, "label": labels[r.key], "planned": r.planned.strftime("%H:%M"),
             "actual": r.actual.strftime("%H:%M") if r.actual else None,
             "state": "now" if r.key == now_key else "past" if keys.index(r.key) < keys.index(now_key) else "next"}
            for r in plan.rows]
    return {"rows": rows, "late": plan.late, "late_text": lateness_text(plan.late), "on_time": plan.on_time,
            "clock": clock.strftime("%H:%M")}


def lateness_text(late: int | None) -> str:
    """"20 minutes behind the plan", "1 h 05 min ahead of the plan", "on time"."""
    if late is None:
        return ""
    if abs(late) < ON_TIME:
        return _("on time")
    minutes = abs(late)
    if minutes >= 60:
        # Translators: a duration of hours and minutes, e.g. "1 h 05 min"
        span = _("%(hours)d h %(minutes)02d min", hours=minutes // 60, minutes=minutes % 60)
        return _("%(span)s behind the plan", span=span) if late > 0 else _("%(span)s ahead of the plan", span=span)
    if late > 0:
        return ngettext("%(num)d minute behind the plan", "%(num)d minutes behind the plan", minutes)
    return ngettext("%(num)d minute ahead of the plan", "%(num)d minutes ahead of the plan", minutes)


# ------------------------------------------------------------------ what both pages show


def standings_view(night: Night) -> dict[str, Any]:
    """The standings as the night page has them (same rows, same places, same carry-over)."""
    stage = night.stage
    return {"standings": night.standings(stage), "places": night.place_labels(stage), "stage": stage,
            "carry": night.carry_over}


def finals_view(night: Night) -> dict[str, Any]:
    done = night.phase == "done"
    return {"placement": night.placement() if done else [], "hof_points": night.hall_of_fame() if done else {}}

