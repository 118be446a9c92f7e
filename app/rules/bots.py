"""Game bots by level: ``make_bot(kind, seed=...)`` and the registry ``BOTS``.

* ``random``: a uniformly random legal action (for tests and measurements);
* ``easy``: the heuristic bot with a beginner's slips, made on purpose (`app.rules.easy`);
* ``heuristic``: plays like a sensible person, the medium level (`app.rules.heuristic`);
* ``strong``: searches the worlds its seat cannot tell apart (`app.rules.search`).

Every bot answers ``bot.choose(game) -> Action`` for the seat to act and reads only what
that seat may know: ``game.view(game.to_act)``, ``game.legal_actions()`` and
``game.ruleset``; no bot keeps memory between calls, so a room can hand a seat to one at any
moment. Each is deterministic for its seed (the strong one only with its time limit off).
"""

from __future__ import annotations

import random
from typing import Any

from app.rules.actions import Action, parse_action
from app.rules.easy import EasyBot
from app.rules.exchange import KEEP
from app.rules.heuristic import Bot, HeuristicBot, HeuristicParams, RandomBot
from app.rules.ruleset import Ruleset
from app.rules.search import Budget, search

__all__ = [
    "BOTS",
    "LEVELS",
    "Bot",
    "Budget",
    "EasyBot",
    "HeuristicBot",
    "HeuristicParams",
    "RandomBot",
    "StrongBot",
    "make_bot",
    "move_for_view",
]


class StrongBot(Bot):
    """Searches sampled worlds with heuristic rollouts (`app.rules.search`), within
    ``budget`` per decision."""

    kind = "strong"

    def __init__(self, seed: int | None = None, budget: Budget | None = None) -> None:
        super().__init__(seed)
        self.budget = budget or Budget()

    def choose(self, game: Any) -> Action:
        legal: list[Action] = game.legal_actions()
        if not legal:
            raise ValueError("No legal action: it is nobody's turn")
        if len(legal) == 1:
            return legal[0]
        view = game.view(game.to_act)
        chosen = search(game.ruleset, view, self.rng.randrange(2**32), self.budget).action
        return next((a for a in legal if a.text == chosen.text), chosen)


BOTS: dict[str, type[Bot]] = {
    "random": RandomBot,
    "easy": EasyBot,
    "heuristic": HeuristicBot,
    "strong": StrongBot,
}

# The levels a host may choose for a bot seat, weakest first (``random`` is for tests).
LEVELS: tuple[str, ...] = ("easy", "heuristic", "strong")


def make_bot(kind: str, seed: int | None = None) -> Bot:
    """A bot of the given kind (a key of ``BOTS``)."""
    try:
        cls = BOTS[kind]
    except KeyError:
        raise ValueError(f"Unknown bot {kind!r}: choose one of {', '.join(sorted(BOTS))}") from None
    return cls(seed)


def move_for_view(kind: str, ruleset: Ruleset, view: dict[str, Any], seed: int,
                  budget: Budget | None = None) -> str:
    """The move (its notation) a bot of ``kind`` makes for the seat whose ``view`` this is,
    from the view alone: what a worker process is given (never the game, whose other hands
    it must not see). Deterministic for the seed (the strong bot: with its time limit off)."""
    texts: list[str] = list(view.get("legal") or [])
    if not texts:
        raise ValueError("No legal action: it is not this seat's turn")
    if kind not in BOTS:
        raise ValueError(f"Unknown bot {kind!r}: choose one of {', '.join(sorted(BOTS))}")
    if len(texts) == 1:
        return texts[0]
    if kind == "random":
        return random.Random(seed).choice(texts)
    if kind == "strong":
        return search(ruleset, view, seed, budget or Budget()).action.text
    # an exchange is chosen from the hand and the limit, not from its 2^k listed options
    legal = [KEEP] if view.get("phase") == "exchange" else [parse_action(t) for t in texts]
    bot = EasyBot(seed) if kind == "easy" else HeuristicBot(seed)
    return bot.decide(ruleset, view, legal).text
