"""The room manager: creates rooms, brings every stored room back at start, owns their tasks."""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import logging
from collections.abc import Awaitable, Callable
from datetime import UTC
from typing import Any, Protocol

from sqlalchemy import Engine

from app.bot_pool import BotMove, BotPool, BotRequest
from app.rooms import engine as rules_engine
from app.rooms.bot_levels import DEFAULT_LEVEL, LEVELS
from app.rooms.chat import ChatLine
from app.rooms.clock import Clock, SystemClock
from app.rooms.commits import CommitWriter
from app.rooms.lobby_sweep import LobbySweep, moment
from app.rooms.news import Audience, News, Unheard
from app.rooms.room import BOT_NAMES, MAX_NAME, Event, LiveRoom, Refused, Seat, clean_name
from app.rooms.state import DEFAULT_TURN_SECONDS, RoomState, RoomStatus
from app.rooms.sync import RoomSync, load_room, read_room
from app.rooms.tokens import new_slug, new_token, seat_secrets
from app.rules.text import Text, text_of
from app.store import chat as chat_store
from app.store import rooms as store
from app.store.db import session_scope
from app.store.room_writes import CommitJob
from app.store.snapshots import RoomSnapshot

log = logging.getLogger("gurka.rooms")

CLUB_TURN_SECONDS = 60.0  # a club table's turn timer (a night may pass its own setting)
MIN_TURN_SECONDS, MAX_TURN_SECONDS = 10, 600  # a turn timer's range (0 switches it off)

GameOverObserver = Callable[[LiveRoom], "Awaitable[None] | None"]


class DeckSource(Protocol):
    """Where a duplicate night's tables get their decks (the club; rooms know nothing of it)."""

    def deck(self, key: str, deal_no: int, /) -> list[str] | None:
        """Deal `deal_no`'s deck of the round `key`, in its order (None: deal a fresh shuffle).
        Called on the event loop: answers from memory."""
        ...

    def secret(self, key: str, /) -> bool:
        """True while the decks of `key` must stay hidden (their round is still being played at
        some table): replays of its tables are refused. May read the database (called off the
        event loop)."""
        ...


class RoomManager:
    def __init__(
        self,
        db: Engine,
        *,
        bot_delay: float = 0.0,
        takeover_seconds: float = 60.0,
        deal_pause: float = 0.0,
        clock: Clock | None = None,
        audience: Audience[LiveRoom] | None = None,
        lobby_idle: float = 0.0,
        bot_pool: BotPool | None = None,
    ) -> None:
        self.db = db
        # Bots think here (`app.bot_pool`): the app's pool, or one of the manager's own, whose
        # worker processes start with the first strong bot's first move.
        self.bot_pool = bot_pool if bot_pool is not None else BotPool()
        self._owns_pool = bot_pool is None
        self.bot_delay = bot_delay
        self.takeover_seconds = takeover_seconds
        self.deal_pause = deal_pause
        self.clock: Clock = clock or SystemClock()
        self.rooms: dict[str, LiveRoom] = {}
        # Who shows the rooms to their readers (the web layer's publisher; nobody, without one)
        self.audience: Audience[LiveRoom] = audience if audience is not None else Unheard()
        self._create_lock = asyncio.Lock()
        self.loaded = False
        self.game_over_observers: list[GameOverObserver] = []
        self.sync: RoomSync | None = None  # on Postgres: follows other processes
        self.writer = CommitWriter(db)  # every room change is written by its thread, off the loop
        # waiting rooms nobody has had open for `lobby_idle` seconds are deleted (0: never)
        self.lobby_sweep = LobbySweep(self, idle=lobby_idle) if lobby_idle > 0 else None
        self._sweeping: asyncio.Task[None] | None = None
        self._background: set[asyncio.Task[None]] = set()
        self.decks: DeckSource | None = None  # duplicate nights' decks (`use_decks`)

    # ------------------------------------------------------------------ duplicate decks

    def use_decks(self, source: DeckSource) -> None:
        """Deal the tables made with a `deck_key` from `source`'s decks."""
        self.decks = source

    def deck_for(self, key: str, deal_no: int, /) -> list[str] | None:
        return self.decks.deck(key, deal_no) if self.decks is not None else None

    def decks_secret(self, key: str | None) -> bool:
        """True while a table's duplicate decks must stay hidden (blocking: call off the loop)."""
        return key is not None and self.decks is not None and self.decks.secret(key)

    # ------------------------------------------------------------------ news (the audience's)

    def publish(self, room: LiveRoom, news: News, /) -> None:
        self.audience.publish(room, news)

    # ------------------------------------------------------------------ life cycle

    async def start(self) -> None:
        """Bring every stored room back (if not done yet) and let their bots carry on."""
        if not self.loaded:
            self.load()
        if self.db.dialect.name == "postgresql" and self.sync is None:
            self.sync = RoomSync(self, self.db.url.render_as_string(hide_password=False))
            self.sync.start()
        for room in self.rooms.values():
            room.schedule_bot()
            room.arm()  # timers re-armed from the stored facts (a deadline, a pending deal)
        self.warm_bots([room.bot_level(s.seat) for room in self.rooms.values() if room.state.status == RoomStatus.PLAYING
                        for s in room.state.seats.values() if s.botted])
        if self.lobby_sweep is not None and self._sweeping is None:
            self._sweeping = asyncio.get_running_loop().create_task(self.lobby_sweep.run(), name="lobby-sweep")

    def load(self) -> None:
        """Bring every stored room back, exactly as its event log says."""
        self.loaded = True
        with session_scope(self.db) as session:
            rows = store.list_rooms(session)
            loaded = []
            for row in rows:
                assert row.id is not None  # a stored row has its id
                seats = store.list_seats(session, room_id=row.id)
                events = store.list_events(session, room_id=row.id)
                chat = chat_store.list_chat(session, room_id=row.id)
                loaded.append(RoomSnapshot(row, seats, events, chat))
        for snap in loaded:
            try:
                room = self.build(snap)
            except Exception:
                log.exception("room %s could not be rebuilt from its event log", snap.row.id)
                continue
            self.rooms[room.state.slug] = room
        log.info("rooms: %d brought back", len(self.rooms))

    async def stop(self) -> None:
        if self._sweeping is not None:
            self._sweeping.cancel()
            await asyncio.gather(self._sweeping, return_exceptions=True)
            self._sweeping = None
        if self.sync is not None:
            await self.sync.stop()
            self.sync = None
        for room in list(self.rooms.values()):
            await room.stop()
        self.writer.stop()
        if self._owns_pool:
            await self.bot_pool.stop()

    # ------------------------------------------------------------------ bots

    async def decide_bot(self, request: BotRequest, delay: float) -> BotMove:
        """A bot's move from the bot pool (see `RoomHost.decide_bot`)."""
        clock = self.clock

        async def sleep(seconds: float) -> None:
            if seconds > 0:
                await clock.sleep_until(clock.now() + seconds)

        return await self.bot_pool.decide(request, delay=delay, sleep=sleep)

    def warm_bots(self, levels: list[str]) -> None:
        """A room with strong bots was made: start the pool's workers now (in the background),
        so that its first move does not wait for them."""
        if "strong" in levels and not self.bot_pool.pids():
            with contextlib.suppress(RuntimeError):
                task = asyncio.get_running_loop().create_task(self.bot_pool.start(), name="bot-pool-start")
                self._background.add(task)
                task.add_done_callback(self._background.discard)

    def build(self, snap: RoomSnapshot) -> LiveRoom:
        """A live room from a stored snapshot (no database call: the snapshot has it all)."""
        row, seats, events = snap.row, snap.seats, snap.events
        assert row.id is not None
        state = RoomState(
            room_id=row.id,
            slug=row.slug,
            preset=row.preset,
            options=dict(row.options or {}),
            capacity=row.seats,
            status=row.status,
            version=row.version,
            host=row.host,
            seats=[
                Seat(s.seat, s.name, s.token_hash, s.is_bot, s.bot_controlled, s.code_hash) for s in seats
            ],
            turn_started=self.clock.now(),
        )
        state.rebuild_game([(e.seat, e.kind, dict(e.payload)) for e in events])
        if events:  # the current turn started when its version was committed
            at = events[-1].at
            state.turn_started = (at if at.tzinfo else at.replace(tzinfo=UTC)).timestamp()
        room = LiveRoom(self, state)
        room.chat.restore([ChatLine(r.kind, r.seat, r.name, r.text, r.at) for r in snap.chat])
        return room

    # ------------------------------------------------------------------ table talk

    def load_chat(self, room_id: int) -> list[ChatLine]:
        """A room's stored chat rows, oldest first (blocking: call it off the event loop)."""
        with session_scope(self.db) as session:
            rows = chat_store.list_chat(session, room_id=room_id)
        return [ChatLine(r.kind, r.seat, r.name, r.text, r.at) for r in rows]

    def save_chat(self, room: LiveRoom, line: ChatLine) -> None:
        with session_scope(self.db) as session:
            chat_store.add_chat(session, room_id=room.state.id, seat=line.seat, name=line.name, kind=line.kind,
                                text=line.text, at=line.at)

    async def reload(self, room: LiveRoom) -> None:
        """Rebuild one room from one consistent snapshot of the database (after another process
        moved it first), read off the event loop."""
        snap = await asyncio.to_thread(read_room, self.db, room_id=room.state.id, with_chat=False)
        if snap is None:
            raise LookupError(f"room {room.state.id} is no longer stored")
        room.adopt(self.build(snap))

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
                log.exception("room %s: a game-over observer failed", room.state.id)

    # ------------------------------------------------------------------ storage

    async def store_commit(
        self,
        room: LiveRoom,
        *,
        events: list[Event],
        seats: list[Seat] | None,
        status: str | None,
        host: int | None,
    ) -> int:
        """Hand the change to the writer thread; the new version once its transaction committed."""
        job = CommitJob(room.state.id, room.state.version, events,
                        None if seats is None else [s.row() for s in seats], status, host)
        return await self.writer.commit(job)

    # ------------------------------------------------------------------ rooms

    async def find(self, slug: str) -> LiveRoom | None:
        """`get` for the event loop: a room not served here yet is read in a worker thread."""
        room = self.rooms.get(slug)
        if room is None and self.loaded and len(slug) <= 64:
            try:
                snap = await asyncio.to_thread(read_room, self.db, slug=slug)
                if snap is None:
                    return None
                room = self.rooms.get(slug) or self.rooms.setdefault(slug, self.build(snap))
            except Exception:
                log.exception("room %r could not be loaded", slug)
                return None
            log.info("room %s loaded from the database at version %s", room.state.id, room.state.version)
        return room

    def get(self, slug: str) -> LiveRoom | None:
        """The live room, brought from the database if this process has not served it yet
        (with several processes, another one may have created it). Blocking when it reads: on
        the event loop use `find`."""
        room = self.rooms.get(slug)
        if room is None and self.loaded and len(slug) <= 64:
            try:
                room = load_room(self, slug)
            except Exception:
                log.exception("room %r could not be loaded", slug)
                return None
            if room is not None:
                room = self.rooms.setdefault(slug, room)
        return room

    async def create_table(
        self, *, preset: str, options: dict[str, Any], names: list[str], dealer: int,
        turn_seconds: float = CLUB_TURN_SECONDS, deck_key: str | None = None, bot_level: str = DEFAULT_LEVEL,
    ) -> LiveRoom:
        """A room seated by name, in the given order, started at once with `dealer` (a seat
        number) dealing first: a club table whose chairs and first dealer were drawn by lot.

        Nobody holds a seat token yet (the ones made while seating are thrown away): give a
        player theirs with `room.issue_token(seat)`. Seat 0 is the host; the server acts as host
        for such tables (bots for absent players). `bot_level`: the level its turn timer plays
        at (a club night's: the elders' choice).
        """
        if not names:
            raise Refused(Text("A table needs players."))
        shown: list[str] = []
        for name in names:  # names cut to the room's length must still differ
            base = clean_name(name)
            label, n = base, 2
            while label.casefold() in {s.casefold() for s in shown}:
                label, n = f"{base[: MAX_NAME - 4]} ({n})", n + 1
            shown.append(label)
        room, _token = await self.create_room(
            preset=preset, options=options, seats=len(shown), host_name=shown[0], table=True,
            turn_seconds=turn_seconds, deck_key=deck_key, bot_level=bot_level,
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
        turn_seconds: float = DEFAULT_TURN_SECONDS,
        bot_levels: list[str] | None = None,
        bot_level: str = DEFAULT_LEVEL,
        deck_key: str | None = None,
    ) -> tuple[LiveRoom, str]:
        """A new room with the host in seat 0 and `bots` bots after them; returns (room, host token).

        `bot_levels`: each bot's level in seat order (missing ones: `bot_level`); `bot_level`:
        the host's level, for the turn timer's default move and "Let a bot play"."""
        if preset not in rules_engine.PRESETS:
            raise Refused(Text("Unknown game %(game)s.", game=repr(preset)))
        name = clean_name(host_name)
        if not name:
            raise Refused(Text("Please type your display name."))
        lo, hi = rules_engine.player_limits(preset, options)
        if not lo <= seats <= hi:
            raise Refused(Text("This game seats %(low)s to %(high)s players.", low=lo, high=hi))
        try:  # a full table must be playable (fewer players at the start always are)
            rules_engine.make_game(preset, seats, 0, options)
        except (ValueError, TypeError) as exc:
            raise Refused(text_of(exc)) from None
        if turn_seconds and not MIN_TURN_SECONDS <= turn_seconds <= MAX_TURN_SECONDS:
            raise Refused(Text("A turn timer runs %(low)s to %(high)s seconds (0: no timer).", low=MIN_TURN_SECONDS,
                               high=MAX_TURN_SECONDS))
        if not 0 <= bots <= seats - 1:
            raise Refused(Text("Between 0 and %(n)s bots, please.", n=seats - 1))
        levels = list(bot_levels or [])[:bots]
        levels += [bot_level] * (bots - len(levels))
        if any(level not in LEVELS for level in [*levels, bot_level]):
            raise Refused(Text("Unknown bot level: choose easy, medium or strong."))
        token = new_token()
        token_hash, code_hash = seat_secrets(token)
        seat_rows = [Seat(0, name, token_hash, code_hash=code_hash)]
        for i in range(bots):
            seat_rows.append(Seat(i + 1, f"{BOT_NAMES[i % len(BOT_NAMES)]} (bot)", None, is_bot=True))
        created: list[Event] = [(0, "create", {"preset": preset, "options": options, "seats": seats,
                               "turn_seconds": turn_seconds, "bot_level": bot_level,
                               **({"table": True} if table else {}),
                               **({"decks": deck_key} if deck_key else {})})]
        created += [(s.seat, "join", {"seat": s.seat, "name": s.name}) if not s.is_bot else
                    (s.seat, "bot", {"seat": s.seat, "name": s.name, "level": levels[s.seat - 1]})
                    for s in seat_rows]

        seen_at = None if table else moment(self.clock.now())  # a club table is never swept

        def store_room() -> tuple[str, int]:
            with session_scope(self.db) as session:
                slug = new_slug()
                while store.get_room(session, slug=slug) is not None:
                    slug = new_slug()
                row = store.create_room(session, slug=slug, preset=preset, options=options, seats=seats, host=0,
                                        seen_at=seen_at)
                assert row.id is not None
                store.record_events(session, room_id=row.id, seen_version=0, events=created, status=RoomStatus.LOBBY,
                                    seats=[s.row() for s in seat_rows])
                return slug, row.id

        async with self._create_lock:
            slug, room_id = await asyncio.to_thread(store_room)  # off the event loop
            version = len(created)
            state = RoomState(
                room_id=room_id,
                slug=slug,
                preset=preset,
                options=options,
                capacity=seats,
                status=RoomStatus.LOBBY,
                version=version,
                host=0,
                seats=seat_rows,
                turn_started=self.clock.now(),
            )
            state.club_table = table
            state.deck_key = deck_key
            state.turn_seconds = turn_seconds
            for _seat, kind, payload in created:
                state.bot_levels.note(kind, payload)
            room = LiveRoom(self, state)
            self.rooms[slug] = room
        self.warm_bots(levels)
        return room, token
