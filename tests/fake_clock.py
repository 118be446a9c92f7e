"""A clock a test moves by hand, for the rooms' timers (bot delay, seat takeover, fallbacks).

`RoomManager(..., clock=fake, sleep=fake.sleep)`: the rooms read `fake()` for the time and wait
with `fake.sleep(s)`, which returns only once the test has moved the clock `s` seconds on with
`fake.advance(s)`. No test waits real seconds for a timer, and none races one.
"""

from __future__ import annotations

import asyncio


class FakeClock:
    def __init__(self, start: float = 1000.0) -> None:
        self.now = start
        self._sleepers: list[tuple[float, asyncio.Future[None]]] = []

    def __call__(self) -> float:
        return self.now

    @property
    def sleeping(self) -> int:
        """How many timers wait on this clock now (lets a test wait until one is armed)."""
        return sum(not f.done() for _, f in self._sleepers)

    async def sleep(self, seconds: float) -> None:
        if seconds <= 0:
            await asyncio.sleep(0)  # still a turn of the loop, like asyncio.sleep(0)
            return
        wake = asyncio.get_running_loop().create_future()
        self._sleepers.append((self.now + seconds, wake))
        try:
            await wake
        finally:
            self._sleepers = [(t, f) for t, f in self._sleepers if f is not wake]

    def advance(self, seconds: float) -> None:
        """Move the clock on; every timer now due wakes (in the loop's next turns)."""
        assert seconds >= 0, "a monotonic clock never goes back"
        self.now += seconds
        for due, wake in self._sleepers:
            if due <= self.now and not wake.done():
                wake.set_result(None)
