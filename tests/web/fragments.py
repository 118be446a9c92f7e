"""What a page does with the table frames (static/js/table.js and htmx), done on strings: the
whole table from a `table` frame; a `fragments` frame (the shared changes) and a `private` frame
(the seat's own) each put their partials in place (`outerMorph`: the piece with that id replaced;
`beforeend`: added at the end of it; `delete`: taken away) and set the section's attributes.
A morph keeps what the page holds (focus, typed text, an open <details>), which a string does not
have: as a string, a morph is a replacement. The tests use it to see the table a connection is
offered, as its page shows it."""

from __future__ import annotations

import html
import re
from html.parser import HTMLParser
from typing import Any

PARTIAL = re.compile(r'<hx-partial id="([a-z0-9-]+)" hx-swap="(outerMorph|beforeend|delete)">(.*?)</hx-partial>',
                     re.DOTALL)
TAG = re.compile(r"<(/?)([a-z][a-z0-9-]*)\b[^>]*?(/?)>")
VOID = frozenset({"meter", "input", "br", "img", "use", "hr", "meta", "link", "path", "circle"})
SECTION_OPEN = re.compile(r'<section id="table"[^>]*>')


class Stale(Exception):
    """A frame that does not start from the table the page shows (a page asks for a sync)."""


def section_attrs(table: str) -> dict[str, str]:
    head = SECTION_OPEN.search(table)
    assert head is not None, table[:200]
    return {k: html.unescape(v) for k, v in re.findall(r'\s([a-z:-]+)="([^"]*)"', head.group(0))}


def seq_of(table: str) -> int:
    return int(section_attrs(table)["data-seq"])


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


def pieces_of(content: str) -> list[tuple[str, str, str]]:
    """(target id, swap, HTML) of each partial of a frame's content."""
    return PARTIAL.findall(content)


def apply(table: str, frame: dict[str, Any]) -> str:
    """`table` (a whole `#table` section) with a `fragments` or `private` frame applied, as the
    page does; Stale if the frame does not apply to it."""
    attrs = section_attrs(table)
    if frame["kind"] == "fragments":
        if frame["from"] != int(attrs["data-seq"]):
            raise Stale(f"the table shows {attrs['data-seq']}, the frame starts from {frame['from']}")
        attrs["data-seq"], attrs["data-version"] = str(frame["seq"]), str(frame["version"])
    elif frame["seq"] != int(attrs["data-seq"]):
        raise Stale(f"the table shows {attrs['data-seq']}, the private frame is for {frame['seq']}")
    for target, swap, content in pieces_of(frame["content"]):
        start, inner_end, end = element(table, target)
        if swap == "outerMorph":
            table = table[:start] + content + table[end:]
        elif swap == "delete":
            table = table[:start] + table[end:]
        else:
            table = table[:inner_end] + content + table[inner_end:]
    for name, value in (frame.get("attrs") or {}).items():
        if value is None:
            attrs.pop(name, None)
        else:
            attrs[name] = value
    attrs.pop("id", None)
    head = SECTION_OPEN.search(table)
    assert head is not None
    opening = '<section id="table"' + "".join(f' {k}="{html.escape(str(v))}"' for k, v in attrs.items()) + ">"
    return opening + table[head.end():]


class _Reader(HTMLParser):
    """A table as one viewer sees it: what static/css/app.css hides from it ("Each viewer's own
    words") is left out, as is what is hidden by `hidden`; its words, and its HTML."""

    VOID = frozenset({"meter", "input", "br", "img", "use", "hr", "meta", "link", "path", "circle"})

    def __init__(self, section: dict[str, str]) -> None:
        super().__init__(convert_charrefs=True)
        self.section = section
        self.stack: list[bool] = []  # per open element: hidden from this viewer
        self.words: list[str] = []
        self.html: list[str] = []

    def _hidden(self, attrs: dict[str, str | None]) -> bool:
        s = self.section
        me = s.get("data-me", "")
        if "hidden" in attrs:
            return True
        if "data-you" in attrs and me not in (attrs["data-you"] or "").split():
            return True
        if "data-they" in attrs and me in (attrs["data-they"] or "").split():
            return True
        if "data-roles" in attrs and s.get("data-role", "watcher") not in (attrs["data-roles"] or "").split():
            return True
        if "data-modes" in attrs and s.get("data-mode", "") not in (attrs["data-modes"] or "").split():
            return True
        if "data-turn" in attrs and attrs["data-turn"] != s.get("data-to-act", ""):
            return True
        classes = (attrs.get("class") or "").split()
        leading = s.get("data-leading") == "true"
        if attrs.get("id") == "table-previous" and s.get("data-trick-done") == "true":
            return True
        return ("lead" in classes and not leading) or ("follow" in classes and leading)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if tag == "section" and found.get("id") == "table":
            self.section = {k: v or "" for k, v in found.items()} | self.section
        hidden = (bool(self.stack) and self.stack[-1]) or self._hidden(found)
        if not hidden:
            self.html.append(self.get_starttag_text() or "")
        if tag not in self.VOID:
            self.stack.append(hidden)

    def handle_endtag(self, tag: str) -> None:
        if tag not in self.VOID and self.stack and not self.stack.pop():
            self.html.append(f"</{tag}>")

    def handle_data(self, data: str) -> None:
        if not (self.stack and self.stack[-1]):
            self.words.append(data)
            self.html.append(html.escape(data, quote=False))


def _read(html_text: str, section: dict[str, str]) -> _Reader:
    reader = _Reader({k.replace("_", "-"): v for k, v in section.items()})
    reader.feed(html_text)
    reader.close()
    return reader


def visible_as(html_text: str, **section: str) -> str:
    """The HTML of `html_text` that the viewer `section` describes sees (see `read_as`)."""
    return "".join(_read(html_text, section).html)


def read_as(html_text: str, **section: str) -> str:
    """The words of `html_text` (a table, or a piece of one) as the viewer that the section's
    attributes `section` describe reads them (`data_me="1"`, `data_role="player"`...; a whole
    table's own section attributes count where these do not say)."""
    return " ".join("".join(_read(html_text, section).words).split())
