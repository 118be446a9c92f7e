"""The game: its moves over a game's state (state.py), a deal's phases in their own modules:
dealing.py, the exchange and Rassi (exchange.py, §5 and §6), the tricks (play.py, §4), the
deal's end and scoring (deal_end.py, §3), what is legal and why not (legality.py). Pure: no
I/O; randomness only from a seed or a caller's rng."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from app.rules import legality, scoring
from app.rules.actions import Action, IllegalAction
from app.rules.dealing import checked_deal, shuffled_deal, start_deal
from app.rules.exchange import apply_exchange, apply_rassi
from app.rules.play import apply_play
from app.rules.ruleset import Ruleset, make_ruleset
from app.rules.state import GameState
from app.rules.text import Text
from app.rules.view import build_view
from app.rules.view import seat_view as own_view

__all__ = ["Game", "new_game", "shuffled_deal"]


class Game(GameState):
    """One game of Gurka: see ARCHITECTURE.md "Rules core contract" and ENGINE_API.md."""

    @classmethod
    def between_deals(cls, ruleset: Ruleset, players: int, *, dealer: int, deals_done: int,
                      scores: Sequence[int], out: Sequence[int],
                      penalty_cards: Sequence[Sequence[str]] | None = None,
                      agurk: Sequence[int] | None = None, seed: int | str | None = None) -> Game:
        """A game waiting for its next deal, from the public standing of another game after
        ``deals_done`` deals: dealer, scores, seats out (in the order they went out), penalty
        piles, agurker. A bot builds the worlds it imagines this way; nothing is replayed,
        so the finished deals' log and results are empty. The next ``deal()`` is numbered
        ``deals_done + 1`` and has that deal's hand size (seeded deals: from ``seed``)."""
        game = cls(ruleset, players, seed=seed, dealer=dealer)
        if len(scores) != players or any(not 0 <= s < players for s in out) or len(set(out)) != len(out):
            raise ValueError("between_deals: one score per seat and distinct seats out, please")
        game.deal_no = deals_done
        game.scores = list(scores)
        game.out = list(out)
        game._out_set = set(out)
        if dealer in game._out_set:
            raise ValueError(f"between_deals: the dealer (seat {dealer}) is out")
        game._active = [s for s in range(players) if s not in game._out_set]
        game.forehand = scoring.next_active(dealer, game._out_set, players)
        if penalty_cards is not None:
            game.penalty_cards = [list(p) for p in penalty_cards]
        if agurk is not None:
            game.agurk = list(agurk)
        return game

    # ------------------------------------------------------------------ dealing

    def deal(self, hands: Sequence[Sequence[str]] | None = None,
             stock: Sequence[str] | None = None) -> None:
        """Start the next deal: seeded (pure function of seed and deal number), from the
        system's randomness when the game has no seed, or the explicit hands and stock given
        (hands by seat, ``stock[0]`` drawn first)."""
        if self.over:
            raise IllegalAction(Text("The game is over"))
        if self.phase != "waiting":
            raise IllegalAction(Text("A deal is in progress: finish it before dealing again"))
        if hands is None:
            if stock is not None:
                raise ValueError("stock: give the hands too when giving the stock")
            rng: random.Random = (random.Random(f"{self.seed}/{self.deal_no + 1}")
                                  if self.seed is not None else random.SystemRandom())
            new_hands, new_stock = shuffled_deal(self, rng)
        else:
            new_hands, new_stock = checked_deal(self, hands, stock or [])
        start_deal(self, new_hands, new_stock)

    # ------------------------------------------------------------------ legal actions

    def legal_actions(self) -> list[Action]:
        """Every legal action for ``to_act`` (every distinct card combination)."""
        legal = self._legal
        if legal is None:
            legal = self._legal = legality.compute_legal(self)
        return list(legal)

    # ------------------------------------------------------------------ check / apply

    def check(self, action: Action | str, seat: int | None = None) -> str | None:
        """The refusal message for ``action`` (None when legal); the state is unchanged."""
        return legality.resolve(self, action, seat)[1]

    def apply(self, action: Action | str, seat: int | None = None) -> Action:
        """Play ``action`` for ``to_act``; illegal -> IllegalAction, state unchanged."""
        legal = self._legal
        if legal is None:
            # an exchange is checked without listing every exchange (2^14 with two decks)
            legal = [] if self.phase == "exchange" else legality.compute_legal(self)
            self._legal = legal or None
        chosen: Action | None = None
        if action.__class__ is Action and (seat is None or seat == self.to_act):
            for candidate in legal:
                if candidate is action:
                    chosen = candidate
                    break
        if chosen is None:
            found, message = legality.resolve(self, action, seat)
            if found is None:
                raise IllegalAction(message or Text("That action is not allowed"))
            chosen = found
        actor = self.to_act
        assert actor is not None
        self.log.append({"seat": actor, "action": chosen.text})
        self._legal = None
        kind = chosen.kind
        if kind == "play":
            apply_play(self, actor, chosen)
        elif kind == "exchange":
            apply_exchange(self, actor, chosen)
        else:
            apply_rassi(self, actor, chosen)
        return chosen

    # ------------------------------------------------------------------ views, JSON

    def view(self, seat: int | None = None) -> dict[str, Any]:
        return build_view(self, seat)

    def seat_view(self, seat: int | None) -> dict[str, Any]:
        """The part of `view(seat)` that is the seat's own: `seat`, `hand`, `legal`, `why_not`
        and `gave`; every other entry is the same in every seat's view as in `view(None)`."""
        return own_view(self, seat)

    def to_json(self) -> dict[str, Any]:
        """Configuration plus the log: restoring replays the log exactly."""
        return {
            "format": 1,
            "ruleset": self.ruleset.as_dict(),
            "players": self.players,
            "seed": self.seed,
            "dealer": self.first_dealer,
            "log": [dict(entry) for entry in self.log],
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Game:
        game = cls(Ruleset.from_dict(data["ruleset"]), data["players"], seed=data.get("seed"),
                   dealer=data.get("dealer", 0))
        for entry in data["log"]:
            if "deal" in entry:
                game.deal(hands=entry["deal"]["hands"], stock=entry["deal"]["stock"])
            else:
                game.apply(entry["action"], seat=entry["seat"])
        return game

    def __repr__(self) -> str:
        return (f"<Game {self.ruleset.name} players={self.players} deal={self.deal_no} "
                f"phase={self.phase} to_act={self.to_act}>")


def new_game(preset: str | Ruleset, players: int, seed: int | str | None = None,
             dealer: int = 0, **options: Any) -> Game:
    """A new game from a preset name (or Ruleset) with host options (RULES.md §3)."""
    ruleset = make_ruleset(preset, players, **options)
    return Game(ruleset, players, seed=seed, dealer=dealer)
