"""The end of a deal: losers, penalty points, clears, who goes out, game end, ranking,
next dealer (RULES.md §3 rows "deal loser" … "next dealer", §3.1)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from app.rules.ruleset import Ruleset


@dataclass(frozen=True)
class DealResult:
    """One finished deal. ``losers``/``cards``/``points``/``multipliers`` are parallel tuples
    (points after ×2/×4); ``final_cards`` has one entry per seat (None for seats out)."""

    deal_no: int
    dealer: int
    losers: tuple[int, ...]
    cards: tuple[str, ...]
    points: tuple[int, ...]
    multipliers: tuple[int, ...]
    agurk: tuple[int, ...]
    final_cards: tuple[str | None, ...]
    cleared: tuple[int, ...]
    went_out: tuple[int, ...]

    def __getitem__(self, key: str) -> Any:
        return getattr(self, key)

    def as_dict(self) -> dict[str, Any]:
        """The fields as plain values, tuples as lists (every view shows the last deal: a
        field-by-field copy, not `dataclasses.asdict`'s deep one; the values are flat)."""
        return {"deal_no": self.deal_no, "dealer": self.dealer, "losers": list(self.losers), "cards": list(self.cards),
                "points": list(self.points), "multipliers": list(self.multipliers), "agurk": list(self.agurk),
                "final_cards": list(self.final_cards), "cleared": list(self.cleared), "went_out": list(self.went_out)}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> DealResult:
        values: dict[str, Any] = {k: tuple(v) if isinstance(v, list) else v for k, v in d.items()}
        return cls(**values)



def is_out(score: int, r: Ruleset) -> bool:
    """Out when the score reaches (>=) or exceeds (>) the target."""
    return score >= r.target if r.out_at == "reach" else score > r.target


def order_from(start: int, seats: list[int], players: int) -> list[int]:
    """``seats`` sorted clockwise starting at ``start``."""
    return sorted(seats, key=lambda s: (s - start) % players)


def losers_by_show(final_cards: dict[int, str], final_height: dict[str, int],
                   forehand: int, players: int) -> list[int]:
    """Show ending: every player tied on the highest final card loses (§3.1 kurkku, gurka-is)."""
    top = max(final_height[c] for c in final_cards.values())
    tied = [s for s, c in final_cards.items() if final_height[c] == top]
    return order_from(forehand, tied, players)


def ranking_when_over(r: Ruleset, scores: list[int], out: list[int], players: int) -> list[int]:
    """Seats best to worst (lead's decisions on game end)."""
    if r.game_end == "target":
        return sorted(range(players), key=lambda s: (scores[s], s))
    alive = [s for s in range(players) if s not in out]
    alive.sort(key=lambda s: (scores[s], s))
    return alive + out[::-1]


def game_is_over(r: Ruleset, went_out: list[int], out: list[int], players: int) -> bool:
    if r.game_end == "one_left":
        return players - len(out) <= 1
    return bool(went_out)


def next_dealer(r: Ruleset, dealer: int, losers: tuple[int, ...], out: set[int],
                players: int) -> int:
    """Left: next active seat clockwise; loser: the deal's loser, or the next active after it."""
    if r.next_dealer == "loser" and losers:
        first = losers[0]
        if first not in out:
            return first
        return next_active(first, out, players)
    return next_active(dealer, out, players)


def next_active(seat: int, out: set[int], players: int) -> int:
    for step in range(1, players + 1):
        s = (seat + step) % players
        if s not in out:
            return s
    return seat
