"""SQLite: another process holding the write lock must not stall the other rooms.

A connection of its own (as another process would) takes the write lock with BEGIN IMMEDIATE
and keeps it for 3 s. Meanwhile a move in one room waits for its commit (the writer thread
waits, not the event loop), and websocket round trips in another room of the same server stay
fast. Once the lock is gone the waiting move goes through.
"""

from __future__ import annotations

import random
import sqlite3
import threading
import time

from sqlalchemy.engine import make_url

from tests.resilience.conftest import actor, all_at, play_step, seat_three, start_game
from tests.support.waiting import watching

HOLD_SECONDS = 3.0


def hold_write_lock(path: str, held: threading.Event, seconds: float) -> None:
    conn = sqlite3.connect(path, timeout=30, isolation_level=None)
    try:
        conn.execute("BEGIN IMMEDIATE")
        held.set()
        threading.Event().wait(seconds)  # the other process keeps the lock this long
        conn.execute("ROLLBACK")
    finally:
        conn.close()


async def test_a_write_lock_held_elsewhere_stalls_no_other_room(sqlite_file_url, start_server) -> None:
    server = start_server(sqlite_file_url)
    with watching(server.log_path):
        _a, locked = await seat_three(server.url, target=5)
        _b, other = await seat_three(server.url, target=5)
        for c in locked + other:
            await c.connect()
        await start_game(locked)
        rng = random.Random(5)
        await play_step(locked, rng)
        version = max(c.version for c in locked)
        await all_at(locked, version)

        held = threading.Event()
        holder = threading.Thread(
            target=hold_write_lock, args=(make_url(sqlite_file_url).database, held, HOLD_SECONDS)
        )
        holder.start()
        assert held.wait(10)
        locked_at = time.monotonic()
        mover = actor(locked)
        assert mover is not None
        await mover.act(rng.choice(mover.offered_actions()), v=version)

        watcher = other[1]
        trips: list[float] = []
        while holder.is_alive():
            seen = len(watcher.frames)
            started = time.monotonic()
            await watcher.send(do="sync", v=watcher.version)
            await watcher.wait_for(
                lambda c, seen=seen: any(f.get("kind") in ("table", "fragments") for f in c.frames[seen:]), 5,
                "the answer to a sync",
            )
            trips.append(time.monotonic() - started)
        holder.join()
        assert time.monotonic() - locked_at >= HOLD_SECONDS * 0.9
        assert len(trips) >= 10, trips
        trips.sort()
        p99 = trips[min(len(trips) - 1, int(len(trips) * 0.99))]
        assert p99 < 0.2, f"round trips in another room while the lock was held: p99 {p99 * 1000:.0f} ms"
        # the move in the locked room waited for the lock (or was refused plainly), nothing lost
        await mover.wait_for(
            lambda c: c.version > version or any(f.get("kind") == "notice" for f in c.frames[-3:]), 40,
            "the waiting move",
        )
        assert mover.version > version, mover.notices()[-1:]
        await all_at(locked, mover.version)
        for c in locked + other:
            await c.close()
