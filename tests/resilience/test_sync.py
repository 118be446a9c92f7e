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
    assert (a.version, a.status, a.host) == (b.version, b.status, b.host)
    assert a.seats == b.seats
    if a.game is None:
        assert b.game is None
        return
    for seat in (None, 0, 1, 2):
        assert a.game.view(seat) == b.game.view(seat)


async def test_a_follower_catches_up_move_by_move_and_across_a_gap(database_url: str) -> None:
    a, b = managers(database_url)
    room, _ = await a.create_room(
        preset="gurka-night", options={"target": 5}, seats=3, host_name="Anna"
    )
    follower = load_room(b, room.slug)
    assert follower is not None
    b.rooms[follower.slug] = follower
    same(room, follower)
    await room.join("Bo")
    await room.join("Cai")
    assert catch_up_locked(follower)
    same(room, follower)
    assert not catch_up_locked(follower)  # nothing new: nothing to do
    await room.start(0)
    rng = random.Random(1)
    for step in range(12):
        g = room.game
        await room.act(g.to_act, rng.choice([str(x) for x in g.legal_actions()]), room.version)
        if step % 3 == 0:  # sometimes one move behind, sometimes several
            assert catch_up_locked(follower)
            same(room, follower)
    assert catch_up_locked(follower)
    same(room, follower)
    # Presence is per process, but a player who just moved elsewhere is not "away" here.
    mover = room.game.to_act
    follower.absent_since[mover] = time.monotonic() - 3600
    assert follower.can_hand_to_bot(mover)
    await room.act(mover, rng.choice([str(x) for x in room.game.legal_actions()]), room.version)
    assert catch_up_locked(follower)
    assert follower.absent_for(mover) < 5 and not follower.can_hand_to_bot(mover)
    # A follower whose memory disagrees with the log (the events do not apply) is rebuilt
    # from the whole log.
    follower.version -= 2
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
        assert sync.room_by_id(room.id) is None  # another process's room
        assert sync.room_by_id(room.id) is None  # still, however often its doorbell rings
        follower = load_room(b, room.slug)
        assert follower is not None
        b.rooms[follower.slug] = follower
        assert sync.room_by_id(room.id) is follower  # served here from now on
        assert sync.room_by_id(other.id) is None
        rebuilt = load_room(b, room.slug)  # the room rebuilt in its place
        assert rebuilt is not None
        b.rooms[rebuilt.slug] = rebuilt
        assert sync.room_by_id(room.id) is rebuilt
        second = load_room(b, other.slug)
        assert second is not None
        b.rooms[second.slug] = second
        assert sync.room_by_id(other.id) is second
        assert sync.room_by_id(room.id) is rebuilt
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
    follower = load_room(b, room.slug)
    assert follower is not None
    b.rooms[follower.slug] = follower
    sync = RoomSync(b, postgres_url)
    published: list[int] = []
    follower.publish = lambda: published.append(follower.version)  # type: ignore[method-assign]
    sync.start()
    try:
        await sync.listener.wait_connected()
        rng = random.Random(2)
        g = room.game
        await room.act(g.to_act, rng.choice([str(x) for x in g.legal_actions()]), room.version)
        with Session(a.db) as session:  # the doorbell the action path will ring
            notify(session, room.id, room.version)
            session.commit()

        await await_until(lambda: follower.version == room.version, timeout=10,
                          what=f"the follower at version {room.version}",
                          seen=lambda: f"follower at version {follower.version}")
        same(room, follower)
        assert published == [room.version]
        # A move whose doorbell was lost: the resync after a listener reconnect finds it.
        g = room.game
        await room.act(g.to_act, rng.choice([str(x) for x in g.legal_actions()]), room.version)
        await sync.on_resync()
        same(room, follower)
    finally:
        await sync.stop()
        for m in (a, b):
            await m.stop()
            m.db.dispose()
