"""The final places of a finished game, shared where the rules do not tell players apart: one
rule for every list of them (the game-over panel's, the replay's "Final:" line).

The rules' order (`ranking`): when the game ends at the target, by points; else the players still
in (fewest points first), then those who went out, the last one out first. Rows share a place
when their players had equal points (among the players still in, when going out decides) or
went out in the same deal: two players on 0 who both finished a vidivellir game share first.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from app.rules import Game


def final_rows(ranking: Sequence[int], scores: Sequence[int], names: Sequence[str], me: int | None,
               out_in: dict[int, int], by_going_out: bool) -> list[dict[str, Any]]:
    """One row per seat in `ranking` order: seat, name, points, place, whether the place is
    shared, whether it wins, `me` (the reader's own row) and the deal its player went out in
    (`out_in`: seat -> deal)."""
    rows: list[dict[str, Any]] = []
    for index, seat in enumerate(ranking):
        out_deal = out_in.get(seat)
        key = ("out", out_deal) if by_going_out and out_deal is not None else ("points", scores[seat])
        tied = index > 0 and key == rows[-1]["key"]
        place = rows[-1]["place"] if tied else index + 1
        rows.append({"seat": seat, "name": names[seat], "points": scores[seat], "place": place,
                     "me": seat == me, "out_deal": out_deal, "key": key})
    for row in rows:
        row["shared"] = sum(1 for r in rows if r["place"] == row["place"]) > 1
        row["winner"] = row["place"] == 1
    return rows


def game_rows(game: Game, names: Sequence[str], me: int | None = None) -> list[dict[str, Any]]:
    """`final_rows` of a finished game, as its game-over panel lists them."""
    out_in = {s: d.deal_no for d in game.deal_log for s in d.went_out}
    return final_rows(game.ranking or [], game.scores, names, me, out_in, game.ruleset.game_end != "target")
