"""Gurka rules core: pure, typed, stdlib only (ARCHITECTURE.md "Rules core contract")."""

from app.rules.actions import Action, IllegalAction, parse_action
from app.rules.cards import card_height, card_points, pretty
from app.rules.dealing import shuffled_deal
from app.rules.game import Game, new_game
from app.rules.ruleset import OPTION_HELP, PRESETS, Ruleset, make_ruleset
from app.rules.scoring import DealResult

__all__ = [
    "OPTION_HELP",
    "PRESETS",
    "Action",
    "DealResult",
    "Game",
    "IllegalAction",
    "Ruleset",
    "card_height",
    "card_points",
    "make_ruleset",
    "new_game",
    "parse_action",
    "pretty",
    "shuffled_deal",
]
