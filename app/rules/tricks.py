"""Tricks: leading, following, legal plays and why a play is refused (RULES.md §4).

Hands are lists of card texts kept in canonical order (height low→high, then text), so
combinations drawn from a hand are already in canonical order and equal multisets of cards
(two decks) give equal tuples.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from itertools import combinations

from app.rules.actions import Action
from app.rules.cards import CardTable, pretty, pretty_cards
from app.rules.ruleset import Ruleset
from app.rules.text import Text

SET_NAME = {1: Text("single card"), 2: Text("pair"), 3: Text("triple"), 4: Text("quad")}
MAX_SET = 4

_PLAY_ONE: dict[str, Action] = {}


def play_one(card: str) -> Action:
    """The interned ``play C`` action (single-card plays are by far the most common)."""
    action = _PLAY_ONE.get(card)
    if action is None:
        action = _PLAY_ONE[card] = Action("play", (card,))
    return action


def play_many(cards: tuple[str, ...]) -> Action:
    if len(cards) == 1:
        return play_one(cards[0])
    return Action("play", cards)


class Trick:
    """The trick in progress (or just finished).

    ``high`` is the height of the winning card/set so far, ``winner`` its seat; ``k`` is the
    number of cards each follower plays; ``final`` marks the final trick (final heights).
    """

    __slots__ = (
        "final",
        "high",
        "high_cards",
        "k",
        "last_discard",
        "lead8",
        "leader",
        "order",
        "plays",
        "pos",
        "winner",
    )

    def __init__(self, leader: int, order: list[int], final: bool) -> None:
        self.leader = leader
        self.order = order
        self.pos = 0
        self.plays: list[tuple[int, tuple[str, ...], str]] = []
        self.high = 0
        self.high_cards: tuple[str, ...] = ()
        self.winner = leader
        self.k = 1
        self.final = final
        self.lead8 = False
        self.last_discard: int | None = None

    def fork(self) -> Trick:
        """An independent copy (its plays and order are copied, the cards are immutable)."""
        twin = Trick.__new__(Trick)
        twin.leader, twin.order, twin.pos, twin.plays = self.leader, list(self.order), self.pos, list(self.plays)
        twin.high, twin.high_cards, twin.winner, twin.k = self.high, self.high_cards, self.winner, self.k
        twin.final, twin.lead8, twin.last_discard = self.final, self.lead8, self.last_discard
        return twin

    def as_dict(self) -> dict[str, object]:
        return {
            "leader": self.leader,
            "plays": [{"seat": s, "cards": list(c), "how": how} for s, c, how in self.plays],
            "winner": self.winner,
            "final": self.final,
        }


def distinct_combos(cards: list[str], k: int) -> list[tuple[str, ...]]:
    """Every distinct k-combination of a canonically ordered card list."""
    return list(dict.fromkeys(combinations(cards, k)))


def lowest_combos(hand: list[str], k: int, height: dict[str, int]) -> list[tuple[str, ...]]:
    """Every distinct way to take the k lowest cards (any copy/suit at the boundary height)."""
    boundary = height[hand[k - 1]]
    below = [c for c in hand if height[c] < boundary]
    at = [c for c in hand if height[c] == boundary]
    need = k - len(below)
    return [tuple(below) + combo for combo in distinct_combos(at, need)]


def set_height(cards: tuple[str, ...], table: CardTable) -> int | None:
    """Height of a set of one rank (or the top black-seven pair), else None (§4.3)."""
    height = table.height
    first = height[cards[0]]
    if all(height[c] == first for c in cards):
        return first
    pair = table.top_pair
    if pair is not None and len(cards) == 2 and set(cards) == set(pair):
        return height[pair[0]]
    return None


def _groups(hand: list[str], height: dict[str, int]) -> dict[int, list[str]]:
    groups: dict[int, list[str]] = {}
    for card in hand:
        groups.setdefault(height[card], []).append(card)
    return groups


def lead_options(hand: list[str], trick: Trick, table: CardTable, r: Ruleset) -> list[Action]:
    """Legal leads (§4.1): one card; gurka-is several of one rank; vidivellir sets; k < hand."""
    if trick.final or len(hand) == 1:
        return [play_one(hand[0])]
    out: list[Action] = []
    prev = ""
    for card in hand:
        if card != prev:
            out.append(play_one(card))
            prev = card
    if r.lead == "single":
        return out
    limit = len(hand) - 1
    if r.lead == "sets":
        limit = min(limit, MAX_SET)
    for group in _groups(hand, table.height).values():
        for k in range(2, min(len(group), limit) + 1):
            out.extend(Action("play", combo) for combo in distinct_combos(group, k))
    pair = table.top_pair
    if pair is not None and limit >= 2 and pair[0] in hand and pair[1] in hand:
        out.append(Action("play", pair))
    return out


def follow_single_options(
    hand: list[str], trick: Trick, table: CardTable, r: Ruleset
) -> list[Action]:
    """Legal one-card follows (§4.2, §4.4): beat, or discard the lowest (8 led, soft discard)."""
    height = table.final_height if trick.final else table.height
    low = height[hand[0]]
    out: list[Action] = []
    prev = ""
    if trick.lead8:
        for card in hand:
            if height[card] != low:
                break
            if card != prev:
                out.append(play_one(card))
                prev = card
        return out
    threshold = trick.high if r.beat_equal else trick.high + 1
    if r.must_beat and height[hand[-1]] >= threshold:
        for card in hand:
            if card != prev and height[card] >= threshold:
                out.append(play_one(card))
                prev = card
        return out
    soft = soft_discard_above(hand, trick, height, r)
    for card in hand:
        h = height[card]
        if card != prev and (h >= threshold or h == low or h > soft):
            out.append(play_one(card))
            prev = card
    return out


def soft_discard_above(hand: list[str], trick: Trick, height: dict[str, int], r: Ruleset) -> int:
    """The height a soft discard must exceed (§4.4), or 99 when it is not open: the play just
    before is its player's lowest card that did not beat, and this player cannot beat."""
    if not r.soft_discard or trick.last_discard is None:
        return 99
    threshold = trick.high if r.beat_equal else trick.high + 1
    if height[hand[-1]] >= threshold:
        return 99
    return trick.last_discard


def follow_set_options(
    hand: list[str], trick: Trick, table: CardTable, r: Ruleset
) -> list[Action]:
    """Legal follows to a k-set (§4.3): kill, lay on, or the k lowest cards."""
    k = trick.k
    height = table.height
    lowest = lowest_combos(hand, k, height)
    if trick.lead8:
        return [play_many(c) for c in lowest]
    threshold = trick.high if r.beat_equal else trick.high + 1
    kills: list[tuple[str, ...]] = []
    for h, group in _groups(hand, height).items():
        if h >= threshold and len(group) >= k:
            kills.extend(distinct_combos(group, k))
    pair = table.top_pair
    if (k == 2 and pair is not None and pair[0] in hand and pair[1] in hand
            and height[pair[0]] >= threshold):
        kills.append(pair)
    if r.must_beat and kills:
        return [play_many(c) for c in kills]
    higher = [c for c in hand if height[c] > trick.high]
    lay_ons = [c for c in distinct_combos(higher, k) if set_height(c, table) is None]
    combos = dict.fromkeys(kills + lay_ons + lowest)
    return [play_many(c) for c in combos]


def follow_options(hand: list[str], trick: Trick, table: CardTable, r: Ruleset) -> list[Action]:
    if trick.k == 1:
        return follow_single_options(hand, trick, table, r)
    return follow_set_options(hand, trick, table, r)


# --------------------------------------------------------------------------- applying a play


def record_lead(trick: Trick, cards: tuple[str, ...], table: CardTable, r: Ruleset) -> None:
    height = table.final_height if trick.final else table.height
    if len(cards) == 1:
        h = height[cards[0]]
    else:
        h = set_height(cards, table) or height[cards[0]]
    trick.high = h
    trick.high_cards = cards
    trick.winner = trick.leader
    trick.k = len(cards) if r.lead == "sets" else 1
    trick.lead8 = r.eight_led_lowest and not trick.final and h == 8
    trick.plays.append((trick.leader, cards, "lead"))


def record_follow(
    trick: Trick, seat: int, cards: tuple[str, ...], table: CardTable, r: Ruleset,
    lowest: bool = False,
) -> None:
    """Add a follow; ties for highest go to the later play, beat or discard (§3.1, §4.5).

    ``lowest``: the card was its player's lowest. Only a lowest card that does not beat opens
    the soft discard (§4.4), and only for the very next play: any other play closes it.
    """
    high = trick.high
    trick.last_discard = None
    if len(cards) == 1:
        h = (table.final_height if trick.final else table.height)[cards[0]]
        beats = h > high or (r.beat_equal and h == high)
        if h >= high:
            trick.high = h
            trick.high_cards = cards
            trick.winner = seat
        if not beats and lowest:
            trick.last_discard = h
        trick.plays.append((seat, cards, "beat" if beats else "discard"))
        return
    sh = set_height(cards, table)
    if sh is not None and sh >= high:
        how = "kill" if (sh > high or r.beat_equal) else "discard"
        trick.high = sh
        trick.high_cards = cards
        trick.winner = seat
    elif sh is None and all(table.height[c] > high for c in cards):
        how = "lay_on"
    else:
        how = "discard"
    trick.plays.append((seat, cards, how))


# --------------------------------------------------------------------------- explanations


def missing_card(cards: Sequence[str], hand: list[str]) -> str | None:
    """The first of `cards` that `hand` does not hold (as many times as `cards` names it)."""
    if len(cards) == 1:  # one card, as nearly every play
        return None if cards[0] in hand else cards[0]
    held = Counter(hand)
    for card, n in Counter(cards).items():
        if held[card] < n:
            return card
    return None


def explain_lead(cards: tuple[str, ...], hand: list[str], trick: Trick, table: CardTable,
                 r: Ruleset) -> str:
    if trick.final or len(hand) == 1:
        return Text("This is your last card: play %(card)s", card=pretty(hand[0]))
    if len(cards) > 1:
        if r.lead == "single":
            return Text("Lead one card")
        if r.lead == "sets" and len(cards) > MAX_SET:
            return Text("Lead a single card, a pair, a triple or a quad")
        if set_height(cards, table) is None:
            if r.lead == "sets" and table.top_pair is not None:
                a, b = table.top_pair
                return Text("Cards led together must be of one rank (%(a)s %(b)s also count as a pair)",
                            a=pretty(a), b=pretty(b))
            return Text("Cards led together must be of one rank")
        if len(cards) >= len(hand):
            return Text("Keep one card for the end of the deal: lead at most %(n)s cards", n=len(hand) - 1)
    return Text("That lead is not allowed")


def _set_name(k: int) -> str:
    return SET_NAME.get(k, Text("set of %(n)s", n=k))


def explain_follow(cards: tuple[str, ...], hand: list[str], trick: Trick, table: CardTable,
                   r: Ruleset) -> str:
    k = trick.k
    height = table.final_height if trick.final else table.height
    target = pretty_cards(trick.high_cards)
    if trick.final:
        return Text("This is your last card: play %(card)s", card=pretty(hand[0]))
    if len(cards) != k:
        if k == 1:
            return Text("Play one card: the trick is followed with one card")
        name = _set_name(k)
        return Text("A %(name)s can only be killed by a %(name)s: play %(k)s cards "
                    "(kill, lay on %(k)s higher cards, or discard your %(k)s lowest)", name=name, k=k)
    if k == 1:
        low = [c for c in hand if height[c] == height[hand[0]]]
        lowest = pretty(low[0])
        if trick.lead8:
            return Text("An 8 was led: everyone plays their lowest card (%(card)s)", card=lowest)
        threshold = trick.high if r.beat_equal else trick.high + 1
        can_beat = height[hand[-1]] >= threshold
        if r.must_beat and can_beat:
            return Text("You must beat %(target)s when you can", target=target)
        if soft_discard_above(hand, trick, height, r) != 99:
            discarded = pretty(trick.plays[-1][1][0])
            return Text("You cannot beat %(target)s: play your lowest card (%(card)s) or a card "
                        "higher than the %(discarded)s just discarded", target=target, card=lowest,
                        discarded=discarded)
        if r.must_beat or not can_beat:  # never "must beat" what no card in the hand beats
            return Text("You cannot beat %(target)s: play your lowest card (%(card)s)", target=target, card=lowest)
        return Text("You must beat %(target)s or play your lowest card (%(card)s)", target=target, card=lowest)
    name = _set_name(k)
    lowest_cards = pretty_cards(lowest_combos(hand, k, height)[0])
    if trick.lead8:
        return Text("An 8 was led: everyone plays their lowest cards (%(cards)s)", cards=lowest_cards)
    sh = set_height(cards, table)
    if r.must_beat:
        return Text("You must kill the %(name)s (%(target)s) when you can", name=name, target=target)
    if sh is not None:
        return Text("Your %(name)s is too low to kill %(target)s: kill with a higher %(name)s, lay on "
                    "%(k)s higher cards, or discard your %(k)s lowest (%(cards)s)", name=name,
                    target=target, k=k, cards=lowest_cards)
    return Text("Kill %(target)s with a %(name)s, lay on %(k)s cards each higher than it, or discard "
                "your %(k)s lowest cards (%(cards)s)", target=target, name=name, k=k, cards=lowest_cards)
