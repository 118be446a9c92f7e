"""The strong bot's analysis of a finished game: for every decision with a choice, what the seat
could know then (its own view, never the other hands), the strong bot's best move, and what the
move played cost against it, with a mark for the costly ones. Pure: stdlib and the rules core.

Each decision is searched as the strong bot searches (`app.rules.search`): worlds consistent
with the seat's view, each candidate (the bot's candidates and the move played) played out by
the heuristic bot in the same worlds, scored for the game as minus the seat's expected final
place (0 first, -1 last). The cost of a move is the best candidate's mean less the played
move's, in hundredths of that scale ("place points": 100 = from certain first to certain last).

Marks (fixed thresholds, in place points): inaccuracy from 3, mistake from 8, blunder from 20.
The search is random (the worlds sampled): `bench/analysis_bench.py` shows how stable the marks
are over two runs.

`decisions(game)` lists what is to be judged (each with the seat's view only) and `judge` judges
one: plain data in and out, so that a server can judge a game's decisions one by one in its bot
workers (`app.rooms.analyses`) and say how far it has got; `analyse` does the same in one go.
"""

from __future__ import annotations

import random
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from app.rules.actions import Action, parse_action
from app.rules.exchange import KEEP
from app.rules.game import Game
from app.rules.heuristic import HeuristicBot
from app.rules.outlook import Outlook, outlook
from app.rules.ruleset import Ruleset
from app.rules.search import _exchanges, candidates
from app.rules.worlds import knowledge, sample_world

INACCURACY, MISTAKE, BLUNDER = 3.0, 8.0, 20.0
MARKS = (("blunder", BLUNDER), ("mistake", MISTAKE), ("inaccuracy", INACCURACY))


@dataclass(frozen=True)
class Judged:
    """One decision: who, when, what was played, the best found, the cost and its mark."""

    step: int  # index in the game's log
    seat: int
    deal_no: int
    played: str
    best: str
    cost: float  # place points lost (0 when the move played was the best found)
    mark: str | None
    values: dict[str, float] = field(default_factory=dict)  # candidate -> mean value


@dataclass(frozen=True)
class Summary:
    seat: int
    decisions: int
    lost: float  # place points, summed
    inaccuracies: int
    mistakes: int
    blunders: int

    @property
    def accuracy(self) -> float:
        """The share of decisions (in %) played without a mark."""
        marked = self.inaccuracies + self.mistakes + self.blunders
        return 100.0 * (self.decisions - marked) / self.decisions if self.decisions else 100.0


def mark_of(cost: float) -> str | None:
    return next((name for name, at in MARKS if cost >= at), None)


def _value(world: Game, me: int, look: Outlook) -> float:
    if world.over:
        ranking = world.ranking or []
        return -ranking.index(me) / max(1, world.players - 1)
    return -look.places(world.scores, world.out)[me]


def evaluate(ruleset: Ruleset, view: dict[str, Any], played: str, seed: int, worlds: int = 48,
             limit: int = 10, seconds: float | None = None) -> tuple[str, float, dict[str, float]]:
    """(best move, cost of `played` in place points, each candidate's mean) for the seat whose
    `view` this is; a forced move costs nothing. `seconds`: no new world after that much
    wall-clock time (at least one world is played out)."""
    texts: list[str] = list(view.get("legal") or [])
    if len(texts) <= 1:
        return played, 0.0, {}
    if view.get("phase") == "exchange":
        prior = HeuristicBot(0).decide(ruleset, view, [KEEP])
        cands = _exchanges(ruleset, view, set(texts), prior)
    else:
        legal = [parse_action(t) for t in texts]
        prior = HeuristicBot(0).decide(ruleset, view, legal)
        cands = candidates(ruleset, legal, prior, limit)
    if played not in {c.text for c in cands}:
        cands.append(Action(parse_action(played).kind, tuple(played.split()[1:])))
    me = int(view["seat"])
    look = outlook(ruleset, int(view["players"]))
    know = knowledge(ruleset, view)
    rollout = HeuristicBot(0)
    rng = random.Random(seed)
    sums = [0.0] * len(cands)
    n = 0
    stop = time.perf_counter() + seconds if seconds is not None else None
    for _ in range(worlds):
        if stop is not None and n and time.perf_counter() >= stop:
            break
        world = sample_world(know, rng)
        if world is None:
            break
        n += 1
        for i, cand in enumerate(cands):
            twin = world.fork()
            twin.apply(cand)
            while twin.to_act is not None:
                twin.apply(rollout.quick_choose(twin))
            sums[i] += _value(twin, me, look)
    if n == 0:
        return played, 0.0, {}
    means = {c.text: s / n for c, s in zip(cands, sums)}
    best = max(means, key=lambda t: (means[t], t == played))
    return best, max(0.0, 100.0 * (means[best] - means[played])), means


@dataclass(frozen=True)
class Decision:
    """A decision to judge: the seat's view just before it moved (nothing of the other hands) and
    the move it played; `step` is its index in the game's log (the replay's step)."""

    step: int
    seat: int
    deal_no: int
    view: dict[str, Any]
    played: str


def decisions(game: Game) -> list[Decision]:
    """The decisions of a game (replayed from its log) that had a choice: a forced move is not judged."""
    replay = Game(game.ruleset, game.players, dealer=game.first_dealer)
    out: list[Decision] = []
    for step, entry in enumerate(game.log):
        if "deal" in entry:
            replay.deal(hands=entry["deal"]["hands"], stock=entry["deal"]["stock"])
            continue
        seat, played = int(entry["seat"]), str(entry["action"])
        view = replay.view(seat)
        if len(view.get("legal") or []) > 1:
            out.append(Decision(step, seat, replay.deal_no, view, played))
        replay.apply(played, seat=seat)
    return out


def judge(ruleset: Ruleset, decision: Decision, seed: int = 0, worlds: int = 48,
          seconds: float | None = None) -> Judged | None:
    """One decision judged (None when no world could be sampled); the same seed as `analyse` uses."""
    best, cost, values = evaluate(ruleset, decision.view, decision.played, seed * 100_003 + decision.step,
                                  worlds, seconds=seconds)
    if not values:
        return None
    return Judged(decision.step, decision.seat, decision.deal_no, decision.played, best, round(cost, 2),
                  mark_of(cost), values)


def analyse(game: Game, seed: int = 0, worlds: int = 48) -> list[Judged]:
    """Every decision of a game (replayed from its log) judged from its seat's view."""
    judged = (judge(game.ruleset, d, seed, worlds) for d in decisions(game))
    return [j for j in judged if j is not None]


def summarise(judged: Sequence[Judged], players: int) -> list[Summary]:
    return [Summary(seat, sum(1 for j in judged if j.seat == seat),
                    round(sum(j.cost for j in judged if j.seat == seat), 2),
                    sum(1 for j in judged if j.seat == seat and j.mark == "inaccuracy"),
                    sum(1 for j in judged if j.seat == seat and j.mark == "mistake"),
                    sum(1 for j in judged if j.seat == seat and j.mark == "blunder"))
            for seat in range(players)]
