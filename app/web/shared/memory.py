"""Giving memory back to the system when sockets go.

CPython frees a closed socket's objects at once, but the C allocator keeps the freed pages for
later; after hundreds of spectators leave, the process would go on holding tens of megabytes it
no longer uses. After a burst of closed sockets, `malloc_trim(0)` (glibc) hands the free pages
back. It runs in a worker thread (it releases the GIL and takes a few milliseconds on a large
heap), at most once per `MIN_INTERVAL` seconds, a moment after the burst. Elsewhere than glibc
it does nothing.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import ctypes.util
import logging
from collections.abc import Callable

log = logging.getLogger("gurka.web.memory")

CLOSED_BEFORE_TRIM = 16  # sockets closed since the last trim that make one worth it
SETTLE = 1.0  # seconds after a close before trimming (a burst finishes first)
MIN_INTERVAL = 5.0  # seconds between trims


def _find_trim() -> Callable[[int], int] | None:
    name = ctypes.util.find_library("c")
    if not name:
        return None
    try:
        trim = ctypes.CDLL(name).malloc_trim
    except (OSError, AttributeError):
        return None
    trim.argtypes, trim.restype = [ctypes.c_size_t], ctypes.c_int
    return trim


class MemoryReturn:
    """Counts closed sockets and trims the heap after a burst of them."""

    def __init__(self, trim: Callable[[int], int] | None = None, *, closed_before_trim: int = CLOSED_BEFORE_TRIM,
                 settle: float = SETTLE, min_interval: float = MIN_INTERVAL) -> None:
        self.trim = trim if trim is not None else _find_trim()
        self.closed_before_trim = closed_before_trim
        self.settle = settle
        self.min_interval = min_interval
        self.closed = 0
        self.trims = 0
        self._pending: asyncio.Task[None] | None = None

    def socket_closed(self) -> None:
        """Call on the event loop whenever a websocket has closed."""
        self.closed += 1
        if self.trim is None or self.closed < self.closed_before_trim:
            return
        if self._pending is None or self._pending.done():
            self._pending = asyncio.get_running_loop().create_task(self._trim_soon())

    async def _trim_soon(self) -> None:
        await asyncio.sleep(self.settle)
        self.closed = 0
        assert self.trim is not None
        with contextlib.suppress(Exception):
            await asyncio.to_thread(self.trim, 0)
            self.trims += 1
        await asyncio.sleep(self.min_interval)  # the next burst waits its turn

    async def stop(self) -> None:
        if self._pending is not None:
            self._pending.cancel()
            with contextlib.suppress(BaseException):
                await self._pending
