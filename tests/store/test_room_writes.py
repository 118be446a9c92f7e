"""The writer's plain DBAPI statements (app.store.room_writes) on SQLite and Postgres: stored
exactly as SQLAlchemy stored them, a group's per-job outcomes, errors raised as SQLAlchemy's,
and a group's doorbells."""

from __future__ import annotations

import asyncio
import re
from typing import Any

import pytest
from sqlalchemy import Engine, insert, text
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session

from app.rooms.commits import CommitWriter
from app.rooms.pg_notify import Listener
from app.store import rooms as store
from app.store.db import make_engine, upgrade
from app.store.room_writes import CommitJob, VersionConflict, write_jobs
from tests.store.test_group_commit import writes_held
from tests.support.waiting import await_until

PAYLOAD = {"seat": 2, "card": "hearts-10", "é": "ü\"\\", "list": [1.5, None, True], "nested": {"a": []}}
SEATS = [
    {"seat": 0, "name": "Anna", "token_hash": "a" * 64, "is_bot": False, "bot_controlled": True,
     "code_hash": "c"},
    {"seat": 1, "name": "Egon (bot)", "token_hash": None, "is_bot": True, "bot_controlled": False,
     "code_hash": None},
]


@pytest.fixture
def db(database_url: str) -> Any:
    upgrade(database_url)
    engine = make_engine(database_url)
    yield engine
    engine.dispose()


def new_rooms(db: Engine, count: int) -> list[int]:
    with Session(db) as session:
        ids = [store.create_room(session, slug=f"r{i}", preset="gurka-night", options={}, seats=3).id
               for i in range(count)]
        session.commit()
    return [i for i in ids if i is not None]


def raw(db: Engine, sql: str, **params: Any) -> list[Any]:
    with db.connect() as conn:
        return list(conn.execute(text(sql), params).all())


def test_rows_are_stored_as_sqlalchemy_stored_them(db: Engine) -> None:
    old, new = new_rooms(db, 2)
    with db.begin() as conn:  # the way every event was written before: SQLAlchemy's JSON and DateTime types
        conn.execute(insert(store.RoomEvent.__table__),  # type: ignore[attr-defined]
                     {"room_id": old, "seq": 1, "seat": 2, "kind": "play", "payload": PAYLOAD})
        assert write_jobs(conn, [CommitJob(new, 0, [(2, "play", PAYLOAD)], seats=SEATS)]) == [1]
    cast = "::text" if db.dialect.name == "postgresql" else ""
    rows = raw(db, f"SELECT room_id, seat, kind, payload{cast}, at{cast} FROM room_events ORDER BY room_id")
    (_, *before), (_, *after) = rows
    assert after[:3] == before[:3]  # seat, kind and the payload's JSON text, byte for byte
    stamp = r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{1,6}(\+00)?$"
    assert re.match(stamp, before[3]) and re.match(stamp, after[3]), (before[3], after[3])
    # the same form: the same parts and zone (Postgres drops a fraction's trailing zeros, so the
    # lengths may differ by up to five digits: .4947 is .494700)
    assert before[3].endswith("+00") == after[3].endswith("+00"), (before[3], after[3])
    with Session(db) as session:
        [event] = store.list_events(session, room_id=new)
        assert event.payload == PAYLOAD and event.at.tzinfo is not None
        seats = store.list_seats(session, room_id=new)
        assert [s.model_dump(include=set(SEATS[0])) for s in seats] == SEATS
        assert all(s.joined_at.tzinfo is not None for s in seats)


def test_a_group_keeps_each_jobs_outcome(db: Engine) -> None:
    a, b, c = new_rooms(db, 3)
    jobs = [
        CommitJob(a, 0, [(1, "play", {"n": 1}), (2, "play", {"n": 2})]),
        CommitJob(b, 5, [(1, "play", {"n": 9})], seats=SEATS, status="over"),  # stale: writes nothing
        CommitJob(a, 2, [(0, "play", {"n": 3})], status="playing"),  # sees the first job's version
        CommitJob(c, 0, [], seats=SEATS, status="playing", host=1),
    ]
    with db.begin() as conn:
        outcomes = write_jobs(conn, jobs)
    assert outcomes[0] == 2 and outcomes[2] == 3 and outcomes[3] == 0
    assert isinstance(outcomes[1], VersionConflict)
    rooms = {r[0]: r[1:] for r in raw(db, "SELECT id, version, status, host FROM rooms")}
    assert rooms == {a: (3, "playing", 0), b: (0, "lobby", 0), c: (0, "playing", 1)}
    events = raw(db, "SELECT room_id, seq, seat, kind FROM room_events ORDER BY room_id, seq")
    assert events == [(a, 1, 1, "play"), (a, 2, 2, "play"), (a, 3, 0, "play")]
    assert raw(db, "SELECT DISTINCT room_id FROM room_seats") == [(c,)]


def test_another_error_is_sqlalchemys_and_costs_only_its_own_job(db: Engine, database_url: str) -> None:
    first, bad, good = new_rooms(db, 3)
    twice = [SEATS[0], SEATS[0]]  # two seats 0: the unique constraint fails
    with pytest.raises(IntegrityError), db.begin() as conn:
        write_jobs(conn, [CommitJob(bad, 0, [(0, "join", {})], seats=twice)])

    async def commit_all() -> tuple[list[Any], CommitWriter]:
        writer = CommitWriter(db)
        with writes_held(database_url):  # the writer waits on the first job; the others queue up
            tasks = [asyncio.ensure_future(writer.commit(job)) for job in (
                CommitJob(first, 0, [(0, "join", {})]),
                CommitJob(bad, 0, [(0, "join", {})], seats=twice),
                CommitJob(good, 0, [(0, "join", {})]))]
            await await_until(lambda: writer._queue.qsize() >= 2, what="the jobs queued", timeout=10)
        results = await asyncio.gather(*tasks, return_exceptions=True)
        writer.stop()
        return results, writer

    (one, failed, other), writer = asyncio.run(commit_all())
    assert one == 1 and isinstance(failed, IntegrityError) and other == 1
    assert writer.transactions == 2 and writer.committed == 2  # the failed group's good job alone
    assert raw(db, "SELECT id, version FROM rooms ORDER BY id") == [(first, 1), (bad, 0), (good, 1)]


@pytest.mark.postgres
async def test_a_group_rings_one_doorbell_per_written_job(postgres_url: str) -> None:
    upgrade(postgres_url)
    db = make_engine(postgres_url)
    a, b, c = new_rooms(db, 3)
    heard: list[tuple[int, int]] = []

    async def on_notify(room_id: int, version: int) -> None:
        heard.append((room_id, version))

    listener = Listener(postgres_url, on_notify)
    listener.start()
    await listener.wait_connected()
    writer = CommitWriter(db)
    with writes_held(postgres_url):
        tasks = [asyncio.ensure_future(writer.commit(job)) for job in (
            CommitJob(a, 0, [(0, "play", {})]), CommitJob(b, 3, [(0, "play", {})]),
            CommitJob(c, 0, [(0, "play", {}), (1, "play", {})]))]
        await await_until(lambda: writer._queue.qsize() >= 2, what="the jobs queued", timeout=10)
    results = await asyncio.gather(*tasks, return_exceptions=True)
    assert results[0] == 1 and isinstance(results[1], VersionConflict) and results[2] == 2
    await await_until(lambda: len(heard) >= 2, what="the doorbells", timeout=10)
    await asyncio.sleep(0.2)  # nothing more comes
    assert sorted(heard) == sorted([(a, 1), (c, 2)])
    writer.stop()
    await listener.stop()
    db.dispose()
