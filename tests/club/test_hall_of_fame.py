"""Hall of Fame across nights (RULES.md §7.5), worked by hand."""

from __future__ import annotations

from datetime import date

import pytest

from app.club import (
    HallOfFameRow,
    NightSummary,
    hall_of_fame_by_year,
    hall_of_fame_points,
    hall_of_fame_table,
)

from .helpers import NINE


def test_points_nine_down_to_one() -> None:
    assert hall_of_fame_points(NINE) == {
        "Ann": 9, "Bo": 8, "Cy": 7, "Di": 6, "Ed": 5, "Fi": 4, "Gu": 3, "Hal": 2, "Ida": 1,
    }  # fmt: skip


def nights() -> list[NightSummary]:
    n1 = NightSummary(date(2024, 3, 2), tuple(NINE), bar_rov={"Ann": 2}, agurker={"Bo": 1})
    # Kim stands in for Ida in the second night and wins it
    second = ["Kim", "Bo", "Ann", "Cy", "Di", "Ed", "Fi", "Gu", "Hal"]
    n2 = NightSummary(date(2024, 9, 7), tuple(second), bar_rov={"Kim": 1}, agurker={"Bo": 2})
    third = ["Bo", "Ann", "Cy", "Di", "Ed", "Fi", "Gu", "Hal", "Ida"]
    n3 = NightSummary(date(2025, 1, 11), tuple(third), bar_rov={"Ann": 1})
    return [n1, n2, n3]


def test_all_time_table() -> None:
    rows = {r.player: r for r in hall_of_fame_table(nights())}
    # Ann: 9 + 7 + 8 = 24, places 1, 3, 2; Bo: 8 + 8 + 9 = 25, places 2, 2, 1
    assert rows["Bo"] == HallOfFameRow("Bo", 25, 3, 1, 3, 1.67, 0, 3)
    assert rows["Ann"] == HallOfFameRow("Ann", 24, 3, 1, 3, 2.0, 3, 0)
    assert rows["Kim"] == HallOfFameRow("Kim", 9, 1, 1, 1, 1.0, 1, 0)
    # Ida: 1 (9th) + 1 (9th) = 2 over two nights
    assert rows["Ida"] == HallOfFameRow("Ida", 2, 2, 0, 0, 9.0, 0, 0)
    order = [r.player for r in hall_of_fame_table(nights())]
    assert order[:2] == ["Bo", "Ann"]
    # Cy 7 + 6 + 7 = 20, Di 6 + 5 + 6 = 17: sorted by points
    assert order.index("Cy") < order.index("Di")


def test_tie_on_points_goes_to_more_wins() -> None:
    fill = ["Bo", "Cy", "Di", "Ed", "Fi", "Gu", "Hal"]
    a = NightSummary(date(2024, 1, 1), ("Zed", *fill[:3], "Amy", *fill[3:]))
    b = NightSummary(date(2024, 2, 1), (*fill[:4], "Amy", *fill[4:], "Zed"))
    rows = {r.player: r for r in hall_of_fame_table([a, b])}
    # Zed: 9 + 1 = 10, one win, average 5.0; Amy: 5 + 5 = 10, no win, average 5.0
    assert rows["Zed"] == HallOfFameRow("Zed", 10, 2, 1, 1, 5.0, 0, 0)
    assert rows["Amy"] == HallOfFameRow("Amy", 10, 2, 0, 0, 5.0, 0, 0)
    order = [r.player for r in hall_of_fame_table([a, b])]
    assert order.index("Zed") == order.index("Amy") - 1


def test_per_year_tables() -> None:
    by_year = hall_of_fame_by_year(nights())
    assert list(by_year) == [2024, 2025]
    y2025 = {r.player: r for r in by_year[2025]}
    assert y2025["Bo"] == HallOfFameRow("Bo", 9, 1, 1, 1, 1.0, 0, 0)
    assert "Kim" not in y2025
    y2024 = {r.player: r for r in by_year[2024]}
    assert y2024["Ann"].points == 9 + 7 and y2024["Ann"].nights == 2


def test_summary_validation() -> None:
    with pytest.raises(ValueError, match="placement of 9 different players"):
        NightSummary(date(2024, 1, 1), tuple(NINE[:8]))
    with pytest.raises(ValueError, match="Kim has bar røv on 2024-01-01 but did not play"):
        NightSummary(date(2024, 1, 1), tuple(NINE), bar_rov={"Kim": 1})


def test_shared_first_place_is_shown_as_shared() -> None:
    from app.club.hall_of_fame import HallOfFameRow, shared_ranks

    rows = [
        HallOfFameRow("Bodil", 17, 2, 1, 2, 1.5, 0, 0),
        HallOfFameRow("Egon", 17, 2, 1, 2, 1.5, 0, 0),
        HallOfFameRow("Frej", 9, 1, 1, 1, 1.0, 0, 0),
    ]
    assert shared_ranks(rows) == {"Bodil": "1=", "Egon": "1=", "Frej": "3"}
