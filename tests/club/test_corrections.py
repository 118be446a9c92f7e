"""Corrections by the elders (RULES.md §7.6) and the JSON round trip."""

from __future__ import annotations

import json

import pytest

from app.club import CorrectionError, Night, RoundResult

from .helpers import NINE, START, by_chair, play_round_by_chair


def test_correcting_the_last_round_reseats_the_open_round() -> None:
    night = Night.new(NINE, START, seed=7)
    s = night.tables
    v, m, t = s["vinder"], s["mellan"], s["taber"]
    play_round_by_chair(night)  # vinder loser v0 <-> mellan winner m2; m0 <-> t2
    assert night.tables["vinder"] == [m[2], v[1], v[2]]
    # the elders find that v1 went out first at the winner table, not v0
    night.correct("base", 1, "vinder", RoundResult(out=[v[1], v[0]], winner=v[2]))
    assert night.round == 1
    assert night.tables == {
        "vinder": [v[0], m[2], v[2]],  # m2 into v1's chair
        "mellan": [t[2], m[1], v[1]],  # v1 into m2's chair; t2 into m0's chair
        "taber": [t[0], t[1], m[0]],
    }
    rows = {r.player: r for r in night.standings()}
    assert (rows[v[0]].points, rows[v[1]].points) == (2, 3)
    assert len(night.corrections) == 1


def test_correction_that_breaks_a_later_round_is_refused() -> None:
    night = Night.new(NINE, START, seed=7)
    v = night.tables["vinder"]
    play_round_by_chair(night)
    play_round_by_chair(night)
    night.record("mellan", by_chair(night.tables["mellan"]))
    before = (night.to_json(), night.tables)
    wrong = RoundResult(out=[v[1], v[0]], winner=v[2])
    with pytest.raises(CorrectionError, match="the result recorded later for base round 2 at the Vinderbord no longer fits"):
        night.correct("base", 1, "vinder", wrong)
    assert (night.to_json(), night.tables) == before  # nothing changed
    entry = night.correct("base", 1, "vinder", wrong, drop_later=True)
    assert night.round == 1 and night.pending_tables == ["vinder", "mellan", "taber"]
    assert entry.dropped == (
        "base round 2 at the Vinderbord",
        "base round 2 at the Mellanbord",
        "base round 2 at the Taberbord",
        "base round 3 at the Mellanbord",
    )


def test_correction_that_keeps_the_seating_recomputes_standings_only() -> None:
    night = Night.new(NINE, START, seed=7)
    v = night.tables["vinder"]
    for _ in range(3):
        play_round_by_chair(night)
    tables, lots = night.tables, list(night.lots)
    night.correct(
        "base", 1, "vinder", RoundResult(out=[v[0], v[1]], winner=v[2], agurker={v[1]: 1})
    )
    assert night.tables == tables and night.lots == lots and night.round == 3
    rows = {r.player: r for r in night.standings()}
    assert rows[v[1]].agurker == 1
    assert rows[v[1]].points == 2 * 3 + 1  # v1 stays second out every round, + 1 agurk


def test_correction_that_ends_a_tie_drops_its_playoff() -> None:
    night = Night.new(NINE, START, seed=5)
    s = night.tables
    v, m, t = s["vinder"], s["mellan"], s["taber"]
    for _ in range(16):
        play_round_by_chair(night)
    night.record_playoff([t[1], m[1], v[1]])
    # round 16: v1 sits in vinder chair 1 (second out); give v1 an agurk: 33 points
    vinder16 = night.tables["vinder"]
    assert vinder16[1] == v[1]
    entry = night.correct(
        "base", 16, "vinder",
        RoundResult(out=vinder16[:2], winner=vinder16[2], took_cards=set(vinder16),
                    agurker={v[1]: 1}),
    )  # fmt: skip
    assert entry.dropped == (f"the playoff after the base rounds ({t[1]}, {m[1]}, {v[1]})",)
    assert night.phase == "playoff"
    assert [set(g) for g in night.playoffs] == [{v[0], m[2], m[0], t[2]}, {m[1], t[1]}]


def test_correction_errors() -> None:
    night = Night.new(NINE, START, seed=7)
    v = night.tables["vinder"]
    play_round_by_chair(night)
    with pytest.raises(ValueError, match="base round 5 at vinder is not recorded yet"):
        night.correct("base", 5, "vinder", by_chair(v))
    with pytest.raises(ValueError, match=r"does not fit \(Kim is not at the Vinderbord this round\)"):
        night.correct("base", 1, "vinder", RoundResult(out=[v[0], "Kim"], winner=v[2]))
    with pytest.raises(ValueError, match="phase must be"):
        night.correct("playoff", 1, "vinder", by_chair(v))  # type: ignore[arg-type]
    assert night.corrections == []


def test_json_round_trip_mid_night() -> None:
    night = Night.new(NINE, None, seed=21)
    for _ in range(4):
        play_round_by_chair(night)
    v = night.history("base")[0].seating["vinder"]
    night.correct("base", 1, "vinder", RoundResult(out=[v[0], v[1]], winner=v[2]),
                  reason="bar røv")  # fmt: skip
    night.record("taber", by_chair(night.tables["taber"]))
    text = night.to_json()
    json.loads(text)
    copy = Night.from_json(text)
    assert copy.to_json() == text
    assert copy.tables == night.tables and copy.dealers == night.dealers
    assert copy.standings() == night.standings()
    assert copy.lots == night.lots and copy.corrections == night.corrections
    assert (copy.phase, copy.round, copy.pending_tables) == ("base", 4, ["vinder", "mellan"])


def test_json_round_trip_finished_night() -> None:
    night = Night.new(NINE, START, seed=5)
    for _ in range(16):
        play_round_by_chair(night)
    while night.phase == "playoff":
        night.record_playoff(night.playoffs[0])
    for _ in range(6):
        play_round_by_chair(night)
    copy = Night.from_json(night.to_json())
    assert copy.phase == "done"
    assert copy.placement() == night.placement()


def test_from_json_refuses_other_data() -> None:
    with pytest.raises(ValueError, match="not a saved Gurka Night"):
        Night.from_json('{"format": "chess"}')


def test_correcting_a_playoff_reseats_the_finals() -> None:
    night = Night.new(NINE, START, seed=5)
    s = night.tables
    v, m, t = s["vinder"], s["mellan"], s["taber"]
    for _ in range(16):
        play_round_by_chair(night)
    night.record_playoff([t[1], m[1], v[1]])
    night.record_playoff([t[2], m[0], m[2], v[0]])
    assert sorted(night.tables["finale"]) == sorted([v[2], t[2], m[0]])
    entry = night.correct_playoff("base", [v[0], m[2], m[0], t[2]], reason="misheard")
    assert (entry.before, entry.after) == ((t[2], m[0], m[2], v[0]), (v[0], m[2], m[0], t[2]))
    assert night.phase == "finals"
    assert sorted(night.tables["finale"]) == sorted([v[2], v[0], m[2]])
    assert sorted(night.tables["mellanfinale"]) == sorted([m[0], t[2], t[1]])
    assert (night.carry_over[v[0]], night.carry_over[m[0]], night.carry_over[t[2]]) == (1, 0, 1)
    copy = Night.from_json(night.to_json())
    assert copy.corrections == night.corrections and copy.tables == night.tables
    # once a final round is recorded, reseating the finals would invalidate it
    night.record("finale", by_chair(night.tables["finale"]))
    with pytest.raises(CorrectionError, match="the result recorded later for final round 1 at the Finalevinderbord no longer fits"):
        night.correct_playoff("base", [t[2], m[0], m[2], v[0]])
    with pytest.raises(ValueError, match="no base playoff between"):
        night.correct_playoff("base", [v[0], m[2]])
