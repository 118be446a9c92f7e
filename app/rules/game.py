"""The game state machine: deals, exchange (§5), Rassi (§6), tricks (§4), deal end and
scoring (§3), game end. Pure: no I/O; randomness only from a seed or a caller's rng."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from itertools import combinations
from typing import Any

from app.rules import scoring, tricks
from app.rules.actions import Action, IllegalAction, parse_action
from app.rules.cards import PICTURE_RANKS, card_table, is_joker, normalize_card, pretty
from app.rules.ruleset import Ruleset, make_ruleset, validate_ruleset
from app.rules.scoring import DealResult
from app.rules.text import Text
from app.rules.tricks import Trick
from app.rules.view import build_view
from app.rules.view import seat_view as own_view

KEEP = Action("exchange")
PASS = Action("pass")
RASSI_ROUNDS = (("rassi_free", "free"), ("rassi_double", "double"),
                ("rassi_redouble", "redouble"))
RASSI_ACTION = {"free": Action("free"), "double": Action("double"),
                "redouble": Action("redouble")}
RASSI_WORDS = {"free": Text("Now is the free round: free cards (exchange all your cards) or pass"),
               "double": Text("Now is the double round: double (exchange all your cards, losing scores ×2) or pass"),
               "redouble": Text("Now is the redouble round: redouble (exchange all your cards again, "
                                "losing scores ×4) or pass")}


class Game:
    """One game of Gurka: see ARCHITECTURE.md "Rules core contract" and ENGINE_API.md."""

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

    def fork(self) -> Game:
        """An independent copy to try changes on: changing it never changes this game.

        Cheaper than `copy.deepcopy`: the ruleset, the card table, cards, tuples and finished
        deal results are immutable and shared; every list, dict, set and trick is copied."""
        twin = Game.__new__(Game)
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

    # ------------------------------------------------------------------ helpers

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
            new_hands, new_stock = self._checked_deal(hands, stock or [])
        self._start_deal(new_hands, new_stock)

    def _checked_deal(self, hands: Sequence[Sequence[str]],
                      stock: Sequence[str]) -> tuple[list[list[str]], list[str]]:
        size = self.next_hand_size()
        if len(hands) != self.players:
            raise ValueError(f"hands: give one hand per seat ({self.players}), got {len(hands)}")
        table = self._table
        clean_hands: list[list[str]] = []
        for seat, hand in enumerate(hands):
            cards = [normalize_card(c) for c in hand]
            want = 0 if seat in self._out_set else size
            if len(cards) != want:
                who = "is out and gets no cards" if want == 0 else f"must get {size} cards"
                raise ValueError(f"hands: seat {seat} {who}, got {len(cards)}")
            clean_hands.append(cards)
        clean_stock = [normalize_card(c) for c in stock]
        available = Counter(table.deck)
        for card, count in Counter(c for h in clean_hands for c in h).items():
            self._check_copies(card, count, available)
        used = Counter(c for h in clean_hands for c in h)
        for card, count in Counter(clean_stock).items():
            self._check_copies(card, count + used[card], available)
        return clean_hands, clean_stock

    def _check_copies(self, card: str, count: int, available: Counter[str]) -> None:
        if card not in self._table.valid:
            raise ValueError(f"{card!r} is not a card of this game")
        if count > available[card]:
            copies = available[card]
            raise ValueError(
                f"{card} is dealt {count} times but the deck holds {copies} "
                f"cop{'y' if copies == 1 else 'ies'}"
            )

    def _start_deal(self, hands: list[list[str]], stock: list[str]) -> None:
        self._reset_deal_state()
        self.deal_no += 1
        self.hand_size = self.ruleset.hand_size(self.deal_no - 1)
        self.log.append({"deal": {"hands": [list(h) for h in hands], "stock": list(stock)}})
        self.deal_start = len(self.log)  # this deal's moves are log[deal_start:]
        sort = self._table.sort
        self.hands = [sort(h) for h in hands]
        self.dealt_hands = [list(h) for h in self.hands]
        self.stock = list(stock)
        if self.ruleset.exchange:
            self.phase = "exchange"
            self._prev_exchange = self.hand_size
            self._queue = self._seats_from(self.forehand)
            self._advance_exchange()
        elif self.ruleset.rassi:
            self._rassi_round = 0
            self.phase = "rassi_free"
            self._queue = [s for s in self._seats_from(self.forehand)
                           if not any(c[0] in PICTURE_RANKS for c in self.hands[s])]
            self._advance_rassi()
        else:
            self._start_play()

    # ------------------------------------------------------------------ exchange (§5), Rassi (§6)

    def _advance_exchange(self) -> None:
        while self._queue:
            seat = self._queue.pop(0)
            limit = min(self._prev_exchange, len(self.stock))
            if limit > 0:
                self.to_act = seat
                self.exchange_limit = limit
                return
            self._queue.clear()
        self.exchange_limit = None
        self._start_play()

    def _advance_rassi(self) -> None:
        while True:
            while self._queue:
                seat = self._queue.pop(0)
                if len(self.stock) >= self.hand_size:
                    self.to_act = seat
                    return
                self._queue.clear()
            self._rassi_round += 1
            if self._rassi_round == 1:
                self.phase = "rassi_double"
                self._queue = self._seats_from(self.forehand)
            elif self._rassi_round == 2:
                self.phase = "rassi_redouble"
                doubled = set(self.rassi_taken["double"])
                self._queue = [s for s in self._seats_from(self.forehand) if s in doubled]
            else:
                self._start_play()
                return

    def _draw(self, n: int) -> list[str]:
        drawn = self.stock[:n]
        del self.stock[:n]
        return drawn

    def _apply_exchange(self, seat: int, action: Action) -> None:
        hand = self.hands[seat]
        for card in action.cards:
            hand.remove(card)
        n = len(action.cards)
        self.exchanged_away.extend(action.cards)
        self.gave[seat].extend(action.cards)
        hand.extend(self._draw(n))
        self.hands[seat] = self._table.sort(hand)
        self.exchanges.append((seat, n))
        self._prev_exchange = n
        self._advance_exchange()

    def _apply_rassi(self, seat: int, action: Action) -> None:
        if action.kind != "pass":
            self.exchanged_away.extend(self.hands[seat])
            self.gave[seat].extend(self.hands[seat])
            self.hands[seat] = self._table.sort(self._draw(self.hand_size))
            self.rassi_taken[action.kind].append(seat)
            if action.kind == "double":
                self.multipliers[seat] = 2
            elif action.kind == "redouble":
                self.multipliers[seat] = 4
        self._advance_rassi()

    # ------------------------------------------------------------------ tricks (§4)

    def _start_play(self) -> None:
        self.phase = "play"
        self.to_act = None
        self._start_trick(self.forehand)

    def _start_trick(self, leader: int) -> None:
        """Players holding one card sit out; when all hold one: final trick or show (§4.5)."""
        hands = self.hands
        order = self._seats_from(leader)
        playing = [s for s in order if len(hands[s]) > 1]
        if not playing:
            if self.ruleset.deal_end == "final_trick":
                self.trick = Trick(leader, order, True)
                self.to_act = leader
            else:
                self._end_deal()
            return
        self.trick = Trick(playing[0], playing, False)
        self.to_act = playing[0]

    def _apply_play(self, seat: int, action: Action) -> None:
        cards = action.cards
        hand = self.hands[seat]
        trick = self.trick
        assert trick is not None
        height = self._table.final_height if trick.final else self._table.height
        lowest = height[cards[0]] == height[hand[0]]
        for card in cards:
            hand.remove(card)
        if trick.pos == 0:
            tricks.record_lead(trick, cards, self._table, self.ruleset)
        else:
            tricks.record_follow(trick, seat, cards, self._table, self.ruleset, lowest)
        trick.pos += 1
        if trick.pos < len(trick.order):
            self.to_act = trick.order[trick.pos]
            return
        for _, played, _ in trick.plays:
            self.played.extend(played)
        self.last_trick = trick
        if trick.final:
            self.to_act = None
            self._end_deal()
        else:
            self._start_trick(trick.winner)

    # ------------------------------------------------------------------ deal end (§3)

    def _end_deal(self) -> None:
        r = self.ruleset
        n = self.players
        table = self._table
        final: dict[int, str] = {}
        trick = self.trick
        if r.deal_end == "final_trick" and trick is not None and trick.final:
            for seat, played_cards, _ in trick.plays:
                final[seat] = played_cards[0]
            losers = [trick.winner]
        else:
            for seat in self._active:
                final[seat] = self.hands[seat][0]
                self.played.append(self.hands[seat][0])
            losers = scoring.losers_by_show(final, table.final_height, self.forehand, n)
        cards = [final[s] for s in losers]
        mults = [self.multipliers[s] for s in losers]
        points = [table.final_points(c) * m for c, m in zip(cards, mults)]
        cleared: list[int] = []
        for seat, card, pts in zip(losers, cards, points):
            self.scores[seat] += pts
            self.penalty_cards[seat].append(card)
            if r.exact_clear and self.scores[seat] == r.target:
                self.scores[seat] = 0
                self.penalty_cards[seat] = []
                cleared.append(seat)
        agurk = [s for s in scoring.order_from(0, list(final), n) if is_joker(final[s])]
        for seat in agurk:
            self.agurk[seat] += 1
        going = [s for s in self._active if scoring.is_out(self.scores[s], r)]
        start = self.forehand
        going.sort(key=lambda s: (-self.scores[s], (s - start) % n))
        self.out.extend(going)
        self._out_set.update(going)
        self._active = [s for s in range(n) if s not in self._out_set]
        result = DealResult(
            deal_no=self.deal_no, dealer=self.dealer, losers=tuple(losers), cards=tuple(cards),
            points=tuple(points), multipliers=tuple(mults), agurk=tuple(agurk),
            final_cards=tuple(final.get(s) for s in range(n)), cleared=tuple(cleared),
            went_out=tuple(going),
        )
        self.deal_log.append(result)
        self.hands = [[] for _ in range(n)]
        self.trick = None
        self.to_act = None
        self._legal = None
        if scoring.game_is_over(r, going, self.out, n):
            self.over = True
            self.phase = "over"
            self.ranking = scoring.ranking_when_over(r, self.scores, self.out, n)
            return
        self.phase = "waiting"
        self.dealer = scoring.next_dealer(r, self.dealer, tuple(losers), self._out_set, n)
        self.forehand = scoring.next_active(self.dealer, self._out_set, n)

    # ------------------------------------------------------------------ legal actions

    def legal_actions(self) -> list[Action]:
        """Every legal action for ``to_act`` (every distinct card combination)."""
        legal = self._legal
        if legal is None:
            legal = self._legal = self._compute_legal()
        return list(legal)

    def _compute_legal(self) -> list[Action]:
        seat = self.to_act
        self._legal_by_text = None
        if seat is None:
            return []
        phase = self.phase
        hand = self.hands[seat]
        if phase == "play":
            trick = self.trick
            assert trick is not None
            if trick.pos == 0:
                return tricks.lead_options(hand, trick, self._table, self.ruleset)
            if trick.final:
                return [tricks.play_one(hand[0])]
            return tricks.follow_options(hand, trick, self._table, self.ruleset)
        if phase == "exchange":
            out = [KEEP]
            for k in range(1, (self.exchange_limit or 0) + 1):
                out.extend(Action("exchange", c) for c in dict.fromkeys(combinations(hand, k)))
            return out
        kind = RASSI_ROUNDS[self._rassi_round][1]
        return [RASSI_ACTION[kind], PASS]

    # ------------------------------------------------------------------ check / apply

    def check(self, action: Action | str, seat: int | None = None) -> str | None:
        """The refusal message for ``action`` (None when legal); the state is unchanged."""
        return self._resolve(action, seat)[1]

    def apply(self, action: Action | str, seat: int | None = None) -> Action:
        """Play ``action`` for ``to_act``; illegal -> IllegalAction, state unchanged."""
        legal = self._legal
        if legal is None:
            # an exchange is checked without listing every exchange (2^14 with two decks)
            legal = [] if self.phase == "exchange" else self._compute_legal()
            self._legal = legal or None
        chosen: Action | None = None
        if action.__class__ is Action and (seat is None or seat == self.to_act):
            for candidate in legal:
                if candidate is action:
                    chosen = candidate
                    break
        if chosen is None:
            found, message = self._resolve(action, seat)
            if found is None:
                raise IllegalAction(message or Text("That action is not allowed"))
            chosen = found
        actor = self.to_act
        assert actor is not None
        self.log.append({"seat": actor, "action": chosen.text})
        self._legal = None
        kind = chosen.kind
        if kind == "play":
            self._apply_play(actor, chosen)
        elif kind == "exchange":
            self._apply_exchange(actor, chosen)
        else:
            self._apply_rassi(actor, chosen)
        return chosen

    def _resolve(self, action: Action | str,
                 seat: int | None) -> tuple[Action | None, str | None]:
        """Find the legal action meant, or say why there is none."""
        if self.over:
            return None, Text("The game is over")
        if self.phase == "waiting" or self.to_act is None:
            return None, Text("No deal in progress: deal first")
        if seat is not None and seat != self.to_act:
            return None, Text("It is not your turn: waiting for seat %(seat)s", seat=self.to_act)
        try:
            parsed = parse_action(action) if isinstance(action, str) else action
        except IllegalAction as exc:
            return None, exc.args[0] if exc.args and isinstance(exc.args[0], Text) else str(exc)
        for card in parsed.cards:
            if card not in self._table.valid:
                return None, Text("%(card)s is not a card of this game (rank 2-9 T J Q K A + "
                                  "suit C D H S, jokers X1 X2)", card=repr(card))
        canonical = parsed if len(parsed.cards) < 2 else Action(parsed.kind, tuple(self._table.sort(parsed.cards)))
        if self.phase == "exchange" and self._legal is None:
            hand = self.hands[self.to_act]
            if (canonical.kind == "exchange" and len(canonical.cards) <= (self.exchange_limit or 0)
                    and tricks.missing_card(canonical.cards, hand) is None):
                return canonical, None
            return None, self._explain(canonical)
        if self._legal is None:
            self._legal = self._compute_legal()
        if self._legal_by_text is None:
            self._legal_by_text = {a.text: a for a in self._legal}
        found = self._legal_by_text.get(canonical.text)
        if found is not None:
            return found, None
        return None, self._explain(canonical)

    def _explain(self, action: Action) -> str:
        seat = self.to_act
        assert seat is not None
        hand = self.hands[seat]
        phase = self.phase
        if phase == "play":
            if action.kind != "play":
                return Text("Now is the play: play a card (play C)")
            if not action.cards:
                return Text("Say which card to play (play C)")
            missing = tricks.missing_card(action.cards, hand)
            if missing is not None:
                return Text("You don't hold %(card)s", card=pretty(missing))
            trick = self.trick
            assert trick is not None
            if trick.pos == 0:
                return tricks.explain_lead(action.cards, hand, trick, self._table, self.ruleset)
            return tricks.explain_follow(action.cards, hand, trick, self._table, self.ruleset)
        if phase == "exchange":
            if action.kind != "exchange":
                return Text("Now is the exchange: exchange some cards, or keep your hand (exchange)")
            missing = tricks.missing_card(action.cards, hand)
            if missing is not None:
                return Text("You don't hold %(card)s", card=pretty(missing))
            limit = self.exchange_limit or 0
            if self.exchanges and self._prev_exchange == limit:
                reason = Text("the player before you exchanged %(n)s", n=self._prev_exchange)
            elif len(self.stock) == 1:
                reason = Text("the stock has %(n)s card", n=len(self.stock))
            else:
                reason = Text("the stock has %(n)s cards", n=len(self.stock))
            return Text("You may exchange at most %(limit)s cards: %(reason)s", limit=limit, reason=reason)
        kind = RASSI_ROUNDS[self._rassi_round][1]
        return RASSI_WORDS[kind]

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


def shuffled_deal(game: Game, rng: random.Random) -> tuple[list[list[str]], list[str]]:
    """Shuffle the whole deck with ``rng`` and deal the next hand size to every active seat,
    clockwise from forhånd; the rest is the stock (for live rooms: ``secrets.SystemRandom()``)."""
    deck = list(game._table.deck)
    rng.shuffle(deck)
    size = game.next_hand_size()
    hands: list[list[str]] = [[] for _ in range(game.players)]
    pos = 0
    for seat in game._seats_from(game.forehand):
        hands[seat] = deck[pos:pos + size]
        pos += size
    return hands, deck[pos:]


def new_game(preset: str | Ruleset, players: int, seed: int | str | None = None,
             dealer: int = 0, **options: Any) -> Game:
    """A new game from a preset name (or Ruleset) with host options (RULES.md §3)."""
    ruleset = make_ruleset(preset, players, **options)
    return Game(ruleset, players, seed=seed, dealer=dealer)


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
