"""Garbage collection paced so that no collection stalls the event loop for long.

A collection runs on the event loop and stalls every room of the process while it walks its
generations. On the 2-core machine of bench/ws_load.py at 1,000 rooms (3,000 sockets, 300
actions/s) the heap holds about 460,000 tracked objects (the rooms' games, tables and sockets,
and 120,000 of the app's own modules, routes and templates) and a walk costs 0.7 us per object
or more. CPython's own triggers made walks of 50,000 to 280,000 objects, 25 to 290 ms each:
the young generation is counted as allocations minus deallocations, and in steady play the
rooms' previous states die as fast as their new ones are born, so the count stays low while
the young list grows with every room's live state. Collecting the young generation on a clock
instead keeps each walk short, but walks nearly every object a move makes (about 145), most
of which die by reference counting a moment later: 10-35% more CPU per move at flat out.

Steady play makes no garbage in reference cycles (none in 5 s of 300 rooms flat out, found
with `gc.DEBUG_SAVEALL`; tests/web/table/test_no_cyclic_garbage.py holds a push to it): what the app
lets go of, reference counting frees at once. So the pacer

- freezes everything alive every `FREEZE_EVERY` seconds (`gc.freeze`: the objects move out of
  every later collection in constant time, no walk; reference counting still frees them when
  they are let go), so CPython's own collections only ever walk what was made since;
- every `SWEEP_EVERY` seconds unfreezes everything and runs one full collection, which frees the
  cycles that were frozen (a request's or a socket's set-up and teardown can leave some), and
  freezes again; logged with what it found. At 1,000 rooms on the 2-core machine that one walk
  can take a second: the price of a steady loop the rest of the time.

Measured with bench/ws_load.py at 1,000 rooms and 300 actions/s on that machine: p99 146 ms
with CPython's triggers alone (the load client's own pauses left out); paced, 8 ms on SQLite
and 19 ms on Postgres. `tune` keeps CPython's own triggers, set high, for what is made between
two freezes; with `GC_PACING=false` they are all there is.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import time
from collections.abc import Callable

log = logging.getLogger("gurka.gc")

FREEZE_EVERY = 0.25  # seconds between freezes
SWEEP_EVERY = 600.0  # seconds between full collections


def tune() -> None:
    """CPython's own triggers, high: the defaults (700, 10, 10) ran full collections that
    stalled the loop for hundreds of milliseconds (bench/ws_load.py at 300 actions/s over 3,000
    sockets: p99 369 ms with them, 7 ms with these on a 16-core machine)."""
    if gc.get_threshold()[0] < 50_000:
        gc.set_threshold(50_000, 20, 100)


class Pacer:
    """Everything alive frozen on a clock, a full sweep now and then."""

    def __init__(self, *, freeze_every: float = FREEZE_EVERY, sweep_every: float = SWEEP_EVERY,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.freeze_every = freeze_every
        self.sweep_every = sweep_every
        self.clock = clock
        self.last_sweep = clock()

    def sweep(self) -> int:
        """One full collection of everything, frozen again after; the objects it freed."""
        gc.unfreeze()
        try:
            return gc.collect()
        finally:
            gc.freeze()
            self.last_sweep = self.clock()

    def step(self) -> None:
        """One tick of the clock: a sweep when one is due, else a freeze."""
        if self.clock() - self.last_sweep < self.sweep_every:
            gc.freeze()
            return
        started = time.perf_counter()
        freed = self.sweep()
        log.info("full garbage collection: %d objects freed in %.0f ms", freed,
                 (time.perf_counter() - started) * 1000)

    async def run(self) -> None:
        """Step on the clock until cancelled; then hand every object back to CPython's own
        collections."""
        self.sweep()  # what starting up left behind; the app's modules frozen from the start
        try:
            while True:
                await asyncio.sleep(self.freeze_every)
                self.step()
        finally:
            gc.unfreeze()
