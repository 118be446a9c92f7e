"""Words and buttons that depend on who looks, inside parts rendered once for every viewer.

A shared part (app/web/table/shared_parts.py) is rendered once for all the seats of a table;
where it says "you took the trick" to one player and "Anna took the trick" to the others, it
holds every version, marked with the seat it is about (`viewer`), and `Marked.for_viewer`
keeps the one a given viewer gets: a join of pieces per seat, not a rendering.

`Marked` splits a shared part at its marks once, and escapes the pieces for a JSON string once
too (a push sends each seat's table as one): a seat's copy is a join of pieces, in HTML for a
page and escaped for a push. Escaping for JSON works character by character, so the escaped
pieces joined are the escaped whole, the very string `json.dumps` would make. A part made of
smaller parts (the list of players, of its rows) is their `Marked.joined`: nothing is split or
escaped again, and a row that shows what it showed before is the very `Marked` it was.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from json.encoder import encode_basestring_ascii

from markupsafe import Markup, escape

# A word or button that depends on who looks, about one seat: (seat, for that seat's own
# player, for the host, for another seated player, for a spectator). The marks are control
# characters, which no rendered text holds (names and messages drop them).
_MARK = re.compile("\x01(-?\\d+)\x02([^\x03]*)\x03([^\x03]*)\x03([^\x03]*)\x03([^\x04]*)\x04")


def viewer(seat: int, me: str = "", seated: str = "", watching: str | None = None,
           host: str | None = None) -> Markup:
    """In a shared part: what seat `seat`'s own player sees (`me`), another seated player
    (`seated`), the host (`host`, else as seated) and a spectator (`watching`, else as seated)."""
    mine, hosts, others, watchers = (escape(x) for x in (me, seated if host is None else host, seated,
                                                         seated if watching is None else watching))
    return Markup(f"\x01{int(seat)}\x02{mine}\x03{hosts}\x03{others}\x03{watchers}\x04")


def json_escaped(text: str) -> str:
    """`text` escaped as in a JSON string (as `json.dumps` does it), without the quotes."""
    return encode_basestring_ascii(text)[1:-1]


Reading = tuple[str, str, str, str]  # a mark's text for (its own seat, the host, another seat, a spectator)


class Marked:
    """A shared part split at its `viewer()` marks, in HTML and escaped for JSON."""

    __slots__ = ("html", "json_marks", "json_texts", "marks", "texts")
    marks: list[tuple[int, Reading]]
    json_marks: list[tuple[int, Reading]]

    def __init__(self, html: str) -> None:
        self.html = Markup(html)
        if "\x01" not in html:  # no mark: one text
            self.texts, self.json_texts = [html], [json_escaped(html)]
            self.marks, self.json_marks = [], []
            return
        split = _MARK.split(html)  # text, then five groups per mark (the seat, four readings), then text...
        self.texts, self.marks = _structure(split)
        self.json_texts, self.json_marks = _structure(_escaped_each(split))

    @classmethod
    def joined(cls, parts: Iterable[Marked]) -> Marked:
        """The parts one after the other, as one part (split and escaped already)."""
        whole = cls.__new__(cls)
        texts, json_texts = [""], [""]
        marks: list[tuple[int, Reading]] = []
        json_marks: list[tuple[int, Reading]] = []
        html: list[str] = []
        for part in parts:
            html.append(part.html)
            texts[-1] += part.texts[0]
            texts.extend(part.texts[1:])
            marks.extend(part.marks)
            json_texts[-1] += part.json_texts[0]
            json_texts.extend(part.json_texts[1:])
            json_marks.extend(part.json_marks)
        whole.html = Markup("".join(html))
        whole.texts, whole.marks, whole.json_texts, whole.json_marks = texts, marks, json_texts, json_marks
        return whole

    def for_viewer(self, me: int | None, host: int | None) -> Markup:
        """As the viewer at seat `me` (None: a spectator) reads it, in HTML."""
        return Markup(_joined(self.texts, self.marks, me, host))

    def json_for_viewer(self, me: int | None, host: int | None) -> str:
        """The same, escaped for a JSON string."""
        return _joined(self.json_texts, self.json_marks, me, host)


def _structure(split: list[str]) -> tuple[list[str], list[tuple[int, Reading]]]:
    """A split part's texts and marks (seat, readings)."""
    marks = [(int(split[i]), (split[i + 1], split[i + 2], split[i + 3], split[i + 4])) for i in range(1, len(split), 6)]
    return split[::6], marks


_ESCAPED_NUL = "\\u0000"


def _escaped_each(pieces: list[str]) -> list[str]:
    """Each piece escaped for a JSON string, in one call: the pieces joined by a NUL (no
    rendered text holds one), escaped, then cut where the NUL's escape is one. A piece's own
    text "\\u0000" escapes to "\\\\u0000": a cut after an odd number of backslashes is inside
    such a text, and is undone."""
    out: list[str] = []
    for cut in json_escaped("\0".join(pieces)).split(_ESCAPED_NUL):
        if out and (len(out[-1]) - len(out[-1].rstrip("\\"))) % 2:
            out[-1] += _ESCAPED_NUL + cut
        else:
            out.append(cut)
    if len(out) != len(pieces):  # a NUL in a piece after all: one call per piece
        return [json_escaped(p) for p in pieces]
    return out


def _joined(texts: list[str], marks: list[tuple[int, Reading]], me: int | None, host: int | None) -> str:
    if not marks:
        return texts[0]
    out = [texts[0]]
    for (seat, reading), text in zip(marks, texts[1:], strict=True):
        out.append(reading[3] if me is None else reading[0] if seat == me else reading[1] if me == host else reading[2])
        out.append(text)
    return "".join(out)
