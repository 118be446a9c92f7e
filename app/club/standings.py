"""Points, counts, tie-breaks and playoff groups (RULES.md §7.2, §7.4).

The tie-break chain (§7.4, seed 000 "afgøres placeringen på følgende måde"): fewest points;
then most bar røv; most 1st places; most 2nd places; most 3rd places; most agurker (the seed
says *flest agurker*, so more agurker ranks higher even though each one also cost a point);
then a playoff game to 21 orders the players still tied.

Reading of "ties": after the base rounds every place 1..9 matters (it fixes the final table
and the carry-over 0/1/2), so every group of players tied on the whole chain needs a playoff.
After the finals only ties *within one final table* matter: the table fixes the place range.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import NamedTuple

from app.club.results import RoundResult


class StandingRow(NamedTuple):
    """One line of the standings; unpacks as the contract's
    ``(player, points, bar_rov, firsts, seconds, thirds, agurker)``."""

    player: str
    points: int
    bar_rov: int
    firsts: int
    seconds: int
    thirds: int
    agurker: int


TieKey = tuple[int, int, int, int, int, int]


def tally(
    players: Iterable[str],
    results: Iterable[RoundResult],
    carry: Mapping[str, int] | None = None,
) -> dict[str, StandingRow]:
    """Sum round points and counts over ``results``; ``carry`` adds carried-over points only
    (the counts are over the given rounds only, as §7.4 asks for the finals)."""
    carry = carry or {}
    acc: dict[str, list[int]] = {p: [carry.get(p, 0), 0, 0, 0, 0, 0] for p in players}
    for result in results:
        for player in result.players:
            row = acc[player]
            place = result.place(player)
            row[0] += result.points(player)
            if place == 1 and result.bar_rov:
                row[1] += 1
            row[1 + place] += 1
            row[5] += result.agurk(player)
    return {p: StandingRow(p, *v) for p, v in acc.items()}


def tie_key(row: StandingRow) -> TieKey:
    """Smaller is better: points, then -bar røv, -1sts, -2nds, -3rds, -agurker (§7.4)."""
    return (row.points, -row.bar_rov, -row.firsts, -row.seconds, -row.thirds, -row.agurker)


def order_rows(
    rows: Iterable[StandingRow], playoffs: Sequence[Sequence[str]] = ()
) -> list[StandingRow]:
    """Rows best first by the tie-break chain; a recorded playoff (best first) orders its
    players among themselves. Players tied with no playoff yet fall back to name order, which
    is only provisional (see :func:`tie_groups`)."""
    rank: dict[str, int] = {}
    for group in playoffs:
        for i, player in enumerate(group):
            rank[player] = i
    return sorted(rows, key=lambda r: (tie_key(r), rank.get(r.player, 0), r.player))


def tie_groups(
    rows: Iterable[StandingRow], playoffs: Sequence[Sequence[str]] = ()
) -> list[list[str]]:
    """Groups (best group first, names in standings order) still tied after every tie-break
    and not yet ordered by a playoff."""
    ordered = order_rows(rows, playoffs)
    settled = {frozenset(g) for g in playoffs}
    groups: list[list[str]] = []
    current: list[StandingRow] = []
    for row in [*ordered, None]:
        if row is not None and current and tie_key(row) == tie_key(current[0]):
            current.append(row)
            continue
        if len(current) > 1 and frozenset(r.player for r in current) not in settled:
            groups.append([r.player for r in current])
        current = [row] if row is not None else []
    return groups


def place_labels(rows: Sequence[StandingRow], playoffs: Sequence[Sequence[str]] = (),
                 *, first: int = 1) -> list[str]:
    """The place shown for each row (rows best first, numbered from `first`): players level on
    every tie-break and not separated by a playoff share their place ("1=", "1=", "3")."""
    tied = {p for g in tie_groups(rows, playoffs) for p in g}
    labels: list[str] = []
    for i, row in enumerate(rows):
        start = i
        while start > 0 and row.player in tied and rows[start - 1].player in tied \
                and tie_key(rows[start - 1]) == tie_key(row):
            start -= 1
        shared = row.player in tied
        labels.append(f"{first + start}=" if shared else str(first + i))
    return labels
