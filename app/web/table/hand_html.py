"""The card buttons of a player's hand, drawn in Python.

Every push draws each seated player's hand, a button per card, and through the template each
button cost a few dozen calls (its label said, its card drawn, its action as JSON). Here a
button is made once per language, card and look, and kept: a hand is then a few lookups and
one join, with the table version written into the one kind of button that sends it (a card
you can play now). The HTML is the template's it replaced, attribute for attribute (compared
across every preset, language and seat when it was replaced).
"""

from __future__ import annotations

import functools
import json
from collections.abc import Iterable, Mapping
from typing import Any

from markupsafe import Markup, escape

from app.i18n import _, current_language, say
from app.web.table.cards_html import card_html, card_label

IDLE, PLAYABLE, BLOCKED, CHOOSABLE = "idle", "playable", "blocked", "choosable"


def hand_buttons(hand: Iterable[Mapping[str, Any]], mode: str, version: int, top_cards: Iterable[str],
                 someone_to_act: bool) -> Markup:
    """The buttons of `hand` (the table model's cards) in `mode`, in the current language."""
    lang = current_language()
    tops = frozenset(top_cards)
    parts: list[str] = []
    for h in hand:
        code = str(h["code"])
        top = code in tops
        if mode == "play" and h["playable"]:
            before, after = _playable(lang, code, top)
            parts.append(f"{before}{int(version)}{after}")
        elif mode == "play":
            parts.append(_blocked(lang, code, top, say(h["why"]) if h["why"] else None))
        elif mode in ("select", "exchange"):
            on = mode == "exchange" or bool(h["in_set"])
            why = say(h["why"]) if h["why"] and not h["in_set"] else None
            parts.append(_choosable(lang, code, top, on, bool(h.get("preselect")), why))
        else:
            parts.append(_idle(lang, code, top, someone_to_act))
    return Markup("".join(parts))


@functools.lru_cache(maxsize=2048)
def _playable(lang: str, code: str, top: bool) -> tuple[str, str]:
    """A card to play now, cut where its action's table version goes."""
    sends = json.dumps({"action": f"play {code}", "do": "act"}, sort_keys=True)[:-1] + ', "v": '
    label = _("Play %(card)s", card=card_label(code))
    return (f'\n          <button class="cardbtn playable" data-code="{escape(code)}" hx-ws:send hx-vals=\'{_html_json(sends)}',
            f'}}\' aria-label="{escape(label)}">{card_html(code, top=top)}</button>')


@functools.lru_cache(maxsize=4096)
def _blocked(lang: str, code: str, top: bool, why: str | None) -> str:
    label = card_label(code)
    aria_why = why if why else _("not playable now")
    shown_why = why if why else _("Not playable now")
    return (f'\n          <button class="cardbtn blocked" data-code="{escape(code)}" aria-disabled="true" '
            f'aria-label="{escape(label)}: {escape(aria_why)}" data-why="{escape(shown_why)}">'
            f'{card_html(code, top=top)}<span class="why" aria-hidden="true">{escape(shown_why)}</span></button>')


@functools.lru_cache(maxsize=4096)
def _choosable(lang: str, code: str, top: bool, on: bool, pressed: bool, why: str | None) -> str:
    data_why = f' data-why="{escape(why)}"' if why else ""
    return (f'\n          <button class="cardbtn {"playable" if on else "blocked"}" data-code="{escape(code)}" '
            f'aria-pressed="{"true" if pressed else "false"}" aria-label="{escape(card_label(code))}"{data_why}>'
            f'{card_html(code, top=top)}</button>')


@functools.lru_cache(maxsize=2048)
def _idle(lang: str, code: str, top: bool, someone_to_act: bool) -> str:
    why = _("Not your turn yet.") if someone_to_act else ""
    return (f'\n          <button class="cardbtn idle" data-code="{escape(code)}" aria-disabled="true" '
            f'aria-label="{escape(card_label(code))}" data-why="{escape(why)}">{card_html(code, top=top)}</button>')


def _html_json(text: str) -> str:
    """JSON made safe inside an HTML attribute, as Jinja's `tojson` does it."""
    return (text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
            .replace("'", "\\u0027"))
