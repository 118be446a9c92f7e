"""In-process fan-out: one writer task and one bounded queue per connection.

A room never awaits a client's socket: it offers each connection its next frame and moves
on. A connection whose queue is full (the client stopped reading) is dropped, so a slow
phone can never stall the table for everybody else.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any

log = logging.getLogger("gurka.rooms.hub")

QUEUE_SIZE = 16
_ids = itertools.count(1)


class Connection:
    """One websocket of one seat holder (or a spectator)."""

    def __init__(
        self,
        send: Callable[[str], Awaitable[Any]],
        close: Callable[[int], Awaitable[Any]],
        *,
        token_hash: str | None,
        queue_size: int = QUEUE_SIZE,
        lang: str = "en",
    ) -> None:
        self.id = next(_ids)
        self.token_hash = token_hash  # who this is; the room maps it to a seat (None: spectator)
        self.lang = lang  # the reader's language: every frame for this connection is said in it
        self.seat: int | None = None
        self._send = send
        self._close = close
        self.queue: asyncio.Queue[str | None] = asyncio.Queue(queue_size)
        self.closed = False
        self.connected_at = time.monotonic()
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._writer(), name=f"ws-writer-{self.id}")

    def offer(self, frame: str) -> bool:
        """Queue a frame; False (and the connection is dropped) if the client is too slow."""
        if self.closed:
            return False
        try:
            self.queue.put_nowait(frame)
            return True
        except asyncio.QueueFull:
            log.info("dropping slow connection %s (seat %s)", self.id, self.seat)
            self.drop(code=1013)
            return False

    def drop(self, *, code: int = 1000) -> None:
        if self.closed:
            return
        self.closed = True
        if self._task is not None:
            self._task.cancel()
        with contextlib.suppress(RuntimeError):
            asyncio.get_running_loop().create_task(self._safe_close(code))

    async def _safe_close(self, code: int) -> None:
        with contextlib.suppress(Exception):
            await self._close(code)

    async def _writer(self) -> None:
        try:
            while True:
                frame = await self.queue.get()
                if frame is None:
                    return
                await self._send(frame)
        except asyncio.CancelledError:
            raise
        except Exception:  # noqa: BLE001  (the socket went away: the receive loop will see it)
            self.closed = True

    async def stop(self) -> None:
        self.closed = True
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(BaseException):
                await self._task
