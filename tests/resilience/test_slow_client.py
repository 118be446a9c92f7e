"""A client that stops reading is dropped within seconds and never delays its room."""

from __future__ import annotations

import asyncio
import random
import socket
import time

from app.web.table.hub import TOO_SLOW_REASON
from tests.resilience.conftest import (
    all_at,
    play_step,
    raw_websocket,
    seat_three,
    settle,
    start_game,
)

DROPPED = "dropping slow connection"
# uvicorn's keepalive ping ends a reader that stops reading after 20-40 s (1011): these tests are
# about the hub's own drop, which takes as long on a busy machine (see the first test)
NO_KEEPALIVE = {"UVICORN_WS_PING_INTERVAL": "600"}


async def test_a_client_that_stops_reading_is_dropped_and_never_delays_the_others(
    start_server, sqlite_file_url
) -> None:
    server = start_server(sqlite_file_url, env=NO_KEEPALIVE)
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
        deadline = stuck_at + 90
        while time.monotonic() < deadline:
            if dropped_after is None and DROPPED in server.log_text():
                dropped_after = time.monotonic() - stuck_at
            if dropped_after is not None and len(latencies) >= 60:
                break
            top = max(c.version for c in clients)
            await all_at(clients, top)
            await settle(clients)  # (the seat's own move comes right after the table's change)
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
    # (how soon depends on bytes, not frames: the kernel's buffers take what the reader does not,
    # and a frame first stalls once they are full; here they took 2-3 MB, the spectator's frames
    # are some 550 bytes a step, so on a quiet machine that is about 5,000 steps in 14 s, and then
    # 5 s of stall; a busy machine plays slower: 33 s seen)
    assert dropped_after < 60, dropped_after
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


def close_frame(sock: socket.socket) -> tuple[int, str] | None:
    """Read the socket to its end (the frames it left unread, then the close): the close frame's
    code and reason, or None if the connection ended without one."""
    buf = b""
    while True:
        while len(buf) >= 2:
            opcode, size, at = buf[0] & 0x0F, buf[1] & 0x7F, 2
            if size >= 126:
                width = 2 if size == 126 else 8
                if len(buf) < 2 + width:
                    break
                size, at = int.from_bytes(buf[2:2 + width], "big"), 2 + width
            if len(buf) < at + size:
                break
            payload, buf = buf[at:at + size], buf[at + size:]
            if opcode == 0x8:
                return int.from_bytes(payload[:2], "big"), payload[2:].decode()
        chunk = sock.recv(1 << 16)
        if not chunk:
            return None
        buf += chunk


async def test_the_reader_that_fell_behind_is_told_1013_and_why(start_server, sqlite_file_url) -> None:
    """Issue 24: the handler's own close (1000, no reason) used to win the race with the hub's
    1013, and a browser does not reconnect on 1000. A reader that falls behind and then reads
    again finds, after the frames it had not taken, a close frame with 1013 and the reason."""
    server = start_server(sqlite_file_url, env=NO_KEEPALIVE)
    slug, clients = await seat_three(server.url, target=50)
    for c in clients:
        await c.connect()
    await start_game(clients)
    rng = random.Random(5)
    stuck = raw_websocket(server.port, f"/r/{slug}/ws")  # stops reading from here on
    try:
        deadline = time.monotonic() + 90  # (the kernel's buffers first: see the test above)
        while time.monotonic() < deadline:
            if DROPPED in server.log_text():
                break
            top = max(c.version for c in clients)
            await all_at(clients, top)
            if all(c.over for c in clients):  # a rematch keeps the table busy
                for c in clients:
                    await c.send(do="rematch", v=top)
                await asyncio.gather(*(c.wait_version(top + len(clients) - 1) for c in clients))
                continue
            await play_step(clients, rng)
        assert DROPPED in server.log_text(), server.log_tail()
        stuck.settimeout(10)
        closed = await asyncio.to_thread(close_frame, stuck)  # it reads again, at once
    finally:
        stuck.close()
    assert closed == (1013, TOO_SLOW_REASON), closed
    for c in clients:
        assert c.close_code is None
        await c.close()
