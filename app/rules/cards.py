"""Cards: text notation, the deck, heights and penalty points (RULES.md §2, §3, §3.1).

A card is its text: rank ``2 3 4 5 6 7 8 9 T J Q K A`` + suit ``C D H S`` (``7C``), jokers
``X1``/``X2``. Two-deck games hold two copies of each text; copies are interchangeable.

Heights (trick order): 2..14 (ace), jokers 15 (all equal), the preset's top cards 16, 17 …
in the order given. With ``ace_low_final`` (Rassi) an ace is height 1 and worth 1 point among
the final cards only.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache
from typing import Protocol

from app.rules.text import Text


class Ruleset(Protocol):
    """The switches of a `app.rules.ruleset.Ruleset` that decide its cards (read here, so that
    the ruleset may use this module without this module importing it back)."""

    @property
    def decks(self) -> int: ...
    @property
    def jokers(self) -> int: ...
    @property
    def top_cards(self) -> tuple[str, ...]: ...
    @property
    def top_points(self) -> tuple[int, ...]: ...
    @property
    def points(self) -> str: ...
    @property
    def ace_low_final(self) -> bool: ...
    @property
    def lead(self) -> str: ...

    def __hash__(self) -> int: ...  # card tables are cached per ruleset

RANKS = "23456789TJQKA"
SUITS = "CDHS"
RANK_HEIGHT: dict[str, int] = {rank: index + 2 for index, rank in enumerate(RANKS)}
JOKER_HEIGHT = 15
TOP_HEIGHT = 16
SUIT_SYMBOL: dict[str, str] = {"C": "♣", "D": "♦", "H": "♥", "S": "♠"}
RANK_WORD: dict[str, str] = {"T": "10"}
PICTURE_RANKS = frozenset("JQK")

# Penalty tables (RULES.md §3 row "penalty points").
FACE_POINTS: dict[str, int] = {rank: RANK_HEIGHT[rank] for rank in RANKS}
VIDIVELLIR_POINTS: dict[str, int] = {
    "2": 2, "3": 3, "4": 4, "5": 5, "6": 6, "7": 7, "8": 8, "9": 9,
    "T": 10, "J": 10, "Q": 10, "K": 10, "A": 11,
}
JOKER_POINTS = 15


def is_joker(text: str) -> bool:
    return text[:1] == "X"


def normalize_card(text: str) -> str:
    """Canonical card text: upper case, ``10`` accepted for ``T``. Does not check the deck."""
    t = text.strip().upper()
    if t.startswith("10") and len(t) == 3:
        t = "T" + t[2]
    return t


def is_card_text(text: str, jokers: int = 2) -> bool:
    """True for a well-formed card text (jokers X1..X<jokers>)."""
    if len(text) != 2:
        return False
    if text[0] == "X":
        return text[1].isdigit() and 1 <= int(text[1]) <= jokers
    return text[0] in RANK_HEIGHT and text[1] in SUITS


def pretty(text: str) -> str:
    """Human form: ``8H`` -> ``8♥``, ``TS`` -> ``10♠``, jokers -> ``Joker``."""
    if is_joker(text):
        return Text("Joker")
    return RANK_WORD.get(text[0], text[0]) + SUIT_SYMBOL.get(text[1], text[1])


def pretty_cards(cards: Iterable[str]) -> str:
    return " ".join(pretty(c) for c in cards)


def build_deck(decks: int, jokers: int) -> list[str]:
    """Every card of the game in a fixed order (one entry per physical card)."""
    one = [rank + suit for suit in SUITS for rank in RANKS]
    one += [f"X{i}" for i in range(1, jokers + 1)]
    return one * decks


class CardTable:
    """Per-ruleset lookups, built once: heights, final heights, points, sort keys.

    Plain dicts keyed by card text keep the hot loops of the engine cheap.
    """

    __slots__ = ("deck", "final_height", "height", "points", "sort_key", "top_pair", "valid")

    def __init__(self, ruleset: Ruleset) -> None:
        self.deck: tuple[str, ...] = tuple(build_deck(ruleset.decks, ruleset.jokers))
        self.valid: frozenset[str] = frozenset(self.deck)
        top_height = {card: TOP_HEIGHT + i for i, card in enumerate(ruleset.top_cards)}
        top_points = dict(zip(ruleset.top_cards, ruleset.top_points))
        table = VIDIVELLIR_POINTS if ruleset.points == "vidivellir" else FACE_POINTS
        self.height: dict[str, int] = {}
        self.final_height: dict[str, int] = {}
        self.points: dict[str, int] = {}
        for card in self.valid:
            if card in top_height:
                h, p = top_height[card], top_points[card]
            elif is_joker(card):
                h, p = JOKER_HEIGHT, JOKER_POINTS
            else:
                h, p = RANK_HEIGHT[card[0]], table[card[0]]
            self.height[card] = h
            self.points[card] = p
            self.final_height[card] = h
            if ruleset.ace_low_final and card[0] == "A" and card not in top_height:
                self.final_height[card] = 1
        self.sort_key: dict[str, tuple[int, str]] = {c: (self.height[c], c) for c in self.valid}
        # vidivellir: the two top black sevens make a pair although not equal (§4.3)
        self.top_pair: tuple[str, str] | None = (
            (ruleset.top_cards[0], ruleset.top_cards[1])
            if ruleset.lead == "sets" and len(ruleset.top_cards) == 2
            else None
        )

    def final_points(self, card: str) -> int:
        """Points of a card taken as penalty (final card)."""
        if self.final_height[card] == 1:
            return 1
        return self.points[card]

    def sort(self, cards: Iterable[str]) -> list[str]:
        """Canonical order: height low→high, then text."""
        return sorted(cards, key=self.sort_key.__getitem__)


@lru_cache(maxsize=256)
def card_table(ruleset: Ruleset) -> CardTable:
    return CardTable(ruleset)


def card_height(text: str, ruleset: Ruleset, final: bool = False) -> int:
    """Trick height of a card (final=True applies ace_low_final)."""
    table = card_table(ruleset)
    card = normalize_card(text)
    if card not in table.valid:
        raise ValueError(f"{text!r} is not a card of this game")
    return table.final_height[card] if final else table.height[card]


def card_points(text: str, ruleset: Ruleset, final: bool = True) -> int:
    """Penalty points of a card; final=True applies ace_low_final (Rassi ace = 1)."""
    table = card_table(ruleset)
    card = normalize_card(text)
    if card not in table.valid:
        raise ValueError(f"{text!r} is not a card of this game")
    return table.final_points(card) if final else table.points[card]
