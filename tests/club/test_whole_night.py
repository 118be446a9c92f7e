"""Whole nights driven round by round with random valid results (seeded).

The checks are independent re-derivations of RULES.md §7 from the recorded history, not
copies of the code's output.
"""

from __future__ import annotations

import random
from itertools import pairwise

import pytest

from app.club import Night, RoundResult
from app.club.constants import CARRY_OVER

from .helpers import NINE


def random_result(rng: random.Random, chairs: list[str], plain: bool) -> RoundResult:
    """Plain results (no bar røv, no agurk) make ties on the whole chain, hence playoffs."""
    order = list(chairs)
    rng.shuffle(order)
    took = set(order[:2]) if rng.random() < 0.25 and not plain else set(order)
    agurker = {} if plain else {p: rng.choice([0, 0, 0, 1, 2]) for p in order}
    return RoundResult(out=order[:2], winner=order[2], took_cards=took, agurker=agurker)


def points(result: RoundResult, player: str) -> int:
    if player == result.out[0]:
        base = 3
    elif player == result.out[1]:
        base = 2
    else:
        base = 0 if player not in result.took_cards else 1
    return base + result.agurker.get(player, 0)


def play(seed: int, plain: bool = False) -> Night:
    rng = random.Random(seed)
    night = Night.new(NINE, None, seed=seed)
    while night.phase != "done":
        if night.phase == "playoff":
            group = list(rng.choice(night.playoffs))
            rng.shuffle(group)
            night.record_playoff(group)
            continue
        tables = list(night.tables.items())
        rng.shuffle(tables)  # record order across tables is free
        for table, chairs in tables:
            night.record(table, random_result(rng, chairs, plain))
    return night


@pytest.mark.parametrize(("seed", "plain"), [(s, s % 2 == 0) for s in range(16)])
def test_random_night_reaches_a_valid_placement(seed: int, plain: bool) -> None:
    night = play(seed, plain)
    base = night.history("base")
    finals = night.history("finals")
    assert len(base) == 16 and len(finals) == 6
    assert all(r.complete for r in base + finals)

    # movement (§7.3) between every pair of base rounds
    for before, after in pairwise(base):
        prev = before.results
        v_loser, m_winner = prev["vinder"].out[0], prev["mellan"].winner
        m_loser, t_winner = prev["mellan"].out[0], prev["taber"].winner
        swap = {v_loser: m_winner, m_winner: v_loser, m_loser: t_winner, t_winner: m_loser}
        for table in ("vinder", "mellan", "taber"):
            expected = tuple(swap.get(p, p) for p in before.seating[table])
            assert after.seating[table] == expected
        assert sorted(p for c in after.seating.values() for p in c) == sorted(NINE)

    # base points, independently summed
    base_points = {p: 0 for p in NINE}
    for rnd in base:
        for res in rnd.results.values():
            for p in res.players:
                base_points[p] += points(res, p)
    base_order = [r.player for r in night.standings("base")]
    assert [base_points[p] for p in base_order] == sorted(base_points.values())
    assert {r.player: r.points for r in night.standings("base")} == base_points
    for event in night.events:
        if event.kind == "playoff":  # the playoff's order is the standings' order
            assert sorted(event.order, key=base_order.index) == list(event.order)
            assert len({base_points[p] for p in event.order}) == 1

    # finals seating and carry-over (§7.4)
    seating = finals[0].seating
    for i, table in enumerate(("finale", "mellanfinale", "taberfinale")):
        assert sorted(seating[table]) == sorted(base_order[3 * i : 3 * i + 3])
    assert night.carry_over == dict(zip(base_order, CARRY_OVER, strict=True))

    # forhånd to the previous round's first out (§7.4)
    for before, after in pairwise(finals):
        for table, chairs in after.seating.items():
            forhand = chairs[(chairs.index(after.dealers[table]) + 1) % 3]
            assert forhand == before.results[table].out[0]

    # final placement: per table by carry + final points, never crossing tables
    placement = night.placement()
    assert sorted(placement) == sorted(NINE)
    final_points = dict(night.carry_over)
    for rnd in finals:
        for res in rnd.results.values():
            for p in res.players:
                final_points[p] += points(res, p)
    for i, table in enumerate(("finale", "mellanfinale", "taberfinale")):
        group = placement[3 * i : 3 * i + 3]
        assert sorted(group) == sorted(seating[table])
        assert [final_points[p] for p in group] == sorted(final_points[p] for p in group)
    assert night.winner == placement[0]
    assert sorted(night.hall_of_fame().values()) == list(range(1, 10))
    assert night.hall_of_fame()[placement[0]] == 9


def test_random_nights_are_deterministic() -> None:
    assert play(3).to_json() == play(3).to_json()


def test_plain_random_nights_do_reach_playoffs() -> None:
    playoffs = [e for s in range(0, 16, 2) for e in play(s, plain=True).events
                if e.kind == "playoff"]  # fmt: skip
    assert playoffs
    assert all(e.stage == "base" for e in playoffs)  # a final-table tie is impossible (§7.4)
