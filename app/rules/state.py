"""What a game holds: the seats' standing across deals and the deal in progress, and a fork of
it to try changes on. `app.rules.game.Game` is this state with its moves; the phases of a deal
(dealing.py, exchange.py, play.py, deal_end.py) and legality.py change and read it. Their
underscored attributes are the rules core's own, shared by those modules and by nothing else."""

from __future__ import annotations

from typing import Any, Self

from app.rules import scoring
from app.rules.actions import Action
from app.rules.cards import card_table
from app.rules.ruleset import Ruleset, validate_ruleset
from app.rules.scoring import DealResult
from app.rules.tricks import Trick


class GameState:
    """A game's state (see `app.rules.game.Game` for its moves)."""

    def __init__(self, ruleset: Ruleset, players: int, seed: int | str | None = None,
                 dealer: int = 0) -> None:
        validate_ruleset(ruleset, players)
        if not isinstance(dealer, int) or not 0 <= dealer < players:
            raise ValueError(f"dealer: a seat from 0 to {players - 1}, not {dealer!r}")
        self.ruleset = ruleset
        self.players = players
        self.seed = seed
        self.first_dealer = dealer
        self._table = card_table(ruleset)
        self.dealer = dealer
        self.deal_no = 0
        self.phase = "waiting"
        self.to_act: int | None = None
        self.scores = [0] * players
        self.penalty_cards: list[list[str]] = [[] for _ in range(players)]
        self.agurk = [0] * players
        self.out: list[int] = []
        self._out_set: set[int] = set()
        self.over = False
        self.ranking: list[int] | None = None
        self.deal_log: list[DealResult] = []
        self.log: list[dict[str, Any]] = []
        self.forehand = scoring.next_active(dealer, self._out_set, players)
        self.deal_start = 0
        self._reset_deal_state()

    def fork(self) -> Self:
        """An independent copy to try changes on: changing it never changes this game.

        Cheaper than `copy.deepcopy`: the ruleset, the card table, cards, tuples and finished
        deal results are immutable and shared; every list, dict, set and trick is copied."""
        twin = self.__class__.__new__(self.__class__)
        state = twin.__dict__
        for name, value in self.__dict__.items():
            if name in _SHARED or value is None:
                state[name] = value
            elif name in _LISTS:
                state[name] = value[:]
            elif name in _LISTS_OF_LISTS:
                state[name] = [v[:] for v in value]
            else:
                state[name] = _fork_value(value)
        return twin

    def _reset_deal_state(self) -> None:
        n = self.players
        self.hands: list[list[str]] = [[] for _ in range(n)]
        self.dealt_hands: list[list[str]] = [[] for _ in range(n)]
        self.stock: list[str] = []
        self.exchanged_away: list[str] = []
        self.gave: list[list[str]] = [[] for _ in range(n)]  # by seat: cards it put face down
        self.played: list[str] = []
        self.hand_size = 0
        self.exchanges: list[tuple[int, int]] = []
        self.exchange_limit: int | None = None
        self._prev_exchange = 0
        self.rassi_taken: dict[str, list[int]] = {"free": [], "double": [], "redouble": []}
        self.multipliers = [1] * n
        self._queue: list[int] = []
        self._rassi_round = 0
        self.trick: Trick | None = None
        self.last_trick: Trick | None = None
        self._legal: list[Action] | None = None
        self._legal_by_text: dict[str, Action] | None = None
        self._active: list[int] = [s for s in range(n) if s not in self._out_set]

    @property
    def active(self) -> list[int]:
        """Seats still in the game, in seat order."""
        return [s for s in range(self.players) if s not in self._out_set]

    def _seats_from(self, start: int) -> list[int]:
        act = self._active
        i = act.index(start)
        return act[i:] + act[:i]

    def next_hand_size(self) -> int:
        return self.ruleset.hand_size(self.deal_no)

    @property
    def last_deal(self) -> DealResult | None:
        return self.deal_log[-1] if self.deal_log else None


# How a fork copies each part of a game (by attribute), the generic `_fork_value` aside: a move
# forks the game, so this is on every move's path.
# - shared: immutable values, and caches that are only ever replaced, never changed in place;
_SHARED = frozenset({"ruleset", "players", "seed", "first_dealer", "_table", "dealer", "deal_no", "phase", "to_act",
                     "over", "forehand", "hand_size", "exchange_limit", "_prev_exchange", "_rassi_round", "_legal",
                     "_legal_by_text", "deal_start"})
# - lists of immutable values (cards, seats, points, tuples), copied; among them the lists that
#   only ever grow (the move log, finished deals, cards played): copying each entry of the log
#   made a fork cost as much as the whole game so far;
_LISTS = frozenset({"scores", "agurk", "out", "stock", "multipliers", "_queue", "_active", "ranking", "exchanges",
                    "log", "deal_log", "played", "exchanged_away"})
# - lists of such lists (a hand, a seat's penalty cards), each copied.
_LISTS_OF_LISTS = frozenset({"hands", "dealt_hands", "penalty_cards", "gave"})


def _fork_value(value: Any) -> Any:
    """A copy of one piece of game state, deep enough that no mutable part is shared."""
    if isinstance(value, list):
        if not value or type(value[0]) in (str, int):  # cards or seats (a list holds one kind)
            return value[:]
        return [_fork_value(v) for v in value]
    if isinstance(value, dict):
        return {k: _fork_value(v) for k, v in value.items()}
    if isinstance(value, set):
        return set(value)
    if isinstance(value, Trick):
        return value.fork()
    return value  # int, str, None, tuple, Ruleset, card table, Action, DealResult: immutable
