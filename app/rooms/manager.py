"""The room manager: creates rooms, brings every stored room back at start, owns their tasks."""

from __future__ import annotations

import asyncio
import inspect
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any

from sqlalchemy import Engine

from app.rooms import engine as rules_engine
from app.rooms import pg_notify
from app.rooms.room import BOT_NAMES, MAX_NAME, LiveRoom, Refused, Seat, clean_name
from app.rooms.tokens import hash_token, new_slug, new_token
from app.store import rooms as store
from app.store.db import session_scope

log = logging.getLogger("gurka.rooms")

TableRenderer = Callable[[LiveRoom, "int | None"], str]
NoticeRenderer = Callable[[str, str], str]
GameOverObserver = Callable[[LiveRoom], "Awaitable[None] | None"]
Clock = Callable[[], float]  # seconds, only ever compared with itself (time.monotonic)
Sleep = Callable[[float], Awaitable[None]]


class RoomManager:
    def __init__(
        self,
        db: Engine,
        *,
        bot_delay: float = 0.0,
        takeover_seconds: float = 60.0,
        render_table: TableRenderer | None = None,
        render_notice: NoticeRenderer | None = None,
        clock: Clock = time.monotonic,
        sleep: Sleep = asyncio.sleep,
    ) -> None:
        self.db = db
        self.bot_delay = bot_delay
        self.takeover_seconds = takeover_seconds
        # Every room timer reads this clock and waits with this sleep (bot delay, seat takeover,
        # the bot fallback), so a test can drive them with a fake clock instead of real seconds.
        self.clock = clock
        self.sleep = sleep
        self.rooms: dict[str, LiveRoom] = {}
        self.render_table: TableRenderer = render_table or (lambda room, seat: "")
        self.render_notice: NoticeRenderer = render_notice or (lambda message, level: message)
        self._create_lock = asyncio.Lock()
        self.loaded = False
        self.game_over_observers: list[GameOverObserver] = []
        self.sync: Any = None  # app.rooms.sync.RoomSync on Postgres: follows other processes

    # ------------------------------------------------------------------ life cycle

    async def start(self) -> None:
        """Bring every stored room back (if not done yet) and let their bots carry on."""
        if not self.loaded:
            self.load()
        if self.db.dialect.name == "postgresql" and self.sync is None:
            from app.rooms.sync import RoomSync

            self.sync = RoomSync(self, self.db.url.render_as_string(hide_password=False))
            self.sync.start()
        for room in self.rooms.values():
            room.schedule_bot()

    def load(self) -> None:
        """Bring every stored room back, exactly as its event log says."""
        self.loaded = True
        with session_scope(self.db) as session:
            rows = store.list_rooms(session)
            loaded = []
            for row in rows:
                seats = store.list_seats(session, room_id=row.id)
                events = store.list_events(session, room_id=row.id)
                loaded.append((row, seats, events))
        for row, seats, events in loaded:
            try:
                room = self._build(row, seats, events)
            except Exception:
                log.exception("room %s could not be rebuilt from its event log", row.id)
                continue
            self.rooms[room.slug] = room
        log.info("rooms: %d brought back", len(self.rooms))

    async def stop(self) -> None:
        if self.sync is not None:
            await self.sync.stop()
            self.sync = None
        for room in list(self.rooms.values()):
            await room.stop()

    def _build(self, row: store.Room, seats: list[store.RoomSeat], events: list[store.RoomEvent]) -> LiveRoom:
        assert row.id is not None
        room = LiveRoom(
            self,
            room_id=row.id,
            slug=row.slug,
            preset=row.preset,
            options=dict(row.options or {}),
            capacity=row.seats,
            status=row.status,
            version=row.version,
            host=row.host,
            seats=[
                Seat(s.seat, s.name, s.token_hash, s.is_bot, s.bot_controlled) for s in seats
            ],
        )
        room.rebuild_game([(e.seat, e.kind, dict(e.payload)) for e in events])
        return room

    async def reload(self, room: LiveRoom) -> None:
        """Rebuild one room from the database (after a failed commit)."""
        with session_scope(self.db) as session:
            row = store.get_room_by_id(session, room_id=room.id)
            assert row is not None
            seats = store.list_seats(session, room_id=room.id)
            events = store.list_events(session, room_id=room.id)
        fresh = self._build(row, seats, events)
        room.status, room.version, room.host = fresh.status, fresh.version, fresh.host
        room.seats, room.game = fresh.seats, fresh.game
        for conn in room.connections:
            conn.seat = room.seat_of(conn.token_hash)

    # ------------------------------------------------------------------ observers

    def on_game_over(self, observer: GameOverObserver) -> None:
        """Call `observer(room)` (a function or a coroutine function) each time a game in this
        process ends, after its final event is committed and published."""
        self.game_over_observers.append(observer)

    async def game_over(self, room: LiveRoom) -> None:
        for observer in list(self.game_over_observers):
            try:
                result = observer(room)
                if inspect.isawaitable(result):
                    await result
            except Exception:
                log.exception("room %s: a game-over observer failed", room.id)

    # ------------------------------------------------------------------ storage

    def store_commit(
        self,
        room: LiveRoom,
        *,
        events: list[tuple[int | None, str, dict[str, Any]]],
        seats: list[Seat] | None,
        status: str | None,
        host: int | None,
    ) -> int:
        with session_scope(self.db) as session:
            version = store.record_events(
                session, room_id=room.id, seen_version=room.version, events=events, status=status
            )
            # The doorbell for other processes, in this transaction: rung only if it commits.
            pg_notify.notify(session, room.id, version)
            if seats is not None:
                store.replace_seats(session, room_id=room.id, seats=[s.row() for s in seats])
            if host is not None:
                row = store.get_room_by_id(session, room_id=room.id)
                assert row is not None
                row.host = host
                session.add(row)
        return version

    # ------------------------------------------------------------------ rooms

    def get(self, slug: str) -> LiveRoom | None:
        """The live room, brought from the database if this process has not served it yet
        (with several processes, another one may have created it)."""
        room = self.rooms.get(slug)
        if room is None and self.loaded and len(slug) <= 64:
            from app.rooms.sync import load_room

            try:
                room = load_room(self, slug)
            except Exception:
                log.exception("room %r could not be loaded", slug)
                return None
            if room is not None:
                room = self.rooms.setdefault(slug, room)
        return room

    async def create_table(
        self, *, preset: str, options: dict[str, Any], names: list[str], dealer: int
    ) -> LiveRoom:
        """A room seated by name, in the given order, started at once with `dealer` (a seat
        number) dealing first: a club table whose chairs and first dealer were drawn by lot.

        Nobody holds a seat token yet (the ones made while seating are thrown away): give a
        player theirs with `room.issue_token(seat)`. Seat 0 is the host; the server acts as host
        for such tables (bots for absent players).
        """
        if not names:
            raise Refused("A table needs players.")
        shown: list[str] = []
        for name in names:  # names cut to the room's length must still differ
            base = clean_name(name)
            label, n = base, 2
            while label.casefold() in {s.casefold() for s in shown}:
                label, n = f"{base[: MAX_NAME - 4]} ({n})", n + 1
            shown.append(label)
        room, _token = await self.create_room(
            preset=preset, options=options, seats=len(shown), host_name=shown[0], table=True
        )
        for name in shown[1:]:
            await room.join(name)
        await room.start(0, dealer=dealer)
        return room

    async def create_room(
        self,
        *,
        preset: str,
        options: dict[str, Any],
        seats: int,
        host_name: str,
        bots: int = 0,
        table: bool = False,
    ) -> tuple[LiveRoom, str]:
        """A new room with the host in seat 0 and `bots` bots after them; returns (room, host token)."""
        if preset not in rules_engine.PRESETS:
            raise Refused(f"Unknown game {preset!r}.")
        name = clean_name(host_name)
        if not name:
            raise Refused("Please type your display name.")
        lo, hi = rules_engine.player_limits(preset, options)
        if not lo <= seats <= hi:
            raise Refused(f"This game seats {lo} to {hi} players.")
        try:  # a full table must be playable (fewer players at the start always are)
            rules_engine.make_game(preset, seats, 0, options)
        except (ValueError, TypeError) as exc:
            raise Refused(str(exc)) from None
        if not 0 <= bots <= seats - 1:
            raise Refused(f"Between 0 and {seats - 1} bots, please.")
        token = new_token()
        seat_rows = [Seat(0, name, hash_token(token))]
        for i in range(bots):
            seat_rows.append(Seat(i + 1, f"{BOT_NAMES[i % len(BOT_NAMES)]} (bot)", None, is_bot=True))
        async with self._create_lock:
            with session_scope(self.db) as session:
                slug = new_slug()
                while store.get_room(session, slug=slug) is not None:
                    slug = new_slug()
                row = store.create_room(session, slug=slug, preset=preset, options=options, seats=seats, host=0)
                assert row.id is not None
                store.record_events(
                    session,
                    room_id=row.id,
                    seen_version=0,
                    events=[(0, "create", {"preset": preset, "options": options, "seats": seats,
                                           **({"table": True} if table else {})})]
                    + [(s.seat, "join" if not s.is_bot else "bot", {"seat": s.seat, "name": s.name})
                       for s in seat_rows],
                    status="lobby",
                )
                store.replace_seats(session, room_id=row.id, seats=[s.row() for s in seat_rows])
                room_id, version = row.id, 1 + len(seat_rows)
            room = LiveRoom(
                self,
                room_id=room_id,
                slug=slug,
                preset=preset,
                options=options,
                capacity=seats,
                status="lobby",
                version=version,
                host=0,
                seats=seat_rows,
            )
            room.club_table = table
            self.rooms[slug] = room
        return room, token
