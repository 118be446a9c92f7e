"""Hall of Fame across nights (RULES.md §7.5): pure aggregation of finished nights.

Each night gives 9, 8 … 1 points to places 1 … 9. A reserve who played scores under their
own name (the points follow who sat at the table; a stand-in only inherits the start table,
§7.1). Rows are sorted by Hall of Fame points, then wins, podiums, better average place,
fewer nights (same points from fewer nights ranks higher), then name.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import date
from typing import NamedTuple, NoReturn

from app.club.constants import HALL_OF_FAME_POINTS, PLAYERS


@dataclass(frozen=True)
class NightSummary:
    """A finished night: its date, placement 1st..9th and per-player bar røv / agurker."""

    on: date
    placement: tuple[str, ...]
    bar_rov: Mapping[str, int] = field(default_factory=dict)
    agurker: Mapping[str, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        placement = tuple(self.placement)
        if len(placement) != PLAYERS or len(set(placement)) != PLAYERS:
            raise ValueError(
                f"the night of {self.on.isoformat()} needs a placement of {PLAYERS} "
                "different players"
            )
        object.__setattr__(self, "placement", placement)
        for what, counts in (("bar røv", self.bar_rov), ("agurker", self.agurker)):
            for player, n in counts.items():
                if player not in placement:
                    raise ValueError(
                        f"{player} has {what} on {self.on.isoformat()} but did not play"
                    )
                if n < 0:
                    raise ValueError(f"{player}'s {what} cannot be negative")

    def __hash__(self) -> NoReturn:  # the counts are mappings: no hash
        raise TypeError(f"unhashable type: {type(self).__name__!r}")

    def points(self) -> dict[str, int]:
        """Hall of Fame points of the night, 9 … 1 (RULES.md §7.5)."""
        return dict(zip(self.placement, HALL_OF_FAME_POINTS, strict=True))


class HallOfFameRow(NamedTuple):
    player: str
    points: int
    nights: int
    wins: int
    podiums: int
    average_place: float
    bar_rov: int
    agurker: int


def hall_of_fame_points(placement: Iterable[str]) -> dict[str, int]:
    """9, 8 … 1 for places 1 … 9 (RULES.md §7.5)."""
    return dict(zip(placement, HALL_OF_FAME_POINTS, strict=True))


def hall_of_fame_table(
    nights: Iterable[NightSummary], year: int | None = None
) -> list[HallOfFameRow]:
    """All-time table (``year=None``) or the table of one calendar year, best first."""
    acc: dict[str, list[int]] = {}  # points, nights, wins, podiums, place sum, bar røv, agurker
    for night in nights:
        if year is not None and night.on.year != year:
            continue
        for place, player in enumerate(night.placement, start=1):
            row = acc.setdefault(player, [0, 0, 0, 0, 0, 0, 0])
            row[0] += HALL_OF_FAME_POINTS[place - 1]
            row[1] += 1
            row[2] += place == 1
            row[3] += place <= 3
            row[4] += place
            row[5] += night.bar_rov.get(player, 0)
            row[6] += night.agurker.get(player, 0)
    rows = [
        HallOfFameRow(p, v[0], v[1], v[2], v[3], round(v[4] / v[1], 2), v[5], v[6])
        for p, v in acc.items()
    ]
    rows.sort(key=lambda r: (-r.points, -r.wins, -r.podiums, r.average_place, r.nights, r.player))
    return rows


def hall_of_fame_by_year(nights: Iterable[NightSummary]) -> dict[int, list[HallOfFameRow]]:
    """One table per calendar year that had a night, years ascending."""
    nights = list(nights)
    years = sorted({n.on.year for n in nights})
    return {y: hall_of_fame_table(nights, y) for y in years}


def shared_ranks(rows: Iterable[HallOfFameRow]) -> dict[str, str]:
    """Each player's rank in a table sorted best first, as shown: players level on everything
    that ranks (points, wins, podiums, average place, nights) share their place, marked "=",
    and the next place is skipped ("1=", "1=", "3")."""
    rows = list(rows)
    key = [(r.points, r.wins, r.podiums, r.average_place, r.nights) for r in rows]
    ranks: dict[str, str] = {}
    for i, row in enumerate(rows):
        first = key.index(key[i]) + 1
        shared = key.count(key[i]) > 1
        ranks[row.player] = f"{first}=" if shared else str(first)
    return ranks


SORTS: dict[str, tuple[str, bool]] = {
    # key: (HallOfFameRow field, biggest first)
    "points": ("points", True),
    "nights": ("nights", True),
    "wins": ("wins", True),
    "podiums": ("podiums", True),
    "average": ("average_place", False),
    "bar_rov": ("bar_rov", True),
    "agurker": ("agurker", True),
    "name": ("player", False),
}


def sorted_table(rows: list[HallOfFameRow], sort: str) -> list[HallOfFameRow]:
    """The Hall of Fame rows by `sort` (ties keep the Hall of Fame order)."""
    field, biggest_first = SORTS.get(sort, SORTS["points"])
    if field == "player":
        return sorted(rows, key=lambda r: r.player.lower())
    return sorted(rows, key=lambda r: getattr(r, field), reverse=biggest_first)
