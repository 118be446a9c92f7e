"""A room's table on the wire: the whole table for a connection that has none, else only the
fragments that changed for it.

The table is the fragment blocks of templates/table/table.html (`FRAGMENTS`), rendered for a
seat from its table model. A connection remembers what it was last sent: the table version, the
section's attributes and a hash per fragment. Frames (JSON text; see the README, "Protocol"):

- `{"kind": "table", "version": v, "content": "<section id=\\"table\\" ...>", "target": "#table",
  "swap": "outerHTML"}`: the whole table (the first frame, the answer to a sync, after a refusal);
- `{"kind": "fragments", "version": v, "from": u, "content": "<hx-partial hx-target=\\"#table-felt\\"
  hx-swap=\\"outerHTML\\">(the felt block's element, id table-felt)</hx-partial>...",
  "swap": "none"}` and, when they changed, `"attrs"`: the section's attributes but its version:
  the fragments that differ from what the connection has, bringing a page at version `u` to `v`.
  A page that shows another version than `u` asks for a sync instead.

A push renders each seat's fragments once per language (a spectator's once for all spectators):
every viewer is its own kind of viewer (its seat reads "you" where the others read its name),
so nothing is shared by a key listed by hand; a fragment that is the same text for several
connections is escaped for JSON once and sent as the same bytes. Nothing is kept between pushes
but each connection's hashes.
"""

from __future__ import annotations

import json
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
from app.web.table.render import FRAGMENTS, TABLE, look_context, table_context

RoomPanel = Callable[[LiveRoom, "int | None"], str]

# The htmx 4 partial that replaces one fragment: the fragment's element keeps its id
PARTIAL_OPEN = '<hx-partial hx-target="#{id}" hx-swap="outerHTML">'
PARTIAL_CLOSE = "</hx-partial>"
SEATS = "table-seats"  # the list of players: sent row by row (the block "seat") while its rows stay the same


def json_escaped(text: str) -> str:
    """`text` escaped as in a JSON string (as `json.dumps` does it), without the quotes."""
    return encode_basestring_ascii(text)[1:-1]


@dataclass(slots=True)
class Drawn:
    """One viewer's table at one version, in one language."""

    version: int
    section: dict[str, Any]  # the section's attributes
    attrs: str  # the same but the version, as JSON (sent when they change)
    fragments: dict[str, str]  # fragment id -> its element's HTML, in the table's order
    rows: dict[str, str]  # the list of players' rows: id -> HTML (inside the fragment `SEATS`)
    frame: int  # the hash of the list of players around its rows (which rows, in what words)
    _escaped: dict[str, str] = field(default_factory=dict)

    def partial(self, id_: str) -> str:
        """Fragment or row `id_` as an htmx partial, escaped for a JSON string (once per drawing)."""
        found = self._escaped.get(id_)
        if found is None:
            html = self.fragments[id_] if id_ in self.fragments else self.rows[id_]
            found = self._escaped[id_] = json_escaped(PARTIAL_OPEN.format(id=id_) + html + PARTIAL_CLOSE)
        return found


@dataclass(slots=True)
class Shown:
    """What a connection was last sent."""

    version: int
    attrs: str
    hashes: dict[str, int]  # fragment or row id -> the hash of its HTML
    frame: int  # `Drawn.frame` of the list of players it has


class TablePublisher:
    """Draws tables and makes a room's table frames (per app: its templates and the panels other
    areas add to a table)."""

    def __init__(self, templates: Jinja2Templates) -> None:
        self.templates = templates
        self.template = templates.env.get_template(TABLE)
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
        """`seat`'s table now, fragment by fragment, in the current language."""
        return self.drawing(self.context(room, seat, public))

    def drawing(self, ctx: dict[str, Any]) -> Drawn:
        """The table of the table model `ctx`, fragment by fragment."""
        template = self.template
        blocks = template.blocks
        context = template.new_context(ctx)
        rows = {}
        for row in ctx["seats"]:  # each row alone (the block "seat" reads its row as `s`)
            context.vars["s"] = row
            rows[f"table-seat-{row.seat}"] = "".join(blocks["seat"](context))
        context.vars["seat_rows"] = [Markup(html) for html in rows.values()]
        fragments = {f"table-{name}": "".join(blocks[name](context)) for name in FRAGMENTS}
        joined = "".join(rows.values())
        frame = hash((tuple(rows), fragments[SEATS].replace(joined, "", 1)))
        section = ctx["section"]
        attrs = json.dumps({k: v for k, v in section.items() if k != "data-version"}, sort_keys=True)
        self.drawings += 1
        return Drawn(int(ctx["version"]), section, attrs, fragments, rows, frame)

    def table_html(self, drawn: Drawn) -> str:
        """The whole `#table` section of a drawing."""
        context = self.template.new_context({"section": drawn.section,
                                             "fragments": [Markup(html) for html in drawn.fragments.values()]})
        return "".join(self.template.blocks["table"](context))

    def page_table(self, room: LiveRoom, seat: int | None) -> tuple[dict[str, Any], Markup]:
        """`seat`'s table model and its whole table, for the room page."""
        ctx = self.context(room, seat)
        return ctx, Markup(self.table_html(self.drawing(ctx)))

    # ------------------------------------------------------------------ frames

    def table_frame(self, room: LiveRoom, conn: Connection) -> str:
        """The whole table for `conn` (its seat, in its language); it now has every fragment."""
        with use_language(conn.lang):
            drawn = self.draw(room, conn.seat)
            html = self.table_html(drawn)
        hashes = {id_: hash(text) for id_, text in drawn.fragments.items()}
        hashes.update({id_: hash(text) for id_, text in drawn.rows.items()})
        self._shown[conn] = Shown(drawn.version, drawn.attrs, hashes, drawn.frame)
        return json.dumps({"kind": "table", "version": drawn.version, "content": html, "target": "#table",
                           "swap": "outerHTML"})

    def push_frames(self, room: LiveRoom, conns: Iterable[Connection]) -> list[tuple[Connection, str]]:
        """What each of `conns` is to be offered now: the fragments that changed for it (none
        when nothing did), or the whole table if it has none."""
        look = look_of(room)
        publics: dict[str, dict[str, Any]] = {}
        drawings: dict[tuple[int | None, str], Drawn] = {}
        out: list[tuple[Connection, str]] = []
        for conn in conns:
            shown = self._shown.get(conn)
            if shown is None:
                out.append((conn, self.table_frame(room, conn)))
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
        parts = []
        hashes = shown.hashes
        for id_, text in drawn.fragments.items():
            h = hash(text)
            if hashes.get(id_) == h:
                continue
            hashes[id_] = h
            if id_ == SEATS and shown.frame == drawn.frame:  # the same rows: only those that changed
                for row_id, row in drawn.rows.items():
                    h = hash(row)
                    if hashes.get(row_id) != h:
                        hashes[row_id] = h
                        parts.append(drawn.partial(row_id))
                continue
            if id_ == SEATS:
                shown.frame = drawn.frame
                hashes.update({row_id: hash(row) for row_id, row in drawn.rows.items()})
            parts.append(drawn.partial(id_))
        attrs = drawn.attrs != shown.attrs
        if not parts and not attrs and drawn.version == shown.version:
            return None
        start, shown.version = shown.version, drawn.version
        head = f'{{"kind": "fragments", "version": {drawn.version}, "from": {start}, '
        if attrs:
            shown.attrs = drawn.attrs
            head += f'"attrs": {drawn.attrs}, '
        return head + f'"content": "{"".join(parts)}", "swap": "none"}}'
