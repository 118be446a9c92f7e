"""A Postgres outage in the middle of a game, against a real server over real websockets.

The app reaches its database through a TCP proxy that the test cuts (every connection reset,
new ones refused) and restores. While the database is away a move is refused with a plain
notice and every client's table (version, hand) stays as it was; once it is back the next move
works without a restart; and after a `kill -9` the restarted server rebuilds exactly the room the
clients saw.
"""

from __future__ import annotations

import asyncio
import random

import pytest
from sqlalchemy.engine import make_url

from app.rooms.changes import NOT_SAVED
from app.store.db import upgrade
from tests.resilience.conftest import (
    SeatClient,
    actor,
    all_at,
    play_step,
    seat_three,
    start_game,
)
from tests.resilience.tcp_proxy import ThreadedProxy
from tests.support.waiting import watching

pytestmark = pytest.mark.postgres


async def sync_all(clients: list[SeatClient]) -> None:
    """Each client asks for its table and gets it: whatever was pushed before has arrived."""
    for c in clients:
        seen = len(c.frames)
        await c.send(do="sync", v=c.version)
        await c.wait_for(lambda c, seen=seen: any(f.get("kind") in ("table", "fragments") for f in c.frames[seen:]),
                         10, "the answer to a sync")


async def test_a_database_outage_mid_game_loses_nothing_and_needs_no_restart(postgres_url, start_server) -> None:
    upgrade(postgres_url)
    real = make_url(postgres_url)
    proxy = ThreadedProxy(real.host or "127.0.0.1", real.port or 5432)
    proxied = real.set(host="127.0.0.1", port=proxy.port).render_as_string(hide_password=False)
    server = start_server(proxied)
    try:
        with watching(server.log_path):
            _slug, clients = await seat_three(server.url, target=5)
            for c in clients:
                await c.connect()
            await start_game(clients)
            rng = random.Random(11)
            for _ in range(3):
                await play_step(clients, rng)
            version = max(c.version for c in clients)
            await all_at(clients, version)
            before = [c.fingerprint() for c in clients]
            tables = [sum(1 for f in c.frames if f.get("kind") in ("table", "fragments")) for c in clients]

            proxy.cut()  # the database is gone
            mover = actor(clients)
            assert mover is not None
            action = rng.choice(mover.offered_actions())
            seen = len(mover.frames)
            await mover.act(action, v=version)
            await mover.wait_for(
                lambda c: any(f.get("kind") == "notice" for f in c.frames[seen:]), 30, "the refusal"
            )
            notice = next(f for f in mover.frames[seen:] if f.get("kind") == "notice")
            assert notice["message"] == NOT_SAVED
            others = [c for c in clients if c is not mover]
            await sync_all(others)
            for c, was, count in zip(clients, before, tables, strict=True):
                if c is not mover:  # one table: the answer to its own sync, nothing pushed
                    assert sum(1 for f in c.frames if f.get("kind") in ("table", "fragments")) == count + 1, c.name
                assert c.version == version and c.fingerprint() == was, f"{c.name} saw an unsaved move"

            proxy.restore()  # the database is back: the same move now goes through
            for _attempt in range(20):
                seen = len(mover.frames)
                await mover.act(action, v=version)
                await mover.wait_for(
                    lambda c, seen=seen: c.version > version
                    or any(f.get("kind") == "notice" for f in c.frames[seen:]),
                    30, "the move or a refusal",
                )
                if mover.version > version:
                    break
                notice = next(f for f in mover.frames[seen:] if f.get("kind") == "notice")
                assert notice["message"] == NOT_SAVED, notice["message"]  # still reconnecting: again
            assert mover.version > version, "the move never went through after the database came back"
            for _ in range(3):
                await play_step(clients, rng)
            version = max(c.version for c in clients)
            await all_at(clients, version)
            seen_by_clients = [c.fingerprint() for c in clients]

            server.kill()
            await asyncio.gather(*(c.wait_closed() for c in clients))
            server.start()
            for c in clients:
                await c.connect()
            await all_at(clients, version)
            after = [c.fingerprint() for c in clients]
            assert after == seen_by_clients, "the restarted server rebuilt another room"
            await play_step(clients, rng)  # and it plays on
            log = server.log_text()
            assert "could not be rebuilt" not in log and "did not apply" not in log
            for c in clients:
                await c.close()
    finally:
        proxy.close()
