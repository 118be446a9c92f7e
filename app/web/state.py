"""Where the web layer keeps its long-lived objects: the room manager and the templates.

It sits above the areas, not in `shared/`: it wires the table's rendering and frames (the rooms'
audience) into the room manager and the table's card helpers into the templates, and both areas use it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request, WebSocket
from fastapi.templating import Jinja2Templates
from starlette.requests import HTTPConnection

from app.i18n.jinja import install as install_languages
from app.rooms import LiveRoom, RoomManager
from app.web.shared.templating import make_templates
from app.web.table.model import Panel
from app.web.table.publisher import RoomFrames, TablePublisher
from app.web.table.render import setup_templates

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


def publisher_of(app: FastAPI) -> TablePublisher:
    """The app's table publisher (it draws every room's tables and makes their frames)."""
    found: TablePublisher | None = getattr(app.state, "publisher", None)
    if found is None:
        found = app.state.publisher = TablePublisher(templates_of(app))
    return found


def seat_table_context(app: FastAPI, room: LiveRoom, seat: int | None) -> dict[str, Any]:
    """`seat`'s table model and its whole table (`table_html`), for the room page."""
    me = seat if seat is not None and seat in room.state.seats else None
    return {"room": room, "slug": room.state.slug, "me": me, "table_html": publisher_of(app).page_table(room, seat)}


def room_panels(app: FastAPI) -> list[Panel]:
    """Where other areas (the club) hook their panels into a room's table (see `TablePublisher`)."""
    return publisher_of(app).panels


def manager_of(app: FastAPI) -> RoomManager:
    """The app's room manager, created (and every stored room brought back) on first use."""
    manager = getattr(app.state, "rooms", None)
    if manager is None:
        settings = app.state.settings
        manager = RoomManager(
            app.state.engine,
            bot_delay=float(getattr(settings, "bot_delay", 0.8)),
            takeover_seconds=float(getattr(settings, "seat_takeover_seconds", 60)),
            deal_pause=float(getattr(settings, "deal_pause", 2.0)),
            clock=getattr(app.state, "clock", None),
            audience=RoomFrames(templates_of(app), publisher_of(app)),
            lobby_idle=60 * float(getattr(settings, "lobby_idle_minutes", 0)),
            bot_pool=getattr(app.state, "bot_pool", None),
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
