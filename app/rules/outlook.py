"""The outlook of a game between deals: each seat's expected final place.

A search bot plays a deal out in imagined worlds and must then say how good the end of the
deal is for the game, not just the deal: ten points matter little far from the line and
end the game near it; in a game that ends when the first player goes out (vidivellir),
pushing a leader over the line wins; at exactly 21 in gurka-is the pile clears.

The outlook plays the rest of the game in a coarse model: every deal, a random active seat
(or several, as often as ties happen) takes a penalty drawn from what deals of this rule
set and table size cost, until the game's own end (`app.rules.scoring`). Every standing is
played out on the same fixed random draws (common random numbers), so that a standing with
more points for a seat never looks better for it through luck of the draw, and the answer
is a pure function of the standing. The penalties are measured once per rule set and
number of active seats, from deals the heuristic bot plays against itself.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from functools import lru_cache

from app.rules import scoring
from app.rules.game import Game
from app.rules.heuristic import HeuristicBot
from app.rules.ruleset import Ruleset

__all__ = ["Outlook", "outlook", "penalty_table", "prepare"]

RUNS = 40  # games played out per standing
MAX_DEALS = 400  # a model game that has not ended by then is ranked by its scores
SAMPLE_DEALS = 96  # deals measured per rule set and table size


class Outlook:
    """Expected final places (0 best, 1 worst) per seat from a standing between deals."""

    def __init__(self, ruleset: Ruleset, players: int, runs: int = RUNS) -> None:
        self.ruleset = ruleset
        self.players = players
        self.runs = runs
        self._cache: dict[tuple[tuple[int, ...], tuple[int, ...]], tuple[float, ...]] = {}
        # the draws every standing is played out on: per run, per deal, two uniform numbers
        rng = random.Random(f"outlook/{players}")
        self._draws = [[(rng.random(), rng.random()) for _ in range(MAX_DEALS)] for _ in range(runs)]

    def places(self, scores: Sequence[int], out: Sequence[int]) -> tuple[float, ...]:
        """Each seat's expected place, 0 (wins) to 1 (last), from these scores with these
        seats out (in the order they went out)."""
        key = (tuple(scores), tuple(out))
        found = self._cache.get(key)
        if found is None:
            if len(self._cache) > 100_000:
                self._cache.clear()
            found = self._cache[key] = self._play_out(key[0], key[1])
        return found

    def _play_out(self, scores: tuple[int, ...], out: tuple[int, ...]) -> tuple[float, ...]:
        r = self.ruleset
        n = self.players
        total = [0.0] * n
        tables = {m: penalty_table(r, m) for m in range(2, n + 1)}
        for draws in self._draws:
            ranking = _one_game(r, n, list(scores), list(out), draws, tables)
            for place, seat in enumerate(ranking):
                total[seat] += place
        scale = 1.0 / (self.runs * max(1, n - 1))
        return tuple(t * scale for t in total)


def _one_game(r: Ruleset, n: int, scores: list[int], out: list[int],
              draws: Sequence[tuple[float, float]],
              tables: dict[int, tuple[tuple[int, ...], ...]]) -> list[int]:
    """One model game to its end: the ranking, best first (`app.rules.scoring`'s rules,
    written out for speed: this is the outlook's inner loop)."""
    gone = set(out)
    active = [s for s in range(n) if s not in gone]
    target = r.target
    reach = r.out_at == "reach"
    clear = r.exact_clear
    one_left = r.game_end == "one_left"
    if len(active) > 1 or not one_left:
        for pick, who in draws:
            table = tables.get(len(active))
            if not table:
                break
            points = table[int(pick * len(table))]
            first = int(who * len(active))
            going: list[int] = []
            for i, pts in enumerate(points):
                seat = active[(first + i) % len(active)]
                score = scores[seat] + pts
                if clear and score == target:
                    score = 0
                scores[seat] = score
                if score >= target if reach else score > target:
                    going.append(seat)
            if going:
                going.sort(key=lambda s: -scores[s])
                out.extend(going)
                gone.update(going)
                active = [s for s in active if s not in gone]
                if not one_left or len(active) <= 1:
                    break
    return scoring.ranking_when_over(r, scores, out, n)


@lru_cache(maxsize=64)
def penalty_table(ruleset: Ruleset, active: int) -> tuple[tuple[int, ...], ...]:
    """What a deal costs at a table of ``active`` seats: the points each of its losers took
    (one entry per loser, ties in a show give several), over deals of heuristic bots."""
    players = min(max(active, ruleset.min_players), ruleset.max_players)
    bot = HeuristicBot(0)
    results: list[tuple[int, ...]] = []
    for deal in range(SAMPLE_DEALS):
        game = Game.between_deals(ruleset, players, dealer=deal % players, deals_done=deal,
                                  scores=[0] * players, out=[], seed=f"penalties/{deal}")
        game.deal()
        while game.to_act is not None:
            game.apply(bot.quick_choose(game))
        if game.last_deal is not None:
            results.append(game.last_deal.points)
    results.sort()
    return tuple(results)


@lru_cache(maxsize=32)
def outlook(ruleset: Ruleset, players: int) -> Outlook:
    """The outlook for games of this rule set and table size (one per process: its cache of
    standings is shared by every decision)."""
    return Outlook(ruleset, players)


def prepare(ruleset: Ruleset, players: int) -> Outlook:
    """The outlook for this table, with its penalty tables measured now rather than in the
    middle of a first decision (a worker process warms up with this)."""
    for active in range(2, players + 1):
        penalty_table(ruleset, active)
    return outlook(ruleset, players)
