"""Where the web layer keeps its long-lived objects: the room manager and the templates.

It sits above the areas, not in `shared/`: it wires the table's rendering into the room
manager and the table's card helpers into the templates, and both areas use it.
"""

from __future__ import annotations

import weakref
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
from app.web.table.hand_html import hand_key, hand_panel
from app.web.table.presence_marks import render_presence
from app.web.table.render import render_block, setup_templates, status_line, table_context
from app.web.table.section_html import PANELS, table_section
from app.web.table.shared_parts import Drawn, SharedPartsCache
from app.web.table.status_bar import status_bar, status_key
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


RoomPanel = Callable[[LiveRoom, "int | None"], str]


class Tables:
    """Every room's table as a seat (or a spectator) sees it: the room page's and each push's.
    Wired once per app: the templates, what each room's seats share (`SharedPartsCache`) and
    the panels other areas add (`panels`)."""

    def __init__(self, templates: Jinja2Templates) -> None:
        self.templates = templates
        self.shared = SharedPartsCache()
        # Hook: extra HTML that other areas (the club) add to a room's table, per seat. Each
        # panel must be cheap and in memory: it runs on every push.
        self.panels: list[RoomPanel] = []
        self._own: weakref.WeakKeyDictionary[LiveRoom, Drawn] = weakref.WeakKeyDictionary()

    def context(self, room: LiveRoom, seat: int | None, *, push: bool = False) -> dict[str, Any]:
        """One seat's table model in the current language, its whole table among it: its own
        context, the shared parts (rendered once for all seats), its status line, status bar
        and hand (drawn in Python, or as the room last showed them) and the panels other areas
        add. The table, the section room.html places, is `table_html`; for a push (`push`),
        `table_json` instead: the same escaped for a JSON string, put together from shared parts
        escaped once for all seats."""
        shared = self.shared.get(room, current_language())
        ctx = table_context(room, seat, shared.public)
        ctx["status_text"] = status_line(ctx)
        memo = self._own_memo(room)
        bar = memo.part(status_key(ctx), lambda: _both(status_bar(ctx)))
        hand = memo.part(hand_key(ctx), lambda: _both(hand_panel(ctx)))
        ctx["status_bar"], ctx["hand_panel"] = bar[0], hand[0]
        ctx["shared"] = shared
        ctx["extra_panels"] = Markup("".join([panel(room, seat) for panel in self.panels])) if self.panels else ""
        templates = self.templates

        def panel(block: str) -> str:
            return render_block(templates, PANELS, block, ctx)

        if push:
            own = {"status_bar": bar[1], "hand_panel": hand[1]}
            ctx["table_json"] = table_section(ctx, panel, shared.json_for_viewer(ctx["me"], room.host), own,
                                              json_escaped)
        else:
            own = {"status_bar": bar[0], "hand_panel": hand[0]}
            ctx["table_html"] = Markup(table_section(ctx, panel, shared.for_viewer(ctx["me"], room.host), own))
        return ctx

    def _own_memo(self, room: LiveRoom) -> Drawn:
        """What the seats of `room` showed of their own (status bars, hands) at its last push and
        this one: a seat that did not move shows the hand it showed."""
        memo = self._own.get(room)
        if memo is None:
            memo = self._own[room] = Drawn()
        if memo.round is None or memo.round != room.publishing:  # a new push (or a page: each its own)
            memo.done()
            memo.round = room.publishing
        return memo


def _both(html: Markup) -> tuple[Markup, str]:
    """`html`, and the same escaped for a JSON string."""
    return html, json_escaped(html)


def tables_of(app: FastAPI) -> Tables:
    found: Tables | None = getattr(app.state, "tables", None)
    if found is None:
        found = app.state.tables = Tables(templates_of(app))
        app.state.shared_parts = found.shared  # (tests and benches count its renderings)
    return found


def seat_table_context(app: FastAPI, room: LiveRoom, seat: int | None) -> dict[str, Any]:
    """`seat`'s table model and its table (`table_html`), for the room page."""
    return tables_of(app).context(room, seat)


def room_panels(app: FastAPI) -> list[RoomPanel]:
    """Where other areas (the club) hook their panels into a room's table (see `Tables`)."""
    return tables_of(app).panels


def manager_of(app: FastAPI) -> RoomManager:
    """The app's room manager, created (and every stored room brought back) on first use."""
    manager = getattr(app.state, "rooms", None)
    if manager is None:
        settings = app.state.settings
        templates = templates_of(app)
        tables = tables_of(app)

        def render_table_json(room: LiveRoom, seat: int | None) -> str:
            return str(tables.context(room, seat, push=True)["table_json"])

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
            render_reaction=lambda emoji: talk.render_reaction(templates, emoji),
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
