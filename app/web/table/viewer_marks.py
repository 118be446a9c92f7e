"""Words and buttons that depend on who looks, inside parts rendered once for every viewer.

A shared part (app/web/table/shared_parts.py) is rendered once for all the seats of a table;
where it says "you took the trick" to one player and "Anna took the trick" to the others, it
holds every version: a `Mark` about that seat, and `Marked.for_viewer` keeps the one a given
viewer gets, a join of pieces per viewer, not a rendering.

A `Marked` part holds its texts and its marks, each in HTML and escaped for a JSON string (a
push sends each seat's table as one): a viewer's copy is a join of pieces, in HTML for a page
and escaped for a push. Escaping for JSON works character by character, so the escaped pieces
joined are the escaped whole, the very string `json.dumps` would make.

Parts drawn in Python are put together from text and marks (`Marked.of`): nothing is split or
escaped twice, and a part made of smaller parts (the list of players, of its rows) joins their
pieces. Templates write a mark as text (`viewer()`, control characters no rendered text holds:
names and messages drop them), and `Marked(html)` splits such a part at its marks.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from json.encoder import encode_basestring_ascii
from typing import NamedTuple

from markupsafe import Markup, escape

# A mark as text: (seat, for that seat's own player, for the host, for another seated player,
# for a spectator), in control characters.
_MARK = re.compile("\x01(-?\\d+)\x02([^\x03]*)\x03([^\x03]*)\x03([^\x03]*)\x03([^\x04]*)\x04")

Reading = tuple[str, str, str, str]  # a mark's text for (its own seat, the host, another seat, a spectator)


def json_escaped(text: str) -> str:
    """`text` escaped as in a JSON string (as `json.dumps` does it), without the quotes."""
    return encode_basestring_ascii(text)[1:-1]


class Mark(NamedTuple):
    """Words or a button about seat `seat` that read differently for each kind of viewer."""

    seat: int
    html: Reading
    json: Reading
    text: str  # the mark written into a part's text (a template's), for `Marked` to find


def mark(seat: int, me: str = "", seated: str = "", watching: str | None = None, host: str | None = None) -> Mark:
    """What seat `seat`'s own player sees (`me`), another seated player (`seated`), the host
    (`host`, else as seated) and a spectator (`watching`, else as seated); text is escaped."""
    others = str(escape(seated))
    html = (str(escape(me)), others if host is None else str(escape(host)), others,
            others if watching is None else str(escape(watching)))
    return _mark(int(seat), html)


def _mark(seat: int, html: Reading) -> Mark:
    escaped = {text: json_escaped(text) for text in set(html)}
    return Mark(seat, html, (escaped[html[0]], escaped[html[1]], escaped[html[2]], escaped[html[3]]),
                "\x01{}\x02{}\x03{}\x03{}\x03{}\x04".format(seat, *html))


def viewer(seat: int, me: str = "", seated: str = "", watching: str | None = None,
           host: str | None = None) -> Markup:
    """`mark()` written as text, for a template's part."""
    return Markup(mark(seat, me, seated, watching, host).text)


class Marked:
    """A shared part: its pieces, text and marks, in HTML and escaped for JSON (the same marks
    in both, at the same places)."""

    __slots__ = ("_html", "items", "json_items")

    def __init__(self, html: str) -> None:
        """`html` (a template's, its marks written as text) split at its marks."""
        self._html: str | None = html
        if "\x01" not in html:  # no mark: one text
            self.items: list[str | Mark] = [html]
            self.json_items: list[str | Mark] = [json_escaped(html)]
            return
        split = _MARK.split(html)  # text, then five groups per mark (the seat, four readings), then text...
        self.items, self.json_items = [], []
        for i in range(0, len(split), 6):
            if split[i]:
                self.items.append(split[i])
                self.json_items.append(json_escaped(split[i]))
            if i + 1 < len(split):
                m = _mark(int(split[i + 1]), (split[i + 2], split[i + 3], split[i + 4], split[i + 5]))
                self.items.append(m)
                self.json_items.append(m)

    @classmethod
    def of(cls, *pieces: str | Mark | Marked) -> Marked:
        """A part put together from HTML text (without marks), marks and parts."""
        items: list[str | Mark] = []
        json_items: list[str | Mark] = []
        for piece in pieces:
            if type(piece) is str or type(piece) is Markup:
                if piece:
                    items.append(piece)
                    json_items.append(json_escaped(piece))
            elif type(piece) is Marked:
                items += piece.items
                json_items += piece.json_items
            elif type(piece) is Mark:
                items.append(piece)
                json_items.append(piece)
            else:
                raise TypeError(f"not a piece of a part: {type(piece).__name__}")
        part = cls.__new__(cls)
        part._html, part.items, part.json_items = None, items, json_items
        return part

    @classmethod
    def joined(cls, parts: Iterable[Marked]) -> Marked:
        """The parts one after the other, as one part."""
        return cls.of(*parts)

    @property
    def html(self) -> Markup:
        """The whole part, its marks written as text."""
        return Markup(self.html_text())

    def html_text(self) -> str:
        if self._html is None:
            self._html = "".join([x.text if isinstance(x, Mark) else x for x in self.items])
        return self._html

    def for_viewer(self, me: int | None, host: int | None) -> Markup:
        """As the viewer at seat `me` (None: a spectator) reads it, in HTML."""
        return Markup(_joined(self.items, False, me, host))

    def json_for_viewer(self, me: int | None, host: int | None) -> str:
        """The same, escaped for a JSON string."""
        return _joined(self.json_items, True, me, host)


def _joined(items: list[str | Mark], json: bool, me: int | None, host: int | None) -> str:
    """The text pieces with each mark's reading for the viewer `me` (the marks' readings
    escaped for JSON if `json`, else their HTML)."""
    which = 3 if me is None else 1 if me == host else 2  # the reading of a mark about another seat
    out: list[str] = []
    for x in items:
        if type(x) is Mark:
            readings = x.json if json else x.html
            out.append(readings[0] if x.seat == me else readings[which])
        else:
            out.append(x)  # type: ignore[arg-type]
    return "".join(out)
