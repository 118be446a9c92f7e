"""Where the web layer keeps its long-lived objects: the room manager and the templates."""

from __future__ import annotations

from pathlib import Path

from fastapi import FastAPI, Request, WebSocket
from fastapi.templating import Jinja2Templates
from starlette.requests import HTTPConnection

from app.rooms import RoomManager
from app.web.table import talk
from app.web.table.render import render_block, setup_templates, table_context

TEMPLATES_DIR = Path(__file__).resolve().parents[3] / "templates"


def templates_of(app: FastAPI) -> Jinja2Templates:
    templates = getattr(app.state, "templates", None)
    if templates is None:
        templates = Jinja2Templates(directory=str(TEMPLATES_DIR))
        app.state.templates = templates
    if not templates.env.globals.get("_gurka_ready"):
        setup_templates(templates)
        templates.env.globals["_gurka_ready"] = True
    return templates


def manager_of(app: FastAPI) -> RoomManager:
    """The app's room manager, created (and every stored room brought back) on first use."""
    manager = getattr(app.state, "rooms", None)
    if manager is None:
        settings = app.state.settings
        templates = templates_of(app)

        def render_table(room, seat):  # type: ignore[no-untyped-def]
            ctx = table_context(room, seat)
            from app.web.table.render import status_line

            ctx["status_text"] = status_line(ctx)
            return render_block(templates, "table/room.html", "table", ctx)

        def render_notice(message: str, level: str) -> str:
            return render_block(templates, "table/room.html", "notice", {"message": message, "level": level})

        manager = RoomManager(
            app.state.engine,
            bot_delay=float(getattr(settings, "bot_delay", 0.8)),
            takeover_seconds=float(getattr(settings, "seat_takeover_seconds", 60)),
            render_table=render_table,
            render_notice=render_notice,
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
