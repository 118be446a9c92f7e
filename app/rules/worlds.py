"""What one seat knows of a deal, and whole worlds (every hand, the stock) consistent with it.

A search bot cannot see the other hands, so it imagines them: it deals the cards it has not
seen to the places they may be (the other hands, the cards put face down in exchanges, the
stock) so that everything the table saw could have happened, and plays on in that world.

What the seat knows comes from its view alone (`Game.view(seat)`): its hand, the cards it
put face down (``gave``), and the public moves of the deal (``moves``). Walking the moves
with the rules of RULES.md §4 shows what the others cannot hold:

* a follower who did not beat played their lowest card (§4.2), so they hold nothing lower
  (where a soft discard (§4.4) may have been open for them: nothing lower, or nothing that
  beats; each world takes one of the two at random);
* a k-card discard to a set (§4.3) was the k lowest cards: nothing lower is left;
* with *must beat when able*, a follower who did not beat holds nothing that beats (§4.2);
* an 8 led in gurka-night makes every follower play their lowest card;
* in Rassi, a seat asked in the free round was dealt no picture card (§6).

The worlds are drawn to respect these, then proved by replaying the deal's public moves on
them with the real rules (`Game.apply`): a world in which any move was illegal, or in which
the seat's legal actions differ from its view's, is thrown away. So a world never
contradicts the view, even where the walk above proves less than the rules do. One guess
goes beyond proof, and only makes some worlds likelier: the cards put face down in an
exchange are dealt the high cards first (people exchange their highest).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from app.rules.actions import IllegalAction
from app.rules.cards import PICTURE_RANKS, card_table
from app.rules.dealing import start_deal
from app.rules.game import Game
from app.rules.ruleset import Ruleset
from app.rules.tricks import Trick, record_follow, record_lead, set_height

__all__ = ["Knowledge", "Pile", "knowledge", "sample_world", "world_from_piles"]

NO_LIMIT = 99


@dataclass
class Pile:
    """A place holding ``count`` cards the seat has not seen: another seat's hand (``hand``),
    the cards a seat put face down in one exchange (``gave``) or the rest of the stock
    (``stock``). A card may lie here only if its trick height is in ``lo <= h < hi`` and,
    with ``no_pictures``, it is no J, Q or K."""

    kind: str
    seat: int | None
    count: int
    lo: int = 0
    hi: int = NO_LIMIT
    no_pictures: bool = False
    # a soft discard that may have been one (§4.4): either nothing below ``lo`` or nothing
    # from ``hi`` up; each world picks one of the two at random, the replay judges
    either: list[tuple[int, int]] = field(default_factory=list)

    def allows(self, card: str, height: int) -> bool:
        if height < self.lo or height >= self.hi:
            return False
        return not (self.no_pictures and card[0] in PICTURE_RANKS)


@dataclass
class Knowledge:
    """One seat's knowledge of the deal in progress (see the module docstring)."""

    ruleset: Ruleset
    view: dict[str, Any]
    seat: int
    unknown: list[str]  # the cards the seat has not seen this deal, one entry per card
    piles: list[Pile]  # where they are, their counts summing to len(unknown)
    played: list[list[str]]  # by seat: the cards it played this deal, in order
    gave_piles: list[list[str]] = field(default_factory=list)  # this seat's own, by exchange
    exchanges: list[tuple[int, int]] = field(default_factory=list)  # (seat, cards) in move order
    allowed: dict[str, list[int]] | None = None  # by card: the piles it may lie in (found once)


def knowledge(ruleset: Ruleset, view: dict[str, Any]) -> Knowledge:
    """Walk the view's public moves (see the module docstring); raises ValueError for a
    view without a seat."""
    seat = view.get("seat")
    if seat is None:
        raise ValueError("knowledge: a seat's view, please (a spectator knows no hand)")
    table = card_table(ruleset)
    height = table.height
    n = int(view["players"])
    moves: list[dict[str, Any]] = list(view.get("moves") or [])
    active = [s for s in range(n) if s not in set(view.get("out") or [])]
    hand_size = int(view["hand_size"])
    counts = {s: hand_size for s in active}
    played: list[list[str]] = [[] for _ in range(n)]
    gave: list[list[int]] = [[] for _ in range(n)]  # by seat: the sizes of its face-down piles
    exchanges: list[tuple[int, int]] = []
    first_no_pictures: set[int] = set()  # seats whose dealt hand had no picture card
    pos = 0
    # ---- exchange (§5) or Rassi (§6): before the first lead
    if ruleset.exchange:
        while pos < len(moves) and moves[pos]["action"] == "exchange":
            m = moves[pos]
            exchanges.append((m["seat"], int(m["count"])))
            if m["count"]:
                gave[m["seat"]].append(int(m["count"]))
            pos += 1
    elif ruleset.rassi:
        words = []
        while pos < len(moves) and moves[pos]["action"] in RASSI_WORDS:
            words.append((int(moves[pos]["seat"]), moves[pos]["action"]))
            pos += 1
        rounds = _rassi_rounds(words, _order_from(int(view["forehand"]), active),
                               int(view.get("stock_count") or 0), hand_size,
                               str(view.get("phase")), view.get("to_act"))
        for (who, word), rnd in zip(words, rounds):
            if rnd == 0:
                first_no_pictures.add(who)
            if word != "pass":
                gave[who].append(hand_size)
                exchanges.append((who, hand_size))
    # ---- the tricks (§4)
    lo = {s: 0 for s in active}
    hi = {s: NO_LIMIT for s in active}
    either: dict[int, list[tuple[int, int]]] = {s: [] for s in active}
    trick = _next_trick(int(view["forehand"]), active, counts, ruleset)
    for m in moves[pos:]:
        if trick is None:
            break
        who = m["seat"]
        cards = tuple(m["action"].split()[1:])
        played[who].extend(cards)
        if trick.pos == 0:
            record_lead(trick, cards, table, ruleset)
        else:
            lowest = _constrain(trick, who, cards, ruleset, height, lo, hi, either)
            record_follow(trick, who, cards, table, ruleset, lowest)
        counts[who] -= len(cards)
        trick.pos += 1
        if trick.pos == len(trick.order):
            trick = None if trick.final else _next_trick(trick.winner, active, counts, ruleset)
    # ---- what is unseen, and where it may be
    hand = list(view.get("hand") or [])
    own_gave = list(view.get("gave") or [])
    unknown = list(table.deck)
    for card in hand + own_gave + [c for p in played for c in p]:
        unknown.remove(card)
    own_piles: list[list[str]] = []
    at = 0
    for size in gave[seat]:
        own_piles.append(own_gave[at:at + size])
        at += size
    piles: list[Pile] = []
    hand_counts = view.get("hand_counts") or []
    for s in active:
        if s == seat:
            continue
        sizes = gave[s]
        for i, size in enumerate(sizes):
            piles.append(Pile("gave", s, size, no_pictures=(i == 0 and s in first_no_pictures)))
        piles.append(Pile("hand", s, int(hand_counts[s]), lo[s], hi[s],
                          no_pictures=(not sizes and s in first_no_pictures), either=either[s]))
    piles.append(Pile("stock", None, int(view.get("stock_count") or 0)))
    total = sum(p.count for p in piles)
    if total != len(unknown):
        raise ValueError(f"knowledge: {len(unknown)} unseen cards for {total} places")
    return Knowledge(ruleset, view, seat, unknown, piles, played, own_piles, exchanges)


RASSI_WORDS = ("free", "double", "redouble", "pass")
RASSI_PHASES = ("rassi_free", "rassi_double", "rassi_redouble")


def _rassi_rounds(words: Sequence[tuple[int, str]], order: Sequence[int], stock_now: int,
                  size: int, phase: str, to_act: int | None) -> list[int]:
    """Which Rassi round (0 free, 1 double, 2 redouble) each of the deal's Rassi moves was
    in (§6). Who was asked in the free round is hidden (the seats dealt no picture card), the
    rest is public: the double round asks every seat in order, the redouble round every
    doubler, each while the stock can give a whole hand. The one split of the moves that
    the rules allow (and that leaves the game where the view says it is) is the answer."""
    stock_start = stock_now + size * sum(1 for _, w in words if w != "pass")
    for k in range(len(words) + 1):
        rounds = _rassi_split(words, k, order, stock_start, size, phase, to_act)
        if rounds is not None:
            return rounds
    raise ValueError("knowledge: these Rassi moves fit no order of rounds")


def _rassi_split(words: Sequence[tuple[int, str]], k: int, order: Sequence[int], stock: int,
                 size: int, phase: str, to_act: int | None) -> list[int] | None:
    """The rounds if the first ``k`` moves were the free round, or None if impossible."""
    last = -1
    for who, word in words[:k]:
        if word not in ("free", "pass") or order.index(who) <= last or stock < size:
            return None
        last = order.index(who)
        stock -= size if word == "free" else 0
    rest = list(words[k:])
    if not rest and k == len(words) and phase == "rassi_free":
        return [0] * k if to_act is not None and order.index(to_act) > last else None
    rounds = [0] * k
    doublers: list[int] = []
    for rnd, asked, word in ((1, order, "double"), (2, doublers, "redouble")):
        for who in list(asked):
            if stock < size:
                break
            if not rest:
                return rounds if phase == RASSI_PHASES[rnd] and to_act == who else None
            seat, said = rest.pop(0)
            if seat != who or said not in (word, "pass"):
                return None
            rounds.append(rnd)
            if said != "pass":
                stock -= size
                if rnd == 1:
                    doublers.append(who)
    if rest or phase in RASSI_PHASES:
        return None
    return rounds


def _order_from(start: int, active: Sequence[int]) -> list[int]:
    i = list(active).index(start)
    return list(active[i:]) + list(active[:i])


def _next_trick(leader: int, active: Sequence[int], counts: dict[int, int],
                ruleset: Ruleset) -> Trick | None:
    """The next trick as `Game._start_trick` opens it, from the hand counts alone."""
    order = _order_from(leader, active)
    playing = [s for s in order if counts[s] > 1]
    if playing:
        return Trick(playing[0], playing, False)
    if ruleset.deal_end == "final_trick":
        return Trick(leader, order, True)
    return None


def _constrain(trick: Trick, seat: int, cards: tuple[str, ...], r: Ruleset,
               height: dict[str, int], lo: dict[int, int], hi: dict[int, int],
               either: dict[int, list[tuple[int, int]]]) -> bool:
    """Narrow what ``seat`` may still hold from its follow; returns whether the play may have
    been its lowest card (what `record_follow` needs to know for the soft discard)."""
    if trick.final:
        return True
    threshold = trick.high if r.beat_equal else trick.high + 1
    if len(cards) > 1:  # a follow to a set
        sh = set_height(cards, card_table(r))
        kills = sh is not None and sh >= threshold
        lays_on = sh is None and all(height[c] > trick.high for c in cards)
        if trick.lead8 or not (kills or lays_on):  # the k lowest cards
            lo[seat] = max(lo[seat], max(height[c] for c in cards))
        return True
    h = height[cards[0]]
    if trick.lead8:
        lo[seat] = max(lo[seat], h)
        return True
    if h >= threshold:  # a beat proves nothing
        return False
    if r.must_beat:  # it did not beat, so it could not
        hi[seat] = min(hi[seat], threshold)
    soft_open = r.soft_discard and trick.last_discard is not None
    if not soft_open or h <= (trick.last_discard or 0):
        lo[seat] = max(lo[seat], h)  # its lowest card (a soft discard must be higher)
    elif not r.must_beat:  # its lowest card, or a soft discard because it could not beat
        either[seat].append((h, threshold))
    return True


# ---------------------------------------------------------------------- worlds


def sample_world(know: Knowledge, rng: random.Random, tries: int = 40) -> Game | None:
    """A whole game in the deal's present state, every hidden card drawn at random where the
    view allows it, the public moves replayed on it; None if ``tries`` draws all failed."""
    for _ in range(tries):
        piles = _deal_piles(know, rng)
        if piles is None:
            continue
        world = world_from_piles(know, piles, rng)
        if world is not None:
            return world
    return None


def _deal_piles(know: Knowledge, rng: random.Random) -> list[list[str]] | None:
    """The unseen cards dealt to the piles, each card to a pile that allows it: first the
    cards some pile refuses (the most constrained first, each to an open pile it may go to,
    in proportion to the room there; when all are full, an augmenting path moves other cards
    along to make room), then the cards any pile takes, shuffled into the places left."""
    either = any(p.either for p in know.piles)
    piles = [_one_side(p, rng) if p.either else p for p in know.piles] if either else know.piles
    allowed = _allowed(know, piles) if either else know.allowed or _allowed(know, piles)
    if not either:
        know.allowed = allowed
    everywhere = len(piles)
    picky = [c for c in know.unknown if len(allowed[c]) < everywhere]
    rng.shuffle(picky)
    picky.sort(key=lambda c: len(allowed[c]))
    content: list[list[str]] = [[] for _ in piles]
    free = [p.count for p in piles]

    def place(card: str, seen: set[int]) -> bool:
        options = [i for i in allowed[card] if i not in seen]
        rng.shuffle(options)
        for i in options:
            seen.add(i)
            if free[i] > 0:
                content[i].append(card)
                free[i] -= 1
                return True
        for i in options:
            for j, other in enumerate(content[i]):
                if place(other, seen):
                    content[i][j] = card
                    return True
        return False

    for card in picky:
        room = sum(free[i] for i in allowed[card])
        if room:
            pick = rng.randrange(room)
            for i in allowed[card]:
                pick -= free[i]
                if pick < 0:
                    break
            content[i].append(card)
            free[i] -= 1
        elif not place(card, set()):
            return None
    rest = [c for c in know.unknown if len(allowed[c]) == everywhere]
    if know.ruleset.exchange:  # people exchange their high cards: the face-down piles get
        rest = _high_first(rest, piles, content, free, know.ruleset, rng)  # the likeliest
    places = [i for i, n in enumerate(free) for _ in range(n)]
    rng.shuffle(places)
    for card, i in zip(rest, places):
        content[i].append(card)
    return content


GAVE_SPREAD = 5.0  # heights: how loosely "the highest cards" are read into a face-down pile


def _high_first(cards: list[str], piles: Sequence[Pile], content: list[list[str]], free: list[int],
                ruleset: Ruleset, rng: random.Random) -> list[str]:
    """Fill the face-down piles of exchanges (§5) with cards drawn high first: every bot
    here, and most people, exchange their highest cards. A guess, not a proof: the height
    is blurred by up to ``GAVE_SPREAD`` at random, so a lower card is sometimes in the pile
    and every world stays possible. Returns the cards left."""
    want = sum(free[i] for i, p in enumerate(piles) if p.kind == "gave")
    if not want:
        return cards
    height = card_table(ruleset).height
    ranked = sorted(cards, key=lambda c: height[c] + rng.random() * GAVE_SPREAD, reverse=True)
    chosen, rest = ranked[:want], ranked[want:]
    rng.shuffle(chosen)
    for i, pile in enumerate(piles):
        if pile.kind == "gave" and free[i]:
            content[i].extend(chosen[:free[i]])
            del chosen[:free[i]]
            free[i] = 0
    return rest


def _allowed(know: Knowledge, piles: Sequence[Pile]) -> dict[str, list[int]]:
    """For each unseen card, the piles it may lie in."""
    height = card_table(know.ruleset).height
    return {card: [i for i, p in enumerate(piles) if p.allows(card, height[card])]
            for card in dict.fromkeys(know.unknown)}


def _one_side(pile: Pile, rng: random.Random) -> Pile:
    """The pile with one side of each of its either-or bounds taken at random."""
    lo, hi = pile.lo, pile.hi
    for low, high in pile.either:
        if rng.random() < 0.5:
            lo = max(lo, low)
        else:
            hi = min(hi, high)
    return Pile(pile.kind, pile.seat, pile.count, lo, hi, pile.no_pictures)


def world_from_piles(know: Knowledge, content: Sequence[Sequence[str]],
                     rng: random.Random) -> Game | None:
    """Replay the deal on the hidden cards given pile by pile (``content[i]`` for
    ``know.piles[i]``); None when a public move is illegal there or the seat's legal actions
    there differ from its view's."""
    view = know.view
    r = know.ruleset
    n = int(view["players"])
    me = know.seat
    hands: dict[int, list[str]] = {me: list(view.get("hand") or []) + know.played[me]}
    gave: dict[int, list[list[str]]] = {me: [list(p) for p in know.gave_piles]}
    stock_rest: list[str] = []
    for pile, cards in zip(know.piles, content):
        if pile.kind == "hand":
            assert pile.seat is not None
            hands[pile.seat] = list(cards) + know.played[pile.seat]
        elif pile.kind == "gave":
            assert pile.seat is not None
            gave.setdefault(pile.seat, []).append(list(cards))
        else:
            stock_rest = list(cards)
    rng.shuffle(stock_rest)
    # every hand a seat held in turn: dealt, then after each exchange (the last one is
    # the hand it plays from); the stock gives the later hands' drawn cards in move order
    dealt: list[list[str]] = [[] for _ in range(n)]
    draws: dict[int, list[list[str]]] = {}
    for s, final in hands.items():
        piles = gave.get(s, [])
        if r.rassi:
            held = piles + [final]
            dealt[s] = held[0]
            draws[s] = held[1:]
        else:
            drawn_count = sum(len(p) for p in piles)
            drawn = final[:drawn_count]
            dealt[s] = final[drawn_count:] + [c for p in piles for c in p]
            draws[s] = [drawn] if piles else []
    stock: list[str] = []
    exchange_cards: dict[int, list[list[str]]] = {s: list(p) for s, p in gave.items()}
    taken = {s: 0 for s in draws}
    for s, size in know.exchanges:
        if size:
            stock.extend(draws[s][taken[s]])
            taken[s] += 1
    stock.extend(stock_rest)
    world = Game.between_deals(
        r, n, dealer=int(view["dealer"]), deals_done=int(view["deal_no"]) - 1,
        scores=view["scores"], out=view.get("out") or [],
        penalty_cards=view.get("penalty_cards"), agurk=view.get("agurk"))
    start_deal(world, dealt, stock)  # the deck's own cards, each once: nothing to check
    try:
        for m in view.get("moves") or []:
            if world.to_act != m["seat"]:
                return None
            text = m["action"]
            if text == "exchange" and m.get("count"):
                text = "exchange " + " ".join(exchange_cards[m["seat"]].pop(0))
            world.apply(text)
    except IllegalAction:
        return None
    if world.to_act != me:
        return None
    if world.phase == "exchange":  # the same hand, so the same exchanges if the same limit
        if world.exchange_limit != (view.get("exchange") or {}).get("max"):
            return None
    elif sorted(a.text for a in world.legal_actions()) != sorted(view.get("legal") or []):
        return None
    return world
