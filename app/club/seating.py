"""Lots, chairs, first dealers and movement between base rounds (RULES.md §7.1, §7.3, §7.4).

Chairs at a table are listed clockwise: chair ``i + 1`` is to the left of chair ``i``
(RULES.md §1), so the forhånd is the chair after the dealer and the dealer is the chair
before the forhånd.

Every lot is drawn from its own ``random.Random`` derived from the night's seed and the lot's
name (stage, round, table, kind). A lot therefore never depends on the order in which the
tables' results were typed in, and replaying a night from its seed redraws the same lots.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from app.club.constants import BASE_TABLES, FINAL_TABLES, TABLE_SIZE
from app.club.results import RoundResult

LotKind = Literal["table", "chairs", "dealer"]
Seating = dict[str, list[str]]


@dataclass(frozen=True)
class Lot:
    """One recorded draw: which table a player starts at (``table``), the chair order
    (``chairs``) or the first dealer (``dealer``). ``result`` is what was drawn, in order."""

    stage: str
    round_no: int
    table: str
    kind: LotKind
    result: tuple[str, ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "stage": self.stage,
            "round": self.round_no,
            "table": self.table,
            "kind": self.kind,
            "result": list(self.result),
        }


def lot_rng(seed: int | str, stage: str, round_no: int, table: str, kind: str) -> random.Random:
    """The random source of one lot: a pure function of the seed and the lot's name."""
    return random.Random(f"gurka-night|{seed}|{stage}|{round_no}|{table}|{kind}")


def draw_start_tables(players: Sequence[str], seed: int | str) -> list[Lot]:
    """Draw all nine players onto the three base tables by a fair lot (``start=None``).

    A uniformly shuffled order is cut into three groups of three: vinder, mellan, taber.
    """
    order = sorted(players)
    lot_rng(seed, "base", 1, "*", "table").shuffle(order)
    return [
        Lot("base", 1, table, "table", tuple(order[i * TABLE_SIZE : (i + 1) * TABLE_SIZE]))
        for i, table in enumerate(BASE_TABLES)
    ]


def draw_chairs(
    players: Sequence[str], seed: int | str, stage: str, round_no: int, table: str
) -> Lot:
    """Lots decide the chairs at a table (RULES.md §7.1, §7.4): a uniform shuffle."""
    order = sorted(players)
    lot_rng(seed, stage, round_no, table, "chairs").shuffle(order)
    return Lot(stage, round_no, table, "chairs", tuple(order))


def draw_dealer(
    chairs: Sequence[str], seed: int | str, stage: str, round_no: int, table: str
) -> Lot:
    """Lots decide the first dealer at a table (RULES.md §7.1, §7.3, §7.4)."""
    dealer = lot_rng(seed, stage, round_no, table, "dealer").choice(sorted(chairs))
    return Lot(stage, round_no, table, "dealer", (dealer,))


def dealer_before(chairs: Sequence[str], forhand: str) -> str:
    """The dealer when ``forhand`` must have forhånd: the chair before it (RULES.md §1)."""
    i = list(chairs).index(forhand)
    return chairs[(i - 1) % len(chairs)]


def forhand_of(chairs: Sequence[str], dealer: str) -> str:
    """The forhånd: the chair after the dealer (left of the dealer, RULES.md §1)."""
    i = list(chairs).index(dealer)
    return chairs[(i + 1) % len(chairs)]


def move_after_base_round(
    seating: Mapping[str, Sequence[str]], results: Mapping[str, RoundResult]
) -> Seating:
    """Seating of the next base round (RULES.md §7.3). "Loser" = the first out.

    - winner-table loser → middle table, into the chair of the middle-table winner;
    - middle-table winner → winner table, into the chair of the winner-table loser;
    - middle-table loser → loser table, into the chair of the loser-table winner;
    - loser-table winner → middle table, into the chair of the middle-table loser.
    Everyone else keeps their chair. The middle table's winner and loser are different
    players, so the two swaps touch different middle-table chairs.
    """
    vinder, mellan, taber = BASE_TABLES
    new: Seating = {t: list(seating[t]) for t in BASE_TABLES}
    v_loser = results[vinder].first_out
    m_winner = results[mellan].winner
    m_loser = results[mellan].first_out
    t_winner = results[taber].winner
    v_chair = new[vinder].index(v_loser)
    m_win_chair = new[mellan].index(m_winner)
    m_lose_chair = new[mellan].index(m_loser)
    t_chair = new[taber].index(t_winner)
    new[vinder][v_chair] = m_winner
    new[mellan][m_win_chair] = v_loser
    new[mellan][m_lose_chair] = t_winner
    new[taber][t_chair] = m_loser
    return new


def final_groups(order: Sequence[str]) -> dict[str, list[str]]:
    """Places 1-3 to the final table, 4-6 the middle final, 7-9 the loser final (§7.4).

    Listed in base-standings order; the chairs are then drawn by lot.
    """
    return {
        table: list(order[i * TABLE_SIZE : (i + 1) * TABLE_SIZE])
        for i, table in enumerate(FINAL_TABLES)
    }
