"""Several app processes, one room: follow the changes other processes commit.

With Postgres, any process can serve any room (rooms are rebuilt from their event log). Each
process runs one `RoomSync`: its doorbell (`pg_notify.Listener`) rings with `<room>:<version>`
(for each room of a group) after another process committed a change; the room then reads the
events above the version it has, applies them to its in-memory game, adopts the stored seats,
status and host, and pushes each seat's view. After every listener (re)connect every room this
process serves is checked against the database, so a lost notification costs nothing.

Bots act from the process whose change moved the room (its action path schedules them). A
process that only *follows* a room schedules a bot as a fallback only when nothing has moved
for a while (the other process may have died); if two bots race, the database's version check
lets exactly one win and the other move is dropped.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Any, Protocol, cast

from sqlalchemy import Engine, select
from sqlmodel import col

from app.rooms import engine
from app.rooms.changes import old_news
from app.rooms.pg_notify import Listener
from app.rooms.room import LiveRoom, Seat
from app.rooms.state import RoomStatus
from app.rooms.turns import told
from app.rules.text import Text
from app.store import rooms as store
from app.store.snapshots import RoomSnapshot, read_room, read_session

__all__ = ["RoomSync", "catch_up_locked", "load_room", "read_room"]

log = logging.getLogger("gurka.rooms.sync")

FALLBACK_BOT_SECONDS = 3.0  # a follower lets a bot move after this long without progress


class ServedRooms(Protocol):
    """What following other processes needs from this process's room manager."""

    @property
    def db(self) -> Engine: ...

    @property
    def bot_delay(self) -> float: ...

    @property
    def rooms(self) -> dict[str, LiveRoom]: ...

    def build(self, snap: RoomSnapshot) -> LiveRoom: ...


def _served_by(room: LiveRoom) -> ServedRooms:
    """The manager that hosts the room (a room knows its host only as a `RoomHost`; the one
    that hosts followed rooms is the process's `RoomManager`, which also serves rooms)."""
    return cast(ServedRooms, room.manager)


def load_room(manager: ServedRooms, slug: str) -> LiveRoom | None:
    """Bring a room this process has not served yet (created by another process) from the log.
    Blocking: on the event loop the manager's `find` reads in a worker thread."""
    snap = read_room(manager.db, slug=slug)
    if snap is None:
        return None
    room = manager.build(snap)
    log.info("room %s loaded from the database at version %s", room.state.id, room.state.version)
    return room


def read_above(room: LiveRoom) -> RoomSnapshot | None:
    """The stored room with its events above the version `room` has (blocking)."""
    return read_room(_served_by(room).db, room_id=room.state.id, after=room.state.version, with_chat=False)


def read_whole(room: LiveRoom) -> RoomSnapshot | None:
    """The stored room with its whole log (blocking)."""
    return read_room(_served_by(room).db, room_id=room.state.id, with_chat=False)


def catch_up_locked(room: LiveRoom) -> bool:
    """Apply the stored events above `room.state.version` (the caller holds `room.changes.lock`). Blocking:
    `RoomSync.catch_up` does the same with its reads in a worker thread.

    Returns True if the room changed. Anything unexpected (a gap, an event that does not
    apply) falls back to rebuilding the whole room from its log.
    """
    snap = read_above(room)
    if snap is None or snap.row.version <= room.state.version:
        return False
    if not apply_above(room, snap):
        whole = read_whole(room)
        if whole is not None:
            room.adopt(_served_by(room).build(whole))
    return True


def apply_above(room: LiveRoom, snap: RoomSnapshot) -> bool:
    """Apply a snapshot's events (those above `room.state.version`) to the room; False (and nothing
    changed) when they do not follow on from it: the caller then rebuilds the room."""
    state = room._state  # its own package writes what the log says (callers read `room.state`)
    row, seats, events = snap.row, snap.seats, snap.events
    if not events or events[0].seq != state.version + 1 or events[-1].seq != row.version:
        return False
    game = state.game.fork() if state.game is not None else None
    ready, timeouts, note, note_seat = set(state.ready), dict(state.timeouts), state.time_note, state.time_note_seat
    levels = state.bot_levels.copy()
    try:
        for event in events:
            payload: dict[str, Any] = dict(event.payload)
            levels.note(event.kind, payload)
            if note is not None and old_news(note_seat, [(event.seat, event.kind, payload)]):
                note = note_seat = None
            if event.kind == "ready" and event.seat is not None:
                ready.add(event.seat)
            elif event.kind == "start":
                ready.clear()
                game = engine.make_game(
                    state.preset,
                    len(payload["players"]),
                    payload["dealer"],
                    payload.get("options", state.options),
                )
            elif event.kind == "deal" and game is not None:
                engine.replay_deal(game, payload)
            elif event.kind == "act" and game is not None and event.seat is not None:
                engine.apply(game, payload["action"], event.seat)
                timed_out = bool(payload.get("timeout"))
                timeouts[event.seat] = timeouts.get(event.seat, 0) + 1 if timed_out else 0
                if timed_out:  # the note another process showed with its timed-out move
                    name = state.seats[event.seat].name if event.seat in state.seats else Text("a player")
                    note = Text("Time: a bot %(did)s for %(name)s.", did=told(payload["action"]), name=name)
                    note_seat = event.seat
            elif event.kind in ("takeover", "takeback") and isinstance(payload.get("seat"), int):
                timeouts.pop(payload["seat"], None)
    except Exception:
        log.exception(
            "room %s: events above %s did not apply; rebuilding it", state.id, state.version
        )
        return False
    with state.state_lock:
        state.game = game
        state.ready, state.timeouts, state.time_note, state.time_note_seat = ready, timeouts, note, note_seat
        state.bot_levels = levels
        state.version = row.version
        state.status = RoomStatus(row.status)
        state.host = row.host
        state.seats = {
            s.seat: Seat(s.seat, s.name, s.token_hash, s.is_bot, s.bot_controlled, s.code_hash) for s in seats
        }
    room.presence.reseat()
    # Presence is per process: a player who just moved through another process is not "away"
    # here (so a host here cannot hand their seat to a bot while they play elsewhere).
    now = room.manager.clock.now()
    for event in events:
        if event.seat is not None and event.kind in ("act", "join", "takeback", "token"):
            room.absent_since[event.seat] = now
    return True


class RoomSync:
    """The doorbell of one process: keeps every room it serves in step with the database."""

    def __init__(
        self, manager: ServedRooms, url: str, *, fallback_bot_seconds: float = FALLBACK_BOT_SECONDS
    ) -> None:
        self.manager = manager
        self.listener = Listener(url, self.on_notify, self.on_resync)
        self.fallback_bot_seconds = fallback_bot_seconds
        self._by_id: dict[int, LiveRoom] = {}
        self._by_id_built_from = -1  # how many rooms were served when `_by_id` was built
        self._watchdogs: dict[int, asyncio.Task[None]] = {}

    def start(self) -> None:
        self.listener.start()

    async def stop(self) -> None:
        await self.listener.stop()
        for task in list(self._watchdogs.values()):
            task.cancel()
        for task in list(self._watchdogs.values()):
            with contextlib.suppress(BaseException):
                await task
        self._watchdogs.clear()

    def room_by_id(self, room_id: int) -> LiveRoom | None:
        """The served room with that id, or None. Most doorbells that miss are another
        process's rooms: the map is rebuilt only when the served rooms changed (a room is
        added, or rebuilt in its place; rooms are never dropped)."""
        rooms = self.manager.rooms
        room = self._by_id.get(room_id)
        if room is not None and rooms.get(room.state.slug) is room:
            return room
        if room is None and len(rooms) == self._by_id_built_from:
            return None  # no room was added since the map was built: not served here
        # list(): a page served in a worker thread may be adding a room right now
        served = list(rooms.values())
        self._by_id = {r.state.id: r for r in served}
        self._by_id_built_from = len(served)
        return self._by_id.get(room_id)

    async def on_notify(self, room_id: int, version: int) -> None:
        room = self.room_by_id(room_id)
        if room is None or room.state.version >= version or room.changes.committing == version:
            return  # not served here, or our own change (maybe not adopted yet)
        await self.catch_up(room)

    async def on_resync(self) -> None:
        """After a (re)connect: every served room that fell behind catches up."""
        versions = await asyncio.to_thread(self._stored_versions)
        behind = [
            r
            for r in list(self.manager.rooms.values())
            if versions.get(r.state.id, r.state.version) > r.state.version
        ]
        if behind:
            log.info("resync: %d room(s) behind the database", len(behind))
        for room in behind:
            await self.catch_up(room)

    def _stored_versions(self) -> dict[int, int]:
        with read_session(self.manager.db) as session:
            rows = session.execute(select(col(store.Room.id), col(store.Room.version))).all()
            return {room_id: version for room_id, version in rows}

    async def catch_up(self, room: LiveRoom) -> bool:
        """Apply what other processes committed to this room; the reads run in a worker thread."""
        async with room.changes.lock:
            try:
                snap = await asyncio.to_thread(read_above, room)
                changed = snap is not None and snap.row.version > room.state.version
                if changed and snap is not None and not apply_above(room, snap):
                    whole = await asyncio.to_thread(read_whole, room)
                    if whole is not None:
                        room.adopt(self.manager.build(whole))
            except Exception:
                log.exception("room %s: could not catch up", room.state.id)
                return False
        if changed:
            room.publish()
            self.watch_bot(room)
        return changed

    def watch_bot(self, room: LiveRoom) -> None:
        """If a bot is to move, let it move from here only if nobody else does it soon."""
        g = room.state.game
        if g is None or room.state.status != RoomStatus.PLAYING or g.over or g.to_act is None:
            return
        seat = room.state.seats.get(g.to_act)
        if seat is None or not seat.botted:
            return
        old = self._watchdogs.get(room.state.id)
        if old is not None and not old.done():
            old.cancel()
        self._watchdogs[room.state.id] = asyncio.get_running_loop().create_task(
            self._fallback(room, room.state.version), name=f"bot-fallback-{room.state.slug}"
        )

    async def _fallback(self, room: LiveRoom, version: int) -> None:
        await asyncio.sleep(self.manager.bot_delay + self.fallback_bot_seconds)
        if room.state.version == version:
            log.info(
                "room %s: no move for %.1f s; a bot moves from this process",
                room.state.id,
                self.fallback_bot_seconds,
            )
            room.schedule_bot()
