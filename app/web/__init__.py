"""Web layer, by area: `table` (home and room pages, the room websocket, table rendering, the
rules pages), `club` (one module per page area of /club) and `shared` (security); `state` holds
the app's long-lived objects (templates, room manager) and wires the areas into them.

`install(app)` includes the routers; `running(app)` (entered in the app lifespan) starts the
room manager, which brings every stored room back and lets bots carry on, hooks the club's
online nights to the end of their games (and catches up with games that ended while the app was
down), and stops the manager.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import Depends, FastAPI

from app.web.club import online as club_online
from app.web.club import table_flow as club_flow
from app.web.club.router import router as club_router
from app.web.device import push_pages as device_push
from app.web.device import service as push_service
from app.web.device import shell as device_shell
from app.web.shared import csp_reports, errors
from app.web.shared.headers import SecurityHeaders
from app.web.shared.language import ReaderLanguage
from app.web.shared.language import router as language_router
from app.web.shared.path_params import path_params_in_shape
from app.web.state import manager_of, templates_of
from app.web.table import (
    analysis,
    history_files,
    open_history,
    pages,
    practice,
    rejoin,
    replay,
    websocket,
)
from app.web.table.analysis_view import analyses_of


def install(app: FastAPI) -> None:
    """Include every router of the web layer, the error pages and the security headers."""
    templates_of(app)
    errors.install(app)
    allowed = list(getattr(app.state.settings, "allowed_origins", []) or [])
    app.add_middleware(SecurityHeaders, allowed_origins=allowed)
    app.add_middleware(ReaderLanguage)
    app.router.dependencies.append(Depends(path_params_in_shape))  # before every route: links in shape
    app.include_router(language_router)
    app.include_router(csp_reports.router)
    app.include_router(pages.router)
    app.include_router(practice.router)
    app.include_router(rejoin.router)
    app.add_exception_handler(pages.NoSuchRoom, pages.no_such_room)
    app.include_router(websocket.router)
    app.include_router(replay.router)
    app.include_router(history_files.router)
    app.include_router(open_history.router)
    app.include_router(analysis.router)
    app.include_router(club_router)
    app.include_router(device_shell.router)
    app.include_router(device_push.router)


@asynccontextmanager
async def running(app: FastAPI) -> AsyncIterator[None]:
    manager = manager_of(app)
    push_service.start(app)  # web push: its turn watch wraps the rooms' audience before they load
    club_online.install(app)
    practice.install(app)  # the panel of a practice player who is out
    await club_online.load_decks(app)  # duplicate nights' decks, before their tables deal again
    await manager.start()
    analyses_of(app)  # (before any page is drawn in a thread)
    await club_online.catch_up(app)  # results of games that ended while the app was down
    watcher = asyncio.create_task(club_flow.watch(app))  # club rooms follow other processes
    try:
        yield
    finally:
        watcher.cancel()
        await asyncio.gather(watcher, return_exceptions=True)
        await club_online.stop(app)
        await analyses_of(app).stop()  # (before the rooms' bot pool stops)
        await manager.stop()
        await push_service.stop(app)
        await websocket.memory_of(app).stop()
