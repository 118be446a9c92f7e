"""The play of a deal (RULES.md §4): tricks led and followed until the deal ends, with a final
trick or the last cards shown (§4.5). What a trick allows is tricks.py's."""

from __future__ import annotations

from app.rules import tricks
from app.rules.actions import Action
from app.rules.deal_end import end_deal
from app.rules.state import GameState
from app.rules.tricks import Trick


def start_play(game: GameState) -> None:
    game.phase = "play"
    game.to_act = None
    start_trick(game, game.forehand)


def start_trick(game: GameState, leader: int) -> None:
    """Players holding one card sit out; when all hold one: final trick or show (§4.5)."""
    hands = game.hands
    order = game._seats_from(leader)
    playing = [s for s in order if len(hands[s]) > 1]
    if not playing:
        if game.ruleset.deal_end == "final_trick":
            game.trick = Trick(leader, order, True)
            game.to_act = leader
        else:
            end_deal(game)
        return
    game.trick = Trick(playing[0], playing, False)
    game.to_act = playing[0]


def apply_play(game: GameState, seat: int, action: Action) -> None:
    cards = action.cards
    hand = game.hands[seat]
    trick = game.trick
    assert trick is not None
    height = game._table.final_height if trick.final else game._table.height
    lowest = height[cards[0]] == height[hand[0]]
    for card in cards:
        hand.remove(card)
    if trick.pos == 0:
        tricks.record_lead(trick, cards, game._table, game.ruleset)
    else:
        tricks.record_follow(trick, seat, cards, game._table, game.ruleset, lowest)
    trick.pos += 1
    if trick.pos < len(trick.order):
        game.to_act = trick.order[trick.pos]
        return
    for _, played, _ in trick.plays:
        game.played.extend(played)
    game.last_trick = trick
    if trick.final:
        game.to_act = None
        end_deal(game)
    else:
        start_trick(game, trick.winner)
