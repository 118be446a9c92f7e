"""Presence updates, coalesced: a seat coming or going is shown to everybody at the table, but a
burst of comings and goings (a flaky phone, a client opening and closing sockets in a loop) costs
at most one update per `interval` after the first `burst`: the last state wins. (An update is
a push like any other: each connection gets what changed of its table, the seat's row.)"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable


class PresenceCoalescer:
    def __init__(self, publish: Callable[[], None], *, burst: int = 4, interval: float = 0.25,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.publish = publish
        self.burst = burst
        self.interval = interval
        self.clock = clock
        self.tokens = float(burst)
        self.stamp = clock()
        self.pending: asyncio.TimerHandle | None = None

    def changed(self) -> bool:
        """Presence changed: publish now (True) or once the burst allowance refills (False)."""
        if self.pending is not None:
            return False  # a publish is already due: it will show this change too
        now = self.clock()
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) / self.interval)
        self.stamp = now
        if self.tokens >= 1:
            self.tokens -= 1
            self.publish()
            return True
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            self.publish()
            return True
        self.pending = loop.call_later((1 - self.tokens) * self.interval, self._fire)
        return False

    def _fire(self) -> None:
        self.pending = None
        self.tokens = 0.0
        self.stamp = self.clock()
        self.publish()

    def cancel(self) -> None:
        if self.pending is not None:
            self.pending.cancel()
            self.pending = None
