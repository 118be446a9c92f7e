"""The night's timetable against the clock (app/club/timetable.py)."""

from __future__ import annotations

from datetime import date, datetime, timedelta

import pytest

from app.club.timetable import planned_end, timetable

DAY = date(2026, 3, 7)


def at(hh: int, mm: int, day: date = DAY) -> datetime:
    return datetime(day.year, day.month, day.day, hh, mm)


def test_the_plan_shares_each_block_evenly_between_its_rounds() -> None:
    assert planned_end(DAY, "base", 1) == at(15, 30) + timedelta(minutes=18.75)
    assert planned_end(DAY, "base", 8) == at(18, 0)  # dinner
    assert planned_end(DAY, "base", 9) == at(19, 0) + timedelta(minutes=18.75)
    assert planned_end(DAY, "base", 16) == at(21, 30)  # the finals
    assert planned_end(DAY, "finals", 1) == at(21, 45)
    assert planned_end(DAY, "finals", 6) == at(23, 0)  # night food
    with pytest.raises(ValueError):
        planned_end(DAY, "base", 17)
    with pytest.raises(ValueError):
        planned_end(DAY, "finals", 0)


def test_lateness_is_the_last_complete_round_against_its_planned_end() -> None:
    # base round 8 ends at 18:20 instead of 18:00; round 9 is being played at 18:50
    finished = {("base", n): planned_end(DAY, "base", n) for n in range(1, 8)}
    finished[("base", 8)] = at(18, 20)
    plan = timetable(DAY, finished, current=("base", 9), finals_seated=None, now=at(18, 50))
    assert plan.late == 20 and not plan.on_time
    dinner = next(r for r in plan.rows if r.key == "dinner")
    assert (dinner.planned, dinner.actual) == (at(18, 0), at(18, 20))
    assert [r.key for r in plan.rows] == ["meet", "base1", "dinner", "base2", "finals", "food"]


def test_a_round_overdue_makes_the_night_later_minute_by_minute() -> None:
    finished = {("base", 1): at(15, 49)}  # on time
    plan = timetable(DAY, finished, current=("base", 2), finals_seated=None, now=at(16, 30))
    # round 2 was planned to end at 16:07:30; at 16:30 it is still open
    assert plan.late == 22
    calm = timetable(DAY, finished, current=("base", 2), finals_seated=None, now=at(16, 0))
    assert calm.late == 0 and calm.on_time


def test_ahead_of_the_plan_is_negative() -> None:
    finished = {("base", 1): at(15, 35)}
    plan = timetable(DAY, finished, current=("base", 2), finals_seated=None, now=at(15, 36))
    assert plan.late == -14


def test_the_finals_and_night_food_take_their_real_start_and_no_lateness_once_over() -> None:
    finished = {("base", n): planned_end(DAY, "base", n) for n in range(1, 17)}
    finished.update({("finals", n): planned_end(DAY, "finals", n) for n in range(1, 7)})
    finished[("finals", 6)] = at(23, 40)
    plan = timetable(DAY, finished, current=None, finals_seated=at(21, 50), now=at(23, 50))
    actual = {r.key: r.actual for r in plan.rows}
    assert actual["finals"] == at(21, 50) and actual["food"] == at(23, 40)
    assert plan.late is None and not plan.on_time  # the night is over: nothing to be late for


def test_no_lateness_on_another_day() -> None:
    plan = timetable(DAY, {}, current=("base", 1), finals_seated=None, now=at(16, 0, DAY + timedelta(days=3)))
    assert plan.late is None
    past_midnight = timetable(DAY, {("base", 16): at(23, 30)}, current=("finals", 1), finals_seated=None,
                              now=at(0, 30, DAY + timedelta(days=1)))
    assert past_midnight.late == 165  # the finals' first round was planned to end at 21:45
