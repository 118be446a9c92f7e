"""A presence update: when a seat comes or goes, everybody at the table gets only the seats'
presence marks (a few hundred bytes, the same for every connection), not a whole table each."""

from __future__ import annotations

from typing import Any

from fastapi.templating import Jinja2Templates

from app.rooms.room import LiveRoom

TEMPLATE = "table/presence.html"


def render_presence(templates: Jinja2Templates, room: LiveRoom) -> str:
    """Each occupied seat's two marks (the dot and the words for screen readers), as htmx
    partials that replace the marks of that seat in the page (in the current language)."""
    module: Any = templates.env.get_template(TEMPLATE).make_module({})
    present = room.present()
    parts: list[str] = []
    for i in sorted(room.seats):
        seat = room.seats[i]
        row = {"seat": i, "present": seat.is_bot or i in present}
        parts.append(f'<hx-partial hx-target="#dot-{i}" hx-swap="outerHTML">{module.presence_dot(row)}</hx-partial>')
        parts.append(f'<hx-partial hx-target="#here-{i}" hx-swap="outerHTML">{module.presence_word(row)}</hx-partial>')
    return "".join(parts)
