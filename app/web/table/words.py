"""The table's words that code picks by a key (a phase, how a card was played, a rassi answer,
a card's name), as English message ids: the templates say them with the `say` filter."""

from __future__ import annotations

import functools

from app.i18n import N_, _, current_language, say

PHASE_TEXT = {
    "waiting": N_("Between deals"),
    "exchange": N_("Exchange"),
    "rassi_free": N_("Rassi: free cards"),
    "rassi_double": N_("Rassi: double"),
    "rassi_redouble": N_("Rassi: redouble"),
    "play": N_("Play"),
    "over": N_("Game over"),
}
HOW_TEXT = {"lead": N_("led"), "beat": N_("beat"), "kill": N_("killed"), "discard": N_("discarded"),
            "lay_on": N_("laid on")}
RASSI_TEXT = {
    "free": N_("Take free cards (new hand)"),
    "double": N_("Double (new hand, ×2)"),
    "redouble": N_("Redouble (new hand, ×4)"),
    "pass": N_("Keep my hand"),
}
# The card's name, said in the reader's language: "%(rank)s of %(suit)s" with these words (the
# whole name per card would be 52 messages; the languages put rank and suit in this order too).
SUIT_NAME = {"C": N_("clubs"), "D": N_("diamonds"), "H": N_("hearts"), "S": N_("spades")}
RANK_NAME = {"J": N_("jack"), "Q": N_("queen"), "K": N_("king"), "A": N_("ace"), "T": "10"}


def card_label(code: str) -> str:
    return _card_label(current_language(), code)


@functools.lru_cache(maxsize=1024)
def _card_label(lang: str, code: str) -> str:
    if code.startswith("X"):
        return _("Joker")
    rank, suit = code[:-1], code[-1]
    return _("%(rank)s of %(suit)s", rank=say(RANK_NAME.get(rank, rank)), suit=say(SUIT_NAME.get(suit, suit)))


def card_name(code: str, top: bool = False) -> str:
    """The card's name as its picture says it (a top card says that it is one): a button that
    shows the card says this name too, so its visible card is part of its accessible name."""
    return _("%(card)s, a top card above the ace", card=card_label(code)) if top else card_label(code)
