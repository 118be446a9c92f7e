"""Ratings from results, in order: OpenSkill's Plackett-Luce model (Weng & Lin 2011), one update
per result (the places of one table round or one game), with each member's history and their
statistics per rule set. Deterministic: the same results give the same ratings, whatever order
they are given in (they are sorted by when they were played, then by their key).

A rating is shown as `mu - 3 * sigma` (OpenSkill's "ordinal"): a member is rated that high or
higher with about 99.7 % confidence, so a newcomer (25 - 3 * 8.33 = 0) climbs as the games
make the model sure of them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime

from openskill.models import PlackettLuce

MU = 25.0
SIGMA = MU / 3


@dataclass(frozen=True)
class Result:
    """One result: each player's place (1 best; equal places tie), when, under which rules."""

    key: str  # unique; orders results played at the same moment
    on: datetime
    ruleset: str
    places: tuple[tuple[str, int], ...]
    agurker: Mapping[str, int] = field(default_factory=dict)
    bar_rov: frozenset[str] = frozenset()
    source: str = "night"  # night | online
    link: str = ""  # where it can be seen (a night page, a replay)


@dataclass(frozen=True)
class Point:
    """A member's rating right after one result."""

    on: datetime
    key: str
    place: int
    players: int
    mu: float
    sigma: float

    @property
    def rating(self) -> float:
        return self.mu - 3 * self.sigma


@dataclass
class Stats:
    """One member's results under one rule set."""

    games: int = 0
    wins: int = 0
    place_sum: int = 0
    agurker: int = 0
    bar_rov: int = 0

    @property
    def mean_place(self) -> float:
        return self.place_sum / self.games if self.games else 0.0


@dataclass
class Rated:
    """One member's rating now, its history and statistics per rule set."""

    player: str
    mu: float = MU
    sigma: float = SIGMA
    history: list[Point] = field(default_factory=list)
    stats: dict[str, Stats] = field(default_factory=dict)

    @property
    def rating(self) -> float:
        return self.mu - 3 * self.sigma

    @property
    def games(self) -> int:
        return len(self.history)


def check(result: Result) -> None:
    names = [p for p, _ in result.places]
    if len(names) < 2 or len(set(names)) != len(names):
        raise ValueError(f"{result.key}: a result needs two or more different players")
    if any(place < 1 for _, place in result.places):
        raise ValueError(f"{result.key}: places start at 1")


def rate(results: Iterable[Result]) -> dict[str, Rated]:
    """Every player's rating after `results`, taken in the order they were played."""
    model = PlackettLuce(mu=MU, sigma=SIGMA)
    table: dict[str, Rated] = {}
    for result in sorted(results, key=lambda r: (r.on, r.key)):
        check(result)
        players = [table.setdefault(p, Rated(p)) for p, _ in result.places]
        teams = [[model.create_rating([r.mu, r.sigma], name=r.player)] for r in players]
        ranks = [float(place) for _, place in result.places]
        updated = model.rate(teams, ranks=ranks)
        for rated, team, (_, place) in zip(players, updated, result.places, strict=True):
            rated.mu, rated.sigma = float(team[0].mu), float(team[0].sigma)
            rated.history.append(Point(result.on, result.key, place, len(players), rated.mu, rated.sigma))
            stats = rated.stats.setdefault(result.ruleset, Stats())
            stats.games += 1
            stats.wins += place == 1
            stats.place_sum += place
            stats.agurker += result.agurker.get(rated.player, 0)
            stats.bar_rov += rated.player in result.bar_rov
    return table


def ranked(table: Mapping[str, Rated]) -> list[Rated]:
    """Best rating first (ties: more games, then name)."""
    return sorted(table.values(), key=lambda r: (-round(r.rating, 9), -r.games, r.player))
