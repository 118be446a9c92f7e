"""Waiting rooms nobody comes back to are deleted: the lobby sweep.

What "abandoned" means: the room never started (its status is still "lobby"), it is not a club
night's table, and nobody has had its page open for `idle` seconds (LOBBY_IDLE_MINUTES). A host
who waits for friends with the room open is never swept, however long they wait; neither is one
who closed the page for less than `idle`. Seats alone keep nothing: a seated player who has been
away for longer than that, in a game that never started, is no reason to keep the room.

"Had open" lives in the database (`rooms.seen_at`), so it holds across restarts and across
processes (with several, a room's sockets may be served by another process than the one that
made it): making the room sets it, and every `every` seconds each process sets it again for the
waiting rooms it has a socket to. A sweep then deletes, in one transaction, the waiting rooms
not seen since `idle` ago, with their seats, events and talk (`store.delete_idle_lobbies`), and
each process forgets the rooms it holds that are no longer stored. A process just started only
marks for its first two sweeps: pages reconnecting after a restart count before anything goes.

All database work runs in a worker thread; time is the manager's clock (tests move a fake one).
"""

from __future__ import annotations

import asyncio
import logging
from datetime import UTC, datetime
from typing import Protocol

from sqlalchemy import Engine

from app.rooms.clock import Clock
from app.rooms.room import LiveRoom
from app.rooms.state import RoomStatus
from app.store import rooms as store
from app.store.db import session_scope

log = logging.getLogger("gurka.rooms.lobby_sweep")

SWEEP_EVERY = 60.0  # seconds between two sweeps
MARK_ONLY = 2  # sweeps after a start that only mark


class SweptRooms(Protocol):
    """What the sweep needs from this process's room manager."""

    @property
    def db(self) -> Engine: ...

    @property
    def clock(self) -> Clock: ...

    @property
    def rooms(self) -> dict[str, LiveRoom]: ...


def moment(seconds: float) -> datetime:
    return datetime.fromtimestamp(seconds, UTC)


def waiting(room: LiveRoom) -> bool:
    return room.state.status == RoomStatus.LOBBY and not room.state.club_table


def has_open_page(room: LiveRoom) -> bool:
    return any(not conn.closed for conn in room.connections)


class LobbySweep:
    def __init__(self, rooms: SweptRooms, *, idle: float, every: float = SWEEP_EVERY) -> None:
        self.served, self.idle, self.every = rooms, idle, every
        self.sweeps = 0  # done so far by this process
        self.deleted = 0

    async def run(self) -> None:
        """Sweep every `every` seconds until cancelled; a failed sweep is logged and the next
        one tries again."""
        while True:
            await self.served.clock.sleep_until(self.served.clock.now() + self.every)
            try:
                await self.sweep()
            except Exception:
                log.exception("the lobby sweep failed; the next one tries again")

    async def sweep(self) -> list[str]:
        """Mark the waiting rooms open here, delete the abandoned ones; the slugs forgotten here."""
        now = self.served.clock.now()
        rooms = list(self.served.rooms.values())
        open_here = [r.state.id for r in rooms if waiting(r) and has_open_page(r)]
        closed_here = [r.state.id for r in rooms if waiting(r) and not has_open_page(r)]
        self.sweeps += 1
        cutoff = moment(now - self.idle) if self.sweeps > MARK_ONLY else None

        def in_the_database() -> tuple[list[int], set[int]]:
            with session_scope(self.served.db) as session:
                store.touch_rooms(session, room_ids=open_here, at=moment(now))
                deleted = store.delete_idle_lobbies(session, before=cutoff) if cutoff is not None else []
            with session_scope(self.served.db) as session:
                still = store.stored_room_ids(session, room_ids=closed_here)
            return deleted, set(closed_here) - still

        deleted, gone = await asyncio.to_thread(in_the_database)
        self.deleted += len(deleted)
        forget = set(deleted) | gone
        forgotten = [slug for slug, room in self.served.rooms.items() if room.state.id in forget]
        for slug in forgotten:
            room = self.served.rooms.pop(slug)
            await room.stop()  # a page that came in meanwhile reconnects and finds no such room
        if deleted:
            log.info("lobby sweep: %d waiting rooms nobody had open for %.0f min deleted", len(deleted),
                     self.idle / 60)
        return forgotten
