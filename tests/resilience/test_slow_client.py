"""A client that stops reading is dropped within seconds and never delays its room."""

from __future__ import annotations

import asyncio
import random
import time

from tests.resilience.conftest import all_at, raw_websocket, seat_three, start_game

DROPPED = "dropping slow connection"


async def test_a_client_that_stops_reading_is_dropped_and_never_delays_the_others(
    start_server, sqlite_file_url
) -> None:
    server = start_server(sqlite_file_url)
    slug, clients = await seat_three(server.url, target=50)
    for c in clients:
        await c.connect()
    await start_game(clients)
    rng = random.Random(3)

    stuck = raw_websocket(server.port, f"/r/{slug}/ws")  # a spectator that never reads again
    stuck_at = time.monotonic()
    latencies: list[float] = []
    dropped_after: float | None = None
    try:
        deadline = stuck_at + 60
        while time.monotonic() < deadline:
            if dropped_after is None and DROPPED in server.log_text():
                dropped_after = time.monotonic() - stuck_at
            if dropped_after is not None and len(latencies) >= 60:
                break
            top = max(c.version for c in clients)
            await all_at(clients, top)
            actor = next((c for c in clients if c.offered_actions()), None)
            if actor is None:  # game over: a rematch (everybody says yes) keeps the table busy
                for c in clients:
                    await c.send(do="rematch", v=top)
                await asyncio.gather(*(c.wait_version(top + len(clients) - 1) for c in clients))
                continue
            sent = time.perf_counter()
            await actor.act(rng.choice(actor.offered_actions()), v=top)
            await asyncio.gather(*(c.wait_version(top, timeout=10) for c in clients))
            latencies.append((time.perf_counter() - sent) * 1000)
    finally:
        stuck.close()

    assert dropped_after is not None, "the stuck client was never dropped:\n" + server.log_tail()
    assert dropped_after < 15, dropped_after
    latencies.sort()
    p99 = latencies[int(0.99 * (len(latencies) - 1))]
    # Every step is a full round trip through rules, database and three pushes; a stuck
    # reader must add nothing to it (a naive `for ws in room: await ws.send()` stalls forever).
    print(
        f"stuck client dropped after {dropped_after:.2f} s; {len(latencies)} steps, p99 {p99:.1f} ms"
    )
    assert p99 < 500, (p99, latencies[-5:])
    assert server.alive()
    for c in clients:
        assert c.close_code is None
        await c.close()
