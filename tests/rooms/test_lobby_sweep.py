"""Issue 24: waiting rooms nobody comes back to are deleted, with their rows; a host waiting with
the room open, a room that started and a club night's table never are. On SQLite and Postgres,
with the time moved by a fake clock."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from app.rooms import RoomManager
from app.rooms.chat import ChatLine
from app.rooms.clock import FakeClock
from app.rooms.lobby_sweep import MARK_ONLY, SWEEP_EVERY, moment
from app.rooms.room import LiveRoom
from app.store import chat as chat_store
from app.store import rooms as store
from app.store.db import make_engine, session_scope, upgrade
from tests.rooms.told import Listener
from tests.support.waiting import await_until

IDLE = 3600.0


def open_page(room: LiveRoom, token: str | None = None) -> Listener:
    conn = Listener(token)
    room.attach(conn)
    return conn


@pytest.fixture
async def managers(database_url: str) -> AsyncIterator[tuple[RoomManager, RoomManager, FakeClock]]:
    """Two processes' room managers on one database, on one fake clock (not started: the tests
    sweep by hand, but one)."""
    upgrade(database_url)
    clock = FakeClock(start=1_000_000.0)
    made = [RoomManager(make_engine(database_url), clock=clock, lobby_idle=IDLE) for _ in range(2)]
    for manager in made:
        manager.load()
    yield made[0], made[1], clock
    for manager in made:
        await manager.stop()
        manager.db.dispose()


def rows(manager: RoomManager, room_id: int) -> dict[str, int]:
    with session_scope(manager.db) as session:
        return {"rooms": len(store.stored_room_ids(session, room_ids=[room_id])),
                "seats": len(store.list_seats(session, room_id=room_id)),
                "events": len(store.list_events(session, room_id=room_id)),
                "chat": len(chat_store.list_chat(session, room_id=room_id))}


async def sweep_until_past_marking(manager: RoomManager) -> None:
    assert manager.lobby_sweep is not None
    while manager.lobby_sweep.sweeps < MARK_ONLY:
        assert await manager.lobby_sweep.sweep() == []


async def test_a_waiting_room_nobody_has_open_goes_with_its_rows_and_the_others_stay(managers) -> None:  # type: ignore[no-untyped-def]
    manager, _other, clock = managers
    await sweep_until_past_marking(manager)
    abandoned, _ = await manager.create_room(preset="gurka-night", options={}, seats=7, bots=6, host_name="Eve")
    manager.save_chat(abandoned, ChatLine("say", 0, "Eve", "anyone?", moment(clock.now())))
    waiting, host = await manager.create_room(preset="gurka-night", options={}, seats=3, host_name="Ann")
    page = open_page(waiting, host)  # the host waits for friends with the room open
    started, _ = await manager.create_room(preset="gurka-night", options={}, seats=3, bots=2, host_name="Bo")
    await started.start(0, dealer=0)
    club = await manager.create_table(preset="gurka-night", options={}, names=["Ann", "Bo", "Cy"], dealer=0)
    back_soon, _ = await manager.create_room(preset="gurka-night", options={}, seats=3, host_name="Cy")
    before = rows(manager, abandoned.state.id)
    assert before == {"rooms": 1, "seats": 7, "events": 8, "chat": 1}

    clock.advance(IDLE - 60)
    assert manager.lobby_sweep is not None
    assert await manager.lobby_sweep.sweep() == []  # an hour is not over yet for anyone
    latecomer, _ = await manager.create_room(preset="gurka-night", options={}, seats=3, host_name="Di")
    open_page(back_soon)  # someone looks in ...
    await manager.lobby_sweep.sweep()
    back_soon.detach(next(iter(back_soon.connections)))  # ... and leaves again

    clock.advance(61)
    forgotten = await manager.lobby_sweep.sweep()
    assert forgotten == [abandoned.state.slug]
    assert rows(manager, abandoned.state.id) == {"rooms": 0, "seats": 0, "events": 0, "chat": 0}
    assert await manager.find(abandoned.state.slug) is None
    for kept in (waiting, started, club, back_soon, latecomer):
        assert rows(manager, kept.state.id)["rooms"] == 1 and manager.rooms[kept.state.slug] is kept

    clock.advance(10 * IDLE)  # the host still waits, ten hours on: still there
    forgotten = await manager.lobby_sweep.sweep()
    assert set(forgotten) == {back_soon.state.slug, latecomer.state.slug}
    assert not page.closed and manager.rooms[waiting.state.slug] is waiting and rows(manager, waiting.state.id)["rooms"] == 1
    for kept in (started, club):
        assert rows(manager, kept.state.id)["rooms"] == 1


async def test_a_page_open_in_another_process_keeps_the_room(managers) -> None:  # type: ignore[no-untyped-def]
    """With two processes a room's sockets may be served by the process that did not make it: its
    sweep marks the room as open, so the maker's sweep keeps it; once that page goes and the idle
    time passes, the room goes, and the other process forgets its copy too."""
    maker, server, clock = managers
    await sweep_until_past_marking(maker)
    await sweep_until_past_marking(server)
    room, host = await maker.create_room(preset="gurka-night", options={}, seats=3, host_name="Ann")
    copy = await server.find(room.state.slug)
    assert copy is not None and copy is not room
    page = open_page(copy, host)
    for _ in range(3):
        clock.advance(IDLE / 2)
        assert maker.lobby_sweep is not None and server.lobby_sweep is not None
        await server.lobby_sweep.sweep()  # marks: open here
        assert await maker.lobby_sweep.sweep() == []
    copy.detach(page)
    clock.advance(IDLE + 1)
    assert await maker.lobby_sweep.sweep() == [room.state.slug]
    assert await server.lobby_sweep.sweep() == [room.state.slug]  # no longer stored: forgotten here too
    assert room.state.slug not in server.rooms and await server.find(room.state.slug) is None


async def test_the_sweep_runs_on_its_own_clock_and_a_restart_first_only_marks(database_url: str) -> None:
    upgrade(database_url)
    clock = FakeClock(start=2_000_000.0)
    manager = RoomManager(make_engine(database_url), clock=clock, lobby_idle=IDLE)
    manager.load()
    room, _ = await manager.create_room(preset="gurka-night", options={}, seats=3, host_name="Ann")
    await manager.stop()
    clock.advance(3 * IDLE)  # the server was down for three hours
    restarted = RoomManager(make_engine(database_url), clock=clock, lobby_idle=IDLE)
    restarted.load()
    await restarted.start()
    sweep = restarted.lobby_sweep
    assert sweep is not None and room.state.slug in restarted.rooms
    try:
        for n in range(1, MARK_ONLY + 1):
            await await_until(lambda: clock.sleeping == 1, what="the sweep waiting for its moment")
            clock.advance(SWEEP_EVERY)
            await await_until(lambda n=n: sweep.sweeps >= n, what=f"sweep {n}")
            assert room.state.slug in restarted.rooms  # the first sweeps after a start only mark
        await await_until(lambda: clock.sleeping == 1, what="the sweep waiting for its moment")
        clock.advance(SWEEP_EVERY)
        await await_until(lambda: sweep.deleted == 1, what="the abandoned room deleted by the timed sweep")
        assert room.state.slug not in restarted.rooms
    finally:
        await restarted.stop()
        restarted.db.dispose()
        manager.db.dispose()
