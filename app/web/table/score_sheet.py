"""The score sheet: one row per finished deal (who took what, points, agurk, who went out) with
the running totals, built from the engine's deal log (public once a deal has ended), and drawn
in Python (the table's and the replay's; the HTML is the template's it replaced)."""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from typing import Any

from markupsafe import Markup, escape

from app.i18n import N_, current_language
from app.i18n.jinja import markup_gettext, markup_ngettext
from app.rules.scoring import DealResult
from app.web.table.cards_html import card_html


def score_rows(deal_log: Sequence[DealResult], players: int) -> list[dict[str, Any]]:
    """Each finished deal as a row, with every seat's total after it."""
    totals = [0] * players
    rows: list[dict[str, Any]] = []
    for deal in deal_log:
        took = []
        for seat, card, points, mult in zip(deal.losers, deal.cards, deal.points, deal.multipliers):
            totals[seat] += points
            took.append({"seat": seat, "card": card, "points": points, "multiplier": mult})
        for seat in deal.cleared:
            totals[seat] = 0
        rows.append({
            "deal_no": deal.deal_no,
            "dealer": deal.dealer,
            "took": took,
            "agurk": list(deal.agurk),
            "went_out": list(deal.went_out),
            "cleared": list(deal.cleared),
            "totals": list(totals),
        })
    return rows


CAPTION = N_("Penalty points per deal, with each player's total after it")


def score_sheet_html(rows: Sequence[Mapping[str, Any]], names: Sequence[str], *, opened: bool = False) -> Markup:
    """The sheet of `rows` (`score_rows`), in the current language (`opened`: shown open). Each
    row is drawn once: a new deal adds one."""
    lang, shown = current_language(), tuple(str(n) for n in names)
    heads = "".join(f'<th scope="col">{escape(n)}</th>' for n in shown)
    body = "".join(_row(lang, shown, _row_key(row)) for row in rows)
    summary = markup_ngettext("Score sheet (%(num)d deal)", "Score sheet (%(num)d deals)", len(rows))
    caption, deal, took = markup_gettext(CAPTION), markup_gettext("Deal"), markup_gettext("Took")
    return Markup(
        f'\n<details class="scoresheet" data-keep="scoresheet"{" open" if opened else ""}>'
        f'\n  <summary>{summary}</summary>\n  <div class="sheetwrap">\n  <table>'
        f'\n    <caption class="sr-only">{caption}</caption>'
        f'\n    <thead><tr><th scope="col">{deal}</th><th scope="col">{took}</th>{heads}</tr></thead>'
        f'\n    <tbody>\n    {body}\n    </tbody>\n  </table>\n  </div>\n</details>')


RowKey = tuple[int, tuple[tuple[int, str, int, int], ...], tuple[int, ...], tuple[int, ...], tuple[int, ...],
               tuple[int, ...]]


def _row_key(row: Mapping[str, Any]) -> RowKey:
    return (row["deal_no"], tuple((t["seat"], t["card"], t["points"], t["multiplier"]) for t in row["took"]),
            tuple(row["agurk"]), tuple(row["went_out"]), tuple(row["cleared"]), tuple(row["totals"]))


@functools.lru_cache(maxsize=4096)
def _row(lang: str, names: tuple[str, ...], key: RowKey) -> str:
    deal_no, took, agurk, went_out, cleared, totals = key
    took_html = "".join(
        f'{escape(names[seat])} {card_html(card, size="tiny")} <b>{points}</b>{f" (×{mult})" if mult > 1 else ""}'
        f'{"; " if i < len(took) - 1 else ""}' for i, (seat, card, points, mult) in enumerate(took))
    agurk_html = cleared_html = out_html = ""
    if agurk:
        said = markup_gettext("Agurk:")
        agurk_html = f'<span class="agurk-note">{said} {_names(agurk, names)}</span>'
    if cleared:
        said = markup_gettext("Cleared:")
        cleared_html = f'<span>{said} {_names(cleared, names)}</span>'
    if went_out:
        said = markup_gettext("Out:")
        out_html = f'<span class="out-note">{said} {_names(went_out, names)}</span>'
    cells = "".join(f'<td class="num{" wentout" if i in went_out else ""}">{total}</td>' for i, total in enumerate(totals))
    return (f'\n      <tr>\n        <th scope="row">{deal_no}</th>\n        <td class="took">\n          {took_html}'
            f'\n          {agurk_html}\n          {cleared_html}\n          {out_html}\n        </td>\n        {cells}'
            f'\n      </tr>\n    ')


def _names(seats: Sequence[int], names: Sequence[str]) -> str:
    return ", ".join(str(escape(names[s])) for s in seats)
