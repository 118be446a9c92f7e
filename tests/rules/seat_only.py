"""What a bot may read of a game, and games that look the same to one seat (tests' helpers)."""

from __future__ import annotations

import copy
import random
from typing import Any

from app.rules import Game, IllegalAction, new_game
from app.rules.actions import Action


class SeatOnly:
    """What a bot may use of a game: the seat to act's view, its legal actions, the rules.

    Anything else a bot reads fails the test.
    """

    def __init__(self, game: Game) -> None:
        self.__game = game

    @property
    def to_act(self) -> int | None:
        return self.__game.to_act

    @property
    def ruleset(self) -> Any:
        return self.__game.ruleset

    def legal_actions(self) -> list[Action]:
        return list(self.__game.legal_actions())

    def view(self, seat: int | None) -> dict[str, Any]:
        assert seat == self.__game.to_act, f"bot asked for seat {seat}'s view"
        return copy.deepcopy(self.__game.view(seat))

    def __getattr__(self, name: str) -> Any:
        raise AssertionError(f"a bot read game.{name}")


def entries(game: Any) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    log = game.to_json()["log"]
    deals = [i for i, e in enumerate(log) if "deal" in e]
    assert len(deals) == 1
    return log[deals[0]]["deal"], [e for e in log[deals[0] + 1 :] if "seat" in e]


def alternative(game: Any, me: int, rng: random.Random) -> Any | None:
    """Same history as seen by ``me``, other hands and the stock permuted; None if impossible."""
    deal, actions = entries(game)
    hands: list[list[str]] = [list(h) for h in deal["hands"]]
    stock: list[str] = list(deal["stock"])
    fixed: list[list[str]] = [[] for _ in hands]
    for seat, hand in enumerate(hands):
        if seat == me:
            continue
        rest = list(hand)
        for entry in actions:
            if entry["seat"] != seat:
                continue
            for card in entry["action"].split()[1:]:
                if card in rest:
                    rest.remove(card)
                    fixed[seat].append(card)
    pool = [c for s, h in enumerate(hands) if s != me for c in h] + stock
    for seat in range(len(hands)):
        for card in fixed[seat]:
            pool.remove(card)
    rng.shuffle(pool)
    alt_hands: list[list[str]] = []
    for seat, hand in enumerate(hands):
        if seat == me:
            alt_hands.append(list(hand))
            continue
        need = len(hand) - len(fixed[seat])
        alt_hands.append(fixed[seat] + pool[:need])
        pool = pool[need:]
    alt = new_game(game.ruleset, players=len(hands), dealer=game.dealer)
    alt.deal(hands=alt_hands, stock=pool)
    try:
        for entry in actions:
            alt.apply(entry["action"])
    except IllegalAction:
        return None
    if alt.to_act != me or alt.view(me) != game.view(me):
        return None
    return alt
