"""What a page does with the table frames (static/js/table.js and htmx), done on strings: the
whole table from a `table` frame, then each `fragments` frame's partials put in place of the
fragments with their ids and the section's attributes set. Tests and benches use it to see the
table a connection is offered, as its page shows it."""

from __future__ import annotations

import html
import re
from typing import Any

PARTIAL = re.compile(r'<hx-partial hx-target="#([a-z0-9-]+)" hx-swap="(outerHTML|beforeend)">(.*?)</hx-partial>',
                     re.DOTALL)
TAG = re.compile(r"<(/?)([a-z][a-z0-9-]*)\b[^>]*?(/?)>")
VOID = frozenset({"meter", "input", "br", "img", "use", "hr", "meta", "link", "path", "circle"})
FRAGMENT_START = re.compile(r'\s<div class="frag" id="(table-[a-z]+)">')
SECTION_OPEN = re.compile(r'<section id="table"[^>]*>')


class Stale(Exception):
    """A fragments frame that does not start from the version the table shows (a page asks for
    a sync)."""


def version_of(table: str) -> int:
    found = re.search(r'<section id="table"[^>]*? data-version="(\d+)"', table)
    assert found, table[:200]
    return int(found.group(1))


def fragments_of(table: str) -> dict[str, str]:
    """The table's fragments by id, each its whole element."""
    starts = list(FRAGMENT_START.finditer(table))
    end = table.rindex("</section>")
    return {m.group(1): table[m.start() + 1:(starts[i + 1].start() if i + 1 < len(starts) else end)].rstrip()
            for i, m in enumerate(starts)}


def element(page: str, id_: str) -> tuple[int, int, int]:
    """Where the element with id `id_` is in `page`: (its start, where its content ends, its end)."""
    mark = f' id="{id_}"'
    at = page.find(mark)
    assert at >= 0 and page.find(mark, at + 1) < 0, f"not one element with the id {id_}"
    start = page.rfind("<", 0, at)
    opening = TAG.match(page, start)
    assert opening is not None and opening.end() > at, id_
    tag, depth = opening.group(2), 1
    for t in TAG.finditer(page, opening.end()):
        if t.group(2) != tag or t.group(3) or tag in VOID:
            continue
        depth += -1 if t.group(1) else 1
        if depth == 0:
            return start, t.start(), t.end()
    raise AssertionError(f"the element {id_} is not closed")


def apply(table: str, frame: dict[str, Any]) -> str:
    """`table` (a whole `#table` section) with the `fragments` frame applied, as htmx does: each
    partial replaces the element with its id, or adds its content at the end of it."""
    if frame["from"] != version_of(table):
        raise Stale(f"the table shows {version_of(table)}, the frame starts from {frame['from']}")
    for target, swap, content in PARTIAL.findall(frame["content"]):
        start, inner_end, end = element(table, target)
        if swap == "outerHTML":
            table = table[:start] + content + table[end:]
        else:
            table = table[:inner_end] + content + table[inner_end:]
    head = SECTION_OPEN.search(table)
    assert head is not None
    attrs = dict(re.findall(r'\s([a-z:-]+)="([^"]*)"', head.group(0)))
    attrs = {k: html.unescape(v) for k, v in attrs.items()}
    attrs.update(frame.get("attrs") or {})
    attrs["data-version"] = str(frame["version"])
    attrs.pop("id", None)
    opening = '<section id="table"' + "".join(f' {k}="{html.escape(str(v))}"' for k, v in attrs.items()) + ">"
    return opening + table[head.end():]
