"""Connection budgets for the room websocket.

- `MessageBudget`: each connection may send at most `limit` messages per `window` seconds
  (like lichess: about 100 per 20 s for a player, 50 for a spectator); beyond that the socket is
  closed with 1008 and a reason.
- `ConnectionCaps`: at most `per_room` sockets in one room, `per_address` sockets from one
  address in all rooms, and at most `connects_per_address` new sockets per `connect_window`
  seconds from one address (opening and aborting sockets in a loop is refused, not served).
  Counters of rooms and addresses with no socket left are removed, so nothing grows.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable
from typing import TypeVar

K = TypeVar("K")


class MessageBudget:
    """A sliding window of message times."""

    def __init__(self, limit: int, window: float, *, clock: Callable[[], float] = time.monotonic) -> None:
        self.limit = limit
        self.window = window
        self.clock = clock
        self._times: deque[float] = deque()

    def allow(self) -> bool:
        now = self.clock()
        while self._times and now - self._times[0] >= self.window:
            self._times.popleft()
        if len(self._times) >= self.limit:
            return False
        self._times.append(now)
        return True


class ConnectionCaps:
    def __init__(self, *, per_room: int, per_address: int, connects_per_address: int,
                 connect_window: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.per_room = per_room
        self.per_address = per_address
        self.connects_per_address = connects_per_address
        self.connect_window = connect_window
        self.clock = clock
        self.rooms: dict[int, int] = {}
        self.addresses: dict[str, int] = {}
        self._connects: dict[str, MessageBudget] = {}

    def acquire(self, room_id: int, address: str) -> str | None:
        """Count a new socket; None if allowed, else why not (and nothing is counted)."""
        if self.rooms.get(room_id, 0) >= self.per_room:
            return f"this room already has {self.per_room} connections"
        if self.addresses.get(address, 0) >= self.per_address:
            return f"too many connections from your address (the limit is {self.per_address})"
        budget = self._connects.get(address)
        if budget is None:
            if len(self._connects) > 10_000:
                self._forget_idle()
            budget = self._connects[address] = MessageBudget(
                self.connects_per_address, self.connect_window, clock=self.clock
            )
        if not budget.allow():
            return "too many new connections from your address; wait a few seconds"
        self.rooms[room_id] = self.rooms.get(room_id, 0) + 1
        self.addresses[address] = self.addresses.get(address, 0) + 1
        return None

    def release(self, room_id: int, address: str) -> None:
        _count_down(self.rooms, room_id)
        _count_down(self.addresses, address)

    def _forget_idle(self) -> None:
        for address in [a for a in self._connects if a not in self.addresses]:
            del self._connects[address]


def _count_down(counts: dict[K, int], key: K) -> None:
    """One fewer for `key`; a count that reaches zero is forgotten (its memory returned)."""
    left = counts.get(key, 0) - 1
    if left > 0:
        counts[key] = left
    else:
        counts.pop(key, None)
