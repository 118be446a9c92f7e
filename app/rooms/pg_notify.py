"""Postgres LISTEN/NOTIFY as a doorbell between app processes.

An accepted action commits, in its own transaction, `pg_notify('room', '<room_id>:<version>')`
(see `notify`); a group of actions written together rings once for all its rooms,
`'<room_id>:<version>,<room_id>:<version>,...'` (at most `PER_BELL` rooms a ring: a payload must
stay under Postgres's 8,000 bytes). Postgres delivers a notification only when that transaction
commits, so a doorbell never rings for a change nobody can read yet. (Every process hears every
ring, its own too: one per group, not per room, is what a second process costs each one less.)

Every process runs one `Listener`: a single direct psycopg connection (not from the pool) that
LISTENs on the channel and hands each parsed `(room_id, version)` to an async callback. The
callback only *reads the events above the version it has*: a notification carries no game
data, so a lost or duplicated one costs nothing. Notifications sent while the listener was
disconnected are lost, which is why every (re)connect ends with the `on_resync` callback: the
process re-reads every room it serves.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
from collections.abc import Awaitable, Callable, Sequence

from sqlalchemy import Connection
from sqlalchemy.engine import make_url
from sqlmodel import Session

log = logging.getLogger("gurka.rooms.pg_notify")

CHANNEL = "room"

OnNotify = Callable[[int, int], Awaitable[None]]
OnResync = Callable[[], Awaitable[None]]


def is_postgres(url: str) -> bool:
    return url.startswith("postgresql")


PER_BELL = 300  # rooms in one ring: at most 22 bytes each ('<int>:<int>,'), 6,600 in all


def format_payload(changes: Sequence[tuple[int, int]]) -> str:
    """[(room_id, version), ...] -> `'<room_id>:<version>,...'`."""
    return ",".join(f"{int(room_id)}:{int(version)}" for room_id, version in changes)


def parse_payload(payload: str) -> list[tuple[int, int]] | None:
    """`'<room_id>:<version>,...'` -> [(room_id, version), ...]; None for anything else."""
    out = []
    for part in (payload or "").strip().split(","):
        room, sep, version = part.partition(":")
        if not sep or not room.isdigit() or not version.isdigit():
            return None
        out.append((int(room), int(version)))
    return out


def notify(session: Session, room_id: int, version: int, *, channel: str = CHANNEL) -> None:
    """Ring the doorbell inside the session's transaction (delivered only if it commits)."""
    ring(session.connection(), [(room_id, version)], channel=channel)


def ring(conn: Connection, changes: Sequence[tuple[int, int]], *, channel: str = CHANNEL) -> None:
    """Ring the doorbell of every (room_id, version) in `changes` inside `conn`'s transaction,
    in one statement (delivered only if it commits, in this order), one ring per `PER_BELL`.

    A no-op on SQLite: without Postgres the app runs as one process and needs no doorbell.
    """
    if not changes or conn.dialect.name != "postgresql":
        return
    conn.exec_driver_sql(
        "SELECT pg_notify(%s, payload) FROM unnest(%s::text[]) WITH ORDINALITY AS p(payload, n) ORDER BY n",  # not shown
        (channel, [format_payload(changes[i:i + PER_BELL]) for i in range(0, len(changes), PER_BELL)]),
    )


def libpq_dsn(url: str) -> str:
    """A SQLAlchemy URL (`postgresql+psycopg://…`) as a libpq connection string for psycopg."""
    return make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)


class Listener:
    """One LISTEN connection with reconnects; call `start()` in a running loop, `stop()` at the end.

    - `on_notify(room_id, version)` runs for every room of every well-formed notification, one
      at a time, in arrival order. An exception in it is logged and the listener carries on with
      the next room.
    - `on_resync()` runs after every successful (re)connect, once LISTEN is in place, so nothing
      committed after that moment can be missed.
    - Reconnects back off exponentially (with jitter) from `min_backoff` to `max_backoff`.
    - Every `ping_interval` seconds without traffic the connection is checked with `SELECT 1`,
      so a silently dead connection is noticed and replaced.
    """

    def __init__(
        self,
        url: str,
        on_notify: OnNotify,
        on_resync: OnResync | None = None,
        *,
        channel: str = CHANNEL,
        min_backoff: float = 0.1,
        max_backoff: float = 5.0,
        ping_interval: float = 10.0,
        connect_timeout: float = 5.0,
    ) -> None:
        self.dsn = libpq_dsn(url) if "://" in url else url
        self.on_notify = on_notify
        self.on_resync = on_resync
        self.channel = channel
        self.min_backoff = min_backoff
        self.max_backoff = max_backoff
        self.ping_interval = ping_interval
        self.connect_timeout = connect_timeout
        self.connected = asyncio.Event()
        self.connects = 0  # successful connects so far (1 + reconnects)
        self.backend_pid: int | None = None  # of the LISTEN connection, for tests and logs
        self._task: asyncio.Task[None] | None = None
        self._conn: object | None = None
        self._stopping = False

    def start(self) -> None:
        if self._task is None or self._task.done():
            self._stopping = False
            self._task = asyncio.get_running_loop().create_task(self._run(), name="pg-listener")

    async def stop(self) -> None:
        self._stopping = True
        self.connected.clear()
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(BaseException):
                await task

    async def wait_connected(self, timeout: float = 10.0) -> None:
        await asyncio.wait_for(self.connected.wait(), timeout)

    async def _run(self) -> None:
        delay = self.min_backoff
        while not self._stopping:
            try:
                await self._session()
                delay = self.min_backoff  # a session that ended cleanly: reconnect at once
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # noqa: BLE001  (any failure: reconnect)
                was_connected = self.connected.is_set()
                self.connected.clear()
                if was_connected:
                    delay = self.min_backoff
                log.warning(
                    "room listener: %s; reconnecting in %.1f s", exc.__class__.__name__, delay
                )
                await asyncio.sleep(delay * (0.5 + random.random()))
                delay = min(self.max_backoff, delay * 2)
            finally:
                self.connected.clear()

    async def _session(self) -> None:
        import psycopg
        from psycopg import sql

        conn = await psycopg.AsyncConnection.connect(
            self.dsn,
            autocommit=True,
            connect_timeout=max(1, int(self.connect_timeout)),
            application_name="gurka-listener",
            keepalives=1,
            keepalives_idle=10,
            keepalives_interval=5,
            keepalives_count=3,
        )
        try:
            self._conn = conn
            await conn.execute(sql.SQL("LISTEN {}").format(sql.Identifier(self.channel)))
            self.backend_pid = conn.info.backend_pid
            self.connects += 1
            self.connected.set()
            log.info("room listener: listening on %r (connect #%d)", self.channel, self.connects)
            if self.on_resync is not None:
                try:
                    await self.on_resync()
                except Exception:
                    log.exception("room listener: resync failed")
            while not self._stopping:
                got_any = False
                async for note in conn.notifies(timeout=self.ping_interval):
                    got_any = True
                    await self._deliver(note.payload)
                if not got_any:
                    await conn.execute("SELECT 1")  # raises if the connection died quietly
        finally:
            self._conn = None
            self.connected.clear()
            with contextlib.suppress(Exception):
                await conn.close()

    async def _deliver(self, payload: str) -> None:
        parsed = parse_payload(payload)
        if parsed is None:
            log.warning("room listener: ignored payload %r", payload[:80])
            return
        for room_id, version in parsed:
            try:
                await self.on_notify(room_id, version)
            except Exception:
                log.exception("room listener: handling %s:%s failed", room_id, version)
