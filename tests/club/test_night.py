"""A whole night by hand (RULES.md §7.1-§7.5): base rounds, playoff, finals, placement.

The scenario "by chair" is worked by hand: at every table chair 0 goes out first, chair 1
second and chair 2 wins, everyone took cards. With §7.3 movement:
- the vinder loser sits in vinder chair 0 and swaps with the mellan winner (mellan chair 2);
- the mellan loser (mellan chair 0) swaps with the taber winner (taber chair 2);
so these four alternate between a 3-point and a 1-point round, and the other five never move.
After 16 rounds (v = vinder chairs, m = mellan, t = taber at the start):
- v2: 16 wins, 16 points                      -> place 1
- v0, m2, m0, t2: 8 wins, 8 thirds, 32 points -> tied on the whole chain (places 2-5)
- v1, m1, t1: 16 seconds, 32 points           -> tied (places 6-8), fewer 1sts than above
- t0: 16 thirds, 48 points                    -> place 9
"""

from __future__ import annotations

import pytest

from app.club import Night, RoundResult

from .helpers import NINE, START, by_chair, play_round_by_chair


def base_done(seed: int = 5) -> tuple[Night, dict[str, list[str]]]:
    night = Night.new(NINE, START, seed=seed)
    start = night.tables
    for _ in range(16):
        play_round_by_chair(night)
    return night, start


def test_sixteen_base_rounds_then_playoff() -> None:
    night, s = base_done()
    v, m, t = s["vinder"], s["mellan"], s["taber"]
    assert night.phase == "playoff"
    assert night.round == 16
    assert [set(g) for g in night.playoffs] == [{v[0], m[2], m[0], t[2]}, {v[1], m[1], t[1]}]
    rows = {r.player: r for r in night.standings()}
    assert tuple(rows[v[2]])[1:] == (16, 0, 16, 0, 0, 0)
    assert tuple(rows[m[0]])[1:] == (32, 0, 8, 0, 8, 0)
    assert tuple(rows[t[1]])[1:] == (32, 0, 0, 16, 0, 0)
    assert tuple(rows[t[0]])[1:] == (48, 0, 0, 0, 16, 0)
    assert night.standings()[0].player == v[2]
    assert night.standings()[-1].player == t[0]
    # round 16 is even: the four movers sit where they sat in round 2; nobody moves after 16
    assert night.tables == {
        "vinder": [m[2], v[1], v[2]],
        "mellan": [t[2], m[1], v[0]],
        "taber": [t[0], t[1], m[0]],
    }


def test_playoff_validation() -> None:
    night, s = base_done()
    v, m, t = s["vinder"], s["mellan"], s["taber"]
    with pytest.raises(ValueError, match="the night first needs a playoff between"):
        night.record("vinder", by_chair(night.tables["vinder"]))
    with pytest.raises(ValueError, match="exactly one tied group"):
        night.record_playoff([v[0], m[2]])
    with pytest.raises(ValueError, match="exactly one tied group"):
        night.record_playoff([v[0], m[2], m[0], t[2], v[1]])
    with pytest.raises(ValueError, match=f"{v[1]} is listed twice"):
        night.record_playoff([v[1], v[1], t[1]])
    with pytest.raises(ValueError, match=f"{v[2]} is not in a pending playoff"):
        night.record_playoff([v[2], v[1]])
    assert night.phase == "playoff" and len(night.playoffs) == 2


def finals_started(seed: int = 5) -> tuple[Night, dict[str, list[str]]]:
    night, s = base_done(seed)
    v, m, t = s["vinder"], s["mellan"], s["taber"]
    night.record_playoff([t[1], m[1], v[1]])  # groups may come in any order
    assert night.phase == "playoff"
    night.record_playoff([t[2], m[0], m[2], v[0]])
    return night, s


def test_playoffs_order_the_places_and_seat_the_finals_with_carry_over() -> None:
    night, s = finals_started()
    v, m, t = s["vinder"], s["mellan"], s["taber"]
    assert night.phase == "finals" and night.round == 0
    order = [v[2], t[2], m[0], m[2], v[0], t[1], m[1], v[1], t[0]]
    assert [r.player for r in night.standings("base")] == order
    assert {k: sorted(p) for k, p in night.tables.items()} == {
        "finale": sorted(order[0:3]),
        "mellanfinale": sorted(order[3:6]),
        "taberfinale": sorted(order[6:9]),
    }
    assert night.carry_over == dict(zip(order, [0, 1, 2, 0, 1, 2, 0, 1, 2], strict=True))
    # before any final round the finals standings are the carry-over alone
    assert [(r.player, r.points) for r in night.standings()] == list(
        zip(order, [0, 1, 2, 0, 1, 2, 0, 1, 2], strict=True)
    )
    final_lots = [lot for lot in night.lots if lot.stage == "finals"]
    assert sorted((lot.kind, lot.table) for lot in final_lots) == sorted(
        (k, t) for k in ("chairs", "dealer") for t in ("finale", "mellanfinale", "taberfinale")
    )
    with pytest.raises(ValueError, match="'vinder' is not a table in the finals"):
        night.record("vinder", by_chair(s["vinder"]))


def test_finals_forhand_goes_to_previous_third_and_placement() -> None:
    night, _ = finals_started()
    chairs = night.tables
    carry = night.carry_over
    for _ in range(6):
        play_round_by_chair(night)
        if night.phase == "finals":
            # chair 0 was 3rd (first out) and has forhånd; the dealer sits before it: chair 2
            assert night.dealers == {table: c[2] for table, c in chairs.items()}
    assert night.phase == "done"
    assert night.round == 6
    assert night.tables == chairs  # chairs never change in the finals
    expected: list[str] = []
    for table in ("finale", "mellanfinale", "taberfinale"):
        c = chairs[table]
        expected += [c[2], c[1], c[0]]  # 6, 12, 18 points (+ carry 0..2 cannot reorder)
        rows = {r.player: r for r in night.standings()}
        assert rows[c[2]].points == carry[c[2]] + 6
        assert rows[c[1]].points == carry[c[1]] + 12
        assert tuple(rows[c[0]])[1:] == (carry[c[0]] + 18, 0, 0, 0, 6, 0)
    assert night.placement() == expected
    assert night.winner == expected[0]
    assert night.hall_of_fame() == dict(zip(expected, range(9, 0, -1), strict=True))
    with pytest.raises(ValueError, match="the night is over"):
        night.record("finale", by_chair(chairs["finale"]))


def test_placement_before_the_end_is_refused() -> None:
    night = Night.new(NINE, START, seed=1)
    assert night.winner is None
    with pytest.raises(ValueError, match="not finished"):
        night.placement()


def test_recording_a_table_twice_in_a_round() -> None:
    night = Night.new(NINE, START, seed=1)
    night.record("vinder", by_chair(night.tables["vinder"]))
    with pytest.raises(ValueError, match="base round 1 at the Vinderbord is already recorded"):
        night.record("vinder", by_chair(night.tables["vinder"]))
    with pytest.raises(ValueError, match="'finale' is not a table in the base"):
        night.record("finale", by_chair(night.tables["mellan"]))
    mellan = night.tables["mellan"]
    with pytest.raises(ValueError, match="Ann is not at the Mellanbord this round"):
        night.record("mellan", RoundResult(out=[mellan[0], "Ann"], winner=mellan[2]))
    assert night.pending_tables == ["mellan", "taber"]


def finale_race(seed: int = 5) -> tuple[Night, list[str]]:
    """Finale (p1 carry 0, p2 carry 1, p3 carry 2): rounds 1-3 p1 wins, p2 second;
    rounds 4-6 p2 wins, p1 second; p3 always first out. p1 9, p2 10, p3 20 points."""
    night, s = finals_started(seed)
    p1, p2, p3 = s["vinder"][2], s["taber"][2], s["mellan"][0]
    for rnd in range(6):
        winner, second = (p1, p2) if rnd < 3 else (p2, p1)
        night.record("finale", RoundResult(out=[p3, second], winner=winner,
                                           took_cards={p1, p2, p3}))  # fmt: skip
        for table in ("mellanfinale", "taberfinale"):
            night.record(table, by_chair(night.tables[table]))
        if night.phase == "finals":
            c = night.tables["finale"]
            assert night.dealers["finale"] == c[(c.index(p3) - 1) % 3]
    return night, [p1, p2, p3]


def test_finale_race_without_correction() -> None:
    night, (p1, p2, p3) = finale_race()
    assert night.placement()[:3] == [p1, p2, p3]
    assert [tuple(r)[:2] for r in night.standings()[:3]] == [(p1, 9), (p2, 10), (p3, 20)]
    assert night.winner == p1


def test_correction_changes_the_winner() -> None:
    night, (p1, p2, p3) = finale_race()
    lots_before = list(night.lots)
    fixed = RoundResult(out=[p3, p1], winner=p2, took_cards={p1, p3})  # p2 won bar røv
    entry = night.correct("finals", 6, "finale", fixed, reason="p2 never took a card")
    # p2: 1 carry + 3 x 2 + 1 + 1 + 0 = 9 = p1, and p2 has the bar røv -> p2 wins
    assert night.phase == "done"
    assert [tuple(r)[:3] for r in night.standings()[:2]] == [(p2, 9, 1), (p1, 9, 0)]
    assert night.winner == p2
    assert night.hall_of_fame()[p2] == 9 and night.hall_of_fame()[p1] == 8
    assert night.corrections == [entry]
    assert entry.before.winner == p2 and entry.before.took_cards == {p1, p2, p3}
    assert entry.after == fixed and entry.reason == "p2 never took a card"
    assert (entry.stage, entry.round_no, entry.table, entry.dropped) == ("finals", 6, "finale", ())
    assert night.lots == lots_before


def test_summary_feeds_the_hall_of_fame() -> None:
    from datetime import date

    from app.club import hall_of_fame_table

    night, (p1, _, _) = finale_race()
    summary = night.summary(date(2025, 3, 1))
    assert summary.placement == tuple(night.placement())
    assert sum(summary.bar_rov.values()) == 0  # everyone took cards in every round
    assert summary.agurker == dict.fromkeys(NINE, 0)
    top = hall_of_fame_table([summary])[0]
    assert (top.player, top.points, top.wins) == (p1, 9, 1)
