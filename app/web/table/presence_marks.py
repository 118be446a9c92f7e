"""A seat's presence marks (a dot, and words for screen readers), in its row of the table and
alone in a presence update: when a seat comes or goes, everybody at the table gets only the
seats' presence marks (a few hundred bytes, the same for every connection), not a whole table
each. (Python, not template macros: they are drawn for every seat of every table on every push.)"""

from __future__ import annotations

import functools
from typing import Any

from markupsafe import Markup, escape

from app.i18n import _, current_language
from app.rooms.room import LiveRoom


def presence_dot(s: Any) -> Markup:
    """The seat's dot; `s` is a seat row of the table model (`seat`, `present`)."""
    return _dot(current_language(), int(_field(s, "seat")), bool(_field(s, "present")))


def presence_word(s: Any) -> Markup:
    return _word(current_language(), int(_field(s, "seat")), bool(_field(s, "present")))


@functools.lru_cache(maxsize=256)
def _dot(lang: str, seat: int, present: bool) -> Markup:
    title = escape(_("here") if present else _("away"))
    return Markup(f'<span class="dot {"on" if present else "off"}" id="dot-{seat}" title="{title}"></span>')


@functools.lru_cache(maxsize=256)
def _word(lang: str, seat: int, present: bool) -> Markup:
    words = escape(_("(online)") if present else _("(away)"))
    return Markup(f'<span class="sr-only" id="here-{seat}">{words}</span>')


def _field(s: Any, name: str) -> Any:
    return s[name] if isinstance(s, dict) else getattr(s, name)


def render_presence(room: LiveRoom) -> str:
    """Each occupied seat's two marks as htmx partials that replace the marks of that seat in
    the page (in the current language)."""
    present = room.present()
    parts: list[str] = []
    for i in sorted(room.seats):
        seat = room.seats[i]
        row = {"seat": i, "present": seat.is_bot or i in present}
        parts.append(f'<hx-partial hx-target="#dot-{i}" hx-swap="outerHTML">{presence_dot(row)}</hx-partial>')
        parts.append(f'<hx-partial hx-target="#here-{i}" hx-swap="outerHTML">{presence_word(row)}</hx-partial>')
    return "".join(parts)
