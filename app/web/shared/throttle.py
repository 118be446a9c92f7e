"""The one throttle for guessing: elder passwords, personal links and rejoin codes.

Per key (a typed name, an address, a room): every attempt counts when it starts, so guesses
sent in parallel cannot all slip through before the first one fails. A right answer clears only
what it proves. A key that counts guesses at one thing the answer proved (an elder's name, once
that elder's password was right) starts afresh (`forget`); a key that also counts guesses at
other things (an address, a room's codes) gets back only the right answer's own count
(`refund`): the wrong guesses stay counted, so typing something one knows between guesses (a
player's own rejoin code, an elder's own password) buys no extra guesses. A key that counts
something other than guesses (how often one seat moved) is never cleared at all. After `free` attempts a key must wait
`base * 2**(n - free)` seconds before its next one, never longer than `cap`: the real user is
slowed down for a while but never locked out for good. An attempt refused while waiting is not
counted (it does not extend the wait).
Keys unused for `forget_after` seconds are dropped and the table never holds more than
`max_keys`, so a flood of addresses cannot grow it without bound.

Time comes from an injectable clock (`app.rooms.clock`): tests move a `FakeClock` by hand.
Handlers run both on the event loop and in worker threads, so the table is guarded by a lock.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from fastapi import FastAPI

from app.i18n import _
from app.rooms.clock import Clock, SystemClock


@dataclass
class _Record:
    attempts: int = 0
    last: float = 0.0


class Throttle:
    def __init__(self, *, free: int = 5, base: float = 2.0, cap: float = 300.0,
                 forget_after: float = 3600.0, clock: Clock | None = None,
                 max_keys: int = 100_000) -> None:
        self.free, self.base, self.cap = free, base, cap
        self.forget_after = forget_after
        self.clock: Clock = clock or SystemClock()
        self.max_keys = max_keys
        self._records: dict[str, _Record] = {}
        self._lock = threading.Lock()

    def _delay(self, attempts: int) -> float:
        if attempts < self.free:
            return 0.0
        return float(min(self.cap, self.base * 2.0 ** min(attempts - self.free, 64)))

    def _wait(self, key: str, now: float) -> float:
        record = self._records.get(key)
        if record is None:
            return 0.0
        if now - record.last > self.forget_after:
            del self._records[key]
            return 0.0
        return max(0.0, record.last + self._delay(record.attempts) - now)

    def wait(self, key: str) -> float:
        """Seconds `key` must still wait before its next attempt (0: go ahead)."""
        with self._lock:
            return self._wait(key, self.clock.now())

    def attempt(self, keys: Iterable[str]) -> float:
        """Start an attempt for all `keys`: 0.0 if allowed (and counted for each key), else the
        seconds to wait (and nothing is counted)."""
        keys = list(keys)
        with self._lock:
            now = self.clock.now()
            wait = max((self._wait(k, now) for k in keys), default=0.0)
            if wait > 0:
                return wait
            for key in keys:
                record = self._records.pop(key, None) or _Record()
                record.attempts += 1
                record.last = now
                self._records[key] = record  # the table stays in order of last use
            self._forget_old(now)
            return 0.0

    def forget(self, keys: Iterable[str]) -> None:
        """A right answer proved what these keys count (one elder's password, when the key is
        that elder's name): they start afresh. Never pass a key that also counts guesses at
        something else (an address, a room): `refund` is for those."""
        with self._lock:
            for key in keys:
                self._records.pop(key, None)

    def refund(self, keys: Iterable[str]) -> None:
        """The attempt just counted for `keys` was right: take that one attempt back from each
        key (pass exactly the keys it was counted for). Nothing else is forgotten: the wrong
        attempts counted for these keys stay, and so does the wait they earned."""
        with self._lock:
            for key in keys:
                record = self._records.get(key)
                if record is not None and record.attempts > 0:
                    record.attempts -= 1

    def __len__(self) -> int:
        return len(self._records)

    def _forget_old(self, now: float) -> None:
        """Drop keys unused for `forget_after`, and the least recently used beyond `max_keys`
        (the table is in order of last use, so both come off its front)."""
        while self._records:
            key = next(iter(self._records))
            if now - self._records[key].last <= self.forget_after and len(self._records) <= self.max_keys:
                return
            del self._records[key]


def wait_message(seconds: float, what: str | None = None) -> str:
    """The refusal every throttled form shows, in the reader's language: what happened (said
    by the caller) and how long to wait."""
    return _("%(what)s; try again in %(seconds)d s.", what=what or _("Too many attempts"),
             seconds=max(1, math.ceil(seconds)))


_creating = threading.Lock()


def throttle_of(app: FastAPI, name: str, make: Callable[[], Throttle]) -> Throttle:
    """The app's throttle called `name` (kept on `app.state`), made by `make` on first use."""
    found = getattr(app.state, name, None)
    if found is None:
        with _creating:
            found = getattr(app.state, name, None)
            if found is None:
                found = make()
                setattr(app.state, name, found)
    assert isinstance(found, Throttle)
    return found


def app_clock(app: FastAPI) -> Clock:
    """The clock the app was built with (tests pass a `FakeClock`), else the system's."""
    clock: Clock | None = getattr(app.state, "clock", None)
    return clock or SystemClock()
