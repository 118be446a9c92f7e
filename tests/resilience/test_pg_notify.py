"""The Postgres doorbell (app.rooms.pg_notify) against a real Postgres; skipped without one."""

from __future__ import annotations

import asyncio
import logging

import psycopg
import pytest
from sqlalchemy import Engine
from sqlmodel import Session, create_engine

from app.rooms import pg_notify
from app.rooms.pg_notify import Listener, notify, parse_payload
from tests.support.waiting import await_until


def test_parse_payload() -> None:
    assert parse_payload("12:345") == [(12, 345)]
    assert parse_payload(" 7:0 ") == [(7, 0)]
    assert parse_payload("3:9,4:1,3:10") == [(3, 9), (4, 1), (3, 10)]
    for bad in ("", "12", "12:", ":3", "a:1", "1:b", "1:2:3", "-1:2", "1:-2", "1:2,", ",1:2", "1:2,,3:4", "1:2;3:4"):
        assert parse_payload(bad) is None, bad
    assert pg_notify.format_payload([(3, 9)]) == "3:9"
    assert pg_notify.format_payload([(3, 9), (12, 1)]) == "3:9,12:1"


def test_notify_is_a_no_op_on_sqlite(tmp_path) -> None:
    engine = create_engine(f"sqlite:///{tmp_path / 'x.db'}")
    with Session(engine) as session:
        notify(session, 1, 2)  # nothing to ring, nothing raised
        session.commit()


class Bell:
    """Collects what a Listener hands over, with waits instead of sleeps."""

    def __init__(self) -> None:
        self.notes: list[tuple[int, int]] = []
        self.resyncs = 0
        self.changed = asyncio.Event()

    async def on_notify(self, room_id: int, version: int) -> None:
        self.notes.append((room_id, version))
        self.changed.set()

    async def on_resync(self) -> None:
        self.resyncs += 1
        self.changed.set()

    async def until(self, predicate, timeout: float = 10.0) -> None:
        async def wait() -> None:
            while not predicate():
                self.changed.clear()
                await self.changed.wait()

        await asyncio.wait_for(wait(), timeout)


@pytest.fixture
def pg_engine(postgres_url: str):
    engine = create_engine(postgres_url)
    yield engine
    engine.dispose()


def ring(engine: Engine, room_id: int, version: int, *, commit: bool = True) -> None:
    with Session(engine) as session:
        notify(session, room_id, version)
        if commit:
            session.commit()
        else:
            session.rollback()


async def test_listener_gets_committed_notifications_only(
    postgres_url: str, pg_engine: Engine
) -> None:
    bell = Bell()
    listener = Listener(postgres_url, bell.on_notify, bell.on_resync)
    listener.start()
    try:
        await listener.wait_connected()
        await bell.until(lambda: bell.resyncs == 1)  # a resync follows the first connect too
        await asyncio.to_thread(ring, pg_engine, 5, 1, commit=False)  # rolled back: never rings
        await asyncio.to_thread(ring, pg_engine, 5, 2)
        await asyncio.to_thread(ring, pg_engine, 6, 7)
        await bell.until(lambda: len(bell.notes) >= 2)
        assert bell.notes == [(5, 2), (6, 7)]
    finally:
        await listener.stop()


async def test_a_group_rings_once_per_room_bunch_in_order(postgres_url: str, pg_engine: Engine) -> None:
    """`ring` with more rooms than one payload holds rings several times, in order, and the
    listener hands over every room of every ring, in order."""
    bell = Bell()
    listener = Listener(postgres_url, bell.on_notify, bell.on_resync)
    listener.start()
    changes = [(room_id, room_id % 7) for room_id in range(1, 2 * pg_notify.PER_BELL + 2)]
    try:
        await listener.wait_connected()
        dsn = pg_notify.libpq_dsn(postgres_url)
        with psycopg.connect(dsn, autocommit=True) as spy:
            spy.execute(f"LISTEN {pg_notify.CHANNEL}")

            def ring_all() -> None:
                with pg_engine.begin() as conn:
                    pg_notify.ring(conn, changes)

            await asyncio.to_thread(ring_all)
            payloads = [n.payload for n in spy.notifies(timeout=5, stop_after=3)]
        assert [len(parse_payload(p) or []) for p in payloads] == [pg_notify.PER_BELL, pg_notify.PER_BELL, 1]
        await bell.until(lambda: len(bell.notes) >= len(changes))
        assert bell.notes == changes
    finally:
        await listener.stop()


async def test_bad_payloads_and_failing_callbacks_do_not_stop_the_listener(
    postgres_url: str, pg_engine: Engine
) -> None:
    bell = Bell()
    calls: list[tuple[int, int]] = []

    async def flaky(room_id: int, version: int) -> None:
        calls.append((room_id, version))
        if version == 1:
            raise RuntimeError("boom")
        await bell.on_notify(room_id, version)

    listener = Listener(postgres_url, flaky, bell.on_resync)
    listener.start()
    try:
        await listener.wait_connected()
        dsn = pg_notify.libpq_dsn(postgres_url)
        async with await psycopg.AsyncConnection.connect(dsn, autocommit=True) as conn:
            await conn.execute("SELECT pg_notify('room', 'not a payload')")
            await conn.execute("SELECT pg_notify('other', '1:5')")  # another channel
            await conn.execute("SELECT pg_notify('room', '8:1,9:x')")  # one bad room: the whole ring
        await asyncio.to_thread(ring, pg_engine, 1, 1)  # the callback raises
        await asyncio.to_thread(ring, pg_engine, 1, 2)
        await bell.until(lambda: bell.notes == [(1, 2)])
        assert calls == [(1, 1), (1, 2)]
        # a room whose callback raises does not keep the ring's other rooms from theirs
        with pg_engine.begin() as conn:
            pg_notify.ring(conn, [(2, 1), (2, 2)])
        await bell.until(lambda: bell.notes == [(1, 2), (2, 2)])
        assert calls == [(1, 1), (1, 2), (2, 1), (2, 2)]
    finally:
        await listener.stop()


async def test_listener_reconnects_and_resyncs_after_losing_its_connection(
    postgres_url: str, pg_engine: Engine
) -> None:
    bell = Bell()
    listener = Listener(
        postgres_url, bell.on_notify, bell.on_resync, min_backoff=0.05, max_backoff=0.5
    )
    listener.start()
    try:
        await listener.wait_connected()
        await bell.until(lambda: bell.resyncs == 1)
        first_pid = listener.backend_pid
        dsn = pg_notify.libpq_dsn(postgres_url)
        with psycopg.connect(dsn, autocommit=True) as admin:
            admin.execute("SELECT pg_terminate_backend(%s)", (first_pid,))
        # The listener notices, reconnects with backoff, LISTENs again and asks for a resync.
        await bell.until(lambda: bell.resyncs == 2, timeout=15)
        assert listener.connects == 2
        assert listener.backend_pid != first_pid
        await asyncio.to_thread(ring, pg_engine, 9, 3)
        await bell.until(lambda: (9, 3) in bell.notes)
    finally:
        await listener.stop()
    assert not listener.connected.is_set()


async def test_listener_keeps_retrying_until_the_database_is_there(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A listener started before Postgres is reachable retries quietly; stop() ends it."""
    caplog.set_level(logging.WARNING, logger="gurka.rooms.pg_notify")

    def retries() -> int:
        return sum("reconnecting in" in r.getMessage() for r in caplog.records)

    bell = Bell()
    listener = Listener(
        "postgresql+psycopg://postgres@127.0.0.1:1/none",
        bell.on_notify,
        bell.on_resync,
        min_backoff=0.01,
        max_backoff=0.05,
        connect_timeout=1,
    )
    listener.start()
    await await_until(lambda: retries() >= 3, what="three failed connects logged",
                      seen=lambda: [r.getMessage() for r in caplog.records])
    assert not listener.connected.is_set() and bell.resyncs == 0
    await listener.stop()


async def test_notifications_of_one_transaction_arrive_after_commit(
    postgres_url: str, pg_engine: Engine
) -> None:
    """Told only after commit: the listener reads the event the doorbell is about."""
    bell = Bell()
    seen_rows: list[int] = []
    dsn = pg_notify.libpq_dsn(postgres_url)
    with psycopg.connect(dsn, autocommit=True) as admin:
        admin.execute("CREATE TABLE bell_events (room_id int, version int)")

    async def read_on_ring(room_id: int, version: int) -> None:
        async with await psycopg.AsyncConnection.connect(dsn, autocommit=True) as conn:
            cur = await conn.execute(
                "SELECT version FROM bell_events WHERE room_id = %s AND version = %s",
                (room_id, version),
            )
            seen_rows.extend(r[0] for r in await cur.fetchall())
        await bell.on_notify(room_id, version)

    listener = Listener(postgres_url, read_on_ring, bell.on_resync)
    listener.start()
    try:
        await listener.wait_connected()

        def write() -> None:
            from sqlalchemy import text

            with Session(pg_engine) as session:
                session.execute(text("INSERT INTO bell_events VALUES (4, 11)"))
                notify(session, 4, 11)
                session.commit()

        await asyncio.to_thread(write)
        await bell.until(lambda: bell.notes == [(4, 11)])
        assert seen_rows == [11]
    finally:
        await listener.stop()
