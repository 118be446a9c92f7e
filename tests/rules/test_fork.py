"""`Game.fork()`: a change tried on a fork never reaches the game it was forked from, and the
fork plays on exactly like the game would have."""

from __future__ import annotations

import copy
import random
from typing import Any

import pytest

from app.rules import PRESETS, new_game, shuffled_deal
from app.rules.tricks import Trick

CACHES = {"_table", "_legal", "_legal_by_text"}  # shared or recomputed on demand


def state(value: Any) -> Any:
    """Everything a game holds, as plain comparable values."""
    if isinstance(value, Trick):
        return ("trick", *(state(getattr(value, name)) for name in Trick.__slots__))
    if isinstance(value, list | tuple):
        return [state(v) for v in value]
    if isinstance(value, dict):
        return {k: state(v) for k, v in value.items()}
    if isinstance(value, set):
        return sorted(value)
    if hasattr(value, "__dict__") and not isinstance(value, type):
        return {k: state(v) for k, v in vars(value).items() if k not in CACHES}
    return value


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_a_fork_leaves_the_game_alone_and_plays_like_it(preset: str) -> None:
    rng = random.Random(preset)
    game = new_game(preset, players=4, dealer=1)
    steps = 0
    while not game.over and steps < 400:
        steps += 1
        before = copy.deepcopy(game)
        twin = game.fork()
        if twin.phase == "waiting":
            hands, stock = shuffled_deal(twin, rng)
            twin.deal(hands=hands, stock=stock)
        else:
            legal = twin.legal_actions()
            assert legal, "a game waiting for a move has legal moves"
            action = rng.choice(legal)
            assert twin.to_act is not None
            twin.apply(action, seat=twin.to_act)
        assert state(game) == state(before), "the fork changed the game it came from"
        # the fork went on exactly like the game itself would have
        if game.phase == "waiting":
            game.deal(hands=hands, stock=stock)
        else:
            assert game.to_act is not None
            game.apply(action, seat=game.to_act)
        assert state(game) == state(twin)
    assert steps > 20


def test_a_forked_trick_holds_every_slot_and_its_own_lists() -> None:
    game = new_game("gurka-night", players=3, seed=2)
    game.deal()
    game.apply(game.legal_actions()[0])
    trick = game.trick
    assert trick is not None and trick.plays
    twin = trick.fork()
    assert all(getattr(twin, name) == getattr(trick, name) for name in Trick.__slots__)
    assert twin.plays is not trick.plays and twin.order is not trick.order


def test_a_finished_deal_as_a_dict_names_every_field_and_reads_back() -> None:
    from dataclasses import fields

    from app.rules.scoring import DealResult

    game = new_game("gurka-night", players=3, seed=5)
    while not game.deal_log:
        if game.to_act is None:
            game.deal()
        else:
            game.apply(game.legal_actions()[0])
    deal = game.deal_log[-1]
    as_dict = deal.as_dict()
    assert set(as_dict) == {f.name for f in fields(DealResult)}
    assert DealResult.from_dict(as_dict) == deal
