"""What a room holds: its seats, its game, its version, its connections; and its rebuild from
the event log. The jobs on top of it live in `presence`, `publishing`, `actions` and `messages`.
"""

from __future__ import annotations

import asyncio
import secrets
import threading
from collections import OrderedDict
from typing import Any

from app.rooms import engine
from app.rooms.bot_levels import BotLevels
from app.rooms.chat import ChatLog
from app.rooms.host import RoomHost
from app.rooms.hub import Connection
from app.rooms.presence_updates import PresenceCoalescer
from app.rooms.seats import Seat

DEFAULT_TURN_SECONDS = 60.0  # a new room's turn timer unless its host chose otherwise


class RoomState:
    def __init__(
        self,
        manager: RoomHost[Any],  # called back with the room itself (a LiveRoom)
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
        # A duplicate night's table: the key of its round's decks (the host deals deal k from
        # deck k of that key: `next_deck`); None deals from a fresh shuffle.
        self.deck_key: str | None = None
        self._bot_task: asyncio.Task[None] | None = None
        self._retry_task: asyncio.Task[None] | None = None  # bots and timers again after a failed commit
        # The version this process's commit in flight will give the room (None: none in flight):
        # its own doorbell may ring before the commit is adopted, and needs no catching up.
        self.committing: int | None = None
        # Held while the committed state (game, seats, status, host, version) changes, and by a
        # page rendered in a worker thread while it reads that state: never half of a change.
        self.state_lock = threading.Lock()
        self.chat = ChatLog()  # table talk: kept apart from the game, never moves the version
        self.chat_lock = asyncio.Lock()
        # True when this process's last change lost the version race to another process: that
        # process's action path drives the bots from there (a bot here stops re-trying).
        self.moved_elsewhere = False
        # Seats coming and going are shown to everybody, a burst of them at a bounded rate
        self.presence = PresenceCoalescer(self.show_presence)
        # Timers (see `timers`): seconds a human may take per move (0: no turn timer), when the
        # current version was reached (the turn's start, stored as its event's time), each seat's
        # timeouts in a row, and the last "Time: …" note shown on the table with the seat it is
        # about (it is news until that seat moves again or a new deal is dealt: `turns.old_news`).
        self.turn_seconds: float = DEFAULT_TURN_SECONDS
        self.turn_started: float = manager.clock.now()
        self.armed_version = version
        self.timeouts: dict[int, int] = {}
        self.time_note: str | None = None
        self.time_note_seat: int | None = None
        # Seats that said yes to a rematch since the last game ended (the "ready" vote).
        self.ready: set[int] = set()
        # The level of each bot that plays here, and the host's level (`bot_levels`).
        self.bot_levels = BotLevels()
        self._timer_task: asyncio.Task[None] | None = None
        self._timer_moment = 0.0  # when the timer task wakes next
        self._timer_due: tuple[float, str, int] = (0.0, "turn", version)  # armed last: (moment, kind, version)
        now = manager.clock.now()
        for s in self.seats.values():
            self.absent_since[s.seat] = now

    def publish(self) -> None:
        """Offer every connection what changed of its table: the publishing layer (`publishing.py`) does it."""
        raise NotImplementedError

    def show_presence(self) -> None:
        """Show everybody who is here now: the publishing layer (`publishing.py`) does it."""
        raise NotImplementedError

    def rearm(self) -> None:
        """Presence changed without a publish: the timers layer (`timers.py`) looks again at
        what is due (an absent seat's takeover moment, the host role)."""

    def rebuild_game(self, events: list[tuple[int | None, str, dict[str, Any]]]) -> None:
        """Replay the event log: the last `start` and every deal and action after it."""
        game = None
        for seat, kind, payload in events:
            self.bot_levels.note(kind, payload)
            if kind == "create":
                self.club_table = bool(payload.get("table"))
                self.deck_key = payload.get("decks")
                self.turn_seconds = float(payload.get("turn_seconds", DEFAULT_TURN_SECONDS))
            elif kind == "ready" and seat is not None:
                self.ready.add(seat)
            elif kind == "start":
                self.ready.clear()
                game = engine.make_game(self.preset, len(payload["players"]), payload["dealer"],
                                        payload.get("options", self.options))
            elif kind == "deal" and game is not None:
                engine.replay_deal(game, payload)
            elif kind == "act" and game is not None and seat is not None:
                engine.apply(game, payload["action"], seat)
                self.count_timeout(seat, bool(payload.get("timeout")))
            elif kind in ("takeover", "takeback") and isinstance(payload.get("seat"), int):
                self.timeouts.pop(payload["seat"], None)
        self.game = game

    def next_deck(self, game: engine.Game) -> list[str] | None:
        """The deck the next deal of `game` is dealt from (a duplicate night's table), or None."""
        return self.manager.deck_for(self.deck_key, game.deal_no + 1) if self.deck_key else None

    def count_timeout(self, seat: int, timed_out: bool) -> int:
        """Count a move for `seat`: timeouts in a row go up, a move of its own clears them."""
        count = self.timeouts.get(seat, 0) + 1 if timed_out else 0
        self.timeouts[seat] = count
        return count

    def adopt(self, fresh: RoomState) -> None:
        """Take over the stored state of `fresh` (this room rebuilt from the database)."""
        with self.state_lock:
            self.status, self.version, self.host = fresh.status, fresh.version, fresh.host
            self.seats, self.game = fresh.seats, fresh.game
        self.timeouts, self.turn_seconds = fresh.timeouts, fresh.turn_seconds
        self.ready = fresh.ready
        self.bot_levels = fresh.bot_levels
        self.reseat()

    def bot_level(self, seat: int) -> str:
        """The level of the bot that plays `seat` (a bot seat or one handed to a bot)."""
        s = self.seats.get(seat)
        return self.bot_levels.host if s is None else self.bot_levels.of(s)

    def seat_of(self, token_hash: str | None) -> int | None:
        if not token_hash:
            return None
        for s in self.seats.values():
            if s.token_hash and secrets.compare_digest(s.token_hash, token_hash):
                return s.seat
        return None

    def reseat(self) -> None:
        """Every connection sits where its token now says (after seats changed)."""
        for conn in self.connections:
            conn.seat = self.seat_of(conn.token_hash)
