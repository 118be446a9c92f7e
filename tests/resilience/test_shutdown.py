"""Graceful shutdown: SIGTERM closes every room socket with 1012 (Service Restart), the
process exits cleanly, and after a restart the clients reconnect to exactly the same table."""

from __future__ import annotations

import asyncio
import random

from tests.resilience.conftest import all_at, play_step, play_to_end, seat_three, settle, start_game


async def test_sigterm_closes_with_1012_and_nothing_is_lost(database_url, start_server) -> None:
    server = start_server(database_url)
    _slug, clients = await seat_three(server.url, target=5)
    for c in clients:
        await c.connect()
    await start_game(clients)
    rng = random.Random(5)
    for _ in range(3):
        await play_step(clients, rng)
    version = max(c.version for c in clients)
    await all_at(clients, version)
    await settle(clients)  # (the seat's own move comes right after the table's change)
    before = [c.fingerprint() for c in clients]

    # A move in flight as the signal arrives: it is either finished or never started.
    mover = next(c for c in clients if c.offered_actions())
    await mover.act(rng.choice(mover.offered_actions()), v=version)
    exit_code = await asyncio.to_thread(server.terminate)
    codes = await asyncio.gather(*(c.wait_closed() for c in clients))
    assert codes == [1012, 1012, 1012], codes
    # uvicorn shuts down cleanly, then re-raises the signal so its own exit status says SIGTERM
    assert exit_code in (0, -15), server.log_tail()
    assert "Application shutdown complete" in server.log_text(), server.log_tail()
    told = max(c.version for c in clients)
    assert told in (version, version + 1, version + 2)  # the move (and a deal it caused) or nothing

    server.start()
    for c in clients:
        await c.connect()
        await c.send(do="sync", v=c.version)
    await all_at(clients, told)
    after = [c.fingerprint() for c in clients]
    assert len({fp["version"] for fp in after}) == 1, after
    if after[0]["version"] == version:  # the move never started: the very same table
        for was, now in zip(before, after, strict=True):
            assert now == was
    else:  # the move was finished before the sockets closed
        assert after[0]["version"] > version
    await play_to_end(clients, rng)
    for c in clients:
        await c.close()
