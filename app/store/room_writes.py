"""Room changes written as plain DBAPI statements: every accepted move goes through here.

SQLAlchemy's per-statement machinery (compiled-cache lookups, execution contexts, result
objects) costs more CPU than the database's own work for these small statements, and the
commit writer's thread shares the GIL with the event loop. So `write_jobs` runs SQL written
once per dialect (sqlite3's `?`, psycopg's `%s`) on the DBAPI connection of the caller's
transaction, and adds the event rows of all the jobs it writes at once.

Per job, in the caller's transaction: the version check (`update rooms ... where version =
seen`, which also sets the status and the host), the event rows and the seats (the doorbell
is the caller's: app.rooms.pg_notify.ring). Version checks run first, in job order; a job
whose check fails writes nothing and gets VersionConflict, the others go on. Any other
database error is raised as SQLAlchemy's wrapped error (OperationalError and so on), as if
SQLAlchemy had run the statement, and a lost connection is invalidated.

On Postgres, a group of jobs of distinct rooms that change no seats (nearly every group: the
moves of a busy server) is written by `write_in_one` instead: one statement, outside any
transaction (it commits by itself, atomically), doorbells included. Every round trip of the
commit writer's thread is also a wait for the GIL while the event loop runs; five of them made
a group's write 3 ms at 1,000 rooms and 300 moves a second, one makes it 1.1 ms.

Stored as SQLAlchemy's column types stored them: payloads as `json.dumps(payload)`,
timestamps on SQLite as 'YYYY-MM-DD HH:MM:SS.ffffff' (UTC, no offset).
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Connection
from sqlalchemy.exc import DBAPIError

Event = tuple[int | None, str, dict[str, Any]]  # seat, kind, payload


@dataclass(frozen=True)
class CommitJob:
    """One room change to store: events after `seen_version`, and optional new seats (rows of
    RoomSeat fields, `seat` included), status and host."""

    room_id: int
    seen_version: int
    events: list[Event]
    seats: list[dict[str, Any]] | None = None
    status: str | None = None
    host: int | None = None


class VersionConflict(RuntimeError):
    """The room moved on in the database: the caller's version is stale."""


SEAT_FIELDS = ("seat", "name", "token_hash", "is_bot", "bot_controlled", "code_hash")

Move = tuple[int, str | None, int | None, int, int]  # new version, status, host, room id, seen version
EventRow = tuple[int, int, int | None, str, str]  # room id, seq, seat, kind, payload as JSON text
MOVE_NAMES = ("new", "status", "host", "id", "seen")  # a Move's fields in json_to_recordset (Postgres)
EVENT_NAMES = ("room_id", "seq", "seat", "kind", "payload")  # an EventRow's


class _Sqlite:
    """sqlite3 runs a statement from its cache in C: one execute per room, one executemany."""

    MOVE = ("UPDATE rooms SET version = ?, status = COALESCE(?, status), host = COALESCE(?, host)"  # not shown
            " WHERE id = ? AND version = ?")
    ADD_EVENTS = ("INSERT INTO room_events (room_id, seq, seat, kind, payload, at)"  # not shown
                  " VALUES (?, ?, ?, ?, ?, ?)")
    DROP_SEATS = "DELETE FROM room_seats WHERE room_id = ?"  # not shown
    ADD_SEAT = (f"INSERT INTO room_seats (room_id, joined_at, {', '.join(SEAT_FIELDS)})"  # not shown
                f" VALUES ({', '.join('?' * (2 + len(SEAT_FIELDS)))})")

    @staticmethod
    def timestamp(at: datetime) -> object:
        return at.strftime("%Y-%m-%d %H:%M:%S.%f")

    def move_rooms(self, cursor: Any, moves: list[Move]) -> list[bool]:
        moved = []
        for move in moves:
            cursor.execute(self.MOVE, move)
            moved.append(cursor.rowcount == 1)
        return moved

    def add_events(self, cursor: Any, rows: list[EventRow], at: datetime) -> None:
        stamp = self.timestamp(at)
        cursor.executemany(self.ADD_EVENTS, [(*row, stamp) for row in rows])

    def replace_seats(self, cursor: Any, room_id: int, seats: list[dict[str, Any]], at: datetime) -> None:
        cursor.execute(self.DROP_SEATS, (room_id,))
        stamp = self.timestamp(at)
        cursor.executemany(self.ADD_SEAT, [(room_id, stamp, *(seat.get(f) for f in SEAT_FIELDS))
                                           for seat in seats])


class _Postgres(_Sqlite):
    """Every statement (a pipelined executemany too) and every array parameter costs psycopg
    more CPU than the rows carry: one statement moves all rooms of a round, one adds all event
    rows, each from ONE JSON text parameter (json_to_recordset; a payload travels as a JSON
    string of its own text, so Postgres stores exactly that text). Seats as on SQLite."""

    MOVE = ("UPDATE rooms SET version = m.new, status = COALESCE(m.status, rooms.status),"  # not shown
            " host = COALESCE(m.host, rooms.host)"
            " FROM json_to_recordset(%s) AS m(new int, status text, host int, id int, seen int)"
            " WHERE rooms.id = m.id AND rooms.version = m.seen RETURNING rooms.id")
    ADD_EVENTS = ("INSERT INTO room_events (room_id, seq, seat, kind, payload, at)"  # not shown
                  " SELECT e.room_id, e.seq, e.seat, e.kind, e.payload::json, %s"
                  " FROM json_to_recordset(%s) AS e(room_id int, seq int, seat int, kind text, payload text)")
    DROP_SEATS = _Sqlite.DROP_SEATS.replace("?", "%s")
    ADD_SEAT = _Sqlite.ADD_SEAT.replace("?", "%s")

    @staticmethod
    def timestamp(at: datetime) -> object:
        return at  # a timestamptz column; psycopg adapts the aware datetime

    def move_rooms(self, cursor: Any, moves: list[Move]) -> list[bool]:
        # A room's second job in a group must see its first one's version: rounds of distinct
        # rooms (the n-th job of each room in the n-th round) keep the job order per room.
        moved = [False] * len(moves)
        pending = list(range(len(moves)))
        while pending:
            seen: set[int] = set()
            batch: list[int] = []
            later: list[int] = []
            for i in pending:
                (later if moves[i][3] in seen else batch).append(i)
                seen.add(moves[i][3])
            records = _records(MOVE_NAMES, [moves[i] for i in batch])
            cursor.execute(self.MOVE, (records,))
            done = {row[0] for row in cursor.fetchall()}
            for i in batch:
                moved[i] = moves[i][3] in done
            pending = later
        return moved

    def add_events(self, cursor: Any, rows: list[EventRow], at: datetime) -> None:
        records = _records(EVENT_NAMES, rows)
        cursor.execute(self.ADD_EVENTS, (at, records))


# A group of jobs of distinct rooms and no seats, as ONE statement that commits by itself (the
# connection in autocommit): the version checks, the events of the rooms that moved, and their
# doorbells (app.rooms.pg_notify), in one round trip instead of five (BEGIN, the checks, the
# events, the doorbells, COMMIT); a round trip is a wait for the GIL too on a busy server.
IN_ONE = ("WITH m AS (UPDATE rooms SET version = j.new, status = COALESCE(j.status, rooms.status),"  # not shown
          " host = COALESCE(j.host, rooms.host)"
          " FROM json_to_recordset(%s) AS j(new int, status text, host int, id int, seen int)"
          " WHERE rooms.id = j.id AND rooms.version = j.seen RETURNING rooms.id, rooms.version),"
          " e AS (INSERT INTO room_events (room_id, seq, seat, kind, payload, at)"
          " SELECT e.room_id, e.seq, e.seat, e.kind, e.payload::json, %s"
          " FROM json_to_recordset(%s) AS e(room_id int, seq int, seat int, kind text, payload text)"
          " WHERE e.room_id IN (SELECT id FROM m)),"
          # one doorbell for the rooms that moved, in rings of at most `per_bell` (evaluated once, by
          # the select below, which reads it)
          " n AS (SELECT count(pg_notify(%s, p.payload)) AS rung FROM (SELECT string_agg(id || ':' || version, ',')"
          " AS payload FROM (SELECT id, version, (row_number() OVER ()) / %s AS part FROM m) AS r GROUP BY part) AS p)"
          " SELECT id, (SELECT rung FROM n) FROM m")


def in_one(conn: Connection, jobs: Sequence[CommitJob]) -> bool:
    """`jobs` can be written by `write_in_one` on `conn`'s database."""
    return (conn.dialect.name == "postgresql" and all(job.seats is None for job in jobs)
            and len({job.room_id for job in jobs}) == len(jobs))


def write_in_one(conn: Connection, jobs: Sequence[CommitJob], *, doorbell: str,
                 per_bell: int) -> list[int | VersionConflict]:
    """Write `jobs` (`in_one`) in one statement that commits by itself, outside any transaction of
    `conn`, ringing the doorbell `doorbell` once for the rooms that moved (`per_bell` rooms at
    most a ring: app.rooms.pg_notify's payloads); per job as `write_jobs`."""
    raw = conn.connection.dbapi_connection
    assert raw is not None
    with _dbapi_errors(conn):
        raw.autocommit = True
        try:
            cursor = raw.cursor()
            try:
                cursor.execute(IN_ONE, (_records(MOVE_NAMES, _moves(jobs)),
                                        datetime.now(UTC),
                                        _records(EVENT_NAMES, _events(jobs)),
                                        doorbell, per_bell))
                moved = {row[0] for row in cursor.fetchall()}
            finally:
                cursor.close()
        finally:
            raw.autocommit = False
    return _outcomes(jobs, [job.room_id in moved for job in jobs])


def _moves(jobs: Sequence[CommitJob]) -> list[Move]:
    return [(job.seen_version + len(job.events), job.status, job.host, job.room_id, job.seen_version)
            for job in jobs]


def _events(jobs: Sequence[CommitJob]) -> list[EventRow]:
    return [(job.room_id, job.seen_version + offset, seat, kind, json.dumps(payload))
            for job in jobs for offset, (seat, kind, payload) in enumerate(job.events, start=1)]


def _outcomes(jobs: Sequence[CommitJob], moved: list[bool]) -> list[int | VersionConflict]:
    return [job.seen_version + len(job.events) if ok
            else VersionConflict(f"room {job.room_id} is no longer at version {job.seen_version}")
            for job, ok in zip(jobs, moved, strict=True)]


def _records(names: tuple[str, ...], rows: Sequence[tuple[Any, ...]]) -> str:
    """`rows` as a JSON array of objects, for json_to_recordset."""
    return json.dumps([dict(zip(names, row, strict=True)) for row in rows])


_DIALECTS: dict[str, _Sqlite] = {"sqlite": _Sqlite(), "postgresql": _Postgres()}


def write_jobs(conn: Connection, jobs: Sequence[CommitJob]) -> list[int | VersionConflict]:
    """Write `jobs` in `conn`'s transaction; per job its new version, or VersionConflict when
    its room is no longer at its `seen_version` (nothing written for that job)."""
    dialect = _DIALECTS.get(conn.dialect.name)
    if dialect is None:
        raise NotImplementedError(f"room writes support SQLite and Postgres, not {conn.dialect.name}")
    with _dbapi_errors(conn):
        cursor = conn.connection.cursor()
        try:
            return _write(cursor, dialect, jobs)
        finally:
            cursor.close()


def _write(cursor: Any, dialect: _Sqlite, jobs: Sequence[CommitJob]) -> list[int | VersionConflict]:
    # Version checks first, in job order: a job that fails writes nothing.
    moved = dialect.move_rooms(cursor, _moves(jobs))
    written = [job for job, ok in zip(jobs, moved, strict=True) if ok]
    events = _events(written)
    now = datetime.now(UTC)
    if events:
        dialect.add_events(cursor, events, now)
    for job in written:
        if job.seats is not None:
            dialect.replace_seats(cursor, job.room_id, job.seats, now)
    return _outcomes(jobs, moved)


@contextmanager
def _dbapi_errors(conn: Connection) -> Iterator[None]:
    """Raise a DBAPI error as SQLAlchemy would: wrapped (OperationalError, IntegrityError, ...),
    and with the connection invalidated when it was lost."""
    dbapi = conn.dialect.loaded_dbapi
    try:
        yield
    except dbapi.Error as exc:
        lost = conn.dialect.is_disconnect(exc, conn.connection.dbapi_connection, None)
        if lost:
            conn.invalidate(exc)
        raise DBAPIError.instance(None, None, exc, dbapi.Error, connection_invalidated=lost,
                                  dialect=conn.dialect) from exc
