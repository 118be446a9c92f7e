"""Web layer (placeholder until the routers land): `install(app)` and `running(app)`."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI


def install(app: FastAPI) -> None:
    """Include every router of the web layer."""


@asynccontextmanager
async def running(app: FastAPI) -> AsyncIterator[None]:
    yield
