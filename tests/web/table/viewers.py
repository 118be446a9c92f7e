"""A table as one viewer sees it: what static/css/app.css hides from that viewer ("each viewer's
own words": `data-you`, `data-they`, `data-roles`, `data-modes`, `data-turn`...) left out, as
the tests read it (its words, or its HTML)."""

from __future__ import annotations

import html
from html.parser import HTMLParser

from bench.table_wire import VOID


class _Reader(HTMLParser):
    """A table as one viewer sees it: what static/css/app.css hides from it ("Each viewer's own
    words") is left out, as is what is hidden by `hidden`; its words, and its HTML."""


    def __init__(self, section: dict[str, str]) -> None:
        super().__init__(convert_charrefs=True)
        self.section = section
        self.stack: list[bool] = []  # per open element: hidden from this viewer
        self.seat = ""  # the seat whose row is being read
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
        if "data-won" in attrs and attrs["data-won"] != s.get("data-winning", ""):
            return True
        classes = (attrs.get("class") or "").split()
        leading = s.get("data-leading") == "true"
        if attrs.get("id") == "table-previous" and (s.get("data-trick-done") == "true" or not s.get("data-previous")):
            return True
        if "outtag" in classes and self.seat not in s.get("data-out", "").split():
            return True
        return ("lead" in classes and not leading) or ("follow" in classes and leading) or (
            "leading" in classes and not leading)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if tag == "li" and "seat" in (found.get("class") or "").split():
            self.seat = found.get("data-seat") or ""
        if tag == "section" and found.get("id") == "table":
            self.section = {k: v or "" for k, v in found.items()} | self.section
        hidden = (bool(self.stack) and self.stack[-1]) or self._hidden(found)
        if not hidden:
            self.html.append(self.get_starttag_text() or "")
        if tag not in VOID:
            self.stack.append(hidden)

    def handle_endtag(self, tag: str) -> None:
        if tag not in VOID and self.stack and not self.stack.pop():
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
