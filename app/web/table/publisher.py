"""A room's table on the wire: the whole table for a connection that has none, else only the
parts that changed for it.

The table is the fragment blocks of templates/table/table.html (`FRAGMENTS`), each made of parts
(`app.web.table.parts`), drawn for a seat from its table model. A connection remembers what it
was last sent: the table version, the section's attributes, and per part the hash of what the
part shows itself (its HTML with the parts inside it as place holders) and the parts right
inside it. Frames (JSON text; the README, "The table on the wire"):

- `{"kind": "table", "version": v, "content": "<section id=\\"table\\" ...>", "target": "#table",
  "swap": "outerHTML"}`: the whole table (the first frame, the answer to a sync, after a refusal);
- `{"kind": "fragments", "version": v, "from": u, "content": "<hx-partial ...>...", "swap": "none"}`
  and `"attrs"`, the section's attributes that changed (never its version): htmx partials that
  replace a part (`hx-swap="outerHTML"`, the part's element with its id) or add parts at the end
  of one (`hx-swap="beforeend"`), bringing a page at version `u` to `v`. A page that shows
  another version than `u` asks for a sync instead.

A push draws each seat's table once per language (a spectator's once for all spectators); a
part every viewer sees alike is rendered once (`Parts`), and a partial that is the same text for
several connections is escaped for JSON once and sent as the same bytes.
"""

from __future__ import annotations

import json
import re
import weakref
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from json.encoder import encode_basestring_ascii
from typing import Any

from fastapi.templating import Jinja2Templates
from markupsafe import Markup

from app.i18n import use_language
from app.rooms.room import LiveRoom
from app.web.table.hub import Connection
from app.web.table.look import look_of
from app.web.table.parts import PLACE, PartLog, Parts, block_reads
from app.web.table.render import FRAGMENTS, TABLE, look_context, table_context

RoomPanel = Callable[[LiveRoom, "int | None"], str]

# The htmx 4 partials: one that replaces a part (its element keeps its id), one that adds parts at
# the end of the element with that id
PARTIAL_OPEN = '<hx-partial hx-target="#{id}" hx-swap="outerHTML">'
APPEND_OPEN = '<hx-partial hx-target="#{id}" hx-swap="beforeend">'
PARTIAL_CLOSE = "</hx-partial>"
CLOSING = re.compile(r"\s*</[a-z]+>\s*")  # the end of an element


def json_escaped(text: str) -> str:
    """`text` escaped as in a JSON string (as `json.dumps` does it), without the quotes."""
    return encode_basestring_ascii(text)[1:-1]


@dataclass(slots=True)
class Drawn:
    """One viewer's table at one version, in one language: its parts (`PartLog`), each with
    the parts inside it."""

    version: int
    section: dict[str, Any]  # the section's attributes
    attrs: dict[str, str]  # the same but the version
    fragments: tuple[str, ...]  # the table's fragments (its outermost parts), in order
    html: dict[str, str]  # part id -> its element's HTML
    _own: dict[str, str]  # part id -> the same with the parts inside it as place holders
    kids: dict[str, tuple[str, ...]]  # part id -> the parts right inside it, in order
    _escaped: dict[str, str] = field(default_factory=dict)

    def own(self, id_: str) -> str:
        """Part `id_` with each part inside it left as a place holder: what it shows itself."""
        return self._own[id_]

    def partial(self, id_: str) -> str:
        """Part `id_` as an htmx partial, escaped for a JSON string (once per drawing)."""
        found = self._escaped.get(id_)
        if found is None:
            found = self._escaped[id_] = json_escaped(PARTIAL_OPEN.format(id=id_) + self.html[id_] + PARTIAL_CLOSE)
        return found

    def appended(self, id_: str, kids: tuple[str, ...]) -> str:
        """Parts `kids` added at the end of part `id_`, as an htmx partial escaped for JSON."""
        return json_escaped(APPEND_OPEN.format(id=id_) + "".join(self.html[k] for k in kids) + PARTIAL_CLOSE)


@dataclass(slots=True)
class Shown:
    """What a connection was last sent."""

    version: int
    attrs: dict[str, str]
    hashes: dict[str, int]  # part id -> the hash of what it shows itself (`Drawn.own`)
    kids: dict[str, tuple[str, ...]]  # part id -> the parts right inside it

    def adopt(self, drawn: Drawn, id_: str) -> None:
        """The connection now has part `id_` of `drawn`, and everything inside it."""
        self.hashes[id_] = hash(drawn.own(id_))
        kids = self.kids[id_] = drawn.kids[id_]
        for kid in kids:
            self.adopt(drawn, kid)


class TablePublisher:
    """Draws tables and makes a room's table frames (per app: its templates and the panels other
    areas add to a table)."""

    def __init__(self, templates: Jinja2Templates) -> None:
        self.templates = templates
        env = templates.env
        self.template = env.get_template(TABLE)
        assert env.loader is not None
        self.reads = block_reads(env, env.loader.get_source(env, TABLE)[0])
        # What each room's blocks rendered (a room's own: it goes with the room)
        self._parts: weakref.WeakKeyDictionary[LiveRoom, Parts] = weakref.WeakKeyDictionary()
        # Hook: HTML other areas (the club) add to a room's table, per seat: in memory and cheap,
        # it runs on every push.
        self.panels: list[RoomPanel] = []
        self._shown: weakref.WeakKeyDictionary[Connection, Shown] = weakref.WeakKeyDictionary()
        self.drawings = 0  # how many tables were drawn (tests and the bench look)

    # ------------------------------------------------------------------ drawing

    def context(self, room: LiveRoom, seat: int | None, public: dict[str, Any] | None = None) -> dict[str, Any]:
        """`seat`'s table model in the current language (`public`: `look_context` of the room
        now, when the caller has it)."""
        ctx = table_context(room, seat, public if public is not None else look_context(look_of(room)))
        ctx["extra_panels"] = Markup("".join([panel(room, seat) for panel in self.panels]))
        return ctx

    def draw(self, room: LiveRoom, seat: int | None, public: dict[str, Any] | None = None) -> Drawn:
        """`seat`'s table now, fragment by fragment, in the current language (on the event loop:
        parts are reused, see `app.web.table.parts`)."""
        return self.drawing(self.context(room, seat, public), self.parts(room))

    def parts(self, room: LiveRoom) -> Parts:
        """What `room`'s blocks rendered, for reuse."""
        found = self._parts.get(room)
        if found is None:
            found = self._parts[room] = Parts(self.reads)
        return found

    def drawing(self, ctx: dict[str, Any], parts: Parts | None = None) -> Drawn:
        """The table of the table model `ctx`, part by part (`parts`: reuse what was rendered)."""
        template = self.template
        context = template.new_context(ctx)
        log = context.vars["part_log"] = PartLog(parts)
        fragments = tuple(log.render(context, name) for name in FRAGMENTS)
        section = ctx["section"]
        self.drawings += 1
        return Drawn(int(ctx["version"]), section, {k: str(v) for k, v in section.items() if k != "data-version"},
                     fragments, log.html, log.own, log.kids)

    def table_html(self, drawn: Drawn) -> str:
        """The whole `#table` section of a drawing."""
        context = self.template.new_context({"section": drawn.section,
                                             "fragments": [Markup(drawn.html[id_]) for id_ in drawn.fragments]})
        return "".join(self.template.blocks["table"](context))

    def page_table(self, room: LiveRoom, seat: int | None) -> tuple[dict[str, Any], Markup]:
        """`seat`'s table model and its whole table, for the room page."""
        ctx = self.context(room, seat)
        return ctx, Markup(self.table_html(self.drawing(ctx)))

    # ------------------------------------------------------------------ frames

    def table_frame(self, room: LiveRoom, conn: Connection) -> str:
        """The whole table for `conn` (its seat, in its language); it now has every part."""
        self.parts(room).new_push()
        return self._table_frame(room, conn)

    def _table_frame(self, room: LiveRoom, conn: Connection) -> str:
        with use_language(conn.lang):
            drawn = self.draw(room, conn.seat)
            html = self.table_html(drawn)
        shown = self._shown[conn] = Shown(drawn.version, dict(drawn.attrs), {}, {})
        for id_ in drawn.fragments:
            shown.adopt(drawn, id_)
        return json.dumps({"kind": "table", "version": drawn.version, "content": html, "target": "#table",
                           "swap": "outerHTML"})

    def push_frames(self, room: LiveRoom, conns: Iterable[Connection]) -> list[tuple[Connection, str]]:
        """What each of `conns` is to be offered now: the fragments that changed for it (none
        when nothing did), or the whole table if it has none."""
        self.parts(room).new_push()
        look = look_of(room)
        publics: dict[str, dict[str, Any]] = {}
        drawings: dict[tuple[int | None, str], Drawn] = {}
        out: list[tuple[Connection, str]] = []
        for conn in conns:
            shown = self._shown.get(conn)
            if shown is None:
                out.append((conn, self._table_frame(room, conn)))
                continue
            key = (conn.seat, conn.lang)
            drawn = drawings.get(key)
            if drawn is None:
                with use_language(conn.lang):
                    public = publics.get(conn.lang)
                    if public is None:
                        public = publics[conn.lang] = look_context(look)
                    drawn = drawings[key] = self.draw(room, conn.seat, public)
            frame = self._changes(conn, shown, drawn)
            if frame is not None:
                out.append((conn, frame))
        return out

    def _changes(self, conn: Connection, shown: Shown, drawn: Drawn) -> str | None:
        """The fragments frame that brings `conn` from what it was `shown` to `drawn` (None:
        nothing to send); `shown` becomes `drawn`."""
        parts: list[str] = []
        for id_ in drawn.fragments:
            _changed(shown, drawn, id_, parts)
        attrs = {k: v for k, v in drawn.attrs.items() if shown.attrs.get(k) != v}
        if not parts and not attrs and drawn.version == shown.version:
            return None
        start, shown.version = shown.version, drawn.version
        head = f'{{"kind": "fragments", "version": {drawn.version}, "from": {start}, '
        if attrs:
            shown.attrs.update(attrs)
            head += f'"attrs": {json.dumps(attrs, sort_keys=True)}, '
        return head + f'"content": "{"".join(parts)}", "swap": "none"}}'


def _changed(shown: Shown, drawn: Drawn, id_: str, parts: list[str]) -> None:
    """Add to `parts` what brings part `id_` from what the connection was `shown` to `drawn`:
    nothing when it shows the same, else the parts inside it that changed when it shows the same
    itself, the parts added at its end when that is all that changed, or the whole part."""
    new = hash(drawn.own(id_))
    old = shown.hashes.get(id_)
    kids = drawn.kids[id_]
    if new == old:
        for kid in kids:
            _changed(shown, drawn, kid, parts)
        return
    before = shown.kids.get(id_)
    if old is not None and before is not None and len(kids) > len(before) and kids[:len(before)] == before:
        added = kids[len(before):]
        own = drawn.own(id_)
        tail = "".join(PLACE + kid for kid in added)
        at = own.rfind(tail)
        own = own[:at] + own[at + len(tail):]
        if CLOSING.fullmatch(own, at) and hash(own) == old:  # the same but for parts added at its end
            for kid in before:
                _changed(shown, drawn, kid, parts)
            parts.append(drawn.appended(id_, added))
            shown.hashes[id_], shown.kids[id_] = new, kids
            for kid in added:
                shown.adopt(drawn, kid)
            return
    parts.append(drawn.partial(id_))
    shown.adopt(drawn, id_)
