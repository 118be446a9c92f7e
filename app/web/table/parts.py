"""The table's parts: blocks of templates/table/table.html a push can send alone.

A block calls `{{ part("seat", s=row) }}` to render block `seat` (with `s` set) as a part: its
first element carries the part's id. While the publisher draws a table, a `PartLog` records every
part's HTML, its own HTML (with the parts inside it as place holders) and the parts right inside
it: what a push compares with what a connection has (app/web/table/publisher.py).

Each block is rendered once for everyone who would see the same of it: `Parts` (one per room)
keeps a block's own HTML and the parts it called (with their arguments), keyed by the language
and the values of the variables the block itself reads (found by Jinja in the block's source),
so nothing is keyed by a list kept by hand. The parts inside are looked up the same way, each by
what it reads, so a felt shared by all seats holds a line that says "you" to one of them. Values
that are plain data (numbers, strings, frozen tuples and dicts of them, `app.web.shared.frozen`:
the trick on the table, a seat's row) key what lasts from push to push; any other value keys by
the object itself, and only for one push (`Parts.new_push`), as it may change in place afterwards.
"""

from __future__ import annotations

import re
from collections import OrderedDict
from typing import Any

from jinja2 import Environment, nodes, pass_context
from jinja2.runtime import Context
from markupsafe import Markup

from app.i18n import current_language
from app.web.shared.frozen import is_frozen

ELEMENT_ID = re.compile(r'\s*<[a-z]+\b[^>]*?\sid="([^"]+)"')
PLACE = "\x00"  # where a part's own HTML holds one of its parts (never in HTML the templates write)
LASTING = 100  # blocks a room keeps from push to push (the least recently used go first): a
# seat's table is about 40 blocks, its seats see some of them alike and some each their own
_MISSING = object()


class Same:
    """A value that keys by the object itself (not by what it holds), kept alive by the key."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value

    def __hash__(self) -> int:
        return id(self.value)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Same) and other.value is self.value


def plain(value: Any) -> bool:
    """Whether `value` is data that cannot change in place (so it keys from push to push)."""
    if is_frozen(value):
        return True
    if type(value) is tuple:
        return all(plain(v) for v in value)
    return False


def block_reads(env: Environment, source: str) -> dict[str, tuple[str, ...]]:
    """Each block of the template `source`: the names it reads itself, but the environment's
    globals (the blocks it renders as parts are looked up by what they read)."""
    skip = set(env.globals) | {"part_log", "part"}
    return {block.name: tuple(sorted({n.name for n in block.find_all(nodes.Name) if n.ctx == "load"} - skip))
            for block in env.parse(source).find_all(nodes.Block)}


class Drawing:
    """A block as rendered: its part's id, its own HTML cut at the parts it called, and those
    calls (block name and arguments), in order; and its own HTML with the parts it had then
    (`kids`) as place holders."""

    __slots__ = ("calls", "chunks", "id", "kids", "own")

    def __init__(self, id_: str, chunks: tuple[str, ...], calls: tuple[tuple[str, dict[str, Any]], ...],
                 kids: tuple[str, ...], own: str) -> None:
        self.id, self.chunks, self.calls, self.kids, self.own = id_, chunks, calls, kids, own


class Parts:
    """What a room's table blocks rendered, for reuse (see the module's docstring)."""

    def __init__(self, reads: dict[str, tuple[str, ...]], lasting: int = LASTING) -> None:
        self.reads = reads
        self.lasting: OrderedDict[tuple[Any, ...], Drawing] = OrderedDict()
        self.limit = lasting
        self.this_push: dict[tuple[Any, ...], Drawing] = {}
        self.rendered = 0  # blocks rendered, and found rendered already (tests and benches look)
        self.found = 0

    def new_push(self) -> None:
        """Forget what was keyed by objects (they may change before the next push)."""
        self.this_push = {}

    def key(self, context: Context, block: str) -> tuple[tuple[Any, ...], bool]:
        """(the key of `block` in `context`, whether it lasts from push to push)."""
        values: list[Any] = [current_language(), block]
        lasting = True
        local, outer = context.vars, context.parent
        for name in self.reads[block]:
            value = local.get(name, _MISSING)
            if value is _MISSING:
                value = outer.get(name, _MISSING)
                if value is _MISSING:
                    continue
            if not plain(value):
                value, lasting = Same(value), False
            values.append(value)
        return tuple(values), lasting

    def get(self, key: tuple[Any, ...], lasting: bool) -> Drawing | None:
        if lasting:
            found = self.lasting.get(key)
            if found is not None:
                self.lasting.move_to_end(key)
        else:
            found = self.this_push.get(key)
        if found is not None:
            self.found += 1
        return found

    def put(self, key: tuple[Any, ...], lasting: bool, drawing: Drawing) -> None:
        self.rendered += 1
        if lasting:
            self.lasting[key] = drawing
            if len(self.lasting) > self.limit:
                self.lasting.popitem(last=False)
        else:
            self.this_push[key] = drawing


class PartLog:
    """The parts one drawing of the table rendered (the fragments are its outermost parts):
    each part's HTML and own HTML by its element's id, and the parts right inside it."""

    __slots__ = ("_calls", "html", "kids", "own", "parts")

    def __init__(self, parts: Parts | None = None) -> None:
        self.html: dict[str, str] = {}
        self.own: dict[str, str] = {}
        self.kids: dict[str, tuple[str, ...]] = {}
        self.parts = parts
        self._calls: list[list[tuple[str, dict[str, Any], str]]] = []  # per open block: (block, args, id)

    def render(self, context: Context, block: str, local: dict[str, Any] | None = None) -> str:
        """Block `block` in `context` (with the variables `local` set) as a part: its id."""
        saved = {}
        if local:
            saved = {k: context.vars.get(k, _MISSING) for k in local}
            context.vars.update(local)
        try:
            parts = self.parts
            if parts is None:
                id_ = self._render(context, block).id
            else:
                key, lasting = parts.key(context, block)
                drawing = parts.get(key, lasting)
                if drawing is None:
                    drawing = self._render(context, block)
                    parts.put(key, lasting, drawing)
                else:
                    self._replay(context, drawing)
                id_ = drawing.id
        finally:
            for k, v in saved.items():
                if v is _MISSING:
                    del context.vars[k]
                else:
                    context.vars[k] = v
        if self._calls:
            self._calls[-1].append((block, local or {}, id_))
        return id_

    def _render(self, context: Context, block: str) -> Drawing:
        self._calls.append([])
        try:
            html = "".join(context.blocks[block][0](context))
        finally:
            calls = self._calls.pop()
        found = ELEMENT_ID.match(html)
        if found is None:
            raise ValueError(f"the block {block!r} does not begin with an element with an id")
        id_ = found.group(1)
        chunks: list[str] = []
        rest = html
        for _, _, kid in calls:
            before, _, rest = rest.partition(self.html[kid])
            chunks.append(before)
        chunks.append(rest)
        kids = tuple(kid for _, _, kid in calls)
        drawing = Drawing(id_, tuple(chunks), tuple((b, a) for b, a, _ in calls), kids, own_html(chunks, kids))
        self._record(id_, drawing.own, kids, html)
        return drawing

    def _replay(self, context: Context, drawing: Drawing) -> None:
        """A block found rendered: render the parts it called (each looked up by what it reads)."""
        self._calls.append([])
        try:
            kids = tuple(self.render(context, block, local or None) for block, local in drawing.calls)
        finally:
            self._calls.pop()
        chunks = drawing.chunks
        html = chunks[0] + "".join(self.html[kid] + chunk for kid, chunk in zip(kids, chunks[1:]))
        self._record(drawing.id, drawing.own if kids == drawing.kids else own_html(chunks, kids), kids, html)

    def _record(self, id_: str, own: str, kids: tuple[str, ...], html: str) -> None:
        self.html[id_], self.own[id_], self.kids[id_] = html, own, kids


def own_html(chunks: list[str] | tuple[str, ...], kids: tuple[str, ...]) -> str:
    """A part's own HTML: its `chunks` with place holders for its `kids` between them."""
    return chunks[0] + "".join(PLACE + kid + chunk for kid, chunk in zip(kids, chunks[1:]))


@pass_context
def part(context: Context, block: str, **local: Any) -> Markup:
    """`{{ part("seat", s=row) }}` in a block: the block `seat` with `s` set, as a part of the
    table a push can send alone (when a `PartLog` records the drawing; else simply rendered)."""
    log: PartLog | None = context.get("part_log")
    if log is not None:
        return Markup(log.html[log.render(context, block, local)])
    saved = {k: context.vars.get(k, _MISSING) for k in local}
    context.vars.update(local)
    try:
        return Markup("".join(context.blocks[block][0](context)))
    finally:
        for k, v in saved.items():
            if v is _MISSING:
                del context.vars[k]
            else:
                context.vars[k] = v
