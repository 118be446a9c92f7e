"""Where the web layer keeps its long-lived objects: the room manager and the templates.

It sits above the areas, not in `shared/`: it wires the table's rendering into the room
manager and the table's card helpers into the templates, and both areas use it.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request, WebSocket
from fastapi.templating import Jinja2Templates
from markupsafe import Markup
from starlette.requests import HTTPConnection

from app.i18n import current_language
from app.i18n.jinja import install as install_languages
from app.rooms import LiveRoom, RoomManager
from app.web.shared.templating import make_templates
from app.web.table import talk
from app.web.table.hand_html import hand_panel
from app.web.table.presence_marks import render_presence
from app.web.table.render import render_block, setup_templates, status_line, table_context
from app.web.table.section_html import PANELS, table_section
from app.web.table.shared_parts import SharedPartsCache
from app.web.table.status_bar import status_bar
from app.web.table.viewer_marks import json_escaped

TEMPLATES_DIR = Path(__file__).resolve().parents[2] / "templates"


def templates_of(app: FastAPI) -> Jinja2Templates:
    templates = getattr(app.state, "templates", None)
    if templates is None:
        templates = make_templates(TEMPLATES_DIR)
        app.state.templates = templates
    if not templates.env.globals.get("_gurka_ready"):
        install_languages(templates.env)
        setup_templates(templates)
        templates.env.globals["_gurka_ready"] = True
    return templates


def shared_parts_of(app: FastAPI) -> SharedPartsCache:
    """The parts of each room's table that all its seats share, rendered once per state."""
    cache: SharedPartsCache | None = getattr(app.state, "shared_parts", None)
    if cache is None:
        cache = app.state.shared_parts = SharedPartsCache(templates_of(app))
    return cache


def seat_table_context(app: FastAPI, room: LiveRoom, seat: int | None, *, push: bool = False) -> dict[str, Any]:
    """One seat's table model in the current language, its whole table among it: its own
    context, the shared parts (rendered once for all seats), its status line, status bar and
    hand (drawn in Python) and the panels other areas add. The table, the section room.html
    places, is `table_html`; for a push (`push`), `table_json` instead: the same escaped for a
    JSON string, put together from shared parts escaped once for all seats."""
    shared = shared_parts_of(app).get(room, current_language())
    ctx = table_context(room, seat, shared.public)
    ctx["status_text"] = status_line(ctx)
    ctx["status_bar"] = status_bar(ctx)
    ctx["hand_panel"] = hand_panel(ctx)
    ctx["shared"] = shared
    ctx["extra_panels"] = extra_panels(app, room, seat)
    templates = templates_of(app)

    def panel(block: str) -> str:
        return render_block(templates, PANELS, block, ctx)

    if push:
        ctx["table_json"] = table_section(ctx, panel, shared.json_for_viewer(ctx["me"], room.host), json_escaped)
    else:
        ctx["table_html"] = Markup(table_section(ctx, panel, shared.for_viewer(ctx["me"], room.host)))
    return ctx


RoomPanel = Callable[[LiveRoom, "int | None"], str]


def room_panels(app: FastAPI) -> list[RoomPanel]:
    """Hook: extra HTML that other areas (the club) add to a room's table, per seat. Each panel
    must be cheap and in memory: it runs on every push."""
    panels: list[RoomPanel] | None = getattr(app.state, "room_panels", None)
    if panels is None:
        panels = app.state.room_panels = []
    return panels


def extra_panels(app: FastAPI, room: LiveRoom, seat: int | None) -> Markup:
    return Markup("".join(panel(room, seat) for panel in room_panels(app)))


def manager_of(app: FastAPI) -> RoomManager:
    """The app's room manager, created (and every stored room brought back) on first use."""
    manager = getattr(app.state, "rooms", None)
    if manager is None:
        settings = app.state.settings
        templates = templates_of(app)

        def render_table_json(room: LiveRoom, seat: int | None) -> str:
            return str(seat_table_context(app, room, seat, push=True)["table_json"])

        def render_notice(message: str, level: str) -> str:
            return render_block(templates, "table/room.html", "notice", {"message": message, "level": level})

        manager = RoomManager(
            app.state.engine,
            bot_delay=float(getattr(settings, "bot_delay", 0.8)),
            takeover_seconds=float(getattr(settings, "seat_takeover_seconds", 60)),
            deal_pause=float(getattr(settings, "deal_pause", 2.0)),
            clock=getattr(app.state, "clock", None),
            render_table_json=render_table_json,
            render_notice=render_notice,
            render_presence=render_presence,
            render_chat=lambda room, lines: talk.render_lines(templates, lines),
            render_chat_form=lambda room, seat: talk.render_form(templates, room, seat),
            render_reaction=talk.render_reaction,
        )
        manager.load()
        app.state.rooms = manager
    return manager


def get_manager(conn: HTTPConnection) -> RoomManager:
    return manager_of(conn.app)


def get_templates(request: Request) -> Jinja2Templates:
    return templates_of(request.app)


def get_manager_ws(websocket: WebSocket) -> RoomManager:
    return manager_of(websocket.app)
