"""Counting failed attempts (rejoin codes) so nobody can guess their way into a seat."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable


class FailureLimit:
    """At most `limit` failures per key within `window` seconds (time from `now`)."""

    def __init__(self, limit: int, window: float, now: Callable[[], float]) -> None:
        self.limit = limit
        self.window = window
        self.now = now
        self._failures: dict[str, deque[float]] = {}

    def _recent(self, key: str) -> deque[float]:
        times = self._failures.setdefault(key, deque())
        cutoff = self.now() - self.window
        while times and times[0] <= cutoff:
            times.popleft()
        if not times:
            del self._failures[key]
            return deque()
        return times

    def wait(self, key: str) -> float:
        """Seconds until `key` may try again (0: it may try now)."""
        times = self._recent(key)
        if len(times) < self.limit:
            return 0.0
        return max(0.0, times[0] + self.window - self.now())

    def fail(self, key: str) -> None:
        self._recent(key)
        self._failures.setdefault(key, deque()).append(self.now())
        if len(self._failures) > 10_000:  # never grow without bound: forget the oldest keys
            for old in list(self._failures)[:1000]:
                del self._failures[old]
