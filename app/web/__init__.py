"""Web layer: pages, the room websocket, rendering and security.

`install(app)` includes the routers; `running(app)` (entered in the app lifespan) starts the
room manager, which brings every stored room back and lets bots carry on, and stops it.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI

from app.web import club, pages, ws
from app.web.state import manager_of, templates_of


def install(app: FastAPI) -> None:
    """Include every router of the web layer."""
    templates_of(app)
    app.include_router(pages.router)
    app.include_router(ws.router)
    app.include_router(club.router)


@asynccontextmanager
async def running(app: FastAPI) -> AsyncIterator[None]:
    manager = manager_of(app)
    await manager.start()
    try:
        yield
    finally:
        await manager.stop()
