"""Standings and the tie-break chain (RULES.md §7.4), one step at a time."""

from __future__ import annotations

import pytest

from app.club import RoundResult, StandingRow
from app.club.standings import order_rows, tally, tie_groups


def row(player: str, points: int, *counts: int) -> StandingRow:
    bar_rov, firsts, seconds, thirds, agurker = (*counts, 0, 0, 0, 0, 0)[:5]
    return StandingRow(player, points, bar_rov, firsts, seconds, thirds, agurker)


# In every case "Zed" is better: if the code fell back to name order, "Amy" would come first.
@pytest.mark.parametrize(
    ("zed", "amy", "step"),
    [
        (row("Zed", 20), row("Amy", 21), "fewest points"),
        (row("Zed", 20, 2, 5, 3, 3), row("Amy", 20, 1, 5, 3, 3), "most bar røv"),
        (row("Zed", 20, 1, 6, 2, 3), row("Amy", 20, 1, 5, 4, 2), "most 1st places"),
        (row("Zed", 20, 1, 5, 4, 2), row("Amy", 20, 1, 5, 3, 3), "most 2nd places"),
        (row("Zed", 20, 1, 5, 3, 4, 1), row("Amy", 20, 1, 5, 3, 3, 2), "most 3rd places"),
        (row("Zed", 20, 1, 5, 3, 3, 2), row("Amy", 20, 1, 5, 3, 3, 1), "most agurker"),
    ],
)
def test_each_tie_break_step(zed: StandingRow, amy: StandingRow, step: str) -> None:
    assert [r.player for r in order_rows([amy, zed])] == ["Zed", "Amy"], step
    assert [r.player for r in order_rows([zed, amy])] == ["Zed", "Amy"], step
    assert tie_groups([amy, zed]) == [], step


def test_full_tie_needs_a_playoff_and_the_playoff_orders_it() -> None:
    rows = [row("Amy", 20, 1, 5, 3, 3, 1), row("Zed", 20, 1, 5, 3, 3, 1), row("Bo", 19)]
    assert tie_groups(rows) == [["Amy", "Zed"]]
    ordered = order_rows(rows, playoffs=[("Zed", "Amy")])
    assert [r.player for r in ordered] == ["Bo", "Zed", "Amy"]
    assert tie_groups(rows, playoffs=[("Zed", "Amy")]) == []


def test_tie_groups_lists_every_group_best_first() -> None:
    rows = [row("A", 30), row("B", 30), row("C", 10), row("D", 10), row("E", 10), row("F", 5)]
    assert tie_groups(rows) == [["C", "D", "E"], ["A", "B"]]


def test_tally_counts_places_bar_rov_agurker_and_carry() -> None:
    results = [
        RoundResult(out=["A", "B"], winner="C", took_cards={"A", "B"}, agurker={"A": 1}),
        RoundResult(out=["C", "A"], winner="B", took_cards={"A", "B", "C"}, agurker={"B": 2}),
    ]
    rows = tally(["A", "B", "C"], results, carry={"B": 1, "C": 2})
    # A: 3 + 1 agurk, then 2 -> 6;  B: 1 carry + 2, then 1 + 2 agurker -> 6;
    # C: 2 carry + 0 (bar røv), then 3 -> 5
    assert rows["A"] == StandingRow("A", 6, 0, 0, 1, 1, 1)
    assert rows["B"] == StandingRow("B", 6, 0, 1, 1, 0, 2)
    assert rows["C"] == StandingRow("C", 5, 1, 1, 0, 1, 0)


def test_players_level_on_every_tie_break_share_their_place_until_a_playoff() -> None:
    from app.club.standings import StandingRow, order_rows, place_labels

    rows = order_rows([
        StandingRow("Bo", 3, 0, 1, 0, 0, 0),
        StandingRow("Ann", 3, 0, 1, 0, 0, 0),
        StandingRow("Cy", 5, 0, 0, 1, 0, 0),
        StandingRow("Di", 6, 0, 0, 0, 1, 0),
        StandingRow("Ed", 6, 0, 0, 0, 1, 0),
    ])
    assert place_labels(rows) == ["1=", "1=", "3", "4=", "4="]
    settled = order_rows(rows, [["Bo", "Ann"]])
    assert [r.player for r in settled][:2] == ["Bo", "Ann"]
    assert place_labels(settled, [["Bo", "Ann"]]) == ["1", "2", "3", "4=", "4="]
    assert place_labels(rows, first=4)[:3] == ["4=", "4=", "6"]
