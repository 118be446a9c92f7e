"""Following another process's room: catch up from the event log, incrementally or whole."""

from __future__ import annotations

import random
import time

from sqlmodel import Session

from app.rooms import RoomManager
from app.rooms.pg_notify import notify
from app.rooms.sync import RoomSync, catch_up_locked, load_room
from app.store.db import make_engine, upgrade
from tests.support.waiting import await_until


def managers(url: str) -> tuple[RoomManager, RoomManager]:
    """Two managers on one database: two app processes in miniature."""
    upgrade(url)
    return RoomManager(make_engine(url)), RoomManager(make_engine(url))


def same(a, b) -> None:
    assert (a.state.version, a.state.status, a.state.host) == (b.state.version, b.state.status, b.state.host)
    assert a.state.seats == b.state.seats
    if a.state.game is None:
        assert b.state.game is None
        return
    for seat in (None, 0, 1, 2):
        assert a.state.game.view(seat) == b.state.game.view(seat)


async def test_a_follower_catches_up_move_by_move_and_across_a_gap(database_url: str) -> None:
    a, b = managers(database_url)
    room, _ = await a.create_room(
        preset="gurka-night", options={"target": 5}, seats=3, host_name="Anna"
    )
    follower = load_room(b, room.state.slug)
    assert follower is not None
    b.rooms[follower.state.slug] = follower
    same(room, follower)
    await room.join("Bo")
    await room.join("Cai")
    assert catch_up_locked(follower)
    same(room, follower)
    assert not catch_up_locked(follower)  # nothing new: nothing to do
    await room.start(0)
    rng = random.Random(1)
    for step in range(12):
        g = room.state.game
        await room.act(g.to_act, rng.choice([str(x) for x in g.legal_actions()]), room.state.version)
        if step % 3 == 0:  # sometimes one move behind, sometimes several
            assert catch_up_locked(follower)
            same(room, follower)
    assert catch_up_locked(follower)
    same(room, follower)
    # Presence is per process, but a player who just moved elsewhere is not "away" here.
    mover = room.state.game.to_act
    follower.absent_since[mover] = time.monotonic() - 3600
    assert follower.can_hand_to_bot(mover)
    await room.act(mover, rng.choice([str(x) for x in room.state.game.legal_actions()]), room.state.version)
    assert catch_up_locked(follower)
    assert follower.absent_for(mover) < 5 and not follower.can_hand_to_bot(mover)
    # A follower whose memory disagrees with the log (the events do not apply) is rebuilt
    # from the whole log.
    follower.state.version -= 2  # the test's setup: a memory two versions behind what it holds
    assert catch_up_locked(follower)
    same(room, follower)
    for m in (a, b):
        await m.stop()
        m.db.dispose()


async def test_the_doorbell_finds_the_rooms_served_here_as_they_come_and_go(database_url: str) -> None:
    a, b = managers(database_url)
    room, _ = await a.create_room(
        preset="gurka-night", options={"target": 5}, seats=3, host_name="Anna"
    )
    other, _ = await a.create_room(
        preset="gurka-is", options={"target": 5}, seats=3, host_name="Bo"
    )
    sync = RoomSync(b, database_url)
    try:
        assert sync.room_by_id(room.state.id) is None  # another process's room
        assert sync.room_by_id(room.state.id) is None  # still, however often its doorbell rings
        follower = load_room(b, room.state.slug)
        assert follower is not None
        b.rooms[follower.state.slug] = follower
        assert sync.room_by_id(room.state.id) is follower  # served here from now on
        assert sync.room_by_id(other.state.id) is None
        rebuilt = load_room(b, room.state.slug)  # the room rebuilt in its place
        assert rebuilt is not None
        b.rooms[rebuilt.state.slug] = rebuilt
        assert sync.room_by_id(room.state.id) is rebuilt
        second = load_room(b, other.state.slug)
        assert second is not None
        b.rooms[second.state.slug] = second
        assert sync.room_by_id(other.state.id) is second
        assert sync.room_by_id(room.state.id) is rebuilt
    finally:
        for m in (a, b):
            await m.stop()
            m.db.dispose()


async def test_room_sync_follows_the_doorbell_and_resyncs(postgres_url: str) -> None:
    a, b = managers(postgres_url)
    room, _ = await a.create_room(
        preset="gurka-night", options={"target": 5}, seats=3, host_name="Anna"
    )
    await room.join("Bo")
    await room.join("Cai")
    await room.start(0)
    follower = load_room(b, room.state.slug)
    assert follower is not None
    b.rooms[follower.state.slug] = follower
    sync = RoomSync(b, postgres_url)
    published: list[int] = []
    follower.publish = lambda: published.append(follower.state.version)  # type: ignore[method-assign]
    sync.start()
    try:
        await sync.listener.wait_connected()
        rng = random.Random(2)
        g = room.state.game
        await room.act(g.to_act, rng.choice([str(x) for x in g.legal_actions()]), room.state.version)
        with Session(a.db) as session:  # the doorbell the action path will ring
            notify(session, room.state.id, room.state.version)
            session.commit()

        await await_until(lambda: follower.state.version == room.state.version, timeout=10,
                          what=f"the follower at version {room.state.version}",
                          seen=lambda: f"follower at version {follower.state.version}")
        same(room, follower)
        assert published == [room.state.version]
        # A move whose doorbell was lost: the resync after a listener reconnect finds it.
        g = room.state.game
        await room.act(g.to_act, rng.choice([str(x) for x in g.legal_actions()]), room.state.version)
        await sync.on_resync()
        same(room, follower)
    finally:
        await sync.stop()
        for m in (a, b):
            await m.stop()
            m.db.dispose()
