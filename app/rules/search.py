"""The strong bot's thinking: a search over the worlds its seat cannot tell apart.

For the seat to act, from its view alone (`app.rules.worlds`):

1. a few **candidate** actions: every legal play (or, when there are very many, a spread of
   them), the sensible exchanges (the k highest cards, with or without the top cards), both
   answers to a Rassi round; the heuristic bot's own choice always among them;
2. **worlds**: the hidden hands and the stock dealt at random, consistently with everything
   the table saw, the deal's public moves replayed on them;
3. in each world, each candidate is played and the deal is **played out** by the heuristic
   bot for every seat (the fast rollout policy: it reads each seat's own hand only), the
   same worlds for every candidate (common random numbers: the candidates' difference is
   their own, not the luck of the deal);
4. the end of the deal is scored **for the game**: this seat's expected final place from
   the standing the deal leaves (`app.rules.outlook`), or its actual place when the deal
   ended the game;
5. candidates clearly behind (three standard errors of the paired difference) are dropped
   along the way; the best average wins, the heuristic choice on a tie.

This is perfect-information Monte Carlo with one step of lookahead over the heuristic
policy (a rollout-based policy improvement), as Skat and bridge programs use, and a flat
cousin of information-set MCTS. The budget caps the worlds per decision and, if asked, the
wall-clock time, checked before each candidate's play-out (off in tests: then a decision is
a pure function of the view and seed).
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from app.rules.actions import Action, parse_action
from app.rules.cards import card_table
from app.rules.exchange import KEEP
from app.rules.game import Game
from app.rules.heuristic import HeuristicBot
from app.rules.outlook import Outlook, outlook
from app.rules.ruleset import Ruleset
from app.rules.worlds import knowledge, sample_world

__all__ = ["Budget", "Decision", "decide", "search"]


@dataclass(frozen=True)
class Budget:
    """How much thinking one decision may take: at most ``worlds`` sampled worlds and, when
    ``seconds`` is set, no new world after that much wall-clock time (then the result
    depends on the machine's speed: tests and replays leave it off)."""

    worlds: int = 96
    seconds: float | None = None
    candidates: int = 10  # plays considered at most (a spread when there are more)
    min_worlds: int = 12  # before candidates may be dropped


@dataclass
class Decision:
    """What a search chose and why: the action, the worlds it played, each candidate's
    mean value (minus the expected final place, 0 best to -1 worst) and the fallback."""

    action: Action
    worlds: int
    values: dict[str, float] = field(default_factory=dict)
    heuristic: Action | None = None
    seconds: float = 0.0


def decide(ruleset: Ruleset, view: dict[str, Any], seed: int, budget: Budget = Budget()) -> Action:
    """The strong bot's action for the seat whose ``view`` this is (its turn)."""
    return search(ruleset, view, seed, budget).action


def search(ruleset: Ruleset, view: dict[str, Any], seed: int, budget: Budget = Budget(),
           clock: Callable[[], float] = time.perf_counter) -> Decision:
    """See the module docstring."""
    start = clock()
    texts: list[str] = list(view.get("legal") or [])
    if not texts:
        raise ValueError("No legal action: it is not this seat's turn")
    if len(texts) == 1:
        only = parse_action(texts[0])
        return Decision(only, 0, heuristic=only)
    if view.get("phase") == "exchange":  # up to 2^14 of them: not every one is parsed
        prior = HeuristicBot(0).decide(ruleset, view, [KEEP])
        cands = _exchanges(ruleset, view, set(texts), prior)
    else:
        legal = [parse_action(text) for text in texts]
        prior = HeuristicBot(0).decide(ruleset, view, legal)
        cands = candidates(ruleset, legal, prior, budget.candidates)
    if len(cands) == 1:
        return Decision(cands[0], 0, heuristic=prior)
    me = int(view["seat"])
    players = int(view["players"])
    know = knowledge(ruleset, view)
    look = outlook(ruleset, players)
    rollout = HeuristicBot(0)
    rng = random.Random(seed)
    values: list[list[float]] = [[] for _ in cands]
    live = list(range(len(cands)))
    worlds = 0
    deadline = start + budget.seconds if budget.seconds is not None else None
    while worlds < budget.worlds and len(live) > 1:
        if deadline is not None and worlds and clock() >= deadline:
            break
        world = sample_world(know, rng)
        if world is None:
            break
        worlds += 1
        played: list[int] = []
        for i in live:
            if deadline is not None and worlds > 1 and clock() >= deadline:
                break
            twin = world.fork() if i != live[-1] else world
            twin.apply(cands[i])
            while twin.to_act is not None:
                twin.apply(rollout.quick_choose(twin))
            values[i].append(_value(twin, me, look))
            played.append(i)
        if len(played) < len(live):  # time is up: this world is left unfinished, uncounted
            for j in played:
                values[j].pop()
            worlds -= 1
            break
        if worlds >= budget.min_worlds and worlds % 4 == 0:
            live = _keep_contenders(live, values, worlds)
    means = {i: _mean(values[i][:worlds]) for i in range(len(cands)) if values[i]}
    if not means:
        return Decision(prior, 0, heuristic=prior, seconds=clock() - start)
    best = max(live, key=lambda i: (means.get(i, -2.0), cands[i] == prior))
    return Decision(cands[best], worlds, {cands[i].text: m for i, m in means.items()},
                    heuristic=prior, seconds=clock() - start)


def _value(world: Game, me: int, look: Outlook) -> float:
    """Minus this seat's (expected) final place from where the deal left the game."""
    if world.over:
        ranking = world.ranking or []
        return -ranking.index(me) / max(1, world.players - 1)
    return -look.places(world.scores, world.out)[me]


def _mean(xs: Sequence[float]) -> float:
    return sum(xs) / len(xs) if xs else 0.0


def _keep_contenders(live: list[int], values: list[list[float]], n: int) -> list[int]:
    """Drop the candidates whose paired difference to the best so far is more than three
    standard errors below zero (the worlds are shared, so the pairs are fair)."""
    best = max(live, key=lambda i: _mean(values[i][:n]))
    keep = []
    for i in live:
        if i == best:
            keep.append(i)
            continue
        diffs = [a - b for a, b in zip(values[i][:n], values[best][:n])]
        mean = _mean(diffs)
        var = sum((d - mean) ** 2 for d in diffs) / max(1, n - 1)
        if mean + 3.0 * (var / n) ** 0.5 >= 0.0 or mean > -1e-9:
            keep.append(i)
    return keep


# ---------------------------------------------------------------------- candidates


def candidates(ruleset: Ruleset, legal: Sequence[Action], prior: Action, limit: int) -> list[Action]:
    """The plays or Rassi answers worth searching (see the module docstring), the
    heuristic's first."""
    chosen = list(legal) if len(legal) <= limit else _spread(ruleset, legal, prior, limit)
    chosen.sort(key=lambda a: a != prior)
    return chosen


def _exchanges(ruleset: Ruleset, view: dict[str, Any], legal: set[str], prior: Action) -> list[Action]:
    """Keep the hand, or give away the k highest cards (k up to the limit), with or without
    the top cards and jokers (the strongest ammunition); never the keeper alone of its kind."""
    table = card_table(ruleset)
    hand = list(view.get("hand") or [])
    keeper = min(hand, key=lambda c: (table.final_height[c], table.height[c], c)) if hand else None
    rest = sorted((c for c in hand if c != keeper or hand.count(c) > 1),
                  key=lambda c: (-table.height[c], c))
    if keeper is not None and keeper in rest and hand.count(keeper) > 1:
        rest.remove(keeper)  # one copy of the keeper stays
    plain = [c for c in rest if table.height[c] <= 14]
    chosen: dict[str, Action] = {prior.text: prior}
    limit = int((view.get("exchange") or {}).get("max") or 0)
    for pool in (rest, plain):
        for k in range(min(limit, len(pool)) + 1):
            action = Action("exchange", tuple(table.sort(pool[:k])))
            if action.text in legal:
                chosen.setdefault(action.text, action)
    return list(chosen.values())


def _spread(ruleset: Ruleset, legal: Sequence[Action], prior: Action, limit: int) -> list[Action]:
    """At most ``limit`` plays: one per shape (how many cards, lowest and highest height),
    then evenly spread over height, the heuristic's choice always kept."""
    table = card_table(ruleset)
    shapes: dict[tuple[int, int, int], Action] = {}
    for a in legal:
        hs = [table.height[c] for c in a.cards]
        shapes.setdefault((len(a.cards), min(hs, default=0), max(hs, default=0)), a)
    pool = sorted(shapes.values(), key=lambda a: (len(a.cards), [table.height[c] for c in a.cards]))
    if len(pool) > limit - 1:
        step = len(pool) / (limit - 1)
        pool = [pool[int(i * step)] for i in range(limit - 1)]
    chosen = {prior.text: prior}
    for a in pool:
        chosen.setdefault(a.text, a)
    return list(chosen.values())
