"""The rooms' clock, injectable: wall-clock seconds (deadlines are stored and survive a restart)
and a way to wait for a moment. Tests hand rooms a `FakeClock` and move time by hand, so no
test ever waits real seconds for a turn timer or a pause."""

from __future__ import annotations

import asyncio
import time
from typing import Protocol


class Clock(Protocol):
    def now(self) -> float:
        """Seconds since the epoch (comparable across processes and restarts)."""
        ...

    async def sleep_until(self, moment: float) -> None:
        """Return once `now() >= moment`."""
        ...


class SystemClock:
    def now(self) -> float:
        return time.time()

    async def sleep_until(self, moment: float) -> None:
        delay = moment - time.time()
        while delay > 0:
            await asyncio.sleep(delay)
            delay = moment - time.time()


class FakeClock:
    """A clock that stands still until `advance()` moves it; sleepers wake when their moment comes."""

    def __init__(self, start: float | None = None) -> None:
        self._now = time.time() if start is None else start
        self._sleepers: list[tuple[float, asyncio.Future[None]]] = []

    def now(self) -> float:
        return self._now

    async def sleep_until(self, moment: float) -> None:
        if moment <= self._now:
            await asyncio.sleep(0)
            return
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._sleepers.append((moment, future))
        try:
            await future
        finally:
            self._sleepers = [(m, f) for m, f in self._sleepers if f is not future]

    @property
    def sleeping(self) -> int:
        """How many tasks are waiting for a moment still to come."""
        return sum(1 for _, future in self._sleepers if not future.done())

    def advance(self, seconds: float) -> None:
        self._now += seconds
        for moment, future in list(self._sleepers):
            if moment <= self._now and not future.done():
                future.set_result(None)
