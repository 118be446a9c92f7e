"""The felt: the trick in play, the previous trick, and before the first trick what happened
(whose lead, who swapped or doubled), drawn in Python once per look for every viewer.

Its words about one seat ("You took the trick." or "Bo took the trick.") are marks: each viewer
keeps its own (app/web/table/viewer_marks.py). It is put together from text and marks, not
split from its text.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from typing import Any

from markupsafe import Markup, escape

from app.i18n import N_, _, current_language, ngettext, say
from app.web.table.status_bar import PHASE_TEXT
from app.web.table.viewer_marks import Mark, Marked, mark
from app.web.table.words import said

WORDS = (N_("Current trick"), N_("Final trick: the highest card takes the penalty."), N_("Previous trick"),
         N_("Last trick"))


def felt_html(view: Mapping[str, Any] | None, parts: Mapping[str, Markup], names: Sequence[str], lead_seat: int,
              before: Mapping[str, Any]) -> Marked:
    """The felt of a game in play (nothing once it is over). `parts`: the trick's plays
    (`trick`, `last_trick`, `last_trick_small`); `before`: `render.before_first_trick`."""
    if not view or view.get("over"):
        return Marked.of("  ")
    w, trick, last = said(WORDS), view.get("trick") or {}, view.get("last_trick")
    head = (f'  \n  <div class="felt">\n    <div class="trick" role="group" aria-label="{w["Current trick"]}">'
            f'\n      ')
    if trick.get("plays"):
        final = (f'<p class="finalnote">{w["Final trick: the highest card takes the penalty."]}</p>'
                 if trick.get("final") else "")
        inside: tuple[str | Mark, ...] = (f'\n        {parts["trick"]}\n        {final}\n      ',)
    else:
        inside = ("\n        ", *_since_last(view, parts, names, lead_seat), "\n        ", *_before(view, names, before),
                  "\n      ")
    small = (f'\n    <details class="lasttrick" data-keep="lasttrick">'
             f'\n      <summary>{w["Previous trick"]}</summary>'
             f'\n      {parts["last_trick_small"]}\n    </details>\n    ') if last and trick.get("plays") else ""
    return Marked.of(head, *inside, f"\n    </div>\n    {small}\n  </div>\n  ")


def _since_last(view: Mapping[str, Any], parts: Mapping[str, Markup], names: Sequence[str],
                lead_seat: int) -> tuple[str | Mark, ...]:
    """Between tricks: the previous trick and who took it, whose lead; before the play: the phase."""
    last, to_act, w = view.get("last_trick"), view.get("to_act"), said(WORDS)
    if view["phase"] != "play":
        stock = view.get("stock_count")
        count = (" · " + escape(ngettext("%(num)d card in the stock", "%(num)d cards in the stock", stock))
                 if stock else "")
        phase = escape(say(PHASE_TEXT.get(view["phase"], view["phase"])))
        return (f'\n        \n          <p class="empty">{phase}{count}</p>\n        ',)
    done = (f'\n          <div class="done" role="group" aria-label="{w["Last trick"]}">{parts["last_trick"]}</div>'
            f'\n        ') if last else ""
    lang = current_language()
    took: tuple[str | Mark, ...] = ()
    if last and last.get("winner") is not None:
        winner = last["winner"]
        took = (_took(lang, winner, names[winner]), " ")
    lead: tuple[Mark, ...] = (_lead(lang, lead_seat, names[to_act]),) if to_act is not None else ()
    return (f'{done}\n        \n          <p class="empty">', *took, *lead, "</p>\n        ")


@functools.lru_cache(maxsize=1024)
def _took(lang: str, winner: int, name: str) -> Mark:
    return mark(winner, me=_("You took the trick."), seated=_("%(name)s took the trick.", name=name))


@functools.lru_cache(maxsize=1024)
def _lead(lang: str, lead_seat: int, name: str) -> Mark:
    return mark(lead_seat, me=Markup("<b>%s</b>") % _("Your lead."), seated=_("%(name)s leads.", name=name))


def _before(view: Mapping[str, Any], names: Sequence[str], before: Mapping[str, Any]) -> tuple[str | Mark, ...]:
    """Before the first trick: who swapped or kept their cards, who took free cards or doubled."""
    exchanged, rassi = before["exchange_done"], before["rassi_done"]
    if view.get("last_trick") or not (exchanged or rassi):
        return ()
    swaps = _between(" · ", [
        mark(seat, me=ngettext("You swapped %(num)d card", "You swapped %(num)d cards", n),
             seated=ngettext("%(name)s swapped %(num)d card", "%(name)s swapped %(num)d cards", n, name=names[seat]))
        if n else mark(seat, me=_("You kept your hand"), seated=_("%(name)s kept their hand", name=names[seat]))
        for seat, n in exchanged])
    doubles = _between(" · ", [mark(seat, me=mine, seated=theirs) for seat, mine, theirs in rassi])
    both = " · " if exchanged and rassi else ""
    return ('\n          <p class="before">\n            ', *swaps, f"\n            {both}\n            ", *doubles,
            "\n          </p>\n        ")


def _between(separator: str, marks: list[Mark]) -> list[str | Mark]:
    """`marks` with `separator` between them."""
    out: list[str | Mark] = []
    for m in marks:
        if out:
            out.append(separator)
        out.append(m)
    return out
