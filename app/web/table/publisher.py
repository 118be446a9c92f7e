"""A room's news on the wire: its table per version, and its notices, talk and reactions.

The table is data (app/web/table/model.py): pieces, each one element with an id, drawn by a
macro of templates/table/table.html from plain data. A room's `TableLog` keeps the pieces it
last showed: the public ones (the same for every viewer) and each seat's own, and a sequence
number `seq` that moves on whenever the public table does. On every change of the room:

- the public pieces that changed are found once, by `==` on their data (`changes`), drawn once
  per language present in the room, and offered as one shared frame, the same bytes, to every
  connection of that language at the previous `seq`;
- each seat whose own pieces changed (usually the mover and the next player) is offered a small
  private frame, drawn for it alone;
- any other connection (one that is new, was at another `seq`, or changed seat) gets the whole
  table.

A connection keeps only which `seq` and seat it was last shown (`Connection.shown`).

Frames of the table are a head and HTML (the README, "The table on the wire"): one line of JSON
that says what the frame is, then the pieces, each carrying how it goes in (htmx's own out-of-band
swaps: `hx-swap-oob="outerMorph"` replaces the piece with that id, keeping what the page holds in
it; a bare `hx-swap-oob` replaces a piece that holds nothing to keep (no controls, no pieces);
`hx-swap-oob="delete"` takes it away; `<ol id=".." hx-swap-oob="beforeend">` adds the pieces
inside at the end of the list with that id, the wrapper itself taken away):

- `{"kind":"table","version":v,"seq":n}` and the whole `<section id="table" ...>`;
- `{"kind":"fragments","version":v,"seq":n,...}` and the public pieces that changed since `seq`
  n-1 (a page showing another `seq` asks for the whole table); the head's other names are the
  section's `data-` attributes that changed, by their names after `data-` (null: taken away);
- `{"kind":"private","seq":n,...}` and the seat's own pieces that changed, at `seq` n (after that
  `seq`'s shared frame, if any), with its own attributes that changed;
- and, as JSON: `{"kind": "notice", ...}`, `{"kind": "chat", ...}`, `{"kind": "chatform", ...}`,
  `{"kind": "reaction", ...}`: see `RoomFrames`.
"""

from __future__ import annotations

import json
import re
import weakref
from collections.abc import Callable, Hashable, Iterable
from dataclasses import dataclass, field
from typing import Any, cast

from fastapi.templating import Jinja2Templates
from markupsafe import Markup

from app.i18n import say, use_language
from app.rooms.chat import ChatLine
from app.rooms.news import News, NewsKind, Notice, Reaction
from app.rooms.room import LiveRoom
from app.web.table import talk
from app.web.table.hub import Connection
from app.web.table.model import Panel, Pieces, Public, Table, private_table, public_table
from app.web.table.render import Drawer, render_block

NOTICE_TEMPLATE = "table/room.html"
OPENING = re.compile(r"<[a-z][a-z0-9-]*")  # a piece's first tag, up to its name
HOLDER = {"li": "ol", "tr": "tbody"}  # the tag that may hold pieces of this tag (else div)


# what a morph keeps in a piece: controls (their focus, typed text, an open <details>) and pieces
# inside it (the page may have put something there: a reaction by a seat)
KEPT = re.compile(r"<(?:button|a|input|select|textarea|details)\b| id=")


def out_of_band(html: str, swap: str) -> str:
    """A drawn piece (one element) that goes in by itself: `swap` it with the element of its id
    ("outerMorph" on a piece with nothing a morph would keep: the bare attribute, htmx's
    outerHTML, 13 bytes shorter)."""
    name = OPENING.match(html)
    assert name is not None, html[:80]
    if swap == "outerMorph" and not KEPT.search(html, html.index(">", name.end())):
        return f"{html[:name.end()]} hx-swap-oob{html[name.end():]}"
    return f'{html[:name.end()]} hx-swap-oob="{swap}"{html[name.end():]}'


# (one encoder: `json.dumps` with options of its own makes a new one on every call, a frame's dearest
# part after its drawing)
HEAD = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))


def frame(head: dict[str, Any], html: str) -> str:
    """A frame of the table: its head, one line of JSON, then its HTML."""
    return HEAD.encode(head) + "\n" + html


@dataclass(frozen=True, slots=True)
class Op:
    """One change of a shown table: piece `target` replaced ("outerMorph") or deleted
    ("delete"), or pieces `kids` added at its end ("beforeend")."""

    swap: str
    target: str
    kids: tuple[str, ...] = ()


def changes(old: Pieces, new: Pieces, ids: Iterable[str]) -> list[Op]:
    """What turns the table of pieces `old` into `new`, from the pieces `ids` down."""
    ops: list[Op] = []
    if old == new:  # (a seat's own table, mostly)
        return ops
    for id_ in ids:
        _change(old, new, id_, ops)
    return ops


def _change(old: Pieces, new: Pieces, id_: str, ops: list[Op]) -> None:
    now, before = new[id_], old.get(id_)
    if before is None or before.macro != now.macro or before.data != now.data:
        ops.append(Op("outerMorph", id_))
        return
    if now.listing == "appended":  # (its kids have no ids: only kids added at the end go alone)
        kept = now.kids[:len(before.kids)]
        if kept == before.kids and all(old[kid] == new[kid] for kid in kept):
            if len(now.kids) > len(kept):
                ops.append(Op("beforeend", id_, now.kids[len(kept):]))
            return
        ops.append(Op("outerMorph", id_))
        return
    if before.kids == now.kids:
        for kid in now.kids:
            piece = new[kid]
            if piece.kids or old.get(kid) != piece:  # (a piece without kids that is as it was: nothing)
                _change(old, new, kid, ops)
        return
    if now.listing:  # kids taken away, and kids added at the end
        staying = set(now.kids)
        kept = tuple(kid for kid in before.kids if kid in staying)
        if (kept or not before.kids) and now.kids[:len(kept)] == kept:  # (with none kept of some, the whole list is as short)
            ops.extend(Op("delete", kid) for kid in before.kids if kid not in staying)
            for kid in kept:
                _change(old, new, kid, ops)
            if len(now.kids) > len(kept):
                ops.append(Op("beforeend", id_, now.kids[len(kept):]))
            return
    ops.append(Op("outerMorph", id_))


def changed_attrs(old: dict[str, str], new: dict[str, str]) -> dict[str, str | None]:
    """The section's attributes that changed (None: taken away)."""
    out: dict[str, str | None] = {k: v for k, v in new.items() if old.get(k) != v}
    out.update((k, None) for k in old if k not in new)
    return out


@dataclass(slots=True)
class TableLog:
    """What a room's connections were last shown: the public table at `seq`, and each seat's own
    (None: the spectators')."""

    public: Table | None = None
    seq: int = 0
    version: int = -1  # the room's version at `seq`
    private: dict[tuple[int | None, str], Table] = field(default_factory=dict)  # (seat, language) -> its own


class TablePublisher:
    """Draws rooms' tables and makes their frames (per app: its templates, and the panel the club
    adds to a room's table)."""

    def __init__(self, templates: Jinja2Templates) -> None:
        self.templates = templates
        self.drawer = Drawer(templates)
        # Hook: the club's panel on a room's table, per seat (in memory and cheap: it runs on
        # every change of the room)
        self.panels: list[Panel] = []
        self._logs: weakref.WeakKeyDictionary[LiveRoom, TableLog] = weakref.WeakKeyDictionary()
        self.drawn = 0  # how many pieces were drawn (tests and the bench look)

    def log(self, room: LiveRoom) -> TableLog:
        found = self._logs.get(room)
        if found is None:
            found = self._logs[room] = TableLog()
        return found

    def private(self, room: LiveRoom, seat: int | None, public: Public, lang: str | None = None) -> Table:
        """`seat`'s own table (its panel drawn in `lang`, else the current language)."""
        if lang is None:
            panel = "".join(panel(room, seat) for panel in self.panels)
        else:
            with use_language(lang):
                panel = "".join(panel(room, seat) for panel in self.panels)
        return private_table(room, seat, public, Markup(panel))

    def page_table(self, room: LiveRoom, seat: int | None) -> Markup:
        """`seat`'s whole table now, in the current language (for the room page)."""
        public = public_table(room)
        return Markup(self.drawer.table(public.table, self.private(room, seat, public), self.log(room).seq,
                                        room.state.version))

    # ------------------------------------------------------------------ frames

    def table_frames(self, room: LiveRoom, conns: Iterable[Connection]) -> list[tuple[Connection, str]]:
        """The whole table for each of `conns` (its seat, in its language)."""
        log = self.log(room)
        public = public_table(room)
        if log.public is None:
            log.public, log.seq, log.version = public.table, log.seq + 1, room.state.version
        current = log.public == public.table and log.version == room.state.version  # (else the next push brings the others, and these, up to date)
        out = []
        for conn in conns:
            own = self.private(room, conn.seat, public, conn.lang)
            known = log.private.setdefault((conn.seat, conn.lang), own)
            out.append((conn, self._whole(room, conn, public.table, own, log.seq, current and known == own)))
        return out

    def _whole(self, room: LiveRoom, conn: Connection, public: Table, own: Table, seq: int, current: bool) -> str:
        """The whole table for `conn`, at `seq`; `current`: what the room's log says it was last
        shown is what it is shown now (else its next push is a whole table again)."""
        with use_language(conn.lang):
            html = self.drawer.table(public, own, seq, room.state.version)
        conn.shown = (seq, conn.seat) if current else None
        return frame({"kind": "table", "version": room.state.version, "seq": seq}, out_of_band(html, "outerMorph"))

    def push_frames(self, room: LiveRoom, conns: Iterable[Connection]) -> list[tuple[Connection, str, bool]]:
        """What each of `conns` is to be offered now that `room` changed: the shared frame of
        what changed for everybody and its private frame of what changed for its seat (none
        when nothing did), or its whole table (then True)."""
        log = self.log(room)
        public = public_table(room)
        before, start = log.public, log.seq
        ops: list[Op] = []
        attrs: dict[str, str | None] = {}
        if before is not None:
            ops = changes(before.pieces, public.table.pieces, public.table.roots)
            attrs = changed_attrs(before.attrs, public.table.attrs)
        if before is None or ops or attrs or log.version != room.state.version:
            log.public, log.seq, log.version = public.table, start + 1, room.state.version
        shared: dict[str, str] = {}  # language -> the shared frame
        private: dict[tuple[int | None, str], str] = {}  # (seat, language) -> its private frame
        own: dict[tuple[int | None, str], tuple[Table, list[Op], dict[str, str | None]]] = {}  # its table, changes
        out: list[tuple[Connection, str, bool]] = []
        for conn in conns:
            seat, key = conn.seat, (conn.seat, conn.lang)
            if key not in own:
                mine, old = self.private(room, seat, public, conn.lang), log.private.get(key)
                own[key] = (mine, changes(old.pieces, mine.pieces, mine.roots) if old is not None else [],
                            changed_attrs(old.attrs, mine.attrs) if old is not None else {})
            mine, mine_ops, mine_attrs = own[key]
            if before is None or key not in log.private or conn.shown != (start, seat):
                out.append((conn, self._whole(room, conn, public.table, mine, log.seq, True), True))
                continue
            if log.seq != start:
                made = shared.get(conn.lang)
                if made is None:
                    made = shared[conn.lang] = self._frame(
                        {"kind": "fragments", "version": room.state.version, "seq": log.seq},
                        attrs, public.table.pieces, ops, conn.lang)
                out.append((conn, made, False))
            if mine_ops or mine_attrs:
                made = private.get(key)
                if made is None:
                    made = private[key] = self._frame({"kind": "private", "seq": log.seq}, mine_attrs, mine.pieces,
                                                      mine_ops, conn.lang)
                out.append((conn, made, False))
            conn.shown = (log.seq, seat)
        for key, (mine, _ops, _attrs) in own.items():
            log.private[key] = mine
        return out

    def _frame(self, head: dict[str, Any], attrs: dict[str, str | None], pieces: Pieces, ops: list[Op],
               lang: str) -> str:
        """A frame of changes: `head`, the section's `attrs` that changed, and the partials of `ops`
        drawn in `lang`."""
        with use_language(lang):
            html = []
            for op in ops:
                if op.swap == "delete":
                    html.append(self.drawer.macros.gone(op.target))
                    continue
                self.drawn += 1
                if op.kids:  # (in an element htmx takes away, one that may hold them: ol for li...)
                    kids = self.drawer.pieces(pieces, op.kids)
                    opening = OPENING.match(kids)
                    holder = HOLDER.get(opening.group(0)[1:] if opening else "", "div")
                    html.append(self.drawer.macros.appended(holder, op.target, Markup(kids)))
                else:
                    html.append(out_of_band(self.drawer.piece(pieces, op.target), op.swap))
        # the section's attributes that changed, in the head itself by their names after "data-"
        # (none is named kind, version or seq: those two the page sets from the head)
        head.update((name.removeprefix("data-"), value) for name, value in attrs.items())
        return frame(head, "".join(html))


class RoomFrames:
    """Shows rooms' news to their readers: draws it and offers each reader its frames.

    - the table: `TablePublisher`;
    - `{"kind": "notice", "level": l, "message": m, "version": v, "content": html, "target": "#notice",
      "swap": "innerHTML"}`: a notice for one reader;
    - `{"kind": "chat", "content": html, "target": "#chat-log", "swap": "beforeend"}` (lines said)
      or `"swap": "innerHTML"` (the recent talk, after a sync);
    - `{"kind": "chatform", "content": html, "target": "#chat-form", "swap": "outerHTML"}`: the
      chat form as the reader's seat sees it;
    - `{"kind": "reaction", "seat": s, "content": html, "target": "#react-s", "swap": "innerHTML"}`.

    A frame that is the same for several readers (a chat line in one language) is made once.
    The connection's queue is told which frames are the table's: a whole table supersedes the
    table's frames still waiting there (`Connection.offer`)."""

    def __init__(self, templates: Jinja2Templates, tables: TablePublisher) -> None:
        self.templates = templates
        self.tables = tables

    def publish(self, room: LiveRoom, news: News, /) -> None:
        # the readers are the connections the websocket attached to the room (`hub.Connection`)
        readers = [cast(Connection, conn) for conn in news.to if not conn.closed]
        if not readers:
            return
        match news.kind:
            case NewsKind.TABLE | NewsKind.PRESENCE:
                for conn, frame, whole in self.tables.push_frames(room, readers):
                    conn.offer(frame, whole=whole, part=not whole)
            case NewsKind.WHOLE_TABLE:
                for conn, frame in self.tables.table_frames(room, readers):
                    conn.offer(frame, whole=True)
            case NewsKind.NOTICE:
                assert news.notice is not None
                notice = news.notice
                _each(readers, lambda conn: conn.lang,
                      lambda conn: self.notice_frame(notice, news.version, conn.lang))
            case NewsKind.CHAT:
                _each(readers, lambda conn: conn.lang,
                      lambda conn: self.chat_frame(news.lines, conn.lang))
            case NewsKind.TALK:
                for conn in readers:
                    conn.offer(self.chat_frame(tuple(room.chat.lines), conn.lang, replace=True))
                    conn.offer(self.chat_form_frame(room, conn.seat, conn.lang))
            case NewsKind.CHAT_RULES:
                _each(readers, lambda conn: (conn.seat, conn.lang),
                      lambda conn: self.chat_form_frame(room, conn.seat, conn.lang))
            case NewsKind.REACTION:
                assert news.reaction is not None
                frame = self.reaction_frame(news.reaction)
                for conn in readers:
                    conn.offer(frame)

    def notice_frame(self, notice: Notice, version: int, lang: str) -> str:
        """A notice (its `Text` said in `lang`, the reader's language)."""
        with use_language(lang):
            html = render_block(self.templates, NOTICE_TEMPLATE, "notice",
                                {"message": notice.message, "level": notice.level})
            said = say(notice.message)
        return json.dumps({"kind": "notice", "level": notice.level, "message": said, "version": version,
                           "content": html, "target": "#notice", "swap": "innerHTML"})

    def chat_frame(self, lines: Iterable[ChatLine], lang: str, *, replace: bool = False) -> str:
        """Chat lines appended to the chat log (`replace`: the whole log)."""
        with use_language(lang):
            html = talk.render_lines(self.templates, list(lines))
        return json.dumps({"kind": "chat", "content": html, "target": "#chat-log",
                           "swap": "innerHTML" if replace else "beforeend"})

    def chat_form_frame(self, room: LiveRoom, seat: int | None, lang: str) -> str:
        """The chat form as `seat` sees it (talk allowed or not, the host's switches)."""
        with use_language(lang):
            html = talk.render_form(self.templates, room, seat)
        return json.dumps({"kind": "chatform", "content": html, "target": "#chat-form", "swap": "outerHTML"})

    def reaction_frame(self, reaction: Reaction) -> str:
        """A quick reaction shown briefly by its sender's seat."""
        html = talk.render_reaction(self.templates, reaction.emoji)
        return json.dumps({"kind": "reaction", "seat": reaction.seat, "content": html,
                           "target": f"#react-{reaction.seat}", "swap": "innerHTML"})


def _each(readers: list[Connection], key: Callable[[Connection], Hashable],
          frame: Callable[[Connection], str]) -> None:
    """Offer each reader its frame, made once per `key` (readers alike get the same text)."""
    made: dict[Hashable, str] = {}
    for conn in readers:
        k = key(conn)
        text = made.get(k)
        if text is None:
            text = made[k] = frame(conn)
        conn.offer(text)
