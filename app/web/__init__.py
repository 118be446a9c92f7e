"""Web layer: pages, the room websocket, rendering and security.

`install(app)` includes the routers; `running(app)` (entered in the app lifespan) starts the
room manager, which brings every stored room back and lets bots carry on, hooks the club's
online nights to the end of their games (and catches up with games that ended while the app was
down), and stops the manager.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI

from app.web import club, club_online, errors, pages, ws
from app.web.headers import SecurityHeaders
from app.web.state import manager_of, templates_of


def install(app: FastAPI) -> None:
    """Include every router of the web layer, the error pages and the security headers."""
    templates_of(app)
    errors.install(app)
    allowed = list(getattr(app.state.settings, "allowed_origins", []) or [])
    app.add_middleware(SecurityHeaders, allowed_origins=allowed)
    app.include_router(pages.router)
    app.include_router(ws.router)
    app.include_router(club.router)


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
