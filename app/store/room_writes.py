"""Room changes written as plain DBAPI statements: every accepted move goes through here.

SQLAlchemy's per-statement machinery (compiled-cache lookups, execution contexts, result
objects) costs more CPU than the database's own work for these small statements, and the
commit writer's thread shares the GIL with the event loop. So `write_jobs` runs SQL written
once per dialect (sqlite3's `?`, psycopg's `%s`) on the DBAPI connection of the caller's
transaction, with one `executemany` for the event rows of every job it writes.

Per job, in the caller's transaction: the version check (`update rooms ... where version =
seen`, which also sets the status and the host), the event rows and the seats (the doorbell
is the caller's: app.rooms.pg_notify.ring). Version checks run first, in job order; a job whose check fails writes nothing
and gets VersionConflict, the others go on. Any other database error is raised as
SQLAlchemy's wrapped error (OperationalError and so on), as if SQLAlchemy had run the
statement, and a lost connection is invalidated.
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

_BUMP = ("UPDATE rooms SET version = {p}, status = COALESCE({p}, status), host = COALESCE({p}, host)"
         " WHERE id = {p} AND version = {p}")
_ADD_EVENT = "INSERT INTO room_events (room_id, seq, seat, kind, payload, at) VALUES ({p}, {p}, {p}, {p}, {p}, {p})"
_DROP_SEATS = "DELETE FROM room_seats WHERE room_id = {p}"
_ADD_SEAT = ("INSERT INTO room_seats (room_id, joined_at, " + ", ".join(SEAT_FIELDS) + ") VALUES ("
             + ", ".join(["{p}"] * (2 + len(SEAT_FIELDS))) + ")")


class _Dialect:
    """The statements in one dialect's parameter style, and how it stores a timestamp."""

    def __init__(self, marker: str, *, sqlite: bool) -> None:
        self.sqlite = sqlite
        self.bump = _BUMP.format(p=marker)
        self.add_event = _ADD_EVENT.format(p=marker)
        self.drop_seats = _DROP_SEATS.format(p=marker)
        self.add_seat = _ADD_SEAT.format(p=marker)

    def timestamp(self, at: datetime) -> object:
        # As SQLAlchemy's SQLite DateTime stores it (UTC, no offset); psycopg adapts a datetime.
        return at.strftime("%Y-%m-%d %H:%M:%S.%f") if self.sqlite else at


_DIALECTS = {"sqlite": _Dialect("?", sqlite=True), "postgresql": _Dialect("%s", sqlite=False)}


def write_jobs(conn: Connection, jobs: Sequence[CommitJob]) -> list[int | VersionConflict]:
    """Write `jobs` in `conn`'s transaction; per job its new version, or VersionConflict when
    its room is no longer at its `seen_version` (nothing written for that job)."""
    dialect = _DIALECTS.get(conn.dialect.name)
    if dialect is None:
        raise NotImplementedError(f"room writes support SQLite and Postgres, not {conn.dialect.name}")
    with _dbapi_errors(conn):
        cursor = conn.connection.dbapi_connection.cursor()  # type: ignore[union-attr]
        try:
            return _write(cursor, dialect, jobs)
        finally:
            cursor.close()


def _write(cursor: Any, dialect: _Dialect, jobs: Sequence[CommitJob]) -> list[int | VersionConflict]:
    outcomes = _check_versions(cursor, dialect, jobs)
    now = dialect.timestamp(datetime.now(UTC))
    events: list[tuple[Any, ...]] = []
    written: list[CommitJob] = []
    for job, outcome in zip(jobs, outcomes, strict=True):
        if isinstance(outcome, VersionConflict):
            continue
        written.append(job)
        events += [(job.room_id, job.seen_version + offset, seat, kind, json.dumps(payload), now)
                   for offset, (seat, kind, payload) in enumerate(job.events, start=1)]
    if events:
        cursor.executemany(dialect.add_event, events)
    for job in written:
        if job.seats is not None:
            cursor.execute(dialect.drop_seats, (job.room_id,))
            cursor.executemany(dialect.add_seat, [(job.room_id, now, *(row.get(f) for f in SEAT_FIELDS))
                                                  for row in job.seats])
    return outcomes


def _check_versions(cursor: Any, dialect: _Dialect, jobs: Sequence[CommitJob]) -> list[int | VersionConflict]:
    """Move each job's room from its seen version to its new one, in job order (a later job of
    the same room sees the earlier one's version)."""
    rows = [(job.seen_version + len(job.events), job.status, job.host, job.room_id, job.seen_version)
            for job in jobs]
    if dialect.sqlite:
        moved = []
        for row in rows:
            cursor.execute(dialect.bump, row)
            moved.append(cursor.rowcount == 1)
    else:
        # one round trip for all of them (psycopg pipelines executemany), one result per row
        cursor.executemany(dialect.bump + " RETURNING id", rows, returning=True)
        moved = [cursor.fetchone() is not None]
        while cursor.nextset():
            moved.append(cursor.fetchone() is not None)
    return [job.seen_version + len(job.events) if ok
            else VersionConflict(f"room {job.room_id} is no longer at version {job.seen_version}")
            for job, ok in zip(jobs, moved, strict=True)]


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
