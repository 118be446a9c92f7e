"""Web layer, by area: `table` (home and room pages, the room websocket, table rendering, the
rules pages), `club` (one module per page area of /club) and `shared` (security, templates and
the app's long-lived objects).

`install(app)` includes the routers; `running(app)` (entered in the app lifespan) starts the
room manager, which brings every stored room back and lets bots carry on, hooks the club's
online nights to the end of their games (and catches up with games that ended while the app was
down), and stops the manager.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI

from app.web.club import online as club_online
from app.web.club.router import router as club_router
from app.web.shared.state import manager_of, templates_of
from app.web.table import pages, replay, websocket


def install(app: FastAPI) -> None:
    """Include every router of the web layer."""
    templates_of(app)
    app.include_router(pages.router)
    app.include_router(websocket.router)
    app.include_router(replay.router)
    app.include_router(club_router)


@asynccontextmanager
async def running(app: FastAPI) -> AsyncIterator[None]:
    manager = manager_of(app)
    club_online.install(app)
    await manager.start()
    await club_online.catch_up(app)  # results of games that ended while the app was down
    try:
        yield
    finally:
        await manager.stop()
