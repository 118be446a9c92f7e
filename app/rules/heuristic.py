"""The bots' base class, a random-legal bot and a heuristic bot that plays like a sensible
person (the medium level; `app.rules.bots` lists every level).

A bot answers ``bot.choose(game) -> Action`` for the seat to act. It reads only what that
seat may know: ``game.view(game.to_act)``, ``game.legal_actions()`` and ``game.ruleset``.
It never looks at other hands, the stock or the log, so a room can hand a seat to a bot at
any moment (the bots keep no memory between calls). The heuristic bot's thinking is
``HeuristicBot.decide(ruleset, view, legal)``: it reads only the view's ``hand``, ``trick``,
``last_trick``, ``players``, ``hand_counts``, ``out`` and ``penalty_cards``, so a search can
use it as its rollout policy with a view built cheaply (`app.rules.search`).

How the heuristic bot thinks (RULES.md §1, §4–6):

* The deal is lost on the final card: the seat holding (or playing) the highest final card
  takes it. So the bot keeps a *keeper*, its lowest card by final height (in Rassi an ace is
  low at the end), and tries never to be forced to discard it.
* A forced discard always throws the lowest card, so what hurts is being unable to beat.
  High cards are ammunition: they beat, and led, they force the others to throw their low
  cards. The bot beats whenever it can, with the cheapest card that will hold the trick
  (the cheapest beating card at all when nobody after it can take it), keeping its top cards
  to lead with; when it cannot beat it sheds the highest card the rules allow (soft discard,
  lay on).
* Leading: the cheapest card that the others probably cannot beat, else its highest card.
  Sets (vidivellir) and multiples (gurka-is) shed several cards at once: a high pair makes
  everyone throw two low cards; in gurka-is shedding faster means sitting out earlier with
  the keeper in hand. In gurka-night a led 8 makes everyone throw their lowest card.
* Exchange (vidivellir, gurka-is): gives away its highest cards (the top fifth of the deck).
* Rassi: takes free cards with a poor hand, doubles (a fresh hand at double stakes) only
  with a clearly bad hand and redoubles only with a hopeless one.
"""

from __future__ import annotations

import random
from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from app.rules.actions import Action
from app.rules.cards import CardTable, card_table

__all__ = ["Bot", "HeuristicBot", "HeuristicParams", "RandomBot"]


class _GameLike(Protocol):
    """The part of a game a bot may use."""

    @property
    def to_act(self) -> int | None: ...

    @property
    def ruleset(self) -> Any: ...

    def view(self, seat: int | None) -> dict[str, Any]: ...

    def legal_actions(self) -> list[Action]: ...


class Bot:
    """Base class: ``choose(game)`` returns one of ``game.legal_actions()``."""

    kind = "bot"

    def __init__(self, seed: int | None = None) -> None:
        self.seed = seed
        self.rng = random.Random(seed)

    def choose(self, game: _GameLike) -> Action:  # pragma: no cover - abstract
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"{type(self).__name__}(seed={self.seed!r})"


class RandomBot(Bot):
    """Plays a uniformly random legal action."""

    kind = "random"

    def choose(self, game: _GameLike) -> Action:
        legal = game.legal_actions()
        if not legal:
            raise ValueError("No legal action: it is nobody's turn")
        return legal[0] if len(legal) == 1 else self.rng.choice(legal)


@dataclass(frozen=True)
class HeuristicParams:
    """Tunable knobs of the heuristic bot (defaults were tuned against random bots)."""

    hold_follow: float = 0.5  # beat with the cheapest card holding the trick this likely
    hold_lead: float = 0.6  # lead the cheapest card the others cannot beat this likely
    set_lead_quantile: float = 0.5  # vidivellir: lead a set at least this high in the deck
    exchange_quantile: float = 0.8  # exchange cards above this quantile of the deck
    exchange_keep_top: bool = False  # keep top cards (unbeatable ammunition) in the exchange
    lead_eight: bool = True  # gurka-night: lead an 8 to make everyone throw their lowest
    free_below: int = 6  # Rassi: take free cards when the 2nd lowest final card is >= this
    double_at: int = 10  # Rassi: double when the 2nd lowest final card is >= this
    redouble_at: int = 12  # Rassi: redouble when the 2nd lowest final card is >= this
    follow_fallback_high: bool = True  # no beating card is likely to hold: beat high (or cheap)
    lead_fallback_high: bool = True  # no lead is likely to hold: lead high (or cheap)


class HeuristicBot(Bot):
    """Plays like a sensible person; see the module docstring."""

    kind = "heuristic"

    def __init__(self, seed: int | None = None, params: HeuristicParams | None = None) -> None:
        super().__init__(seed)
        self.params = params or HeuristicParams()

    # ------------------------------------------------------------------ entry point
    def choose(self, game: _GameLike) -> Action:
        legal = game.legal_actions()
        if not legal:
            raise ValueError("No legal action: it is nobody's turn")
        if len(legal) == 1:
            return legal[0]
        return self.decide(game.ruleset, game.view(game.to_act), legal)

    def quick_choose(self, game: Any) -> Action:
        """``choose`` for a whole `Game` (not a stand-in), with only the parts of the view this
        bot reads, built directly: the same choice, several times faster (a search's rollouts
        and measurements play thousands of moves)."""
        seat = game.to_act
        if game.phase == "exchange" and seat is not None:  # without listing every exchange
            return self._exchange(_Context(game.ruleset, quick_view(game, seat), seat), ())
        legal: list[Action] = game.legal_actions()
        if len(legal) == 1:
            return legal[0]
        if not legal:
            raise ValueError("No legal action: it is nobody's turn")
        return self.decide(game.ruleset, quick_view(game, seat), legal)

    def decide(self, ruleset: Any, view: dict[str, Any], legal: Sequence[Action]) -> Action:
        """The choice among ``legal`` (two or more) for the seat whose ``view`` this is."""
        seat = view.get("seat")
        ctx = _Context(ruleset, view, seat if seat is not None else -1)
        kinds = {a.kind for a in legal}
        if "exchange" in kinds:
            choice = self._exchange(ctx, legal)
        elif kinds & {"free", "double", "redouble"}:
            choice = self._rassi(ctx, legal)
        else:
            plays = [a for a in legal if a.kind == "play"]
            if not plays:
                choice = None
            elif ctx.leading:
                choice = self._lead(ctx, plays)
            else:
                choice = self._follow(ctx, plays)
        return choice if choice is not None else legal[0]

    # ------------------------------------------------------------------ exchange
    def _exchange(self, ctx: _Context, legal: Sequence[Action]) -> Action:
        """The exchange that gives away the most height above the deck's top fifth: every
        card above it (the highest first, as many as allowed), never the keeper (nor, with
        ``exchange_keep_top``, a top card). The best of every legal exchange, found without
        listing them (2^14 with two decks); a tie goes to the cards earliest in the hand."""
        threshold = ctx.deck_quantile(self.params.exchange_quantile)
        keeper = ctx.keeper
        hand = ctx.hand
        limit = ctx.exchange_limit(legal)
        gains: list[tuple[float, int]] = []
        for i, c in enumerate(hand):
            gain = float(ctx.h(c) - threshold)
            if c == keeper and hand.count(c) == 1:
                gain -= 100.0
            if self.params.exchange_keep_top and c in ctx.rs.top_cards:
                gain -= 100.0
            if gain > 0:
                gains.append((-gain, i))
        picked = sorted(i for _, i in sorted(gains)[:limit])
        return Action("exchange", tuple(hand[i] for i in picked))

    # ------------------------------------------------------------------ rassi
    def _rassi(self, ctx: _Context, legal: Sequence[Action]) -> Action:
        finals = sorted(ctx.fh(c) for c in ctx.hand)
        badness = finals[1] if len(finals) > 1 else (finals[0] if finals else 0)
        kinds = {a.kind: a for a in legal}
        p = self.params
        for kind, at in (
            ("free", p.free_below),
            ("double", p.double_at),
            ("redouble", p.redouble_at),
        ):
            if kind in kinds:
                if badness >= at:
                    return kinds[kind]
                break
        for keep in ("pass", "exchange"):
            if keep in kinds:
                return kinds[keep]
        return next((a for a in legal if a.kind not in ("free", "double", "redouble")), legal[0])

    # ------------------------------------------------------------------ leading
    def _lead(self, ctx: _Context, plays: Sequence[Action]) -> Action:
        p = self.params
        keeper_safe = [a for a in plays if not ctx.uses_keeper(a)] or list(plays)
        rs = ctx.rs
        if rs.lead == "multi":
            # gurka-is: shed as many cards as possible (highest rank first); the sooner the
            # hand is down to the keeper, the sooner this seat sits out with it.
            multi = [a for a in keeper_safe if len(a.cards) > 1]
            if multi:
                return max(multi, key=lambda a: (len(a.cards), ctx.height(a)))
        if rs.lead == "sets":
            sets = [a for a in keeper_safe if len(a.cards) > 1]
            floor = ctx.deck_quantile(p.set_lead_quantile)
            good = [a for a in sets if ctx.height(a) >= floor]
            if good:
                return max(good, key=lambda a: (len(a.cards), ctx.height(a)))
        singles = [a for a in keeper_safe if len(a.cards) == 1] or keeper_safe
        if p.lead_eight and rs.eight_led_lowest and len(ctx.hand) > 2:
            eights = [a for a in singles if a.cards[0][0] == "8"]
            if eights and ctx.others_probably_low():
                return eights[0]
        singles = sorted(singles, key=ctx.height)
        followers = ctx.followers_after_me()
        for a in singles:
            if ctx.hold_probability(ctx.height(a), followers) >= p.hold_lead:
                return a
        return singles[-1] if p.lead_fallback_high else singles[0]

    # ------------------------------------------------------------------ following
    def _follow(self, ctx: _Context, plays: Sequence[Action]) -> Action:
        takes = [a for a in plays if ctx.takes(a)]
        others = [a for a in plays if a not in takes]
        safe_takes = [a for a in takes if not ctx.uses_keeper(a)]
        if safe_takes or (takes and not others):
            pool = sorted(safe_takes or takes, key=lambda a: (ctx.height(a), ctx.removed_height(a)))
            followers = ctx.followers_after_me()
            if not followers or ctx.lead_count() > 1:
                return pool[0]  # wins anyway / a set is rarely killed: the cheapest
            for a in pool:
                if ctx.hold_probability(ctx.height(a), followers) >= self.params.hold_follow:
                    return a
            return pool[-1] if self.params.follow_fallback_high else pool[0]
        if not others:
            return min(takes, key=ctx.height)
        # cannot (or should not) take: shed the highest cards the rules allow
        return max(others, key=lambda a: (-ctx.uses_keeper(a), ctx.removed_height(a)))


def quick_view(game: Any, seat: int) -> dict[str, Any]:
    """The parts of ``game.view(seat)`` the heuristic bot reads (``decide``), and no others."""
    trick = game.trick
    last = game.last_trick
    return {
        "seat": seat,
        "players": game.players,
        "hand": game.hands[seat],
        "hand_counts": [len(h) for h in game.hands],
        "trick": trick.as_dict() if trick is not None else None,
        "last_trick": last.as_dict() if last is not None else None,
        "out": game.out,
        "penalty_cards": game.penalty_cards,
        "exchange": {"max": game.exchange_limit if game.phase == "exchange" else None},
    }


# ---------------------------------------------------------------------- context
class _DeckFacts:
    """A card table's deck as the heuristics count it: sorted heights, copies per card text
    and cards per height."""

    __slots__ = ("copies", "height_counts", "heights")

    def __init__(self, table: CardTable) -> None:
        self.heights = sorted(table.height[c] for c in table.deck)
        self.copies: dict[str, int] = {}
        self.height_counts = [0] * (max(self.heights) + 1)
        for c in table.deck:
            self.copies[c] = self.copies.get(c, 0) + 1
            self.height_counts[table.height[c]] += 1


_FACTS: dict[CardTable, _DeckFacts] = {}  # card tables are few and kept (cached per ruleset)


def _deck_facts(table: CardTable) -> _DeckFacts:
    facts = _FACTS.get(table)
    if facts is None:
        facts = _FACTS[table] = _DeckFacts(table)
    return facts


class _Context:
    """What the seat to act knows, with the derived numbers the heuristics use."""

    def __init__(self, rs: Any, view: dict[str, Any], seat: int) -> None:
        self.rs = rs
        self.view = view
        self.seat = seat
        self.table = card_table(rs)
        self.hand: list[str] = list(view.get("hand") or [])
        self.trick: dict[str, Any] | None = view.get("trick")
        plays = (self.trick or {}).get("plays") or []
        self.plays: list[dict[str, Any]] = list(plays)
        self.leading = not self.plays
        # the keeper: lowest final card (Rassi: an ace is 1 at the end)
        self.keeper: str | None = (
            min(self.hand, key=lambda c: (self.fh(c), self.h(c), c)) if self.hand else None
        )
        self._unknown: list[int] | None = None

    # heights
    def h(self, card: str) -> int:
        return self.table.height[card]

    def fh(self, card: str) -> int:
        return self.table.final_height[card]

    def height(self, action: Action) -> int:
        """Height of a play: a set's height is its lowest card (black sevens pair)."""
        return min(self.h(c) for c in action.cards) if action.cards else 0

    def removed_height(self, action: Action) -> int:
        return sum(self.h(c) for c in action.cards)

    def uses_keeper(self, action: Action) -> bool:
        if self.keeper is None or self.keeper not in action.cards:
            return False
        # with copies of the keeper's text in hand, one copy may go
        return action.cards.count(self.keeper) >= self.hand.count(self.keeper)

    # the trick
    def winning_height(self) -> int:
        if not self.plays:
            return 0
        winner = (self.trick or {}).get("winner")
        play = None
        for p in self.plays:
            if p.get("seat") == winner and p.get("how") not in ("lay_on",):
                play = p  # the latest play of the winner
        if play is None:
            play = self.plays[0]
        return min(self.h(c) for c in play["cards"])

    def exchange_limit(self, legal: Sequence[Action]) -> int:
        """How many cards this seat may exchange (the view says; else the legal list)."""
        limit = (self.view.get("exchange") or {}).get("max")
        if limit is None:
            limit = max((len(a.cards) for a in legal if a.kind == "exchange"), default=0)
        return int(limit)

    def lead_count(self) -> int:
        return len(self.plays[0]["cards"]) if self.plays else 1

    def is_set(self, cards: Sequence[str]) -> bool:
        if len(cards) < 2:
            return True
        pair = self.table.top_pair
        if pair is not None and len(cards) == 2 and sorted(cards) == sorted(pair):
            return True
        return len({self.h(c) for c in cards}) == 1

    def takes(self, action: Action) -> bool:
        """Would this play (currently) win the trick? Ties go to the later play (§4.5)."""
        win = self.winning_height()
        k = self.lead_count()
        if self.rs.lead == "sets" and k > 1:
            return (
                len(action.cards) == k and self.is_set(action.cards) and self.height(action) >= win
            )
        return len(action.cards) == 1 and self.h(action.cards[0]) >= win

    def followers_after_me(self) -> list[int]:
        """Hand sizes of the seats still to play in this trick after this seat."""
        n = int(self.view.get("players") or len(self.view.get("hand_counts") or []))
        out = set(self.view.get("out") or [])
        counts: list[int] = list(self.view.get("hand_counts") or [0] * n)
        played = {p.get("seat") for p in self.plays}
        leader = self.plays[0]["seat"] if self.plays else self.seat
        sit_out = self.rs.deal_end == "show"
        result: list[int] = []
        for step in range(1, n):
            s = (self.seat + step) % n
            if s == leader:
                break
            if s in out or s in played or s == self.seat:
                continue
            if counts[s] <= 0 or (sit_out and counts[s] <= 1):
                continue
            result.append(counts[s])
        return result

    # what is unseen from here
    def unknown_heights(self) -> list[int]:
        """Heights (ascending) of the deck's cards not seen here: not in the hand, the trick,
        the last trick or a penalty pile (each card seen counts once per copy in the deck)."""
        if self._unknown is None:
            facts = _deck_facts(self.table)
            left = dict(facts.copies)
            counts = list(facts.height_counts)
            height = self.table.height
            seen = list(self.hand)
            for key in ("trick", "last_trick"):
                t = self.view.get(key)
                for p in (t or {}).get("plays") or []:
                    seen.extend(p.get("cards") or [])
            for pile in self.view.get("penalty_cards") or []:
                seen.extend(pile or [])
            for c in seen:
                if left.get(c):
                    left[c] -= 1
                    counts[height[c]] -= 1
            self._unknown = [h for h, k in enumerate(counts) for _ in range(k)]
        return self._unknown

    def hold_probability(self, height: int, followers: Sequence[int]) -> float:
        """Chance that no follower holds a card that beats ``height`` (hypergeometric)."""
        unknown = self.unknown_heights()
        u = len(unknown)
        if self.rs.beat_equal:
            b = u - bisect_left(unknown, height)
        else:
            b = u - bisect_right(unknown, height)
        prob = 1.0
        for m in followers:
            q = 1.0
            for i in range(min(m, u)):
                if u - i <= 0:
                    break
                q *= max(0, u - b - i) / (u - i)
            prob *= q
        return prob

    def deck_quantile(self, q: float) -> int:
        heights = _deck_facts(self.table).heights
        idx = min(len(heights) - 1, max(0, int(q * len(heights))))
        return heights[idx]

    def others_probably_low(self) -> bool:
        """gurka-night: an 8 lead pays when the others' lowest cards are likely below 8."""
        unknown = self.unknown_heights()
        if not unknown:
            return False
        low = bisect_left(unknown, 8) / len(unknown)
        counts = [c for s, c in enumerate(self.view.get("hand_counts") or []) if s != self.seat]
        m = min(counts) if counts else 0
        return m > 1 and 1 - (1 - low) ** m >= 0.8
