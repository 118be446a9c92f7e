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
    """A shared part: its texts and its marks between them, in HTML and escaped for JSON."""

    __slots__ = ("html", "json_texts", "marks", "texts")

    def __init__(self, html: str) -> None:
        """`html` (a template's, its marks written as text) split at its marks."""
        self.html = Markup(html)
        if "\x01" not in html:  # no mark: one text
            self.texts, self.json_texts, self.marks = [html], [json_escaped(html)], []
            return
        split = _MARK.split(html)  # text, then five groups per mark (the seat, four readings), then text...
        self.texts = split[::6]
        self.json_texts = [json_escaped(text) for text in self.texts]
        self.marks = [_mark(int(split[i]), (split[i + 1], split[i + 2], split[i + 3], split[i + 4]))
                      for i in range(1, len(split), 6)]

    @classmethod
    def of(cls, *pieces: str | Mark | Marked) -> Marked:
        """A part put together from HTML text (without marks), marks and parts."""
        html: list[str] = []
        texts: list[list[str]] = [[]]  # the texts between the marks, in pieces
        json_texts: list[list[str]] = [[]]
        marks: list[Mark] = []
        for piece in pieces:
            if type(piece) is str or type(piece) is Markup:
                if piece:
                    html.append(piece)
                    texts[-1].append(piece)
                    json_texts[-1].append(json_escaped(piece))
            elif type(piece) is Marked:
                html.append(piece.html)
                texts[-1].append(piece.texts[0])
                json_texts[-1].append(piece.json_texts[0])
                if piece.marks:
                    marks.extend(piece.marks)
                    texts.extend([t] for t in piece.texts[1:])
                    json_texts.extend([t] for t in piece.json_texts[1:])
            elif type(piece) is Mark:
                html.append(piece.text)
                marks.append(piece)
                texts.append([])
                json_texts.append([])
            else:
                raise TypeError(f"not a piece of a part: {type(piece).__name__}")
        part = cls.__new__(cls)
        part.html = Markup("".join(html))
        part.texts = ["".join(t) for t in texts]
        part.json_texts = ["".join(t) for t in json_texts]
        part.marks = marks
        return part

    @classmethod
    def joined(cls, parts: Iterable[Marked]) -> Marked:
        """The parts one after the other, as one part."""
        return cls.of(*parts)

    def for_viewer(self, me: int | None, host: int | None) -> Markup:
        """As the viewer at seat `me` (None: a spectator) reads it, in HTML."""
        return Markup(_joined(self.texts, self.marks, False, me, host))

    def json_for_viewer(self, me: int | None, host: int | None) -> str:
        """The same, escaped for a JSON string."""
        return _joined(self.json_texts, self.marks, True, me, host)


def _joined(texts: list[str], marks: list[Mark], json: bool, me: int | None, host: int | None) -> str:
    """`texts` with each mark's reading for the viewer `me` between them (the marks' readings
    escaped for JSON if `json`, else their HTML)."""
    if not marks:
        return texts[0]
    out = [texts[0]]
    which = 3 if me is None else 1 if me == host else 2  # the reading of a mark about another seat
    for m, text in zip(marks, texts[1:], strict=True):
        readings = m.json if json else m.html
        out.append(readings[0] if m.seat == me else readings[which])
        out.append(text)
    return "".join(out)
