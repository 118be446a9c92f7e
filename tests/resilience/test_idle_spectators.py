"""Issue 10: never-reading spectators cost the room nothing that stays. Fifty spectators connect
over real sockets and never read; the room keeps playing, and its honest reader gets every push
in order meanwhile; when they go, the room's connection set is back to the honest reader, the
connection caps count only it, and no connection of the hub holds a queued frame.

The server runs in this process (uvicorn on a thread, as production serves it) so the test can
look inside the room, on the server's own event loop."""

from __future__ import annotations

import asyncio
import gc
import random
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import pytest
import uvicorn

from app.main import create_app
from app.web.table.hub import Connection
from tests.conftest import make_settings
from tests.resilience.conftest import SeatClient, autoplay, create_room, raw_websocket
from tests.support.app_process import free_port

SPECTATORS = 50
PUSHES = 30
T = TypeVar("T")


@dataclass
class InProcessServer:
    app: Any
    port: int
    server: uvicorn.Server
    loop: asyncio.AbstractEventLoop

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def look(self, read: Callable[[], T]) -> T:
        """`read()` run on the server's event loop (where the rooms change), its result here."""
        async def on_loop() -> T:
            return read()

        return asyncio.run_coroutine_threadsafe(on_loop(), self.loop).result(10)


@pytest.fixture
def in_process_server(tmp_path: Path) -> Iterator[InProcessServer]:
    settings = make_settings(f"sqlite:///{tmp_path / 'idle.db'}", ws_per_room=1000, ws_per_address=1000,
                             ws_connects_per_address=100_000, ws_player_messages=100_000, allowed_origins=[])
    app = create_app(settings)
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, ws="websockets-sansio",
                                           ws_per_message_deflate=False, log_level="warning"))
    loops: list[asyncio.AbstractEventLoop] = []

    def serve() -> None:
        loop = asyncio.new_event_loop()
        loops.append(loop)
        loop.run_until_complete(server.serve())
        loop.close()

    thread = threading.Thread(target=serve, name="in-process-server", daemon=True)
    thread.start()
    started = threading.Event()
    for _ in range(300):  # bounded: 30 s
        if server.started:
            started.set()
            break
        if not thread.is_alive():
            break
        started.wait(0.1)
    assert server.started, "the server did not start"
    try:
        yield InProcessServer(app, port, server, loops[0])
    finally:
        server.should_exit = True
        thread.join(20)


async def test_fifty_silent_spectators_leave_nothing_behind_and_never_delay_the_honest_reader(
    in_process_server: InProcessServer,
) -> None:
    server = in_process_server
    slug, token = await create_room(server.url, seats=3, bots=2)
    honest = await SeatClient(server.url, slug, token, "Anna").connect()
    room = server.look(lambda: server.app.state.rooms.rooms[slug])
    await honest.send(do="start", v=honest.version)
    await honest.wait_version(honest.version)

    silent = [await asyncio.to_thread(raw_websocket, server.port, f"/r/{slug}/ws") for _ in range(SPECTATORS)]
    try:
        assert server.look(lambda: len(room.connections)) == SPECTATORS + 1
        first = honest.version
        stop = asyncio.Event()
        player = asyncio.ensure_future(autoplay(honest, random.Random(5), stop))
        try:  # the room plays on: the host acts whenever offered, the bots answer
            await honest.wait_for(lambda c: c.version >= first + PUSHES or c.over, 60, f"{PUSHES} pushes")
        finally:
            stop.set()
            await player
        assert honest.close_code is None
        seen = [int(f["version"]) for f in honest.frames if f.get("kind") in ("table", "fragments")]
        assert seen == sorted(seen), "the honest reader got its tables out of order"
        assert honest.version >= first + min(PUSHES, 10)
    finally:
        for sock in silent:
            sock.close()

    async def spectators_gone() -> None:
        while server.look(lambda: len(room.connections)) > 1:
            await asyncio.sleep(0.05)

    await asyncio.wait_for(spectators_gone(), 15)
    assert server.look(lambda: [c.token_hash is not None for c in room.connections]) == [True]
    assert server.look(lambda: server.app.state.ws_caps.rooms.get(room.state.id)) == 1

    def queued_elsewhere() -> list[int]:
        gc.collect()
        return [len(c.queue) for c in gc.get_objects()
                if isinstance(c, Connection) and c not in room.connections and c.queue]

    assert server.look(queued_elsewhere) == []  # no connection of the hub holds a frame

    before = honest.version  # and the room still moves, its reader still reads
    if not honest.over:
        if honest.offered_actions():
            await honest.act(honest.offered_actions()[0])
        await honest.wait_version(before, timeout=15)  # (else the bots are to move)
    await honest.close()
