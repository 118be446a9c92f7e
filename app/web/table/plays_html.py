"""The plays of a trick (who played which cards, how, and who holds it), drawn in Python.

A move changes the trick on the felt, so its plays are drawn on almost every push: here each
play is one f-string, where the template made a few dozen calls.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping
from typing import Any

from markupsafe import Markup, escape

from app.i18n import N_, current_language, say
from app.web.table.cards_html import card_html

HOW_TEXT = {"lead": N_("led"), "beat": N_("beat"), "kill": N_("killed"), "discard": N_("discarded"),
            "lay_on": N_("laid on")}


def plays_html(trick: Mapping[str, Any], size: str, took: str, names: list[str], top_cards: Iterable[str]) -> Markup:
    """`trick`'s plays (the rules' trick as a dict), its cards in `size`, its winner's play
    marked with `took` ("highest", "took it")."""
    tops, winner, lang = frozenset(top_cards), trick.get("winner"), current_language()
    rows = "".join(
        _play(lang, tuple(p["cards"]), size, str(names[p["seat"]]), str(p["how"]),
              took if winner == p["seat"] else None, tops)
        for p in trick.get("plays") or ())
    return Markup(f'\n    <ol class="plays{" " + size if size else ""}">\n    {rows}\n    </ol>\n')


@functools.lru_cache(maxsize=4096)
def _play(lang: str, cards: tuple[str, ...], size: str, name: str, how: str, took: str | None,
          tops: frozenset[str]) -> str:
    """One play, in `lang` (a play stays on the felt for the rest of its trick: drawn once)."""
    drawn = "".join(card_html(c, size=size, top=c in tops) for c in cards)
    note = f" · {escape(took)}" if took is not None else ""
    return (f'\n      <li class="play{" winning" if took is not None else ""}">'
            f'\n        <span class="cards">{drawn}</span>'
            f'\n        <span class="by">{escape(name)}<small>{escape(say(HOW_TEXT.get(how, how)))}{note}</small></span>'
            f"\n      </li>\n    ")
