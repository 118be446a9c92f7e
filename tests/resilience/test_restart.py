"""Chaos: `kill -9` the real server mid-deal, start it again, and nothing is lost."""

from __future__ import annotations

import asyncio
import random

from tests.resilience.conftest import (
    all_at,
    autoplay,
    play_step,
    play_to_end,
    seat_three,
    start_game,
)


async def test_kill_9_mid_deal_then_restart_loses_nothing(database_url, start_server) -> None:
    server = start_server(database_url)
    _slug, clients = await seat_three(server.url, target=5)
    for c in clients:
        await c.connect()
    await start_game(clients)
    rng = random.Random(7)
    for _ in range(4):  # into the deal: cards on the table, hands partly played
        await play_step(clients, rng)
    version = max(c.version for c in clients)
    await all_at(clients, version)
    before = [c.fingerprint() for c in clients]
    assert not before[0]["over"] and any(fp["offered"] for fp in before)

    server.kill()  # SIGKILL: no shutdown code, no flush
    codes = await asyncio.gather(*(c.wait_closed() for c in clients))
    assert all(code == 1006 for code in codes), codes  # an abnormal close, not a goodbye

    server.start()  # same port, same database file
    for c in clients:
        await c.connect()
        await c.send(do="sync", v=version)  # "I have this version": the answer is the full view
    await all_at(clients, version)
    after = [c.fingerprint() for c in clients]
    for seat, (was, now) in enumerate(zip(before, after, strict=True)):
        assert now == was, f"seat {seat} came back different:\n{was}\n{now}"

    steps = await play_to_end(clients, rng)
    assert steps > 0
    assert all(c.over for c in clients)
    for c in clients:
        await c.close()


async def test_kill_9_while_moves_are_in_flight(database_url, start_server) -> None:
    """Bots play flat out and the server dies at a random moment: whatever any client was told
    survives (commit before publish), and every seat comes back to one consistent table."""
    server = start_server(database_url)
    _slug, clients = await seat_three(server.url, target=5)
    for c in clients:
        await c.connect()
    await start_game(clients)
    stop = asyncio.Event()
    rng = random.Random(11)
    players = [asyncio.ensure_future(autoplay(c, rng, stop)) for c in clients]
    start = max(c.version for c in clients)
    await asyncio.gather(*(c.wait_version(start + 8) for c in clients))
    server.kill()
    stop.set()
    sent = sum(await asyncio.gather(*players))
    assert sent >= 4
    told = [c.version for c in clients]

    server.start()
    for c in clients:
        await c.connect()
    top = max(told)
    await all_at(clients, top)
    now = [c.fingerprint() for c in clients]
    assert len({fp["version"] for fp in now}) == 1, now
    assert (
        len({tuple(fp["turn"]) for fp in now}) == 1
        and len({tuple(fp["scores"]) for fp in now}) == 1
    )
    assert sum(bool(fp["offered"]) for fp in now) <= 1
    await play_to_end(clients, rng)
    for c in clients:
        await c.close()
