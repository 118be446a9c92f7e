"""The last deal's result (who took which penalty card, the points, agurks, who went out) and
its final cards, drawn in Python once per deal for every viewer: "you took" and "Out: you" are
marks for the seat they are about (a player reads "you", never their own name).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from markupsafe import Markup, escape

from app.i18n.jinja import markup_gettext, markup_ngettext
from app.web.table.cards_html import card_html
from app.web.table.viewer_marks import viewer

LOSER = ' class="loser"'


def final_cards_html(ld: Mapping[str, Any], names: Sequence[str]) -> Markup:
    """The final card each seat held in the deal `ld` (the view's `last_deal`)."""
    if not ld["final_cards"]:
        return Markup("\n    \n")
    losers = ld["losers"]
    items = "".join(
        f'<li{LOSER if i in losers else ""}><span class="fname">{escape(names[i])}</span> {card_html(fc, size="tiny")}</li>'
        for i, fc in enumerate(ld["final_cards"]) if fc)
    label, title = markup_gettext("Final cards of deal %(n)s", n=ld["deal_no"]), markup_gettext("Final cards:")
    return Markup(f'\n    \n    <ul class="finals" aria-label="{label}" data-title="{title}">{items}</ul>\n    \n')


def deal_result_html(view: Mapping[str, Any], names: Sequence[str], finals: str) -> Markup:
    """The result of the view's last deal, its `finals` (`final_cards_html`) inside; whether a
    trick has been played since dims it."""
    ld = view["last_deal"]
    trick = view.get("trick")
    old = " old" if not view["over"] and (view.get("last_trick") or (trick and trick["plays"])) else ""
    label, deal = markup_gettext("Result of deal %(n)s", n=ld["deal_no"]), markup_gettext("Deal %(n)s:", n=ld["deal_no"])
    lines = [(f'  \n  \n  <div class="banner dealend{old}" role="note" aria-label="{label}">'
              f'\n    <p class="dealline"><strong>{deal}</strong>\n    ')]
    losers = ld["losers"]
    for i, loser in enumerate(losers):
        card = card_html(ld["cards"][i], size="tiny")
        took = viewer(loser, me=markup_gettext("you took %(card)s", card=card),
                      seated=markup_gettext("%(name)s took %(card)s", name=names[loser], card=card))
        multipliers = ld["multipliers"]
        times = f" (×{multipliers[i]})" if multipliers and multipliers[i] and multipliers[i] > 1 else ""
        points = markup_ngettext("%(num)d point", "%(num)d points", ld["points"][i])
        lines.append(f'\n      {took}\n      <b>{points}</b>{times}{"; " if i < len(losers) - 1 else ""}\n    ')
    agurk = cleared = out = ""
    if ld["agurk"]:
        said = markup_gettext("Agurk:")
        agurk = f'<span class="agurk-note">{said} {_names(ld["agurk"], names)}!</span>'
    if ld["cleared"]:
        pile = markup_gettext("Pile cleared at exactly %(n)s:", n=view["target"])
        cleared = f'<span>{pile} {_names(ld["cleared"], names)}.</span>'
    if ld["went_out"]:
        said = markup_gettext("Out:")
        out = f'<span class="out-note">{said} {_names(ld["went_out"], names)}.</span>'
    lines.append(f"\n    {agurk}\n    {cleared}\n    {out}\n    </p>\n    {finals}\n  </div>\n  ")
    return Markup("".join(lines))


def _names(seats: Sequence[int], names: Sequence[str]) -> str:
    """The seats' names, each a mark: its own player reads "you" (as in "you took")."""
    you = markup_gettext("you")
    return ", ".join(viewer(s, me=you, seated=names[s]) for s in seats)
