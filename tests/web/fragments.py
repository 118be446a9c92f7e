"""What a page does with the table frames (static/js/table.js and htmx), done on strings: the
whole table from a `table` frame, then each `fragments` frame's partials put in place of the
fragments with their ids and the section's attributes set. Tests and benches use it to see the
table a connection is offered, as its page shows it."""

from __future__ import annotations

import html
import re
from typing import Any

PARTIAL = re.compile(r'<hx-partial hx-target="#(table-[a-z]+(?:-[0-9]+)?)" hx-swap="outerHTML">(.*?)</hx-partial>',
                     re.DOTALL)
ROW = '<li class="[^"]*" id="{id}"[^>]*>.*?</li>'  # a row of the list of players (no list inside it)
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


def apply(table: str, frame: dict[str, Any]) -> str:
    """`table` (a whole `#table` section) with the `fragments` frame applied."""
    if frame["from"] != version_of(table):
        raise Stale(f"the table shows {version_of(table)}, the frame starts from {frame['from']}")
    parts = fragments_of(table)
    for target, element in PARTIAL.findall(frame["content"]):
        if target.startswith("table-seat-"):
            row = re.compile(ROW.format(id=target), re.DOTALL)
            assert len(row.findall(parts["table-seats"])) == 1, target
            parts["table-seats"] = row.sub(lambda _m, e=element: e, parts["table-seats"])
            continue
        assert target in parts, target
        parts[target] = element
    head = SECTION_OPEN.search(table)
    assert head is not None
    attrs = dict(re.findall(r'\s([a-z:-]+)="([^"]*)"', head.group(0)))
    attrs = {k: html.unescape(v) for k, v in attrs.items()}
    attrs.update(frame.get("attrs") or {})
    attrs["data-version"] = str(frame["version"])
    attrs.pop("id", None)
    opening = '<section id="table"' + "".join(f' {k}="{html.escape(str(v))}"' for k, v in attrs.items()) + ">"
    return opening + "".join(" " + parts[k] for k in parts) + " </section>"
