"""The parts of a room's table that every seat shares, rendered once per look and language.

A push used to render each seat's whole table. Most of it is the same for everybody: the seats
(names, presence, tags, each one's count, score and penalty cards), the trick on the felt, the
previous trick, the result and final cards of the last deal and the score sheet. Those parts
are rendered here once, from public information only (the spectator's view, `game.view(None)`,
with the seats' names), and each seat's table (templates/table/room.html) places them around
what only it sees: its status, its hand, its advice and buttons.

The few words and buttons in those parts that depend on who looks ("you took the trick" or
"Anna took the trick", the "you" tag, the "Let a bot play" button a seated player gets) are
rendered for every kind of viewer, marked with the seat they are about (`viewer()` in the
templates), and `SharedParts.for_viewer` keeps the one each viewer gets: a string operation
per seat, not a rendering.

The cache is keyed by the room's game state (its version, its game object and the length of
the game's log: a move applied but not committed, or rolled back, is a different state), by
what the seats show besides the game (presence, bots, the turn clock) and by language, and
keeps only the current look of each room.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from markupsafe import Markup

from app.i18n import _, current_language
from app.rooms.room import LiveRoom
from app.web.table.deal_html import deal_result_html, final_cards_html
from app.web.table.felt_html import felt_html
from app.web.table.look import Look, look_of
from app.web.table.plays_html import plays_html
from app.web.table.render import before_first_trick, look_context
from app.web.table.score_sheet import score_rows, score_sheet_html
from app.web.table.seat_row import seat_list, seat_stats
from app.web.table.viewer_marks import Marked


@dataclass(slots=True)
class SharedParts:  # (made per push and language: not frozen, see `Look`)
    stats: dict[int, Marked]  # each occupied seat's count, score and penalty cards
    trick: Markup  # the plays of the trick in progress
    last_trick: Markup  # the previous trick, shown on the felt between tricks
    last_trick_small: Markup  # the previous trick, small, beside a trick in progress
    finals: Markup  # the final cards of the last deal
    score_sheet: Markup
    # with `viewer()` marks:
    deal_result: Markup  # the last deal's result, its final cards included
    public: dict[str, Any]  # the public table model they show (`look_context`)
    look: Look  # what they show, in no language
    board: dict[str, Marked]  # the parts a seat's table places, split at their marks (and escaped for JSON) once

    @property
    def felt(self) -> Markup:
        """The trick, the last trick, or what happened before the first (with viewer marks)."""
        return self.board["felt"].html

    @property
    def seat_list(self) -> Markup:
        """Every seat, its stats included (with viewer marks)."""
        return self.board["seat_list"].html

    def html(self) -> str:
        """Every part together (what a test scans for hidden cards)."""
        return "".join([*(s.html for s in self.stats.values()), self.trick, self.last_trick, self.last_trick_small,
                        self.finals, self.score_sheet, self.seat_list, self.deal_result, self.felt])

    def for_viewer(self, me: int | None, host: int | None) -> dict[str, str]:
        """The parts a seat's table places, as the viewer at seat `me` reads them."""
        return {name: part.for_viewer(me, host) for name, part in self.board.items()}

    def json_for_viewer(self, me: int | None, host: int | None) -> dict[str, str]:
        """The same, escaped for a JSON string (a push)."""
        return {name: part.json_for_viewer(me, host) for name, part in self.board.items()}


StateKey = tuple[int, int, int]
P = TypeVar("P")


def state_key(room: LiveRoom) -> StateKey:
    g = room.game
    return (room.version, id(g), len(g.log) if g is not None else 0)


def look_key(look: Look) -> tuple[Any, ...]:
    """What a table shows besides the game state: who is here, the seats' players and bots,
    the host, who can be handed to a bot, the clocks and the room's notes."""
    return (look.status, look.host, look.present, look.rows, look.handovers, look.turn_left, look.deal_waiting,
            look.time_note, look.turn_seconds)


@dataclass
class Shown:
    """A room's current look (`key`: its state and what the seats show) and its parts, per
    language."""

    key: tuple[Any, ...]
    look: Look
    parts: dict[str, SharedParts] = field(default_factory=dict)
    round: int | None = None  # the room's publish round it was last looked up in (one look per round)


class SharedPartsCache:
    """Per room: its current state's parts, per language."""

    def __init__(self) -> None:
        self._rooms: weakref.WeakKeyDictionary[LiveRoom, Shown] = weakref.WeakKeyDictionary()
        # what changes less often than the state (the score sheet, most seats' stats), per room
        self._drawn: weakref.WeakKeyDictionary[LiveRoom, Drawn] = weakref.WeakKeyDictionary()
        self.renders = 0  # how many times parts were rendered (tests and the bench look)

    def get(self, room: LiveRoom, lang: str) -> SharedParts:
        """`room`'s shared parts in `lang` (rendered in the current language: the caller's)."""
        entry = self._rooms.get(room)
        publishing = room.publishing
        if entry is None or publishing is None or entry.round != publishing:  # else: the look of this round
            look = look_of(room)
            key = (state_key(room), look_key(look))
            if entry is None:
                entry = self._rooms[room] = Shown(key, look)
            elif entry.key != key:
                entry.key, entry.look, entry.parts = key, look, {}  # in place: a weak dictionary's store is dear
            entry.round = publishing
        parts = entry.parts.get(lang)
        if parts is None:
            drawn = self._drawn.get(room)
            if drawn is None:
                drawn = self._drawn[room] = Drawn()
            parts = entry.parts[lang] = render_shared(entry.look, drawn)
            self.renders += 1
        return parts


SheetKey = tuple[str, tuple[str, ...], tuple[Any, ...]]  # (language, names, the finished deals)


@dataclass
class Drawn:
    """A room's parts as last drawn, by what they show: the score sheet (it changes once per
    deal) and the smaller parts (a move changes one seat's stats and the trick in play; the
    previous trick and the last deal's result stay as they were). Per room and only what shows
    now, so it grows with the rooms, not with what the rooms ever showed."""

    sheet: tuple[SheetKey, Markup] | None = None
    parts: dict[tuple[Any, ...], Any] = field(default_factory=dict)  # those shown last time (HTML, or Marked)
    now: dict[tuple[Any, ...], Any] = field(default_factory=dict)  # those shown this time
    marked: dict[tuple[str, str], Marked] = field(default_factory=dict)  # (language, part): as split last
    round: int | None = None  # the publish round it was last turned over for (see `state.Tables`)

    def split(self, name: str, html: str) -> Marked:
        """The part `name` split at its marks, split again only if it shows something else."""
        key = (current_language(), name)
        kept = self.marked.get(key)
        if kept is None or kept.html_text() != html:
            kept = self.marked[key] = Marked(html)
        return kept

    def part(self, key: tuple[Any, ...], draw: Callable[[], P]) -> P:
        """The part `key` names (all it shows), drawn by `draw` only if it was not shown last
        time."""
        drawn: P | None = self.parts.get(key)
        if drawn is None:
            drawn = draw()
        self.now[key] = drawn
        return drawn

    def done(self) -> None:
        """Keep only what shows now: the memo stays as small as the table."""
        self.parts, self.now = self.now, {}


def render_shared(look: Look, drawn: Drawn) -> SharedParts:
    """Render the shared parts from public information only (the table as a spectator sees it,
    and the finished deals), in the current language; what shows the same as when it was last
    drawn comes from `drawn`."""
    public = look_context(look)
    view, g, names = look.view, look.room.game, public["names"]
    empty = Markup("")
    parts: dict[str, Any] = {}
    before: dict[str, Any] = {}
    if view is not None and g is not None:
        trick = view.get("trick") or {}
        last = view.get("last_trick")
        last_deal = view.get("last_deal")
        seen = (current_language(), tuple(names), look.top_cards)  # in every key
        before = before_first_trick(view, names)

        def plays(t: dict[str, Any], shown: str, size: str, took: str) -> Markup:
            key = ("plays", *seen, shown, size, took)
            return drawn.part(key, lambda: plays_html(t, size, took, names, look.top_cards))

        shown_last = repr(last) if last else ""
        parts.update(
            stats=_stats(look, view["target"], drawn),
            trick=plays(trick, repr(trick), "", _("highest")) if trick.get("plays") else empty,
            last_trick=plays(last, shown_last, "", _("took it")) if last else empty,
            last_trick_small=plays(last, shown_last, "tiny", _("took it")) if last else empty,
            finals=drawn.part(("finals", *seen, g.deal_log[-1]),
                              lambda: final_cards_html(last_deal, names)) if last_deal else empty,
            score_sheet=_score_sheet(look, g.deal_log, names, drawn) if g.deal_log else empty,
        )
        # the last deal's result: its words, and whether a trick has been played since
        result_key = ("deal_result", *seen, g.deal_log[-1] if g.deal_log else None, view["target"], view.get("over"),
                      bool(view.get("last_trick") or trick.get("plays")))
        deal_result = drawn.part(result_key, lambda: deal_result_html(view, names, parts["finals"])) if last_deal else empty
    else:
        parts.update(stats={}, trick=empty, last_trick=empty, last_trick_small=empty, finals=empty,
                     score_sheet=empty)
        deal_result = empty
    drawn.done()
    # the parts above are placed in these, which hold viewer marks
    seats = seat_list(look.rows, parts["stats"], look.version, look.status == "lobby", look.turn_left)
    felt = felt_html(view, parts, names, _lead_seat(look.room, view), before)  # a Marked
    board = {"seat_list": seats, "deal_result": drawn.split("deal_result", deal_result),
             "felt": felt, "score_sheet": drawn.split("score_sheet", parts["score_sheet"])}
    return SharedParts(**parts, deal_result=deal_result, public=public, look=look,
                       board=board)


def _lead_seat(room: LiveRoom, view: dict[str, Any] | None) -> int:
    """The seat whose player is told "Your lead." (-1: nobody; a bot playing for a seat leads
    under the seat's name)."""
    to_act = view.get("to_act") if view is not None else None
    seat = room.seats.get(to_act) if to_act is not None else None
    return -1 if to_act is None or seat is None or seat.bot_controlled else int(to_act)


def _stats(look: Look, target: int, drawn: Drawn) -> dict[int, Marked]:
    """Each seat's stats in the game, drawn again only when what they show changed."""
    lang = current_language()
    shown: dict[int, Marked] = {}
    for seat, stats in look.stats.items():
        key = ("stats", lang, target, stats)
        part = drawn.parts.get(key)
        shown[seat] = drawn.now[key] = part if part is not None else seat_stats(stats, target)
    return shown


def _score_sheet(look: Look, deal_log: Any, names: list[str], drawn: Drawn) -> Markup:
    key: SheetKey = (current_language(), tuple(names), tuple(deal_log))  # compared, not hashed
    if drawn.sheet is None or drawn.sheet[0] != key:
        drawn.sheet = (key, score_sheet_html(score_rows(deal_log, len(look.room.seats)), names))
    return drawn.sheet[1]
