"""Login throttling: exponential back-off per name and per address, with an injectable clock.

Every attempt counts when it starts (so guesses sent in parallel cannot all slip through before
the first one fails); a success forgets the name's and the address's failures. After `free`
attempts a key must wait `base * 2**(n - free)` seconds before the next, capped at `cap`, so a
lock-out is never longer than `cap` (five minutes by default) and an attempt refused while
waiting is not counted (it does not extend the wait). Keys unused for `forget_after` seconds are
dropped, so the table stays small.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from app.i18n import _


@dataclass
class _Record:
    attempts: int = 0
    last: float = 0.0


class Throttle:
    def __init__(self, *, free: int = 5, base: float = 2.0, cap: float = 300.0,
                 forget_after: float = 3600.0, clock: Callable[[], float] = time.monotonic,
                 max_keys: int = 100_000) -> None:
        self.free, self.base, self.cap = free, base, cap
        self.forget_after = forget_after
        self.clock = clock
        self.max_keys = max_keys
        self._records: dict[str, _Record] = {}

    def _delay(self, attempts: int) -> float:
        if attempts < self.free:
            return 0.0
        return float(min(self.cap, self.base * 2.0 ** (attempts - self.free)))

    def wait(self, key: str) -> float:
        """Seconds `key` must still wait before its next attempt (0: go ahead)."""
        record = self._records.get(key)
        if record is None:
            return 0.0
        now = self.clock()
        if now - record.last > self.forget_after:
            del self._records[key]
            return 0.0
        return max(0.0, record.last + self._delay(record.attempts) - now)

    def attempt(self, keys: Iterable[str]) -> float:
        """Start an attempt for all `keys`: 0.0 if allowed (and counted), else the seconds to
        wait (nothing counted)."""
        keys = list(keys)
        waits = [self.wait(k) for k in keys]
        if max(waits, default=0.0) > 0:
            return max(waits)
        now = self.clock()
        if len(self._records) >= self.max_keys:
            self._forget_old(now)
        for key in keys:
            record = self._records.setdefault(key, _Record())
            record.attempts += 1
            record.last = now
        return 0.0

    def succeeded(self, keys: Iterable[str]) -> None:
        for key in keys:
            self._records.pop(key, None)

    def _forget_old(self, now: float) -> None:
        for key in [k for k, r in self._records.items() if now - r.last > self.forget_after]:
            del self._records[key]
        while len(self._records) >= self.max_keys:  # still full: the oldest go first
            del self._records[min(self._records, key=lambda k: self._records[k].last)]


def wait_message(seconds: float) -> str:
    return _("Too many attempts; try again in %(seconds)s s.", seconds=max(1, math.ceil(seconds)))
