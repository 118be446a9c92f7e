"""The duplicate comparison of a scripted round, against one worked out by hand."""

from __future__ import annotations

import pytest

from app.club.duplicate import HandFate, Play, TableDeal, compare_round, matchpoints, score_round

H0, H1, H2 = ("2C", "3C"), ("4C", "5C"), ("6C", "7C")
K0, K1, K2 = ("8C",), ("9C",), ("TC",)


def fate(player: str, hand: tuple[str, ...], points: int = 0, **kw: object) -> HandFate:
    return HandFate(player, hand, penalty=("AS",) if points else (), points=points, **kw)  # type: ignore[arg-type]


ROUND = {
    "vinder": [
        TableDeal("vinder", 1, (fate("Ann", H0), fate("Bo", H1, 5), fate("Cy", H2)),
                  (Play("Ann", ("7D",)), Play("Bo", ("AS",)), Play("Cy", ("2D",)))),
        TableDeal("vinder", 2, (fate("Ann", K0), fate("Bo", K1), fate("Cy", K2, 2))),
        TableDeal("vinder", 3, (fate("Ann", ("JC",)), fate("Bo", ("QC",)), fate("Cy", ("KC",)))),
    ],
    "mellan": [
        TableDeal("mellan", 1, (fate("Di", H0, 3), fate("Ed", H1), fate("Fi", H2))),
        TableDeal("mellan", 2, (fate("Di", K0), fate("Ed", K1, 4), fate("Fi", K2))),
    ],
    "taber": [
        TableDeal("taber", 1, (fate("Gu", H0), fate("Ha", H1), fate("Ib", H2, went_out=True))),
        TableDeal("taber", 2, (fate("Gu", K0, 1), fate("Ha", K1))),  # Ib is out: two hands dealt
    ],
}


def test_the_deals_line_up_by_hand_place_and_a_short_table_is_marked() -> None:
    deals = compare_round(ROUND)
    assert [d.deal_no for d in deals] == [1, 2, 3]
    first, second, third = deals
    assert [r.at["mellan"].player for r in first.rows if r.at["mellan"]] == ["Di", "Ed", "Fi"]
    assert [t for t, d in second.tables.items() if d is not None and d.short] == ["taber"]
    assert second.rows[2].at == {"vinder": ROUND["vinder"][1].hands[2], "mellan": ROUND["mellan"][1].hands[2],
                                 "taber": None}
    assert third.tables["mellan"] is None and third.tables["taber"] is None
    assert first.tables["vinder"].deciding_trick[1] == Play("Bo", ("AS",))  # type: ignore[union-attr]


def test_matchpoints_of_one_hand_worked_by_hand() -> None:
    # hand 1 of deal 1: Ann 0 points, Di 3, Gu 0 -> Ann beats Di (1) and ties Gu (1/2)
    row = compare_round(ROUND)[0].rows[0]
    assert matchpoints(row) == {"Ann": (1.5, 2), "Di": (0.0, 2), "Gu": (1.5, 2)}
    # a hand held at one table only is compared with nobody
    assert matchpoints(compare_round(ROUND)[2].rows[0]) == {}


def test_the_rounds_duplicate_scores_worked_by_hand() -> None:
    # deal 1: H0 Ann 1.5/2 Di 0/2 Gu 1.5/2; H1 Bo 0/2 Ed 1.5/2 Ha 1.5/2; H2 all 0 points: 1/2 each
    # deal 2: K0 Ann 0, Di 0, Gu 1 -> 1.5, 1.5, 0; K1 Bo 0, Ed 4, Ha 0 -> 1.5, 0, 1.5;
    #         K2 Cy 2, Fi 0 (taber dealt no third hand) -> 0/1, 1/1; deal 3: vinder alone
    want = {"Ann": (3.0, 4), "Bo": (1.5, 4), "Cy": (1.0, 3), "Di": (1.5, 4), "Ed": (1.5, 4),
            "Fi": (2.0, 3), "Gu": (1.5, 4), "Ha": (3.0, 4), "Ib": (1.0, 2)}
    scores = score_round("B1", compare_round(ROUND))
    assert {p: (s.points, s.comparisons) for p, s in scores.items()} == want
    assert scores["Ann"].share == pytest.approx(0.75) and scores["Cy"].by_round == {"B1": (1.0, 3)}
    more = score_round("B2", compare_round(ROUND), scores)
    assert more["Fi"].by_round == {"B1": (2.0, 3), "B2": (2.0, 3)} and more["Fi"].share == pytest.approx(2 / 3)
