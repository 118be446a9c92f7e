"""A card as the table draws it, and its name in the reader's language."""

from __future__ import annotations

import functools

from markupsafe import Markup, escape

from app.i18n import N_, _, current_language, say
from app.rules.cards import RANK_WORD

# The card's name, said in the reader's language: "%(rank)s of %(suit)s" with these words (the
# whole name per card would be 52 messages; the languages put rank and suit in this order too).
SUIT_NAME = {"C": N_("clubs"), "D": N_("diamonds"), "H": N_("hearts"), "S": N_("spades")}
RANK_NAME = {"J": N_("jack"), "Q": N_("queen"), "K": N_("king"), "A": N_("ace"), "T": "10"}


def card_label(code: str) -> str:
    if code.startswith("X"):
        return _("Joker")
    rank, suit = code[:-1], code[-1]
    return _("%(rank)s of %(suit)s", rank=say(RANK_NAME.get(rank, rank)), suit=say(SUIT_NAME.get(suit, suit)))


def card_name(code: str, top: bool = False) -> str:
    """The card's name as its picture says it (a top card says that it is one): a button that
    shows the card says this name too, so its visible card is part of its accessible name."""
    return _("%(card)s, a top card above the ace", card=card_label(code)) if top else card_label(code)


def card_html(code: str, *, size: str = "", extra_class: str = "", top: bool = False) -> Markup:
    """A card drawn by the app: rank and suit symbol in corners, big pip (SVG sprite) in the middle.
    `top`: one of the preset's top cards (above the ace), marked with a gold corner. (Drawn once
    per card, look and language: every table shows the same few dozen.)"""
    return _drawn_card(current_language(), str(code), size, extra_class, top)


@functools.lru_cache(maxsize=4096)
def _drawn_card(lang: str, code: str, size: str, extra_class: str, top: bool) -> Markup:
    """`card_html` in `lang` (the language is part of the cache key: the label is said in it)."""
    if code.startswith("X"):
        body = (
            '<span class="corner" aria-hidden="true"></span>'  # "JOK", written by the style sheet
            '<svg class="pip" aria-hidden="true" viewBox="0 0 100 100"><use href="#joker"/></svg>'
        )
        suit_class = "joker"
    else:
        rank, suit = code[0], code[1]
        r = RANK_WORD.get(rank, rank)
        body = (
            f'<span class="corner" aria-hidden="true">{r}<svg viewBox="0 0 100 100"><use href="#suit-{suit}"/></svg></span>'
            f'<svg class="pip" aria-hidden="true" viewBox="0 0 100 100"><use href="#suit-{suit}"/></svg>'
        )
        suit_class = f"suit-{suit}"
    classes = " ".join(c for c in ("card", suit_class, size, extra_class, "top" if top else "") if c)
    label = card_name(code, top)
    return Markup(
        f'<span class="{classes}" data-card="{escape(code)}" role="img" '
        f'aria-label="{escape(label)}">{body}</span>'
    )


def card_back(*, size: str = "mini") -> Markup:
    return Markup(f'<span class="card back {size}" aria-hidden="true"></span>')
