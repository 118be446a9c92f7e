"""Start tables from last night, reserves and newcomers (RULES.md §7.1)."""

from __future__ import annotations

import pytest

from app.club import Night, start_tables

LAST = {
    "finale": ["Ann", "Bo", "Cy"],
    "mellanfinale": ["Di", "Ed", "Fi"],
    "taberfinale": ["Gu", "Hal", "Ida"],
}


def test_everyone_starts_where_they_finished() -> None:
    players = ["Ann", "Bo", "Cy", "Di", "Ed", "Fi", "Gu", "Hal", "Ida"]
    start = start_tables(LAST, players)
    assert start == {
        "Ann": "vinder", "Bo": "vinder", "Cy": "vinder",
        "Di": "mellan", "Ed": "mellan", "Fi": "mellan",
        "Gu": "taber", "Hal": "taber", "Ida": "taber",
    }  # fmt: skip
    Night.new(players, start, seed=1)  # the mapping is accepted as it is


def test_reserve_takes_the_table_of_whom_they_stand_in_for() -> None:
    players = ["Kim", "Bo", "Cy", "Di", "Ed", "Fi", "Gu", "Hal", "Ida"]
    start = start_tables(LAST, players, stand_ins={"Kim": "Ann"})
    assert start["Kim"] == "vinder"


def test_member_returns_to_where_their_reserve_finished() -> None:
    last = {**LAST, "finale": ["Kim", "Bo", "Cy"]}  # Kim played for Ann last night
    players = ["Ann", "Bo", "Cy", "Di", "Ed", "Fi", "Gu", "Hal", "Ida"]
    assert start_tables(last, players, stand_ins={"Ann": "Kim"})["Ann"] == "vinder"


def test_newcomer_placed_by_the_host() -> None:
    players = ["Ann", "Bo", "Cy", "Di", "Ed", "Fi", "Gu", "Hal", "Lea"]
    start = start_tables(LAST, players, newcomers={"Lea": "taber"})
    assert start["Lea"] == "taber"


def test_player_table_mapping_is_accepted() -> None:
    last = {p: t for t, ps in LAST.items() for p in ps}
    players = ["Ann", "Bo", "Cy", "Di", "Ed", "Fi", "Gu", "Hal", "Ida"]
    assert start_tables(last, players)["Fi"] == "mellan"


@pytest.mark.parametrize(
    ("players", "kwargs", "message"),
    [
        (["Ann", "Bo", "Cy", "Di", "Ed", "Fi", "Gu", "Hal", "Lea"], {},
         "Lea did not play last night: the host places them"),
        (["Ann", "Bo", "Cy", "Di", "Ed", "Fi", "Gu", "Hal", "Lea"],
         {"newcomers": {"Lea": "vinder"}}, "the Vinderbord would have 4 players"),
        (["Ann", "Bo", "Cy", "Di", "Ed", "Fi", "Gu", "Hal", "Kim"],
         {"stand_ins": {"Kim": "Ann"}}, "Ann plays tonight, so Kim cannot take Ann's place"),
        (["Ann", "Bo", "Cy", "Di", "Ed", "Fi", "Gu", "Hal", "Kim"],
         {"stand_ins": {"Kim": "Zoe"}}, "Zoe did not play last night"),
        (["Ann", "Bo", "Cy", "Di", "Ed", "Fi", "Gu", "Hal", "Lea"],
         {"newcomers": {"Lea": "finale"}}, "'finale' is not a start table for Lea"),
    ],
)  # fmt: skip
def test_start_table_errors(players: list[str], kwargs: dict[str, dict[str, str]],
                            message: str) -> None:  # fmt: skip
    with pytest.raises(ValueError, match=message):
        start_tables(LAST, players, **kwargs)
