"""The limit on wrong rejoin codes: per key, within a sliding window, on the rooms' clock."""

from __future__ import annotations

from app.rooms.clock import FakeClock
from app.web.shared.limits import FailureLimit


def test_failures_are_limited_per_key_and_forgotten_after_the_window() -> None:
    clock = FakeClock(start=1000.0)
    limit = FailureLimit(3, 60.0, now=clock.now)
    for _ in range(3):
        assert limit.wait("room-a") == 0
        limit.fail("room-a")
    assert 59.0 < limit.wait("room-a") <= 60.0  # a fourth try must wait for the oldest to expire
    assert limit.wait("room-b") == 0  # other rooms (or addresses) are not affected
    clock.advance(30.0)
    assert 29.0 < limit.wait("room-a") <= 30.0
    clock.advance(30.5)
    assert limit.wait("room-a") == 0  # the first failure has left the window
    limit.fail("room-a")
    assert limit.wait("room-a") > 0
