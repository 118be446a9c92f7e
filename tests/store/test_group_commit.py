"""Group commit: changes of many rooms waiting for the writer go into one transaction, each
acknowledged only once that transaction committed, and a room whose version is stale fails
alone (the others in its group are written)."""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
from collections.abc import Iterator

import psycopg
from sqlalchemy import Engine, text
from sqlalchemy.engine import make_url

from app.rooms import RoomManager
from app.rooms.commits import CommitWriter
from app.rooms.pg_notify import libpq_dsn
from app.store.db import make_engine, upgrade
from app.store.room_writes import CommitJob, VersionConflict
from tests.support.waiting import await_until

ROOMS = 12
STALE = 4  # this room's job carries an old version


@contextlib.contextmanager
def writes_held(url: str) -> Iterator[None]:
    """Another connection holds off every write to the rooms until the block ends."""
    if url.startswith("sqlite"):
        conn = sqlite3.connect(make_url(url).database or "", isolation_level=None)
        conn.execute("BEGIN IMMEDIATE")
        try:
            yield
        finally:
            conn.execute("ROLLBACK")
            conn.close()
    else:
        with psycopg.connect(libpq_dsn(url)) as pg:
            pg.execute("LOCK TABLE rooms IN EXCLUSIVE MODE")
            try:
                yield
            finally:
                pg.rollback()


def stored_version(db: Engine, room_id: int) -> int:
    with db.connect() as conn:
        return int(conn.execute(text("SELECT version FROM rooms WHERE id = :id"), {"id": room_id}).scalar_one())


async def test_many_rooms_commit_in_few_transactions_and_a_stale_one_fails_alone(database_url: str) -> None:
    upgrade(database_url)
    db = make_engine(database_url)
    manager = RoomManager(db)
    rooms = [(await manager.create_room(preset="gurka-night", options={}, seats=3, host_name="Anna"))[0]
             for _ in range(ROOMS)]
    reader = make_engine(database_url)
    writer = CommitWriter(db)
    acknowledged: dict[int, int] = {}  # room id -> the version stored when its commit was acknowledged

    def job(i: int) -> CommitJob:
        room = rooms[i]
        seen = room.state.version - 1 if i == STALE else room.state.version
        return CommitJob(room.state.id, seen, [(None, "bot", {"seat": 1, "name": "Egon (bot)"})],
                         seats=[s.row() for s in room.state.seats.values()])

    async def commit(i: int) -> int:
        version = await writer.commit(job(i))
        acknowledged[rooms[i].state.id] = stored_version(reader, rooms[i].state.id)
        return version

    with writes_held(database_url):
        tasks = [asyncio.ensure_future(commit(i)) for i in range(ROOMS)]
        # the writer is stuck on the first job; the others queue up behind it
        await await_until(lambda: writer._queue.qsize() >= ROOMS - 1, what="every job queued", timeout=10)
        assert not any(t.done() for t in tasks)
    results = await asyncio.gather(*tasks, return_exceptions=True)

    assert isinstance(results[STALE], VersionConflict)
    for i, (room, result) in enumerate(zip(rooms, results, strict=True)):
        if i == STALE:
            assert stored_version(reader, room.state.id) == room.state.version  # nothing written for it
            continue
        assert result == room.state.version + 1
        assert acknowledged[room.state.id] == result, "acknowledged before its transaction committed"
    assert writer.transactions <= 2 < ROOMS, writer.transactions  # the first job, then all the rest
    assert writer.committed == ROOMS - 1
    writer.stop()
    await manager.stop()
    db.dispose()
    reader.dispose()


async def test_rooms_acting_at_once_share_transactions(database_url: str) -> None:
    """Through the rooms themselves: every change lands, in fewer transactions than changes."""
    upgrade(database_url)
    db = make_engine(database_url)
    manager = RoomManager(db)
    rooms = [(await manager.create_room(preset="gurka-night", options={}, seats=4, host_name="Anna"))[0]
             for _ in range(ROOMS)]
    before = manager.writer.transactions
    with writes_held(database_url):
        tasks = [asyncio.ensure_future(room.add_bot(0)) for room in rooms]
        await await_until(lambda: manager.writer._queue.qsize() >= ROOMS - 1, what="every change queued",
                          timeout=10)
    await asyncio.gather(*tasks)
    assert all(len(room.state.seats) == 2 for room in rooms)
    assert manager.writer.transactions - before < ROOMS
    await manager.stop()
    db.dispose()



async def test_the_writer_keeps_its_connection_while_busy_and_lets_it_go_after_a_pause(database_url: str) -> None:
    """Groups one after another are written on one connection, taken from the pool (and checked
    by it) once; after a pause longer than HOLD_SECONDS the next group takes a checked one again."""
    from sqlalchemy import event

    from app.rooms import commits

    upgrade(database_url)
    db = make_engine(database_url)
    manager = RoomManager(db)
    room = (await manager.create_room(preset="gurka-night", options={}, seats=3, host_name="Anna"))[0]
    checkouts: list[object] = []
    event.listen(db, "checkout", lambda dbapi_conn, record, proxy: checkouts.append(dbapi_conn))
    writer = CommitWriter(db)
    version = room.state.version
    for _ in range(5):  # one after another, each awaited: five groups
        version = await writer.commit(CommitJob(room.state.id, version, [(None, "chat", {"text": "hi"})]))
    assert writer.transactions == 5 and len(checkouts) == 1, checkouts
    commits_hold = commits.HOLD_SECONDS
    try:
        commits.HOLD_SECONDS = 0.0  # (the pause: any time since the last group is longer)
        version = await writer.commit(CommitJob(room.state.id, version, [(None, "chat", {"text": "hi"})]))
    finally:
        commits.HOLD_SECONDS = commits_hold
    assert len(checkouts) == 2 and stored_version(db, room.state.id) == version
    writer.stop()
    await manager.stop()
    db.dispose()


async def test_a_held_connection_that_died_costs_no_move(postgres_url: str) -> None:
    """The database dropped the writer's connection between two groups (a restart, an idle
    timeout): the next group is written on a new connection, and its room never hears of it."""
    upgrade(postgres_url)
    db = make_engine(postgres_url)
    manager = RoomManager(db)
    room = (await manager.create_room(preset="gurka-night", options={}, seats=3, host_name="Anna"))[0]
    writer = CommitWriter(db)
    version = await writer.commit(CommitJob(room.state.id, room.state.version, [(None, "chat", {"text": "hi"})]))
    assert writer._conn is not None
    pid = writer._conn.exec_driver_sql("SELECT pg_backend_pid()").scalar_one()
    writer._conn.rollback()  # (the query above began a transaction: end it, as a group does)
    with psycopg.connect(libpq_dsn(postgres_url), autocommit=True) as admin:
        admin.execute("SELECT pg_terminate_backend(%s)", (pid,))
    version = await writer.commit(CommitJob(room.state.id, version, [(None, "chat", {"text": "again"})]))
    assert stored_version(db, room.state.id) == version
    writer.stop()
    await manager.stop()
    db.dispose()


async def test_a_group_in_one_statement_writes_the_rooms_that_moved_and_rings_their_doorbells(
        postgres_url: str) -> None:
    """On Postgres a group of distinct rooms and no seats is one statement: the rooms at their
    version move and get their events and doorbells; a stale one gets nothing, and a room's
    second job in the group goes the long way (one transaction), after its first."""
    from app.rooms import pg_notify
    from app.store.room_writes import in_one

    upgrade(postgres_url)
    db = make_engine(postgres_url)
    manager = RoomManager(db)
    rooms = [(await manager.create_room(preset="gurka-night", options={}, seats=3, host_name="Anna"))[0]
             for _ in range(4)]
    ids = [room.state.id for room in rooms]
    versions = [room.state.version for room in rooms]
    chat = [(None, "chat", {"text": "hi"}), (1, "chat", {"text": "ho"})]
    jobs = [CommitJob(ids[0], versions[0], chat), CommitJob(ids[1], versions[1], chat[:1]),
            CommitJob(ids[2], versions[2] - 1, chat)]  # (the last one stale)
    with db.connect() as conn:
        assert in_one(conn, jobs) and not in_one(conn, [*jobs, CommitJob(ids[0], versions[0] + 2, chat)])
    writer = CommitWriter(db)
    with psycopg.connect(libpq_dsn(postgres_url), autocommit=True) as listener:
        listener.execute(f"LISTEN {pg_notify.CHANNEL}")
        with writes_held(postgres_url):
            tasks = [asyncio.ensure_future(writer.commit(job)) for job in jobs]
            await await_until(lambda: writer._queue.qsize() >= len(jobs) - 1, what="every job queued", timeout=10)
        results = await asyncio.gather(*tasks, return_exceptions=True)
        heard = [pg_notify.parse_payload(n.payload) or [] for n in listener.notifies(timeout=2, stop_after=2)]
    assert results[:2] == [versions[0] + 2, versions[1] + 1] and isinstance(results[2], VersionConflict)
    # (the first job went alone, while the writer was held; the stale room's doorbell is not rung)
    assert sorted(room for ring in heard for room in ring) == [(ids[0], versions[0] + 2), (ids[1], versions[1] + 1)]
    with db.connect() as conn:
        stored = conn.execute(text("SELECT room_id, seq, seat, payload::text FROM room_events"
                                   " WHERE room_id IN (:a, :b, :c) AND kind = 'chat' ORDER BY room_id, seq"),
                              {"a": ids[0], "b": ids[1], "c": ids[2]}).all()
    assert [tuple(row) for row in stored] == [
        (ids[0], versions[0] + 1, None, '{"text": "hi"}'), (ids[0], versions[0] + 2, 1, '{"text": "ho"}'),
        (ids[1], versions[1] + 1, None, '{"text": "hi"}')]
    assert [stored_version(db, i) for i in ids[:3]] == [versions[0] + 2, versions[1] + 1, versions[2]]
    writer.stop()
    await manager.stop()
    db.dispose()


async def test_a_group_in_one_statement_rings_in_bunches_of_at_most_per_bell(postgres_url: str) -> None:
    """A group of more rooms than one ring holds rings several times, every room that moved once."""
    from app.rooms import pg_notify
    from app.store.room_writes import write_in_one

    upgrade(postgres_url)
    db = make_engine(postgres_url)
    manager = RoomManager(db)
    rooms = [(await manager.create_room(preset="gurka-night", options={}, seats=3, host_name="Anna"))[0]
             for _ in range(5)]
    jobs = [CommitJob(room.state.id, room.state.version, [(None, "chat", {"text": "hi"})]) for room in rooms]
    with psycopg.connect(libpq_dsn(postgres_url), autocommit=True) as listener:
        listener.execute(f"LISTEN {pg_notify.CHANNEL}")
        with db.connect() as conn:
            outcomes = write_in_one(conn, jobs, doorbell=pg_notify.CHANNEL, per_bell=2)
        heard = [pg_notify.parse_payload(n.payload) or [] for n in listener.notifies(timeout=2, stop_after=3)]
    assert outcomes == [job.seen_version + 1 for job in jobs]
    assert sorted(len(ring) for ring in heard) == [1, 2, 2]
    assert sorted(room for ring in heard for room in ring) == sorted((job.room_id, job.seen_version + 1) for job in jobs)
    await manager.stop()
    db.dispose()
