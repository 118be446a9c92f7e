"""What a room holds: its seats, its game, its version, its connections; and its rebuild from
the event log. The jobs on top of it live in `presence`, `publishing`, `actions` and `messages`.
"""

from __future__ import annotations

import asyncio
import secrets
import time
from collections import OrderedDict
from typing import Any

from app.rooms import engine
from app.rooms.chat import ChatLog
from app.rooms.host import RoomHost
from app.rooms.hub import Connection
from app.rooms.seats import Seat


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
        self._bot_task: asyncio.Task[None] | None = None
        self.chat = ChatLog()  # table talk: kept apart from the game, never moves the version
        self.chat_lock = asyncio.Lock()
        # True when this process's last change lost the version race to another process: that
        # process's action path drives the bots from there (a bot here stops re-trying).
        self.moved_elsewhere = False
        now = time.monotonic()
        for s in self.seats.values():
            self.absent_since[s.seat] = now

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

    def adopt(self, fresh: RoomState) -> None:
        """Take over the stored state of `fresh` (this room rebuilt from the database)."""
        self.status, self.version, self.host = fresh.status, fresh.version, fresh.host
        self.seats, self.game = fresh.seats, fresh.game
        self.reseat()

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
