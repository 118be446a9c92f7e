"""Dealing a deal: the seeded or random shuffle, explicit hands and stock checked against the
deck, and the deal's first phase (the exchange, Rassi's rounds or the play)."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence

from app.rules.cards import PICTURE_RANKS, normalize_card
from app.rules.exchange import advance_exchange, advance_rassi
from app.rules.play import start_play
from app.rules.state import GameState


def shuffled_deal(game: GameState, rng: random.Random) -> tuple[list[list[str]], list[str]]:
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


def checked_deal(game: GameState, hands: Sequence[Sequence[str]],
                 stock: Sequence[str]) -> tuple[list[list[str]], list[str]]:
    """Hands by seat and a stock given by a caller, in card text as the table knows it, once
    each is the right size and the deck holds every card as often as it is dealt."""
    size = game.next_hand_size()
    if len(hands) != game.players:
        raise ValueError(f"hands: give one hand per seat ({game.players}), got {len(hands)}")
    table = game._table
    clean_hands: list[list[str]] = []
    for seat, hand in enumerate(hands):
        cards = [normalize_card(c) for c in hand]
        want = 0 if seat in game._out_set else size
        if len(cards) != want:
            who = "is out and gets no cards" if want == 0 else f"must get {size} cards"
            raise ValueError(f"hands: seat {seat} {who}, got {len(cards)}")
        clean_hands.append(cards)
    clean_stock = [normalize_card(c) for c in stock]
    available = Counter(table.deck)
    for card, count in Counter(c for h in clean_hands for c in h).items():
        _check_copies(game, card, count, available)
    used = Counter(c for h in clean_hands for c in h)
    for card, count in Counter(clean_stock).items():
        _check_copies(game, card, count + used[card], available)
    return clean_hands, clean_stock


def _check_copies(game: GameState, card: str, count: int, available: Counter[str]) -> None:
    if card not in game._table.valid:
        raise ValueError(f"{card!r} is not a card of this game")
    if count > available[card]:
        copies = available[card]
        raise ValueError(
            f"{card} is dealt {count} times but the deck holds {copies} "
            f"cop{'y' if copies == 1 else 'ies'}"
        )


def start_deal(game: GameState, hands: list[list[str]], stock: list[str]) -> None:
    """Deal ``hands`` (by seat) and ``stock`` as the next deal, unchecked, and start it."""
    game._reset_deal_state()
    game.deal_no += 1
    game.hand_size = game.ruleset.hand_size(game.deal_no - 1)
    game.log.append({"deal": {"hands": [list(h) for h in hands], "stock": list(stock)}})
    game.deal_start = len(game.log)  # this deal's moves are log[deal_start:]
    sort = game._table.sort
    game.hands = [sort(h) for h in hands]
    game.dealt_hands = [list(h) for h in game.hands]
    game.stock = list(stock)
    if game.ruleset.exchange:
        game.phase = "exchange"
        game._prev_exchange = game.hand_size
        game._queue = game._seats_from(game.forehand)
        advance_exchange(game)
    elif game.ruleset.rassi:
        game._rassi_round = 0
        game.phase = "rassi_free"
        game._queue = [s for s in game._seats_from(game.forehand)
                       if not any(c[0] in PICTURE_RANKS for c in game.hands[s])]
        advance_rassi(game)
    else:
        start_play(game)
