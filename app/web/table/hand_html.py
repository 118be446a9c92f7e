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

from jinja2.utils import htmlsafe_json_dumps
from markupsafe import Markup, escape

from app.i18n import N_, _, current_language, ngettext, say
from app.web.table.cards_html import card_html, card_name
from app.web.table.words import said

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
    label = _("Play %(card)s", card=card_name(code, top))
    return (f'\n          <button class="cardbtn playable" data-code="{escape(code)}" hx-ws:send hx-vals=\'{_html_json(sends)}',
            f'}}\' aria-label="{escape(label)}">{card_html(code, top=top)}</button>')


@functools.lru_cache(maxsize=4096)
def _blocked(lang: str, code: str, top: bool, why: str | None) -> str:
    label = card_name(code, top)
    aria_why = why if why else _("not playable now")
    shown_why = why if why else _("Not playable now")
    return (f'\n          <button class="cardbtn blocked" data-code="{escape(code)}" aria-disabled="true" '
            f'aria-label="{escape(label)}: {escape(aria_why)}" data-why="{escape(shown_why)}">'
            f'{card_html(code, top=top)}<span class="why" aria-hidden="true">{escape(shown_why)}</span></button>')


@functools.lru_cache(maxsize=4096)
def _choosable(lang: str, code: str, top: bool, on: bool, pressed: bool, why: str | None) -> str:
    data_why = f' data-why="{escape(why)}"' if why else ""
    return (f'\n          <button class="cardbtn {"playable" if on else "blocked"}" data-code="{escape(code)}" '
            f'aria-pressed="{"true" if pressed else "false"}" aria-label="{escape(card_name(code, top))}"{data_why}>'
            f'{card_html(code, top=top)}</button>')


@functools.lru_cache(maxsize=2048)
def _idle(lang: str, code: str, top: bool, someone_to_act: bool) -> str:
    why = _("Not your turn yet.") if someone_to_act else ""
    return (f'\n          <button class="cardbtn idle" data-code="{escape(code)}" aria-disabled="true" '
            f'aria-label="{escape(card_name(code, top))}" data-why="{escape(why)}">{card_html(code, top=top)}</button>')


def _html_json(text: str) -> str:
    """JSON made safe inside an HTML attribute, as Jinja's `tojson` does it."""
    return (text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
            .replace("'", "\\u0027"))


def hand_key(ctx: Mapping[str, Any]) -> tuple[Any, ...]:
    """Everything `hand_panel(ctx)` shows (in the current language): the same key, the same
    panel. (A seat that did not move and does not move next shows the panel it showed.)"""
    view, mode = ctx["view"], ctx["mode"]
    if not view or ctx["me"] is None or not ctx["hand"]:
        return ("hand", current_language(), bool(view), ctx["me"] is None)
    return ("hand", current_language(), mode, int(ctx["version"]) if mode in SENDS else None, ctx["advice"],
            ctx["my_turn"], tuple(tuple(h.values()) for h in ctx["hand"]), ctx.get("exchange_max"),
            tuple(ctx["legal"]) if mode == "select" else (), tuple(ctx.get("rassi_actions") or ()),
            tuple(ctx["top_cards"]), view["to_act"] is not None)


SENDS = frozenset({"play", "select", "exchange", "rassi"})  # the modes whose buttons carry the version


def hand_panel(ctx: Mapping[str, Any]) -> Markup:
    """Under the felt: a seated player's hand with what it asks of them (the advice, the card
    buttons, the buttons that send a selection or answer a rassi round, the keyboard hint), or
    for a spectator the note that hands stay hidden; nothing before the game."""
    view, me, hand = ctx["view"], ctx["me"], ctx["hand"]
    if not view or (me is not None and not hand):
        return Markup("")
    if me is None:
        hidden = _("You are watching this game. Players' hands stay hidden.")
        return Markup(f'\n  <p class="hint watching">{escape(hidden)}</p>\n')
    mode, version, advice, my_turn = ctx["mode"], int(ctx["version"]), ctx["advice"], ctx["my_turn"]
    hand_n = int(ctx["hand_n"])
    yours = " yours" if my_turn else ""
    advice_line = f'\n    <p class="advice{yours}" id="advice">{escape(advice)}</p>' if advice else ""
    described = ' aria-describedby="advice"' if advice else ""
    exchange_max = ctx.get("exchange_max")
    most = exchange_max if exchange_max is not None else 99
    selecting = ""
    if mode in ("select", "exchange"):
        legal = htmlsafe_json_dumps(ctx["legal"] if mode == "select" else [], sort_keys=True)
        selecting = f'data-select="{mode}" data-legal=\'{legal}\' data-max="{most}"'
    at_most = escape(_("You may exchange at most %(n)s.", n=most))
    too_many = f' data-too-many="{at_most}"' if mode == "exchange" else ""
    w = said(WORDS)
    buttons = hand_buttons(hand, mode, version, ctx["top_cards"], view["to_act"] is not None)
    return Markup(
        f'\n  <div class="handwrap">\n    <h2 class="sr-only">{w["Your hand"]}</h2>{advice_line}'
        f'\n    <div class="hand{" many" if hand_n > 10 else ""}" role="group" aria-label="{w["Your hand"]}"'
        f'{described} data-hand\n         {selecting}>\n      {buttons}\n    </div>'
        f'\n    <p class="whyline" aria-live="polite" data-whyline '
        f'data-not-together="{w["These cards cannot be played together now."]}"{too_many}></p>'
        f"{_actions(mode, version, hand_n, ctx.get('rassi_actions') or [])}\n  </div>\n")


WORDS = (N_("Your hand"), N_("These cards cannot be played together now."), N_("Play"), N_("Exchange"),
         N_("Keep my hand"), N_("Arrow keys move along your hand; Enter plays."),
         N_("Arrow keys move; Space selects a card; Tab to Play."),
         N_("Arrow keys move; Space selects a card; Tab to Exchange."))
RASSI_TEXT = {
    "free": N_("Take free cards (new hand)"),
    "double": N_("Double (new hand, ×2)"),
    "redouble": N_("Redouble (new hand, ×4)"),
    "pass": N_("Keep my hand"),
}


def _actions(mode: str, version: int, hand_n: int, rassi_actions: list[str]) -> str:
    """What follows the hand in `mode`: the keyboard hint, and the buttons that send."""
    w = said(WORDS)
    if mode == "play":
        return f'\n    <p class="hint keys">{w["Arrow keys move along your hand; Enter plays."]}</p>'
    if mode == "select":
        labels = _labels([ngettext("Play %(num)d card", "Play %(num)d cards", n) if n else _("Play")
                          for n in range(hand_n + 1)])
        return (f'\n    <div class="actions">\n      <button class="btn primary" data-key="send" data-send-selection="play" '
                f"data-labels='{labels}' hx-ws:send hx-vals='{_sends('act', version)}' disabled>{w['Play']}</button>"
                f'\n    </div>\n    <p class="hint keys">{w["Arrow keys move; Space selects a card; Tab to Play."]}</p>')
    if mode == "exchange":
        labels = _labels([ngettext("Exchange %(num)d card", "Exchange %(num)d cards", n) if n else _("Exchange")
                          for n in range(hand_n + 1)])
        return (f'\n    <div class="actions">\n      <button class="btn primary" data-key="send" data-send-selection="exchange" '
                f"data-labels='{labels}' hx-ws:send hx-vals='{_sends('act', version)}' disabled>{w['Exchange']}</button>"
                f"\n      <button class=\"btn\" data-key=\"keep\" hx-ws:send hx-vals='{_sends('act', version, 'exchange')}'>"
                f'{w["Keep my hand"]}</button>'
                f'\n    </div>\n    <p class="hint keys">{w["Arrow keys move; Space selects a card; Tab to Exchange."]}</p>')
    if mode == "rassi":
        buttons = "".join(
            f'\n      <button class="btn{"" if a == "pass" else " primary"}" data-key="rassi-{escape(a)}" hx-ws:send '
            f"hx-vals='{_sends('act', version, a)}'>{escape(say(RASSI_TEXT.get(a, a)))}</button>"
            for a in rassi_actions)
        return f'\n    <div class="actions">{buttons}\n    </div>'
    return ""


def _labels(words: list[str]) -> str:
    """The send button's words for 0, 1, 2... selected cards, as JSON for an HTML attribute."""
    return str(htmlsafe_json_dumps(words, separators=(",", ":")))


def _sends(do: str, version: int, action: str | None = None) -> str:
    values: dict[str, Any] = {"do": do, "v": version}
    if action is not None:
        values["action"] = action
    return str(htmlsafe_json_dumps(values, sort_keys=True))
