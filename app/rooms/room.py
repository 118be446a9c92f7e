"""An authoritative room: one asyncio lock serialises every change.

Every accepted change gets the next version number(s) and is committed to the event log
before anybody is told; then each connection is offered its seat's full table.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from app.rooms import engine
from app.rooms.hub import Connection
from app.rooms.tokens import hash_token, new_token
from app.store.rooms import VersionConflict

if TYPE_CHECKING:
    from app.rooms.manager import RoomManager

log = logging.getLogger("gurka.rooms")

MAX_FRAME = 8 * 1024
MAX_NAME = 24
BOT_NAMES = ("Bodil", "Egon", "Frida", "Gunnar", "Hulda", "Ivar", "Jonna", "Kalle")

Event = tuple[int | None, str, dict[str, Any]]


class Refused(Exception):
    """A request the room turns down; the text goes back to the sender as is."""


@dataclass(frozen=True)
class Seat:
    seat: int
    name: str
    token_hash: str | None = None
    is_bot: bool = False
    bot_controlled: bool = False

    @property
    def botted(self) -> bool:
        return self.is_bot or self.bot_controlled

    def row(self) -> dict[str, Any]:
        return {
            "seat": self.seat,
            "name": self.name,
            "token_hash": self.token_hash,
            "is_bot": self.is_bot,
            "bot_controlled": self.bot_controlled,
        }


def clean_name(name: str) -> str:
    name = " ".join(str(name or "").split())
    name = "".join(ch for ch in name if ch.isprintable())
    return name[:MAX_NAME]


class LiveRoom:
    def __init__(
        self,
        manager: RoomManager,
        *,
        room_id: int,
        slug: str,
        preset: str,
        options: dict[str, Any],
        capacity: int,
        status: str,
        version: int,
        host: int,
        seats: list[Seat],
    ) -> None:
        self.manager = manager
        self.id = room_id
        self.slug = slug
        self.preset = preset
        self.options = options
        self.capacity = capacity
        self.status = status
        self.version = version
        self.host = host
        self.seats: dict[int, Seat] = {s.seat: s for s in seats}
        self.game: engine.Game | None = None
        self.lock = asyncio.Lock()
        self.connections: set[Connection] = set()
        self.absent_since: dict[int, float] = {}
        self.recent_aids: OrderedDict[str, int] = OrderedDict()
        self.rng = secrets.SystemRandom()
        # A club table (seated and started by a Gurka Night): the night, not a rematch, decides
        # what is played next.
        self.club_table = False
        self._bot_task: asyncio.Task[None] | None = None
        # True when this process's last change lost the version race to another process: that
        # process's action path drives the bots from there (a bot here stops re-trying).
        self.moved_elsewhere = False
        now = self.manager.clock()
        for s in self.seats.values():
            self.absent_since[s.seat] = now

    # ------------------------------------------------------------------ reading

    @property
    def players(self) -> int:
        return len(self.seats)

    def seat_of(self, token_hash: str | None) -> int | None:
        if not token_hash:
            return None
        for s in self.seats.values():
            if s.token_hash and secrets.compare_digest(s.token_hash, token_hash):
                return s.seat
        return None

    def seat_for_token(self, token: str | None) -> int | None:
        return self.seat_of(hash_token(token)) if token else None

    def present(self) -> set[int]:
        seats = {c.seat for c in self.connections if not c.closed and c.seat is not None}
        return {s for s in seats if s is not None}

    def limits(self) -> tuple[int, int]:
        return engine.player_limits(self.preset, self.options)

    def absent_for(self, seat: int) -> float:
        if seat in self.present():
            return 0.0
        return self.manager.clock() - self.absent_since.get(seat, self.manager.clock())

    def can_hand_to_bot(self, seat: int) -> bool:
        s = self.seats.get(seat)
        if s is None or s.botted or self.status != "playing" or seat in self.present():
            return False
        return self.absent_for(seat) >= self.manager.takeover_seconds

    # ------------------------------------------------------------------ persistence

    def _commit(self, events: list[Event], *, seats: dict[int, Seat] | None = None,
                status: str | None = None, host: int | None = None) -> None:
        """Write events (and seat/status changes) in one transaction; then adopt them."""
        new_version = self.manager.store_commit(
            self, events=events, seats=None if seats is None else list(seats.values()), status=status, host=host
        )
        self.version = new_version
        if seats is not None:
            self.seats = dict(sorted(seats.items()))
        if status is not None:
            self.status = status
        if host is not None:
            self.host = host

    def rebuild_game(self, events: list[tuple[int | None, str, dict[str, Any]]]) -> None:
        """Replay the event log: the last `start` and every deal and action after it."""
        game = None
        for seat, kind, payload in events:
            if kind == "create":
                self.club_table = bool(payload.get("table"))
            elif kind == "start":
                game = engine.make_game(self.preset, len(payload["players"]), payload["dealer"],
                                        payload.get("options", self.options))
            elif kind == "deal" and game is not None:
                engine.replay_deal(game, payload)
            elif kind == "act" and game is not None and seat is not None:
                engine.apply(game, payload["action"], seat)
        self.game = game

    async def _recover(self) -> None:
        """After a failed commit: throw the in-memory state away and reload the room."""
        with contextlib.suppress(Exception):
            await self.manager.reload(self)

    # ------------------------------------------------------------------ changes

    async def _run(self, fn: Callable[[], Any]) -> Any:
        async with self.lock:
            was_over = self.status == "over"
            for attempt in range(3):
                try:
                    result = fn()
                    break
                except Refused:
                    if attempt:  # reloaded after a conflict: everybody here gets the fresh table
                        self.publish()
                    raise
                except VersionConflict:
                    # Another process moved this room first: the database refused our version.
                    # Adopt what it wrote and check the request again against the fresh table (a
                    # move made on the old version is then refused as stale; a join just retries).
                    log.info("room %s: another process moved first; reloading", self.id)
                    self.moved_elsewhere = True
                    await self._recover()
                except Exception:
                    log.exception("room %s: change failed, reloading from the event log", self.id)
                    await self._recover()
                    raise Refused("Something went wrong on the server; the table was reloaded.") from None
            else:
                self.publish()
                raise Refused(
                    f"Another move reached the table first (it is now at version {self.version}): "
                    "here is the fresh table."
                )
            game_over = self.status == "over" and not was_over
            self.moved_elsewhere = False
        self.publish()
        self.schedule_bot()
        if game_over:
            await self.manager.game_over(self)
        return result

    def _auto_deal(self) -> list[Event]:
        g = self.game
        if g is None or g.over or g.phase != "waiting":
            return []
        return [(None, "deal", engine.deal(g, self.rng))]

    def _require_host(self, by: int | None) -> None:
        if by is None or by != self.host:
            raise Refused("Only the host can do that.")

    def _require_lobby(self) -> None:
        if self.status != "lobby":
            raise Refused("The game has already started.")

    def _free_seat(self) -> int:
        for i in range(self.capacity):
            if i not in self.seats:
                return i
        raise Refused("The table is full.")

    async def join(self, name: str) -> tuple[int, str]:
        """A new player sits in the first free seat; returns (seat, token)."""
        name = clean_name(name)
        if not name:
            raise Refused("Please type a display name.")

        def fn() -> tuple[int, str]:
            self._require_lobby()
            if name.casefold() in {s.name.casefold() for s in self.seats.values()}:
                raise Refused(f"Someone at this table is already called {name}.")
            seat = self._free_seat()
            token = new_token()
            seats = dict(self.seats)
            seats[seat] = Seat(seat, name, hash_token(token))
            self._commit([(seat, "join", {"seat": seat, "name": name})], seats=seats)
            self.absent_since[seat] = self.manager.clock()
            return seat, token

        return await self._run(fn)

    async def add_bot(self, by: int | None) -> None:
        def fn() -> None:
            self._require_host(by)
            self._require_lobby()
            seat = self._free_seat()
            used = {s.name for s in self.seats.values()}
            name = next((f"{n} (bot)" for n in BOT_NAMES if f"{n} (bot)" not in used), f"Bot {seat + 1}")
            seats = dict(self.seats)
            seats[seat] = Seat(seat, name, None, is_bot=True)
            self._commit([(by, "bot", {"seat": seat, "name": name})], seats=seats)

        await self._run(fn)

    async def remove_seat(self, by: int | None, seat: int) -> None:
        def fn() -> None:
            self._require_host(by)
            self._require_lobby()
            target = self.seats.get(seat)
            if target is None:
                raise Refused("That seat is already empty.")
            if not target.is_bot and seat in self.present():
                raise Refused("Only bots and absent players can be removed.")
            if seat == self.host:
                raise Refused("The host cannot leave their own seat.")
            seats = dict(self.seats)
            del seats[seat]
            self._commit([(by, "leave", {"seat": seat})], seats=seats)

        await self._run(fn)

    async def start(self, by: int | None, *, dealer: int | None = None) -> None:
        """Start the game; the first dealer is drawn here unless given (a seat number)."""

        def fn() -> None:
            self._require_host(by)
            self._require_lobby()
            lo, hi = self.limits()
            n = len(self.seats)
            if n < lo:
                raise Refused(f"{self.preset} needs at least {lo} players: add a bot or wait for friends.")
            if n > hi:
                raise Refused(f"{self.preset} takes at most {hi} players.")
            # Close the gaps: seats become 0..n-1 in the order people sat down.
            order = sorted(self.seats.values(), key=lambda s: s.seat)
            renumber = {s.seat: i for i, s in enumerate(order)}
            seats = {renumber[s.seat]: replace(s, seat=renumber[s.seat]) for s in order}
            first = self.rng.randrange(n) if dealer is None else renumber.get(dealer)
            if first is None:
                raise Refused("The first dealer must be someone at the table.")
            game = engine.make_game(self.preset, n, first, self.options)
            events: list[Event] = [(by, "start", {"players": [seats[i].name for i in range(n)],
                                                  "dealer": first, "options": self.options})]
            previous_game = self.game
            self.game = game
            try:
                events += self._auto_deal()
                self._commit(events, seats=seats, status="playing", host=renumber[self.host])
            except Exception:
                self.game = previous_game
                raise
            self.absent_since = {renumber.get(k, k): v for k, v in self.absent_since.items() if k in renumber}
            for conn in self.connections:
                conn.seat = self.seat_of(conn.token_hash)

        await self._run(fn)

    async def rematch(self, by: int | None, seen: int | None) -> None:
        def fn() -> None:
            if self.club_table:
                raise Refused("This is a Gurka Night table: the night opens the next game itself.")
            if by is None or by not in self.seats:
                raise Refused("Only the players at this table can start a rematch.")
            if self.status != "over" or self.game is None:
                raise Refused("The game is not over yet.")
            if seen is not None and seen != self.version:
                raise Refused("A rematch has already been started.")
            n = len(self.seats)
            dealer = (self.game.dealer + 1) % n
            game = engine.make_game(self.preset, n, dealer, self.options)
            previous_game = self.game
            self.game = game
            try:
                events: list[Event] = [(by, "start", {"players": [self.seats[i].name for i in range(n)],
                                                      "dealer": dealer, "options": self.options})]
                events += self._auto_deal()
                self._commit(events, status="playing")
            except Exception:
                self.game = previous_game
                raise

        await self._run(fn)

    async def act(self, seat: int | None, action: str, seen: int | None, *, bot: bool = False) -> str:
        def fn() -> str:
            g = self.game
            if seat is None or seat not in self.seats:
                raise Refused("You are watching: only players at the table can play.")
            if g is None or self.status == "lobby":
                raise Refused("The game has not started yet.")
            if not bot and self.seats[seat].botted:
                raise Refused("A bot is playing your seat: take it back first.")
            if seen is None:
                raise Refused("Your message did not say which table version you saw.")
            if seen != self.version:
                raise Refused(
                    f"The table changed before your move arrived (you saw version {seen}, "
                    f"it is now {self.version}): here is the fresh table."
                )
            reason = engine.check(g, action, seat)
            if reason:
                raise Refused(reason)
            applied = engine.apply(g, action, seat)
            events: list[Event] = [(seat, "act", {"action": applied})]
            events += self._auto_deal()
            self._commit(events, status="over" if g.over else None)
            return applied

        return await self._run(fn)

    async def hand_to_bot(self, by: int | None, seat: int) -> None:
        def fn() -> None:
            self._require_host(by)
            s = self.seats.get(seat)
            if s is None:
                raise Refused("There is nobody in that seat.")
            if s.botted:
                raise Refused(f"{s.name}'s seat is already played by a bot.")
            if self.status != "playing":
                raise Refused("Seats can be handed to a bot only during a game.")
            if seat in self.present():
                raise Refused(f"{s.name} is here: only an absent player's seat can go to a bot.")
            wait = self.manager.takeover_seconds - self.absent_for(seat)
            if wait > 0:
                raise Refused(f"{s.name} has been away only briefly: try again in {int(wait) + 1} s.")
            seats = dict(self.seats)
            seats[seat] = replace(s, bot_controlled=True)
            self._commit([(by, "takeover", {"seat": seat})], seats=seats)

        await self._run(fn)

    async def issue_token(self, seat: int) -> str:
        """A fresh seat token for `seat`, replacing the previous one (whoever held the old token
        now only watches). Only the token's hash is stored; the token goes to the caller."""

        def fn() -> str:
            s = self.seats.get(seat)
            if s is None or s.is_bot:
                raise Refused("That seat has no player.")
            token = new_token()
            seats = dict(self.seats)
            seats[seat] = replace(s, token_hash=hash_token(token))
            self._commit([(seat, "token", {"seat": seat})], seats=seats)
            for conn in self.connections:
                conn.seat = self.seat_of(conn.token_hash)
            return token

        return await self._run(fn)

    async def take_back(self, seat: int | None) -> None:
        def fn() -> None:
            s = self.seats.get(seat) if seat is not None else None
            if s is None or not s.bot_controlled:
                raise Refused("Your seat is not played by a bot.")
            seats = dict(self.seats)
            seats[s.seat] = replace(s, bot_controlled=False)
            self._commit([(s.seat, "takeback", {"seat": s.seat})], seats=seats)

        await self._run(fn)

    # ------------------------------------------------------------------ bots

    def bot_seat(self) -> int | None:
        """The seat a bot should move for now, if any."""
        g = self.game
        if g is None or self.status != "playing" or g.over or g.to_act is None:
            return None
        s = self.seats.get(g.to_act)
        return s.seat if s is not None and s.botted else None

    def schedule_bot(self) -> None:
        """Let a bot move if one is due. Idempotent: called after every accepted change and every
        seat change; a pending bot turn decides whose turn it is only when it runs, and looks again
        after its move, so a change made while it waited is never missed."""
        if self.bot_seat() is None:
            return
        if self._bot_task is not None and not self._bot_task.done():
            return
        with contextlib.suppress(RuntimeError):
            self._bot_task = asyncio.get_running_loop().create_task(self._bot_turn(), name=f"bot-{self.slug}")

    async def _bot_turn(self) -> None:
        await self.manager.sleep(self.manager.bot_delay)
        try:
            async with self.lock:
                seat = self.bot_seat()
                version = self.version
                if seat is None or self.game is None:
                    return
                action = engine.bot_action(self.game, seat, self.rng)
        except Exception:
            log.exception("room %s: the bot could not choose", self.id)
            return
        try:
            await self.act(seat, action, version, bot=True)
        except Refused as refused:
            log.info("room %s: bot move refused: %s", self.id, refused)
            if self.moved_elsewhere:  # lost the race to another process: it carries the bots on
                if self._bot_task is asyncio.current_task():
                    self._bot_task = None
                return
        if self._bot_task is asyncio.current_task():
            self._bot_task = None
        if self.version != version:  # something moved (this move or another): look again
            self.schedule_bot()

    async def stop(self) -> None:
        if self._bot_task is not None:
            self._bot_task.cancel()
            with contextlib.suppress(BaseException):
                await self._bot_task
        for conn in list(self.connections):
            await conn.stop()
        self.connections.clear()

    # ------------------------------------------------------------------ connections

    def attach(self, conn: Connection) -> None:
        conn.seat = self.seat_of(conn.token_hash)
        self.connections.add(conn)
        conn.start()
        self.publish()

    def detach(self, conn: Connection) -> None:
        self.connections.discard(conn)
        conn.closed = True
        if conn.seat is not None and conn.seat not in self.present():
            self.absent_since[conn.seat] = self.manager.clock()
        self.publish()

    def publish(self) -> None:
        """Offer every live connection its own full table (rendered once per seat)."""
        cache: dict[int | None, str] = {}
        for conn in list(self.connections):
            if conn.closed:
                self.connections.discard(conn)
                continue
            if conn.seat not in cache:
                cache[conn.seat] = self.table_frame(conn.seat)
            if not conn.offer(cache[conn.seat]):
                self.connections.discard(conn)

    def table_frame(self, seat: int | None) -> str:
        html = self.manager.render_table(self, seat)
        return json.dumps(
            {"kind": "table", "version": self.version, "content": html, "target": "#table", "swap": "outerHTML"}
        )

    def notice_frame(self, message: str, level: str = "error") -> str:
        html = self.manager.render_notice(message, level)
        return json.dumps(
            {"kind": "notice", "level": level, "message": message, "version": self.version,
             "content": html, "target": "#notice", "swap": "innerHTML"}
        )

    def tell(self, conn: Connection, message: str, level: str = "error", *, with_table: bool = True) -> None:
        conn.offer(self.notice_frame(message, level))
        if with_table:
            conn.offer(self.table_frame(conn.seat))

    # ------------------------------------------------------------------ messages

    def _seen_aid(self, aid: str) -> bool:
        if aid in self.recent_aids:
            return True
        self.recent_aids[aid] = self.version
        while len(self.recent_aids) > 512:
            self.recent_aids.popitem(last=False)
        return False

    async def handle(self, conn: Connection, text: str | bytes) -> None:
        """One client message: parse, check, dispatch; every problem becomes a clear notice."""
        if len(text) > MAX_FRAME:
            self.tell(conn, f"That message is too large ({len(text)} bytes; the limit is {MAX_FRAME}).")
            return
        try:
            msg = json.loads(text)
        except (ValueError, UnicodeDecodeError):
            self.tell(conn, "That message was not valid JSON; nothing was changed.")
            return
        if not isinstance(msg, dict):
            self.tell(conn, "That message was not understood (expected a JSON object).")
            return
        do = msg.get("do", "act" if "action" in msg else None)
        seen = msg.get("v")
        if isinstance(seen, str) and seen.strip().lstrip("-").isdigit():
            seen = int(seen)
        if not isinstance(seen, int) or isinstance(seen, bool):
            seen = None
        aid = msg.get("aid")
        if aid is not None and (not isinstance(aid, str) or len(aid) > 64):
            self.tell(conn, "That message had a bad action id; nothing was changed.")
            return
        if aid and self._seen_aid(f"{conn.token_hash}:{aid}"):
            self.tell(conn, "That action was already received; it was not applied twice.", "info")
            return
        seat = conn.seat
        try:
            if do == "act":
                action = msg.get("action")
                if isinstance(action, list):
                    action = " ".join(str(a) for a in action)
                if not isinstance(action, str) or not action.strip() or len(action) > 200:
                    raise Refused("That message did not name an action.")
                await self.act(seat, action.strip(), seen)
            elif do == "sync":
                conn.offer(self.table_frame(seat))
            elif do == "start":
                await self.start(seat)
            elif do == "add_bot":
                await self.add_bot(seat)
            elif do == "remove":
                await self.remove_seat(seat, _int(msg.get("seat")))
            elif do == "hand_to_bot":
                await self.hand_to_bot(seat, _int(msg.get("seat")))
            elif do == "take_back":
                await self.take_back(seat)
            elif do == "rematch":
                await self.rematch(seat, seen)
            else:
                raise Refused(f"Unknown request {str(do)[:40]!r}; nothing was changed.")
        except Refused as refused:
            self.tell(conn, str(refused))
        except engine.IllegalAction as illegal:  # the engine's own words
            self.tell(conn, str(illegal))


def _int(value: Any) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        raise Refused("That message did not name a seat.") from None
