"""Duplicate deals at a Gurka Night: the three tables of a round play the same decks, and what
each player made of the same cards is compared deal by deal.

Deal k of a round is dealt from deck k at every table, the deck's p-th hand to the p-th seat
from forhånd (`app.rooms.engine.deck_deal`): the players who sat p-th from forhånd in deal k
at the three tables held the same hand. A table with a player out deals only to the seats
still in (its hands are the deck's first ones); such a deal is marked `short`.

The duplicate score is an extra view beside the night's own scoring (which it never changes):
for each hand, each holder's penalty points against every other holder of that hand, as
matchpoints (fewer points beat = 1, tie = 0.5, more = 0), over the comparisons made.

Pure: the web layer reads each table's game from its room's log and hands in `TableDeal`s.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

BEAT, TIE, LOST = 1.0, 0.5, 0.0


@dataclass(frozen=True)
class HandFate:
    """What one player did with one hand of one deal at one table."""

    player: str
    hand: tuple[str, ...]  # the cards dealt
    penalty: tuple[str, ...] = ()  # the penalty card(s) the player took this deal
    points: int = 0  # penalty points this deal (after doubling)
    went_out: bool = False
    agurk: bool = False


@dataclass(frozen=True)
class Play:
    """One play of a trick: who played which cards."""

    player: str
    cards: tuple[str, ...]


@dataclass(frozen=True)
class TableDeal:
    """One deal at one table: its hands by place from forhånd, and the trick that decided it
    (the final trick; empty when the deal was decided without one)."""

    table: str
    deal_no: int
    hands: tuple[HandFate, ...]  # hands[p]: the p-th seat from forhånd
    deciding_trick: tuple[Play, ...] = ()
    full: int = 3  # players at a full table

    @property
    def short(self) -> bool:
        """Dealt to fewer seats than a full table (someone was out)."""
        return len(self.hands) < self.full


@dataclass(frozen=True)
class HandRow:
    """One hand of a deal (place p from forhånd) at each table that dealt it."""

    place: int
    at: dict[str, HandFate | None]  # table -> the fate of this hand there (None: not dealt)


@dataclass(frozen=True)
class DealComparison:
    """Deal k of a round at the three tables, side by side."""

    deal_no: int
    tables: dict[str, TableDeal | None]  # in table order; None: the table's game ended before
    rows: tuple[HandRow, ...]


@dataclass
class DuplicateScore:
    """A player's matchpoints over a set of comparisons (the share is what pages show)."""

    points: float = 0.0
    comparisons: int = 0
    by_round: dict[str, tuple[float, int]] = field(default_factory=dict)  # round label -> (points, comparisons)

    @property
    def share(self) -> float | None:
        return self.points / self.comparisons if self.comparisons else None

    def add(self, label: str, points: float, comparisons: int) -> None:
        self.points += points
        self.comparisons += comparisons
        old = self.by_round.get(label, (0.0, 0))
        self.by_round[label] = (old[0] + points, old[1] + comparisons)


def compare_round(tables: Mapping[str, Sequence[TableDeal]]) -> list[DealComparison]:
    """Deal by deal, the tables' deals side by side (`tables`: table -> its deals, in table
    order). A hand is lined up with the same place from forhånd at the other tables."""
    by_deal: dict[str, dict[int, TableDeal]] = {t: {d.deal_no: d for d in deals} for t, deals in tables.items()}
    numbers = sorted({n for deals in by_deal.values() for n in deals})
    out: list[DealComparison] = []
    for n in numbers:
        at = {t: by_deal[t].get(n) for t in tables}
        places = max((len(d.hands) for d in at.values() if d is not None), default=0)
        rows = tuple(
            HandRow(p, {t: d.hands[p] if d is not None and p < len(d.hands) else None for t, d in at.items()})
            for p in range(places)
        )
        out.append(DealComparison(n, at, rows))
    return out


def matchpoints(row: HandRow) -> dict[str, tuple[float, int]]:
    """Each holder of one hand against every other holder of the same cards: player ->
    (matchpoints, comparisons). A table that dealt other cards in that place (not the same
    hand) is left out of the comparison."""
    fates = [f for f in row.at.values() if f is not None]
    groups: dict[tuple[str, ...], list[HandFate]] = {}
    for f in fates:
        groups.setdefault(tuple(sorted(f.hand)), []).append(f)
    scores: dict[str, tuple[float, int]] = {}
    for same in groups.values():
        for me in same:
            got = 0.0
            others = [o for o in same if o is not me]
            for other in others:
                got += BEAT if me.points < other.points else TIE if me.points == other.points else LOST
            if others:
                old = scores.get(me.player, (0.0, 0))
                scores[me.player] = (old[0] + got, old[1] + len(others))
    return scores


def score_round(label: str, comparisons: Iterable[DealComparison],
                into: dict[str, DuplicateScore] | None = None) -> dict[str, DuplicateScore]:
    """Every player's matchpoints over a round's deals, added to `into` (per player) under `label`."""
    scores = into if into is not None else {}
    for deal in comparisons:
        for row in deal.rows:
            for player, (points, count) in matchpoints(row).items():
                scores.setdefault(player, DuplicateScore()).add(label, points, count)
    return scores
