"""One table's result in one round, its validation and its points (RULES.md §7.1, §7.2).

Readings:
- A round is one game of ``gurka-night`` at a table of three, played until two players are
  out (§7.1). ``out`` lists them in the order they went out; the third player is the winner.
- Places (§7.2): 1st = the winner, 2nd = the second out, 3rd = the first out.
- Bar røv (§7.2): the winner took no penalty card in the whole round. ``took_cards`` is the set
  of players who took any penalty card; only the winner's membership decides bar røv. The two
  players who went out must have taken cards to reach 21, but they need not be listed: the
  set is checked only to be a subset of the table.
- Agurk (§7.2, §3.1): every deal whose final card was a joker adds +1 to that player's round
  points; counts are kept for the tie-breaks. A bar røv winner who went agurk scores 0 + agurker.
"""

# Wrong input types are people's mistakes too: ValueError, as the club contract says.
# ruff: noqa: TRY004
from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NoReturn

from app.club.constants import (
    BAR_ROV_POINTS,
    FIRST_OUT_POINTS,
    SECOND_OUT_POINTS,
    TABLE_NAMES,
    WINNER_POINTS,
)
from app.rules.text import Text


def _check_name(name: object, what: str) -> str:
    if not isinstance(name, str) or not name.strip():
        raise ValueError(f"{what} must be a player's name, got {name!r}")
    return name


@dataclass(frozen=True, eq=True)
class RoundResult:
    """What happened at one table in one round.

    ``out`` = ``[first_out, second_out]``; ``winner`` the remaining player; ``took_cards`` the
    players who took any penalty card; ``agurker`` maps a player to their agurk count (missing
    players have 0). Built with plain lists/sets/dicts; stored as tuple/frozenset/dict copies.
    Structural mistakes raise ``ValueError`` at once; whether the names sit at the table is
    checked by :meth:`check_table` when the result is recorded.
    """

    out: Sequence[str]
    winner: str
    took_cards: Collection[str] = field(default_factory=frozenset)
    agurker: Mapping[str, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if isinstance(self.out, str) or not isinstance(self.out, Iterable):
            raise ValueError("out must list two players: [first out, second out]")
        out = tuple(self.out)
        if len(out) != 2:
            raise ValueError(
                f"out must list exactly two players (first out, second out), got {len(out)}"
            )
        for name in out:
            _check_name(name, "each player in out")
        _check_name(self.winner, "winner")
        seen: set[str] = set()
        for name in (*out, self.winner):
            if name in seen:
                raise ValueError(f"{name} is listed twice")
            seen.add(name)
        if isinstance(self.took_cards, str):
            raise ValueError("took_cards must be a set of players, not a single name")
        took = frozenset(self.took_cards)
        for name in took:
            _check_name(name, "each player in took_cards")
        agurker: dict[str, int] = {}
        for name, count in dict(self.agurker).items():
            _check_name(name, "each player in agurker")
            if isinstance(count, bool) or not isinstance(count, int):
                raise ValueError(f"{name}'s agurker must be a whole number, got {count!r}")
            if count < 0:
                raise ValueError(f"{name}'s agurker cannot be negative ({count})")
            agurker[name] = count
        object.__setattr__(self, "out", out)
        object.__setattr__(self, "took_cards", took)
        object.__setattr__(self, "agurker", agurker)

    def __hash__(self) -> NoReturn:  # agurker is a dict: no hash, as the dataclass's own would fail
        raise TypeError(f"unhashable type: {type(self).__name__!r}")

    @property
    def first_out(self) -> str:
        return self.out[0]

    @property
    def second_out(self) -> str:
        return self.out[1]

    @property
    def players(self) -> tuple[str, str, str]:
        """The three players, best place first: winner, second out, first out."""
        return (self.winner, self.out[1], self.out[0])

    @property
    def bar_rov(self) -> bool:
        """The winner took no penalty card (RULES.md §7.2)."""
        return self.winner not in self.took_cards

    def place(self, player: str) -> int:
        """1 = winner, 2 = second out, 3 = first out (RULES.md §7.2)."""
        return self.players.index(player) + 1

    def agurk(self, player: str) -> int:
        return self.agurker.get(player, 0)

    def points(self, player: str) -> int:
        """Round points (RULES.md §7.2): 3 / 2 / 1, bar røv 0, plus one per agurk."""
        place = self.place(player)
        if place == 1:
            base = BAR_ROV_POINTS if self.bar_rov else WINNER_POINTS
        elif place == 2:
            base = SECOND_OUT_POINTS
        else:
            base = FIRST_OUT_POINTS
        return base + self.agurk(player)

    def check_table(self, table: str, seated: Sequence[str]) -> None:
        """Raise ``ValueError`` unless the result names exactly the players at ``table``."""
        at_table = set(seated)
        title = TABLE_NAMES.get(table, table)
        for name in (*self.out, self.winner):
            if name not in at_table:
                raise ValueError(Text("%(name)s is not at the %(table)s this round", name=name, table=title))
        for name in sorted(self.took_cards):
            if name not in at_table:
                raise ValueError(Text(
                    "%(name)s is not at the %(table)s this round (listed as taking cards)",
                    name=name, table=title,
                ))
        for name in sorted(self.agurker):
            if name not in at_table:
                raise ValueError(Text(
                    "%(name)s is not at the %(table)s this round (listed with agurker)",
                    name=name, table=title,
                ))

    def to_dict(self) -> dict[str, Any]:
        return {
            "out": list(self.out),
            "winner": self.winner,
            "took_cards": sorted(self.took_cards),
            "agurker": dict(sorted(self.agurker.items())),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> RoundResult:
        return cls(
            out=list(data["out"]),
            winner=data["winner"],
            took_cards=set(data.get("took_cards", ())),
            agurker=dict(data.get("agurker", {})),
        )
