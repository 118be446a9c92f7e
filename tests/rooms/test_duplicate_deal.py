"""A duplicate deal: a given deck dealt to the seats in from forhånd, the rest the stock."""

from __future__ import annotations

import random

from app.rooms import engine
from app.rules import PRESETS
from app.rules.game import Game


def test_a_deck_is_dealt_hand_by_hand_from_forhand_and_the_rest_is_the_stock() -> None:
    deck = engine.shuffled_deck("gurka-night", 3, random.Random(4))
    game = engine.make_game("gurka-night", 3, 1, {})  # seat 1 deals: seat 2 has forhånd
    assert sorted(deck) == sorted(engine.shuffled_deck("gurka-night", 3, random.Random(5)))
    payload = engine.deal(game, random.Random(0), deck)
    size = len(payload["hands"][0])
    assert payload["hands"][2] == deck[:size] and payload["hands"][0] == deck[size:2 * size]
    assert payload["hands"][1] == deck[2 * size:3 * size] and payload["stock"] == deck[3 * size:]
    assert sorted(game.hands[2]) == sorted(deck[:size])  # the game was dealt just that


def test_with_a_seat_out_the_hands_of_the_seats_in_come_first_and_the_stock_keeps_its_order() -> None:
    deck = engine.shuffled_deck("gurka-night", 3, random.Random(9))
    game = Game.between_deals(PRESETS["gurka-night"], 3, dealer=2, deals_done=3, scores=[0, 30, 5], out=[1])
    hands, stock = engine.deck_deal(game, deck)
    size = game.next_hand_size()
    assert hands[1] == []  # seat 2 deals, seat 0 has forhånd, seat 1 is out
    assert hands[0] == deck[:size] and hands[2] == deck[size:2 * size]
    assert stock[: len(deck) - 3 * size] == deck[3 * size:]  # drawn in the same order as at a full table
    assert stock[len(deck) - 3 * size:] == deck[2 * size:3 * size]  # the unused hand lies under it
    game.deal(hands=hands, stock=stock)  # the rules take it as a deal
    assert game.phase != "waiting" and sorted(game.hands[0]) == sorted(deck[:size])
