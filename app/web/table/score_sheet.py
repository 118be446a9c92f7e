"""The score sheet: one row per finished deal (who took what, points, agurk, who went out) with
the running totals, built from the engine's deal log (public once a deal has ended)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from app.rules.scoring import DealResult


def score_rows(deal_log: Sequence[DealResult], players: int) -> list[dict[str, Any]]:
    """Each finished deal as a row, with every seat's total after it."""
    totals = [0] * players
    rows: list[dict[str, Any]] = []
    for deal in deal_log:
        took = []
        for seat, card, points, mult in zip(deal.losers, deal.cards, deal.points, deal.multipliers):
            totals[seat] += points
            took.append({"seat": seat, "card": card, "points": points, "multiplier": mult})
        for seat in deal.cleared:
            totals[seat] = 0
        rows.append({
            "deal_no": deal.deal_no,
            "dealer": deal.dealer,
            "took": took,
            "agurk": list(deal.agurk),
            "went_out": list(deal.went_out),
            "cleared": list(deal.cleared),
            "totals": list(totals),
        })
    return rows
