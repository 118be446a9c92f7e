"""Issue 10: message budgets, connection caps, presence coalescing, and a room's memory of its
sockets given back when they go."""

from __future__ import annotations

import asyncio
import gc
import time
import weakref
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from app.main import create_app
from app.rooms.presence_updates import PresenceCoalescer
from tests.conftest import make_settings
from tests.web.table.wsutil import Player, close_all, create_room


@pytest.fixture
def tight(tmp_path: Path) -> Iterator[TestClient]:
    settings = make_settings(f"sqlite:///{tmp_path / 'tight.db'}", ws_per_room=4, ws_per_address=3,
                             ws_connects_per_address=6, ws_spectator_messages=10, ws_player_messages=20)
    with TestClient(create_app(settings)) as client:
        try:
            yield client
        finally:
            close_all()


def synced(player: Player) -> None:
    """One sync answered: the table, then the recent chat and this seat's chat form."""
    player.send(do="sync")
    player.recv_table()
    assert {player.recv()["kind"] for _ in range(2)} == {"chat", "chatform"}


def closed_code(player: Player) -> tuple[int, str]:
    with pytest.raises(WebSocketDisconnect) as closed:
        for _ in range(100):
            player.recv()
    return closed.value.code, closed.value.reason


def test_a_spectator_beyond_its_message_budget_is_closed_with_1008(tight: TestClient) -> None:
    slug, _ = create_room(tight)
    spectator = Player(tight, slug, None).connect()
    spectator.recv_table()
    for _ in range(10):
        synced(spectator)
    spectator.send(do="sync")
    assert closed_code(spectator) == (1008, "more than 10 messages in 20 s")


def test_a_player_has_a_larger_budget(tight: TestClient) -> None:
    slug, token = create_room(tight)
    player = Player(tight, slug, token).connect()
    player.recv_table()
    for _ in range(20):
        synced(player)
    player.send(do="sync")
    assert closed_code(player)[0] == 1008


def test_per_address_cap(tight: TestClient) -> None:
    slug, _ = create_room(tight)
    other, _ = create_room(tight)
    first = [Player(tight, s, None).connect() for s in (slug, slug, other)]
    for p in first:
        p.recv_table()
    extra = Player(tight, slug, None).connect()
    code, reason = closed_code(extra)
    assert code == 1008 and "too many connections from your address" in reason
    first[0].close()
    again = Player(tight, slug, None).connect()  # a freed place can be used again
    assert again.recv_table()["kind"] == "table"


def test_per_room_cap(tight: TestClient) -> None:
    slug, _ = create_room(tight)
    # four addresses' worth: the per-address cap is lifted for this test
    from app.web.table.websocket import caps_of

    caps = caps_of(tight.app)
    caps.per_address = 100
    players = [Player(tight, slug, None).connect() for _ in range(4)]
    for p in players:
        p.recv_table()
    code, reason = closed_code(Player(tight, slug, None).connect())
    assert code == 1008 and "already has 4 connections" in reason


def test_connect_rate_per_address(tight: TestClient) -> None:
    slug, _ = create_room(tight)
    for _ in range(6):
        p = Player(tight, slug, None).connect()
        p.recv_table()
        p.close()
    code, reason = closed_code(Player(tight, slug, None).connect())
    assert code == 1008 and "too many new connections" in reason


def test_sockets_that_go_leave_nothing_behind(web: TestClient) -> None:
    slug, _ = create_room(web)
    room = web.app.state.rooms.get(slug)
    refs = []
    for _ in range(15):
        p = Player(web, slug, None).connect()
        p.recv_table()
        refs.extend(weakref.ref(c) for c in room.connections)
        p.close()
    for _ in range(50):
        if not room.connections:
            break
        time.sleep(0.02)
    from app.web.table.websocket import caps_of

    caps = caps_of(web.app)
    assert room.connections == set()
    assert caps.rooms == {} and caps.addresses == {}
    gc.collect()
    assert all(r() is None for r in refs), "a closed connection is still referenced"


def test_spectators_coming_and_going_push_nothing_to_the_players(web: TestClient) -> None:
    slug, token = create_room(web)
    web.app.state.rooms.get(slug)
    player = Player(web, slug, token).connect()
    player.recv_table()
    rendered: list[int | None] = []
    publisher = web.app.state.publisher
    real = publisher.private

    def counting(r, seat, public, lang=None):  # type: ignore[no-untyped-def]
        rendered.append(seat)
        return real(r, seat, public, lang)

    publisher.private = counting
    try:
        for _ in range(12):
            spectator = Player(web, slug, None).connect()
            spectator.recv_table()
            spectator.close()
    finally:
        publisher.private = real
    assert 0 not in rendered, "a spectator's arrival drew the player's own table again"
    assert rendered.count(None) == 12  # each spectator got exactly its own table


async def test_presence_changes_are_coalesced_after_a_burst() -> None:
    published: list[float] = []
    loop = asyncio.get_running_loop()
    coalescer = PresenceCoalescer(lambda: published.append(loop.time()), burst=3, interval=0.05)
    immediate = [coalescer.changed() for _ in range(40)]
    assert immediate[:3] == [True, True, True] and not any(immediate[3:])
    assert len(published) == 3
    await asyncio.sleep(0.12)
    assert len(published) == 4  # the 37 later changes became one update
    coalescer.cancel()
