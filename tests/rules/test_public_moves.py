"""The deal's public moves in every view, each seat's own face-down cards in its own view only,
exchanges checked without listing them, and games resumed between deals for imagined worlds."""

from __future__ import annotations

import json
import random
import re

import pytest

from app.rules import PRESETS, IllegalAction, new_game
from app.rules.bots import HeuristicBot, RandomBot
from app.rules.game import Game

CARD = re.compile(r"\b(?:[2-9TJQKA][CDHS]|X[12])\b")


def cards_in(view: dict[str, object]) -> set[str]:
    """The cards a view names about the deal in progress (the penalty piles and the last deal
    name cards of earlier deals, dealt again from a fresh deck since)."""
    now = {k: v for k, v in view.items() if k not in ("penalty_cards", "last_deal")}
    return set(CARD.findall(json.dumps(now)))


@pytest.mark.parametrize(("preset", "options"), [(name, {}) for name in sorted(PRESETS)]
                         + [("gurka-is", {"exchange": True}), ("vidivellir", {"decks": 2})])
def test_moves_are_public_and_hidden_cards_stay_hidden(preset: str, options: dict[str, object]) -> None:
    game = new_game(preset, players=4 if options.get("decks") else 3, seed=3, **options)
    rng = random.Random(3)
    bots = [RandomBot(s) if s % 2 else HeuristicBot(s) for s in range(game.players)]
    exchanged = steps = 0
    while not game.over and len(game.deal_log) < 3:
        if game.to_act is None:
            game.deal()
            continue
        game.apply(bots[game.to_act].choose(game))
        steps += 1
        if rng.random() < 0.3:
            continue
        spectator = game.view(None)
        log = game.log[game.deal_start:]
        assert len(spectator["moves"]) == len(log)
        for move, entry in zip(spectator["moves"], log):
            assert move["seat"] == entry["seat"]
            if entry["action"].startswith("exchange"):
                exchanged += 1
                assert move == {"seat": entry["seat"], "action": "exchange",
                                "count": len(entry["action"].split()) - 1}
            else:
                assert move["action"] == entry["action"]
        one_deck = game.ruleset.decks == 1  # (with two, a card played has a hidden twin)
        everything = set(game.stock) | {c for h in game.hands for c in h} | {c for g in game.gave for c in g}
        assert spectator["gave"] == []
        assert not (one_deck and cards_in(spectator) & everything)
        for seat in range(game.players):
            view = game.view(seat)
            assert view["moves"] == spectator["moves"]
            assert view["gave"] == game.gave[seat]
            others = set(game.stock) | {c for s in range(game.players) if s != seat
                                        for c in game.hands[s] + game.gave[s]}
            assert not (one_deck and cards_in(view) & others)
    assert steps > 20
    if game.ruleset.exchange:
        assert exchanged > 0


def test_an_exchange_is_checked_without_listing_every_exchange() -> None:
    game = new_game("vidivellir", players=4, seed=1, decks=2)
    game.deal()
    seat = game.to_act
    assert game.phase == "exchange" and seat is not None
    hand = list(game.hands[seat])
    with pytest.raises(IllegalAction, match="You don't hold"):
        game.apply("exchange " + next(c for c in game.stock if c not in hand))
    with pytest.raises(IllegalAction, match="Now is the exchange"):
        game.apply("play " + hand[0])
    assert game.check("exchange " + " ".join(hand[-3:])) is None
    game.apply("exchange " + " ".join(reversed(hand[-3:])))  # any order, as typed
    assert game.log[-1]["action"] == "exchange " + " ".join(hand[-3:])
    assert game.gave[seat] == hand[-3:] and len(game.hands[seat]) == 14
    nxt = game.to_act
    assert nxt is not None and game.exchange_limit == 3
    with pytest.raises(IllegalAction, match="at most 3"):
        game.apply("exchange " + " ".join(game.hands[nxt][:4]))
    twin = Game.from_json(json.loads(json.dumps(game.to_json())))
    assert twin.hands == game.hands and twin.view(nxt) == game.view(nxt)


def test_a_game_resumes_between_deals_from_a_public_standing() -> None:
    game = Game.between_deals(PRESETS["gurka-is"], 3, dealer=2, deals_done=4, scores=[3, 20, 9],
                              out=[], penalty_cards=[["3C"], ["TD", "QS"], ["9H"]], seed=5)
    assert game.phase == "waiting" and game.forehand == 0
    game.deal()
    assert game.deal_no == 5 and all(len(h) == 6 for h in game.hands)  # the fifth deal: 6 cards
    assert game.scores == [3, 20, 9] and game.view(None)["penalty_cards"][1] == ["TD", "QS"]
    out = Game.between_deals(PRESETS["gurka-night"], 4, dealer=3, deals_done=1, scores=[21, 3, 4, 0], out=[0])
    assert out.forehand == 1
    out.deal()
    assert out.hands[0] == [] and out.to_act == 1
    with pytest.raises(ValueError, match="dealer"):
        Game.between_deals(PRESETS["gurka-night"], 3, dealer=0, deals_done=1, scores=[21, 0, 0], out=[0])
