"""The easy bot: the heuristic bot with a beginner's slips, made on purpose.

In about half of its choices (``slip``) it plays as a beginner would instead of as the
heuristic bot judges:

* it leads a small card, to stay out of trouble (keeping its lowest final card);
* following, it ducks a trick it could take, playing its lowest card, as if taking tricks
  were what costs (``duck`` of these slips), or else takes it with its lowest card that
  will do, whether or not a later player will beat it;
* it gives one card fewer away in an exchange (keeping its highest);
* it answers a Rassi round (free cards, double, redouble) on a hunch.

Its moves stay legal and plausible: these are the mistakes people make while they learn
the game, never a card thrown away at random. Measured (`bench/bot_strength.py`): it loses
clearly to the heuristic bot and beats random play by far. Deterministic for its seed.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from app.rules.actions import Action
from app.rules.heuristic import HeuristicBot, HeuristicParams, _Context

__all__ = ["EasyBot"]


class EasyBot(HeuristicBot):
    """See the module docstring."""

    kind = "easy"

    def __init__(self, seed: int | None = None, slip: float = 0.5, duck: float = 0.5,
                 params: HeuristicParams | None = None) -> None:
        super().__init__(seed, params)
        self.slip = slip
        self.duck = duck

    def decide(self, ruleset: Any, view: dict[str, Any], legal: Sequence[Action]) -> Action:
        best = super().decide(ruleset, view, legal)
        if self.rng.random() >= self.slip:
            return best
        kinds = {a.kind for a in legal}
        if "exchange" in kinds:
            return Action("exchange", best.cards[:-1])  # keeps its highest card after all
        if kinds & {"free", "double", "redouble"}:
            return self.rng.choice(list(legal))
        plays = [a for a in legal if a.kind == "play"]
        if len(plays) < 2:
            return best
        seat = view.get("seat")
        ctx = _Context(ruleset, view, seat if seat is not None else -1)
        plays.sort(key=lambda a: (ctx.height(a), -len(a.cards), a.text))
        if ctx.leading:
            return next((a for a in plays if not ctx.uses_keeper(a)), plays[0])
        takes = [a for a in plays if ctx.takes(a)]
        ducks = [a for a in plays if not ctx.takes(a)]
        if takes and ducks and self.rng.random() < self.duck:
            return ducks[0]
        cheap = [a for a in takes if not ctx.uses_keeper(a)] or takes
        return cheap[0] if cheap else best
