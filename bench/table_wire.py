"""The table's wire, as a page takes it (static/js/table.js and htmx), done on strings. A frame of
the table is a line of JSON (its head) and HTML; `parse` gives it as a dict (`content`: the HTML).
The whole table comes in a `table` frame; a `fragments` frame (the shared changes) and a `private`
frame (the seat's own) each put their pieces in place (`outerMorph`, or a bare `hx-swap-oob`
(outerHTML): the piece with that id replaced; `beforeend`: added at the end of it; `delete`: taken away) and set the section's
attributes.
A morph keeps what the page holds (focus, typed text, an open <details>), which a string does not
have: as a string, a morph is a replacement. bench/ws_load.py plays with it, and the tests use it
to see the table a connection is offered, as its page shows it (the README, "The table on the
wire")."""

from __future__ import annotations

import html
import json
import re
from typing import Any

OUT_OF_BAND = re.compile(r' hx-swap-oob(?:="(outerMorph|delete|beforeend)")?(?=[ >])')
ID = re.compile(r' id="([a-z0-9-]+)"')
TAG = re.compile(r"<(/?)([a-z][a-z0-9-]*)\b[^>]*?(/?)>")
VOID = frozenset({"meter", "input", "br", "img", "use", "hr", "meta", "link", "path", "circle"})
SECTION_OPEN = re.compile(r'<section id="table"[^>]*>')


HEAD_OWN = frozenset({"kind", "version", "seq", "content"})  # a frame's names that are not the section's


class Stale(Exception):
    """A frame that does not start from the table the page shows (a page asks for a sync)."""


def parse(message: str) -> dict[str, Any]:
    """A frame from the server as a dict: a table frame's head, its HTML as `content` (a whole
    table as the section itself); any other frame is JSON."""
    head, newline, content = message.partition("\n")
    if not newline:
        return json.loads(message)  # type: ignore[no-any-return]
    frame: dict[str, Any] = json.loads(head)
    frame["content"] = OUT_OF_BAND.sub("", content, count=1) if frame["kind"] == "table" else content
    return frame


def section_attrs(table: str) -> dict[str, str]:
    head = SECTION_OPEN.search(table)
    assert head is not None, table[:200]
    return {k: html.unescape(v) for k, v in re.findall(r'\s([a-z:-]+)="([^"]*)"', head.group(0))}



def element(page: str, id_: str) -> tuple[int, int, int]:
    """Where the element with id `id_` is in `page`: (its start, where its content ends, its end)."""
    mark = f' id="{id_}"'
    at = page.find(mark)
    assert at >= 0 and page.find(mark, at + 1) < 0, f"not one element with the id {id_}"
    start = page.rfind("<", 0, at)
    opening = TAG.match(page, start)
    assert opening is not None and opening.end() > at, id_
    return (start, *closing(page, opening))


def closing(page: str, opening: re.Match[str]) -> tuple[int, int]:
    """Where the element opened by `opening` has its content end and its end."""
    tag, depth = opening.group(2), 1
    if opening.group(3) or tag in VOID:
        return opening.end(), opening.end()
    for t in TAG.finditer(page, opening.end()):
        if t.group(2) != tag or t.group(3):
            continue
        depth += -1 if t.group(1) else 1
        if depth == 0:
            return t.start(), t.end()
    raise AssertionError(f"the element {opening.group(0)[:60]} is not closed")


def pieces_of(content: str) -> list[tuple[str, str, str]]:
    """(target id, swap, HTML) of each piece of a frame's content (the HTML of a `beforeend`: the
    pieces to add; of the others: the piece as it goes in)."""
    out, at = [], 0
    while at < len(content):
        opening = TAG.match(content, at)
        assert opening is not None and not opening.group(1), content[at:at + 80]
        inner_end, end = closing(content, opening)
        swap, id_ = OUT_OF_BAND.search(opening.group(0)), ID.search(opening.group(0))
        assert swap is not None and id_ is not None, opening.group(0)
        if swap.group(1) == "beforeend":  # (the wrapper is taken away: what it holds goes in)
            out.append((id_.group(1), "beforeend", content[opening.end():inner_end]))
        else:
            out.append((id_.group(1), swap.group(1) or "outerHTML", OUT_OF_BAND.sub("", content[at:end], count=1)))
        at = end
    return out


def apply(table: str, frame: dict[str, Any]) -> str:
    """`table` (a whole `#table` section) with a `fragments` or `private` frame applied, as the
    page does; Stale if the frame does not apply to it."""
    attrs = section_attrs(table)
    if frame["kind"] == "fragments":
        if frame["seq"] - 1 != int(attrs["data-seq"]):
            raise Stale(f"the table shows {attrs['data-seq']}, the frame starts from {frame['seq'] - 1}")
        attrs["data-seq"], attrs["data-version"] = str(frame["seq"]), str(frame["version"])
    elif frame["seq"] != int(attrs["data-seq"]):
        raise Stale(f"the table shows {attrs['data-seq']}, the private frame is for {frame['seq']}")
    for target, swap, content in pieces_of(frame["content"]):
        start, inner_end, end = element(table, target)
        if swap in ("outerMorph", "outerHTML"):
            table = table[:start] + content + table[end:]
        elif swap == "delete":
            table = table[:start] + table[end:]
        else:
            table = table[:inner_end] + content + table[inner_end:]
    for name, value in frame.items():  # (the head's other names: the section's data-*, named without it)
        if name in HEAD_OWN:
            continue
        if value is None:
            attrs.pop(f"data-{name}", None)
        else:
            attrs[f"data-{name}"] = value
    attrs.pop("id", None)
    head = SECTION_OPEN.search(table)
    assert head is not None
    opening = '<section id="table"' + "".join(f' {k}="{html.escape(str(v))}"' for k, v in attrs.items()) + ">"
    return opening + table[head.end():]

