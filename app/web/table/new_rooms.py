"""How many rooms may be made: per address and by everyone together, in a sliding window.

One visitor made 1,482 rooms in a minute (10,413 seat rows, 13,080 events), and a game nobody
flooded slowed down for it. A room costs rows and memory until it is played or swept
(`app.rooms.lobby_sweep`), so making them is limited: at most `per_address` rooms from one
address and `total` from all addresses together per `window` seconds (the settings
NEW_ROOMS_PER_ADDRESS and NEW_ROOMS_TOTAL, per 10 minutes). A room is counted when its making
starts, so requests sent at once cannot all slip through, and given back if the form was
refused. An IPv6 address counts by its /64 network: one household's (or one attacker's)
addresses, not a new key for each of the 2**64 it holds.

Only the table's home page makes rooms this way; a club night's tables are made by an elder.
"""

from __future__ import annotations

import ipaddress
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

WINDOW = 600.0  # seconds: the settings' "per 10 minutes"


@dataclass(frozen=True)
class Full:
    """A refusal: which limit is reached (`"address"` or `"total"`) and how many seconds until a
    room may be made again."""

    limit: str
    wait: float


def address_key(address: str) -> str:
    """The key an address counts under: itself, or its /64 network for IPv6."""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return address
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.ip_network(f"{ip}/64", strict=False))
    return str(ip)


class NewRooms:
    def __init__(self, *, per_address: int, total: int, window: float = WINDOW,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.per_address, self.total, self.window = per_address, total, window
        self.clock = clock
        self._all: deque[float] = deque()
        self._by_address: dict[str, deque[float]] = {}
        self._lock = threading.Lock()

    def take(self, address: str) -> Full | None:
        """Count a room about to be made from `address`; None if it may be, else the refusal
        (and nothing is counted)."""
        key = address_key(address)
        with self._lock:
            now = self.clock()
            self._expire(self._all, now)
            mine = self._by_address.get(key)
            if mine is not None:
                self._expire(mine, now)
            if mine is not None and len(mine) >= self.per_address:
                return Full("address", mine[0] + self.window - now)
            if len(self._all) >= self.total:
                return Full("total", self._all[0] + self.window - now)
            if mine is None:
                self._forget_idle(now)
                mine = self._by_address[key] = deque()
            mine.append(now)
            self._all.append(now)
            return None

    def give_back(self, address: str) -> None:
        """The room counted last for `address` was not made after all (its form was refused)."""
        key = address_key(address)
        with self._lock:
            mine = self._by_address.get(key)
            if mine:
                at = mine.pop()
                if at in self._all:
                    self._all.remove(at)

    def __len__(self) -> int:
        """Addresses with rooms counted (at most about `total`: nothing grows without bound)."""
        return len(self._by_address)

    def _expire(self, times: deque[float], now: float) -> None:
        while times and now - times[0] >= self.window:
            times.popleft()

    def _forget_idle(self, now: float) -> None:
        """Drop addresses with nothing left in the window, once there are more than rooms."""
        if len(self._by_address) < self.total:
            return
        for key in [k for k, times in self._by_address.items() if not times or now - times[-1] >= self.window]:
            del self._by_address[key]
