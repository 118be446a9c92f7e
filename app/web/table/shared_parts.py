"""The parts of a room's table that every seat shares, rendered once per game state and language.

A push used to render each seat's whole table. Most of it is the same for everybody: each
seat's card count, score and penalty cards, the trick on the felt, the previous trick, the
final cards of the last deal and the score sheet. Those parts are rendered here once, from
public information only (the spectator's view, `game.view(None)`, with the seats' names), and
each seat's table (templates/table/room.html) places them around what only it sees: its hand,
its status, its advice and buttons.

The cache is keyed by the room's game state (its version, its game object and the length of
the game's log: a move applied but not committed, or rolled back, is a different state) and
by language, and keeps only the current state of each room.
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass, field
from typing import Any

from fastapi.templating import Jinja2Templates
from markupsafe import Markup

from app.i18n import _, current_language
from app.rooms.room import LiveRoom
from app.web.table.render import table_context
from app.web.table.score_sheet import score_rows

TEMPLATE = "table/shared.html"


@dataclass(frozen=True)
class SharedParts:
    stats: dict[int, Markup]  # each occupied seat's count, score and penalty cards
    trick: Markup  # the plays of the trick in progress
    last_trick: Markup  # the previous trick, shown on the felt between tricks
    last_trick_small: Markup  # the previous trick, small, beside a trick in progress
    finals: Markup  # the final cards of the last deal
    score_sheet: Markup

    def html(self) -> str:
        """Every part together (what a test scans for hidden cards)."""
        return "".join([*self.stats.values(), self.trick, self.last_trick, self.last_trick_small,
                        self.finals, self.score_sheet])


StateKey = tuple[int, int, int]


def state_key(room: LiveRoom) -> StateKey:
    g = room.game
    return (room.version, id(g), len(g.log) if g is not None else 0)


class SharedPartsCache:
    """Per room: its current state's parts, per language."""

    def __init__(self, templates: Jinja2Templates) -> None:
        self.templates = templates
        self._rooms: weakref.WeakKeyDictionary[LiveRoom, tuple[StateKey, dict[str, SharedParts]]] = (
            weakref.WeakKeyDictionary()
        )
        # what changes less often than the state (the score sheet, most seats' stats), per room
        self._drawn: weakref.WeakKeyDictionary[LiveRoom, Drawn] = weakref.WeakKeyDictionary()
        self.renders = 0  # how many times parts were rendered (tests and the bench look)

    def get(self, room: LiveRoom, lang: str) -> SharedParts:
        """`room`'s shared parts in `lang` (rendered in the current language: the caller's)."""
        key = state_key(room)
        entry = self._rooms.get(room)
        if entry is None or entry[0] != key:
            entry = (key, {})
            self._rooms[room] = entry
        parts = entry[1].get(lang)
        if parts is None:
            drawn = self._drawn.get(room)
            if drawn is None:
                drawn = self._drawn[room] = Drawn()
            parts = entry[1][lang] = render_shared(self.templates, room, drawn)
            self.renders += 1
        return parts


SheetKey = tuple[str, tuple[str, ...], tuple[Any, ...]]  # (language, names, the finished deals)


@dataclass
class Drawn:
    """A room's parts as last drawn, by what they show: the score sheet (it changes once per
    deal) and each seat's stats (a move changes one seat's count, the others' stay)."""

    sheet: tuple[SheetKey, Markup] | None = None
    stats: dict[tuple[Any, ...], Markup] = field(default_factory=dict)


def render_shared(templates: Jinja2Templates, room: LiveRoom, drawn: Drawn) -> SharedParts:
    """Render the shared parts from public information only (the table as a spectator sees it,
    and the finished deals), in the current language; what shows the same as when it was last
    drawn comes from `drawn`."""
    ctx = table_context(room, None)
    g = room.game
    view: dict[str, Any] | None = ctx["view"]
    empty = Markup("")
    if view is None or g is None:
        return SharedParts({}, empty, empty, empty, empty, empty)
    module: Any = templates.env.get_template(TEMPLATE).make_module(ctx)
    trick = view.get("trick") or {}
    last = view.get("last_trick")
    last_deal = view.get("last_deal")
    return SharedParts(
        stats=_stats(module, ctx, drawn),
        trick=Markup(module.plays_list(trick)) if trick.get("plays") else empty,
        last_trick=Markup(module.plays_list(last, took=_("took it"))) if last else empty,
        last_trick_small=Markup(module.plays_list(last, "tiny", _("took it"))) if last else empty,
        finals=Markup(module.final_cards(last_deal)) if last_deal else empty,
        score_sheet=_score_sheet(templates, room, g.deal_log, ctx, drawn) if g.deal_log else empty,
    )


def _stats(module: Any, ctx: dict[str, Any], drawn: Drawn) -> dict[int, Markup]:
    """Each occupied seat's stats, drawn again only when what they show changed."""
    lang, target = current_language(), ctx["view"]["target"]
    stats: dict[int, Markup] = {}
    now: dict[tuple[Any, ...], Markup] = {}
    for s in ctx["seats"]:
        if s["empty"] or "score" not in s:
            continue
        key = (lang, target, s["name"], s["hand_count"], s["score"], s["agurk"], tuple(s["penalty_cards"]))
        html = drawn.stats.get(key)
        if html is None:
            html = Markup(module.seat_stats(s))
        stats[s["seat"]] = now[key] = html
    drawn.stats = now  # only what shows now: the memo stays as small as the table
    return stats


def _score_sheet(templates: Jinja2Templates, room: LiveRoom, deal_log: Any, ctx: dict[str, Any],
                 drawn: Drawn) -> Markup:
    key: SheetKey = (current_language(), tuple(ctx["names"]), tuple(deal_log))  # compared, not hashed
    if drawn.sheet is None or drawn.sheet[0] != key:
        sheet_ctx = {**ctx, "score_sheet": score_rows(deal_log, len(room.seats))}
        module: Any = templates.env.get_template(TEMPLATE).make_module(sheet_ctx)
        drawn.sheet = (key, Markup(module.score_sheet_part()))
    return drawn.sheet[1]
