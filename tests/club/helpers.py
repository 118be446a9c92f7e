"""Shared helpers for the club tests."""

from __future__ import annotations

from app.club import Night, RoundResult

NINE = ["Ann", "Bo", "Cy", "Di", "Ed", "Fi", "Gu", "Hal", "Ida"]
START = {
    "Ann": "vinder", "Bo": "vinder", "Cy": "vinder",
    "Di": "mellan", "Ed": "mellan", "Fi": "mellan",
    "Gu": "taber", "Hal": "taber", "Ida": "taber",
}  # fmt: skip


def by_chair(chairs: list[str]) -> RoundResult:
    """Chair 0 goes out first, chair 1 second, chair 2 wins; everyone took cards."""
    return RoundResult(out=[chairs[0], chairs[1]], winner=chairs[2], took_cards=set(chairs))


def play_round_by_chair(night: Night) -> None:
    for table, chairs in night.tables.items():
        night.record(table, by_chair(chairs))
