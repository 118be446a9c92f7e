"""Round points and places (RULES.md §7.1, §7.2) and RoundResult validation."""

from __future__ import annotations

import pytest

from app.club import RoundResult


def test_places_and_plain_points() -> None:
    r = RoundResult(out=["Ann", "Bo"], winner="Cy", took_cards={"Ann", "Bo", "Cy"})
    assert (r.place("Cy"), r.place("Bo"), r.place("Ann")) == (1, 2, 3)
    assert (r.points("Ann"), r.points("Bo"), r.points("Cy")) == (3, 2, 1)
    assert not r.bar_rov


def test_bar_rov_scores_zero() -> None:
    r = RoundResult(out=["Ann", "Bo"], winner="Cy", took_cards={"Ann", "Bo"})
    assert r.bar_rov
    assert r.points("Cy") == 0
    assert (r.points("Ann"), r.points("Bo")) == (3, 2)


def test_agurk_adds_one_per_deal_for_every_place() -> None:
    r = RoundResult(
        out=["Ann", "Bo"], winner="Cy", took_cards={"Ann", "Bo", "Cy"}, agurker={"Ann": 2, "Bo": 1}
    )
    assert (r.points("Ann"), r.points("Bo"), r.points("Cy")) == (5, 3, 1)


def test_bar_rov_winner_who_went_agurk_scores_zero_plus_agurker() -> None:
    r = RoundResult(out=["Ann", "Bo"], winner="Cy", took_cards={"Ann", "Bo"}, agurker={"Cy": 2})
    assert r.bar_rov
    assert r.points("Cy") == 2


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"out": ["Ann", "Ann"], "winner": "Cy"}, "Ann is listed twice"),
        ({"out": ["Ann", "Bo"], "winner": "Bo"}, "Bo is listed twice"),
        ({"out": ["Ann"], "winner": "Cy"}, "exactly two players"),
        ({"out": ["Ann", "Bo", "Di"], "winner": "Cy"}, "exactly two players"),
        ({"out": ["Ann", "Bo"], "winner": ""}, "winner must be a player's name"),
        ({"out": ["Ann", "Bo"], "winner": "Cy", "agurker": {"Ann": -1}}, "cannot be negative"),
        ({"out": ["Ann", "Bo"], "winner": "Cy", "agurker": {"Ann": 1.5}}, "whole number"),
        ({"out": ["Ann", "Bo"], "winner": "Cy", "took_cards": "Ann"}, "not a single name"),
    ],
)
def test_structural_mistakes(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        RoundResult(**kwargs)  # type: ignore[arg-type]


def test_check_table_names_the_stranger() -> None:
    seated = ["Ann", "Bo", "Cy"]
    RoundResult(out=["Ann", "Bo"], winner="Cy", took_cards={"Ann"}).check_table("vinder", seated)
    with pytest.raises(ValueError, match="Kim is not at the Vinderbord this round"):
        RoundResult(out=["Ann", "Kim"], winner="Cy").check_table("vinder", seated)
    with pytest.raises(ValueError, match="Kim is not at the Vinderbord"):
        RoundResult(out=["Ann", "Bo"], winner="Cy", took_cards={"Kim"}).check_table(
            "vinder", seated
        )
    with pytest.raises(ValueError, match="Kim is not at the Mellanbord"):
        RoundResult(out=["Ann", "Bo"], winner="Cy", agurker={"Kim": 1}).check_table(
            "mellan", seated
        )


def test_dict_round_trip() -> None:
    r = RoundResult(out=["Ann", "Bo"], winner="Cy", took_cards={"Bo", "Ann"}, agurker={"Cy": 1})
    assert RoundResult.from_dict(r.to_dict()) == r
