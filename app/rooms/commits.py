"""The commit writer: every room change is written by one thread, off the event loop.

A room hands its change over as a `CommitJob` and awaits the new version; the event loop stays
free while the database works (a Postgres round trip, a SQLite write lock held elsewhere).

Group commit: the writer takes every job waiting in its queue (up to `max_group`) and writes
them in ONE transaction, then acknowledges each job only after that transaction committed.
Each job's version check, event rows, seats and doorbell (`pg_notify`) are in that transaction.
A job whose room moved on in the database (another process) fails alone: its version check is
its first statement and writes nothing when it fails, so the other jobs go on in the same
transaction. Any other error fails the group: if the database is unreachable every job is told
so; otherwise each job is tried again in a transaction of its own, so one bad job costs only
its own room.

The writer keeps its database connection while jobs keep coming (`HOLD_SECONDS` between two
groups at most) and gives it back to the pool after a pause: the pool's check of a connection
(`pool_pre_ping`) is a round trip of its own, one more in every group of a busy server (on
Postgres most groups are one statement: app.store.room_writes.write_in_one).
A held connection that fails is dropped, and the group is written again on a checked one.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import queue
import threading
import time
from collections.abc import Iterator

from sqlalchemy import Connection, Engine
from sqlalchemy.exc import DBAPIError, DisconnectionError, OperationalError

from app.rooms import pg_notify
from app.store.room_writes import CommitJob, VersionConflict, in_one, write_in_one, write_jobs

log = logging.getLogger("gurka.rooms.commits")


def unreachable(exc: BaseException) -> bool:
    """The database is not answering (down, cut off, locked): retrying at once will not help."""
    if isinstance(exc, OperationalError | DisconnectionError):
        return True
    return isinstance(exc, DBAPIError) and exc.connection_invalidated


_Item = tuple[CommitJob, asyncio.AbstractEventLoop, "asyncio.Future[int]"]
HOLD_SECONDS = 1.0  # the writer keeps its connection from one group to the next this long at most


class CommitWriter:
    """One writer thread for a database; started on the first job, gone after `idle_seconds`
    without work (and started again by the next job)."""

    def __init__(self, db: Engine, *, max_group: int = 64, idle_seconds: float = 5.0) -> None:
        self.db = db
        self.max_group = max_group
        self.idle_seconds = idle_seconds
        self._queue: queue.SimpleQueue[_Item | None] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._stopping = False
        self._conn: Connection | None = None  # (the thread's own, between groups)
        self._used = 0.0  # when it last wrote
        # Figures for tests and logs: transactions committed, and jobs acknowledged by them.
        self.transactions = 0
        self.committed = 0

    async def commit(self, job: CommitJob) -> int:
        """Queue `job`, wait until its transaction committed; the room's new version.

        Raises VersionConflict (the room moved on elsewhere) or the database's error."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[int] = loop.create_future()
        self._queue.put((job, loop, future))
        self._ensure_thread()
        return await future

    def stop(self) -> None:
        """Let the thread finish what is queued and end (it does not wait for it)."""
        with self._lock:
            self._stopping = True
            if self._thread is not None:
                self._queue.put(None)

    # ------------------------------------------------------------------ the thread

    def _ensure_thread(self) -> None:
        with self._lock:
            if self._thread is None:
                self._stopping = False
                self._thread = threading.Thread(target=self._work, name="room-commits", daemon=True)
                self._thread.start()

    def _work(self) -> None:
        while True:
            try:
                first = self._queue.get(timeout=self.idle_seconds)
            except queue.Empty:
                self._let_go()
                with self._lock:
                    if self._queue.empty():
                        self._thread = None
                        return
                continue
            group: list[_Item] = []
            stop = first is None
            if first is not None:
                group.append(first)
            while len(group) < self.max_group:
                try:
                    item = self._queue.get_nowait()
                except queue.Empty:
                    break
                if item is None:
                    stop = True
                else:
                    group.append(item)
            if group:
                self._write(group)
            if stop:
                self._let_go()
                with self._lock:
                    if self._stopping and self._queue.empty():
                        self._thread = None
                        return

    def _kept(self) -> bool:
        """The writer holds a connection it may write with again: it wrote with it a moment ago, on
        its database (a writer given another database lets go of the old one's)."""
        return (self._conn is not None and time.monotonic() - self._used <= HOLD_SECONDS
                and self._conn.engine is self.db)

    def _connection(self) -> Connection:
        """The writer's connection: the one it holds if it wrote a moment ago, else a checked one
        from the pool."""
        if self._conn is not None and not self._kept():
            self._let_go()
        if self._conn is None:
            self._conn = self.db.connect()
        return self._conn

    def _let_go(self, failed: bool = False) -> None:
        """Give the connection back to the pool (`failed`: throw it away)."""
        conn, self._conn = self._conn, None
        if conn is not None:
            with contextlib.suppress(Exception):
                if failed:
                    conn.invalidate()
                conn.close()

    @contextlib.contextmanager
    def _held(self) -> Iterator[Connection]:
        """The writer's connection for one group, thrown away if the database failed (it may be
        gone)."""
        conn = self._connection()
        try:
            yield conn
        except BaseException as exc:
            self._let_go(failed=unreachable(exc) or not isinstance(exc, Exception))
            raise
        self._used = time.monotonic()

    @contextlib.contextmanager
    def _transaction(self) -> Iterator[Connection]:
        """A transaction on the writer's connection: committed if the block ends well, else
        rolled back."""
        with self._held() as conn, conn.begin():
            yield conn

    def _write(self, group: list[_Item]) -> None:
        jobs = [job for job, _loop, _future in group]
        outcomes: list[int | BaseException]
        try:
            outcomes = self._write_together(jobs)
        except Exception as exc:
            if len(jobs) == 1 or unreachable(exc):
                if not unreachable(exc):
                    log.exception("room %s: commit failed", jobs[0].room_id)
                outcomes = [exc] * len(jobs)
            else:
                outcomes = [self._write_alone(job) for job in jobs]
        # One wake-up per event loop for the whole group, not one per job.
        settles: dict[asyncio.AbstractEventLoop, list[tuple[asyncio.Future[int], int | BaseException]]] = {}
        for (_job, loop, future), outcome in zip(group, outcomes, strict=True):
            settles.setdefault(loop, []).append((future, outcome))
        for loop, outcomes_there in settles.items():
            with contextlib.suppress(RuntimeError):  # that loop is closed: nobody waits any more
                loop.call_soon_threadsafe(_settle, outcomes_there)

    def _write_together(self, jobs: list[CommitJob]) -> list[int | BaseException]:
        held = self._kept()
        try:
            return self._write_group(jobs)
        except Exception as exc:
            if not (held and unreachable(exc)):
                raise
        # the held connection had died (the database restarted, say): once more on a checked one
        # (a group whose commit did go through fails its version checks now, and its rooms catch up)
        return self._write_group(jobs)

    def _write_group(self, jobs: list[CommitJob]) -> list[int | BaseException]:
        outcomes: list[int | BaseException]
        with self._held() as conn:
            if in_one(conn, jobs):  # (Postgres, most groups: one statement, doorbells included)
                outcomes = list(write_in_one(conn, jobs, doorbell=pg_notify.CHANNEL,
                                                 per_bell=pg_notify.PER_BELL))
            else:
                with conn.begin():
                    outcomes = list(write_jobs(conn, jobs))
                    # The doorbells for other processes, in this transaction: rung only if it commits.
                    pg_notify.ring(conn, [(job.room_id, o) for job, o in zip(jobs, outcomes, strict=True)
                                          if isinstance(o, int)])
        self.transactions += 1
        self.committed += sum(1 for o in outcomes if isinstance(o, int))
        return outcomes

    def _write_alone(self, job: CommitJob) -> int | BaseException:
        try:
            with self._transaction() as conn:
                [outcome] = write_jobs(conn, [job])
                if not isinstance(outcome, VersionConflict):
                    pg_notify.ring(conn, [(job.room_id, outcome)])
        except Exception as exc:
            if not unreachable(exc):
                log.exception("room %s: commit failed", job.room_id)
            return exc
        self.transactions += 1
        if not isinstance(outcome, VersionConflict):
            self.committed += 1
        return outcome


def _settle(outcomes: list[tuple[asyncio.Future[int], int | BaseException]]) -> None:
    for future, outcome in outcomes:
        if future.done():  # the waiting room gave up (cancelled)
            continue
        if isinstance(outcome, BaseException):
            future.set_exception(outcome)
        else:
            future.set_result(outcome)
