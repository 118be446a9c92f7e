"""The limit on wrong rejoin codes: per key, within a sliding window, on the rooms' clock."""

from __future__ import annotations

from app.rooms.clock import FakeClock
from app.web.shared.limits import FailureLimit


def test_failures_are_limited_per_key_and_forgotten_after_the_window() -> None:
    clock = FakeClock(start=1000.0)
    limit = FailureLimit(3, 60.0, now=clock.now)
    for _ in range(3):  # at 1000, 1010 and 1020
        assert limit.wait("room-a") == 0
        limit.fail("room-a")
        clock.advance(10.0)
    assert 29.0 < limit.wait("room-a") <= 30.0  # a fourth try waits for the oldest to expire
    assert limit.wait("room-b") == 0  # other rooms (or addresses) are not affected
    clock.advance(30.5)  # 1060.5: the first failure has left the window
    assert limit.wait("room-a") == 0
    limit.fail("room-a")  # three in the window again
    assert 9.0 < limit.wait("room-a") <= 10.0
