"""Rendering table talk: chat lines, the chat form as one seat sees it, a quick reaction.

Messages are plain text: Jinja escapes them and nothing turns a link into an anchor.
"""

from __future__ import annotations

from typing import Any

from fastapi.templating import Jinja2Templates

from app.rooms.chat import MAX_TEXT, REACT, REACTIONS, ChatLine, ChatText
from app.rooms.room import LiveRoom
from app.web.shared.templating import template_macro
from app.web.table.render import render_block

TEMPLATE = "table/chat.html"
REACTIONS_TEMPLATE = "table/_reactions.html"


def line_model(line: ChatLine) -> dict[str, Any]:
    return {
        "kind": line.kind,
        "seat": line.seat,
        "name": line.name,
        "text": ChatText.note(line) if line.is_note else line.text,
        "note": line.is_note,
        "react": line.kind == REACT,
        "at": line.at.isoformat(),
    }


def chat_context(room: LiveRoom, seat: int | None) -> dict[str, Any]:
    """All the chat panel needs for `seat` (None: a spectator)."""
    chat = room.chat
    me = seat if seat is not None and seat in room.state.seats else None
    may_talk = chat.may_talk(me)
    closed: str
    if me is None and not may_talk:
        closed = ChatText.spectators_closed
    elif not may_talk:
        closed = ChatText.muted
    else:
        closed = ""
    others = [
        {"seat": s.seat, "name": s.name, "muted": s.seat in chat.muted}
        for s in room.state.seats.values() if s.seat != me and not s.is_bot
    ]
    return {
        "slug": room.state.slug,
        "chat_lines": [line_model(line) for line in chat.lines],
        "chat": {
            "may_talk": may_talk,
            "closed": closed,
            "is_host": me is not None and me == room.state.host,
            "spectators_allowed": chat.spectators_allowed,
            "others": others,
            "reactions": REACTIONS,  # drawn by `_reactions.html`
            "max_len": MAX_TEXT,
        },
    }


def render_lines(templates: Jinja2Templates, lines: list[ChatLine]) -> str:
    return render_block(templates, TEMPLATE, "lines", {"chat_lines": [line_model(x) for x in lines]})


def render_form(templates: Jinja2Templates, room: LiveRoom, seat: int | None) -> str:
    return render_block(templates, TEMPLATE, "form", chat_context(room, seat))


def render_reaction(templates: Jinja2Templates, emoji: str) -> str:
    """The bubble a quick reaction shows by its sender's seat (`_reactions.html`)."""
    return str(template_macro(templates, REACTIONS_TEMPLATE, "bubble")(emoji))
