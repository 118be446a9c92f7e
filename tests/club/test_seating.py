"""Lots and movement between base rounds (RULES.md §7.1, §7.3)."""

from __future__ import annotations

from collections import Counter

import pytest

from app.club import Night, RoundResult
from app.club.seating import dealer_before, draw_dealer, forhand_of, move_after_base_round

from .helpers import NINE, START


def test_movement_swaps_exactly_the_four_chairs() -> None:
    seating = {
        "vinder": ["v0", "v1", "v2"],
        "mellan": ["m0", "m1", "m2"],
        "taber": ["t0", "t1", "t2"],
    }
    results = {
        # winner-table loser (first out) v1, sitting in chair 1
        "vinder": RoundResult(out=["v1", "v0"], winner="v2"),
        # middle-table winner m0 (chair 0), middle-table loser m2 (chair 2)
        "mellan": RoundResult(out=["m2", "m1"], winner="m0"),
        # loser-table winner t1 (chair 1)
        "taber": RoundResult(out=["t0", "t2"], winner="t1"),
    }
    moved = move_after_base_round(seating, results)
    assert moved == {
        "vinder": ["v0", "m0", "v2"],  # m0 into v1's chair
        "mellan": ["v1", "m1", "t1"],  # v1 into m0's chair, t1 into m2's chair
        "taber": ["t0", "m2", "t2"],  # m2 into t1's chair
    }
    assert seating["vinder"] == ["v0", "v1", "v2"]  # input untouched


def test_movement_other_chairs_and_second_outs_stay() -> None:
    seating = {"vinder": ["a", "b", "c"], "mellan": ["d", "e", "f"], "taber": ["g", "h", "i"]}
    results = {
        "vinder": RoundResult(out=["c", "b"], winner="a"),  # loser c, chair 2
        "mellan": RoundResult(out=["e", "d"], winner="f"),  # winner f chair 2, loser e chair 1
        "taber": RoundResult(out=["h", "i"], winner="g"),  # winner g chair 0
    }
    assert move_after_base_round(seating, results) == {
        "vinder": ["a", "b", "f"],
        "mellan": ["d", "g", "c"],
        "taber": ["e", "h", "i"],
    }


def test_night_moves_players_after_a_round() -> None:
    night = Night.new(NINE, START, seed=5)
    v, m, t = night.tables["vinder"], night.tables["mellan"], night.tables["taber"]
    assert sorted(v) == ["Ann", "Bo", "Cy"] and sorted(m) == ["Di", "Ed", "Fi"]
    night.record("taber", RoundResult(out=[t[1], t[2]], winner=t[0], took_cards=set(t)))
    night.record("vinder", RoundResult(out=[v[2], v[0]], winner=v[1], took_cards=set(v)))
    assert night.round == 0
    assert night.tables["vinder"] == v  # nobody moves before the round is complete
    night.record("mellan", RoundResult(out=[m[0], m[2]], winner=m[1], took_cards=set(m)))
    assert night.round == 1
    assert night.tables == {
        "vinder": [v[0], v[1], m[1]],  # mellan winner m1 into v2's chair
        "mellan": [t[0], v[2], m[2]],  # t0 into m0's chair, v2 into m1's chair
        "taber": [m[0], t[1], t[2]],  # m0 into t0's chair
    }


def test_chairs_and_dealers_are_seeded_lots() -> None:
    a = Night.new(NINE, START, seed=11)
    b = Night.new(NINE, START, seed=11)
    assert a.tables == b.tables and a.dealers == b.dealers
    assert a.lots == b.lots
    for table, chairs in a.tables.items():
        assert a.dealers[table] in chairs
    kinds = Counter(lot.kind for lot in a.lots)
    assert kinds == {"chairs": 3, "dealer": 3}
    layouts = {tuple(tuple(c) for c in Night.new(NINE, START, seed=s).tables.values())
               for s in range(20)}  # fmt: skip
    assert len(layouts) > 1


def test_start_none_draws_three_per_table() -> None:
    night = Night.new(NINE, None, seed=3)
    seated = [p for chairs in night.tables.values() for p in chairs]
    assert sorted(seated) == sorted(NINE)
    table_lots = [lot for lot in night.lots if lot.kind == "table"]
    assert [lot.table for lot in table_lots] == ["vinder", "mellan", "taber"]
    for lot in table_lots:
        assert sorted(lot.result) == sorted(night.tables[lot.table])


def test_new_dealer_lot_every_base_round() -> None:
    night = Night.new(NINE, START, seed=2)
    for _ in range(3):
        for table, chairs in night.tables.items():
            night.record(table, RoundResult(out=chairs[:2], winner=chairs[2]))
    dealer_lots = [lot for lot in night.lots if lot.kind == "dealer"]
    assert [(lot.round_no, lot.table) for lot in dealer_lots] == [
        (r, t) for r in (1, 2, 3, 4) for t in ("vinder", "mellan", "taber")
    ]
    assert [lot for lot in night.lots if lot.kind == "chairs" and lot.round_no > 1] == []


def test_dealer_lot_is_fair() -> None:
    counts = Counter(draw_dealer(["a", "b", "c"], s, "base", 1, "vinder").result[0]
                     for s in range(3000))  # fmt: skip
    assert set(counts) == {"a", "b", "c"}
    assert all(850 < n < 1150 for n in counts.values())


def test_forhand_is_left_of_dealer() -> None:
    chairs = ["a", "b", "c"]
    assert forhand_of(chairs, "a") == "b"
    assert forhand_of(chairs, "c") == "a"
    assert dealer_before(chairs, "a") == "c"
    assert dealer_before(chairs, "b") == "a"


@pytest.mark.parametrize(
    ("players", "start", "message"),
    [
        (NINE[:8], None, "exactly 9 players, got 8"),
        ([*NINE[:8], "Ann"], None, "Ann is listed twice"),
        ([*NINE[:8], " "], None, "every player needs a name"),
        (NINE, {**START, "Ida": "finale"}, "'finale' is not a start table for Ida"),
        (NINE, {k: v for k, v in START.items() if k != "Bo"}, "Bo has no start table"),
        (NINE, {**START, "Kim": "taber"}, "Kim is not one of tonight's players"),
        (NINE, {**START, "Ida": "vinder"}, "the Vinderbord would have 4 players"),
    ],
)
def test_new_night_validation(
    players: list[str], start: dict[str, str] | None, message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        Night.new(players, start, seed=1)
