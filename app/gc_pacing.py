"""Garbage collection paced so that no collection stalls the event loop for long.

A collection runs on the event loop and stalls every room of the process while it walks its
generations. On the 2-core machine of bench/ws_load.py at 1,000 rooms (3,000 sockets, 300
actions/s) the heap holds about 460,000 tracked objects (the rooms' games, tables and sockets,
and 120,000 of the app's own modules, routes and templates) and a walk costs about 0.7 us per
object. CPython's own triggers made walks of 50,000 to 280,000 objects, 30 to 250 ms each:
the young generation is counted as allocations minus deallocations, and in steady play the
rooms' previous states die as fast as their new ones are born, so the count stays low while
the young list grows with every room's live state; and what survives it is walked again in
the middle generation.

The app leaves almost no garbage in reference cycles (tests/web/test_no_cyclic_garbage.py):
what it lets go of, reference counting frees at once. So the pacer looks every `YOUNG_EVERY`
seconds, and once the young generation holds `YOUNG_LIMIT` objects (a walk of 10 to 15 ms)

- collects it: short-lived cycles (an exception's traceback) are freed here;
- freezes what survived (`gc.freeze`: the objects move out of every later collection in
  constant time; reference counting still frees them when they are let go);

and every `SWEEP_EVERY` seconds it unfreezes everything and runs one full collection, which
frees any cycle that lived longer than a tick, and freezes again (logged, with what it found;
at 1,000 rooms on the 2-core machine that one walk can take a second).

Measured with bench/ws_load.py at 1,000 rooms and 300 actions/s on that machine: p99 146 ms
with CPython's triggers alone (the load client's own pauses left out), 18 ms (SQLite) and 29 ms (Postgres) paced. `tune` keeps
CPython's own triggers as a backstop, set high; with `GC_PACING=false` they are all there is.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import time
from collections.abc import Callable

log = logging.getLogger("gurka.gc")

YOUNG_EVERY = 0.25  # seconds between collections of the young generation
YOUNG_LIMIT = 15_000  # young objects that make a collection worth its walk (10-15 ms here)
SWEEP_EVERY = 600.0  # seconds between full collections


def tune() -> None:
    """CPython's own triggers, high: the defaults (700, 10, 10) ran full collections that
    stalled the loop for hundreds of milliseconds (bench/ws_load.py at 300 actions/s over 3,000
    sockets: p99 369 ms with them, 7 ms with these on a 16-core machine)."""
    if gc.get_threshold()[0] < 50_000:
        gc.set_threshold(50_000, 20, 100)


class Pacer:
    """Young collections on a clock, survivors frozen, a full sweep now and then."""

    def __init__(self, *, young_every: float = YOUNG_EVERY, young_limit: int = YOUNG_LIMIT,
                 sweep_every: float = SWEEP_EVERY, clock: Callable[[], float] = time.monotonic) -> None:
        self.young_every = young_every
        self.young_limit = young_limit
        self.sweep_every = sweep_every
        self.clock = clock
        self.last_sweep = clock()

    def tick(self) -> bool:
        """Collect the young generation and freeze what survives, once it holds `young_limit`
        objects (counting them is a copy of pointers, a walk is far dearer); whether it did."""
        if len(gc.get_objects(0)) < self.young_limit:
            return False
        gc.collect(0)
        gc.freeze()
        return True

    def sweep(self) -> int:
        """One full collection of everything, frozen again after; the objects it freed."""
        gc.unfreeze()
        try:
            return gc.collect()
        finally:
            gc.freeze()
            self.last_sweep = self.clock()

    def step(self) -> None:
        """What one tick of the clock does: a sweep when one is due, else a young collection."""
        if self.clock() - self.last_sweep < self.sweep_every:
            self.tick()
            return
        started = time.perf_counter()
        freed = self.sweep()
        log.info("full garbage collection: %d objects freed in %.0f ms, %d kept",
                 freed, (time.perf_counter() - started) * 1000, gc.get_freeze_count())

    async def run(self) -> None:
        """Step on the clock until cancelled; then hand every object back to CPython's own
        collections."""
        self.sweep()  # what starting up left behind, and the app's own modules frozen at once
        try:
            while True:
                await asyncio.sleep(self.young_every)
                self.step()
        finally:
            gc.unfreeze()
