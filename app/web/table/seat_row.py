"""The table's list of players: each seat's row and its stats, drawn in Python.

The rows are drawn once per table state for every viewer together (a shared part, with the
words and buttons that depend on who looks marked by `viewer`), and a row that looks as it did
(most of them: a move changes whose turn it is and one count) is taken from a memo. Each row
took a few dozen template calls (a tag per role, the presence marks, the stats); here it is
one f-string. The HTML is the template's it replaced, attribute for attribute (compared across
every preset, language and seat when it was replaced; the list and the stats too, but for
blank lines).
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping

from jinja2.utils import htmlsafe_json_dumps
from markupsafe import Markup, escape

from app.i18n import N_, _, current_language
from app.web.table.bot_words import bot_tag
from app.web.table.cards_html import card_back, card_html
from app.web.table.look import SeatRow, SeatStats
from app.web.table.presence_marks import presence_dot, presence_word
from app.web.table.viewer_marks import Mark, Marked, mark
from app.web.table.words import said


def seat_row(row: SeatRow, stats: Marked | None, version: int, lobby: bool, turn_left: int | None) -> list[Marked]:
    """Seat `row`'s row (its `stats` inside it, None for none) in the current language, as the
    pieces of the list it goes into."""
    sends = not row.empty and (lobby or row.can_hand_to_bot)  # its buttons carry the version
    head, tail = _row(current_language(), row, version if sends else None, lobby,
                      turn_left if row.to_act else None)
    return [head, stats, tail] if stats is not None else [head, tail]


# The words of a row (the tags), said and escaped once per language
WORDS = (N_("you"), N_("Host"), N_("host"), N_("bot"), N_("bot playing"), N_("Dealer"), N_("dealer"),
         N_("Forhånd: leads the first trick"), N_("forhånd"), N_("out"), N_("to play"), N_("Time left to move"),
         N_("Players"), N_("Cards in hand"), N_("cards in hand"), N_("Penalty points"), N_("penalty points"),
         N_("Agurk: final card was a joker"), N_("agurk"))


@functools.lru_cache(maxsize=2048)
def _row(lang: str, s: SeatRow, version: int | None, lobby: bool, turn_left: int | None) -> tuple[Marked, Marked]:
    """The row before its stats and after them (what follows it in the list included)."""
    seat = s.seat
    w = said(WORDS)
    own_class, own_tag = _own(lang, seat)
    tags: list[str] = []
    if s.is_host:
        tags.append(f'<span class="tag host" title="{w["Host"]}">{w["host"]}</span>')
    if s.is_bot:
        tags.append(f'<span class="tag bot">{bot_tag(s.bot_level)}</span>')
    elif s.bot_controlled:
        tags.append(f'<span class="tag bot">{w["bot playing"]}</span>')
    if s.dealer:
        tags.append(f'<span class="tag dealer" title="{w["Dealer"]}">{w["dealer"]}</span>')
    if s.forehand:
        tags.append(f'<span class="tag fh" title="{w["Forhånd: leads the first trick"]}">{w["forhånd"]}</span>')
    if s.multiplier and s.multiplier > 1:
        tags.append(f'<span class="tag mult">×{int(s.multiplier)}</span>')
    if s.out:
        tags.append(f'<span class="tag outtag">{w["out"]}</span>')
    if s.to_act:
        tags.append(f'<span class="tag turntag">{w["to play"]}</span>')
        if turn_left is not None:
            left = int(turn_left)
            tags.append(f'<span class="tag clock" data-countdown="{left}" role="timer" '
                        f'aria-label="{w["Time left to move"]}">{left} s</span>')
    tag_lines = "".join(f"\n        {tag}" for tag in tags)
    current = 'aria-current="true"' if s.to_act else ""
    name = _("Free seat") if s.name is None else s.name
    head = Marked.of(
        f'\n    <li class="seat{" empty" if s.empty else ""}', own_class,
        f'{" turn" if s.to_act else ""}{" isout" if s.out else ""}" data-seat="{seat}"\n        {current}>'
        f'\n      <div class="who">\n        {presence_dot(s)}\n        <span class="name">{escape(name)}</span>'
        f'\n        {presence_word(s)}\n        ', own_tag,
        f'{tag_lines}\n        <span class="reaction" id="react-{seat}" aria-hidden="true"></span>\n      </div>\n      ')
    button = _button(s, version, lobby)
    return head, Marked.of(*(("\n        ", button) if button is not None else ()), "\n    </li>\n    ")


@functools.lru_cache(maxsize=256)
def _own(lang: str, seat: int) -> tuple[Mark, Mark]:
    """What a row says to its own player only: its class "me", and the tag "you"."""
    return mark(seat, me=" me"), mark(seat, me=Markup(f'<span class="tag you">{said(WORDS)["you"]}</span>'))


def _button(s: SeatRow, version: int | None, lobby: bool) -> Mark | None:
    """What a viewer may do about another seat: the host removes a bot or an absent player
    before the game; a seated player lets a bot play for one who is away."""
    if s.empty or s.name is None:
        return None
    seat, name = s.seat, s.name
    if lobby and (s.is_bot or not s.present):
        sends = htmlsafe_json_dumps({"do": "remove", "seat": seat, "v": version}, sort_keys=True)
        remove = (Markup('<button class="btn small" data-key="remove-%s" hx-ws:send hx-vals=\'%s\' aria-label="%s">%s</button>')
                  % (seat, sends, _("Remove %(name)s", name=name), _("Remove")))
        return mark(seat, host=remove)
    if not lobby and s.can_hand_to_bot:
        sends = htmlsafe_json_dumps({"do": "hand_to_bot", "seat": seat, "v": version}, sort_keys=True)
        handover = (Markup('<button class="btn small" data-key="hand-to-bot-%s" hx-ws:send hx-vals=\'%s\'>%s</button>')
                    % (seat, sends, _("Let a bot play for %(name)s", name=name)))
        return mark(seat, seated=handover, watching="")
    return None


def seat_list(rows: Iterable[SeatRow], stats: Mapping[int, Marked], version: int, lobby: bool,
              turn_left: int | None) -> Marked:
    """Every seat's row (an occupied seat's `stats` inside it), in the current language."""
    lang = current_language()
    parts = [_list_ends(lang)[0]]
    for row in rows:
        parts.extend(seat_row(row, None if row.empty else stats.get(row.seat), version, lobby, turn_left))
    parts.append(_list_ends(lang)[1])
    return Marked.joined(parts)


@functools.lru_cache(maxsize=16)
def _list_ends(lang: str) -> tuple[Marked, Marked]:
    return Marked(f'  <ol class="seats" aria-label="{said(WORDS)["Players"]}">\n    '), Marked("\n  </ol>")


def seat_stats(s: SeatStats, target: int | None) -> Marked:
    """A seat's cards in hand, penalty points (a bar of `target`), agurks and penalty cards, in
    the current language. (Put together from pieces drawn once: a move changes one count.)"""
    lang = current_language()
    return Marked.of(_count(lang, s.hand_count), _points(lang, s.score, target),
                     _rest(lang, s.name, s.agurk, s.penalty_cards))


@functools.lru_cache(maxsize=512)
def _count(lang: str, hand_count: int) -> Marked:
    w = said(WORDS)
    return Marked(f'\n      <div class="stats">\n        <span class="count" title="{w["Cards in hand"]}">'
                  f'{card_back(size="mini")}<span>×{int(hand_count)}</span>'
                  f'<span class="sr-only"> {w["cards in hand"]}</span></span>')


@functools.lru_cache(maxsize=4096)
def _points(lang: str, score: int, target: int | None) -> Marked:
    w = said(WORDS)
    # the bar: a meter of the points towards the target (its number is said beside it)
    return Marked(f'\n        <span class="score" title="{w["Penalty points"]}">'
                  f'\n          <meter class="bar" min="0" max="{int(target or 21)}" value="{int(score)}" aria-hidden="true"></meter>'
                  f'\n          <b>{int(score)}</b><span class="sr-only"> {w["penalty points"]}</span>'
                  f'<span class="of">/ {escape(target)}</span>\n        </span>')


@functools.lru_cache(maxsize=4096)
def _rest(lang: str, name: str, agurk: int, penalty_cards: tuple[str, ...]) -> Marked:
    """The agurks and penalty cards, if any, and the end of the stats."""
    w = said(WORDS)
    lines = []
    if agurk:
        lines.append(f'\n        <span class="tag agurk" title="{w["Agurk: final card was a joker"]}">'
                     f'{w["agurk"]} ×{int(agurk)}</span>')
    if penalty_cards:
        cards = "".join(card_html(c, size="tiny") for c in penalty_cards)
        whose = escape(_("Penalty cards of %(name)s", name=name))
        lines.append(f'\n        <span class="pens" role="group" aria-label="{whose}">{cards}</span>')
    lines.append("\n      </div>\n")
    return Marked("".join(lines))
