"""What a room holds, and nothing else: its seats, its game, its version and status, its host,
the facts its timers and bots are worked out from; and its rebuild from the event log.

A plain object: no tasks, no connections, no I/O. The room's collaborators (`presence`,
`changes`, `actions`, `turns`, `bots`, `timers`, `talk`) read it, and only a committed change
(`changes.RoomChanges`) or a rebuild from the database changes what it says.
"""

from __future__ import annotations

import functools
import json
import random
import secrets
import threading
from collections.abc import Mapping
from collections.abc import Set as AbstractSet
from enum import StrEnum
from typing import Any, Protocol

from app.rooms import engine
from app.rooms.bot_levels import BotLevels
from app.rooms.seats import Seat

DEFAULT_TURN_SECONDS = 60.0  # a new room's turn timer unless its host chose otherwise


class RoomStatus(StrEnum):
    """Where a room's game stands (stored as these very words)."""

    LOBBY = "lobby"  # waiting for its start: seats come and go
    PLAYING = "playing"
    OVER = "over"  # the game ended (a rematch, or a club night's next table, may follow)


class RoomView(Protocol):
    """A room's state as its callers see it (`LiveRoom.state`): read-only. They change a room
    through its messages (`LiveRoom.join`, `act`, `start`, `handle`, ...); only the room's own
    collaborators write a `RoomState`."""

    @property
    def id(self) -> int: ...
    @property
    def slug(self) -> str: ...
    @property
    def preset(self) -> str: ...
    @property
    def options(self) -> Mapping[str, Any]: ...
    @property
    def capacity(self) -> int: ...
    @property
    def status(self) -> RoomStatus: ...
    @property
    def version(self) -> int: ...
    @property
    def host(self) -> int: ...
    @property
    def seats(self) -> Mapping[int, Seat]: ...
    @property
    def game(self) -> engine.Game | None: ...
    @property
    def state_lock(self) -> threading.Lock: ...
    @property
    def club_table(self) -> bool: ...
    @property
    def deck_key(self) -> str | None: ...
    @property
    def turn_seconds(self) -> float: ...
    @property
    def turn_started(self) -> float: ...
    @property
    def timeouts(self) -> Mapping[int, int]: ...
    @property
    def time_note(self) -> str | None: ...
    @property
    def time_note_seat(self) -> int | None: ...
    @property
    def ready(self) -> AbstractSet[int]: ...
    @property
    def bot_levels(self) -> BotLevels: ...
    @property
    def hurry_for(self) -> int | None: ...
    @property
    def players(self) -> int: ...
    def limits(self) -> tuple[int, int]: ...
    def hurried(self) -> bool: ...
    def bot_level(self, seat: int) -> str: ...
    def seat_of(self, token_hash: str | None) -> int | None: ...


class RoomState:
    def __init__(
        self,
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
        turn_started: float = 0.0,
    ) -> None:
        self.id = room_id
        self.slug = slug
        self.preset = preset
        self.options = options
        self.capacity = capacity
        self.status = RoomStatus(status)
        self.version = version
        self.host = host
        self.seats: dict[int, Seat] = {s.seat: s for s in seats}
        self.game: engine.Game | None = None
        self.rng: random.Random = secrets.SystemRandom()
        # Held while the committed state (game, seats, status, host, version) changes, and by a
        # page rendered in a worker thread while it reads that state: never half of a change.
        self.state_lock = threading.Lock()
        # A club table (seated and started by a Gurka Night): the night, not a rematch, decides
        # what is played next.
        self.club_table = False
        # A duplicate night's table: the key of its round's decks (the host deals deal k from
        # deck k of that key); None deals from a fresh shuffle.
        self.deck_key: str | None = None
        # Seconds a human may take per move (0: no turn timer); when the current version was
        # reached (the turn's start, stored as its event's time); each seat's timeouts in a row;
        # the last "Time: …" note shown on the table with the seat it is about (news until that
        # seat moves again or a new deal is dealt: `changes.old_news`).
        self.turn_seconds: float = DEFAULT_TURN_SECONDS
        self.turn_started = turn_started
        self.timeouts: dict[int, int] = {}
        self.time_note: str | None = None
        self.time_note_seat: int | None = None
        # Seats that said yes to a rematch since the last game ended (the "ready" vote).
        self.ready: set[int] = set()
        # The level of each bot that plays here, and the host's level (`bot_levels`).
        self.bot_levels = BotLevels()
        # A player who is out asked the bots to finish the game at once (practice): while that
        # seat is out of the game being played, bots move without their delay and the next deal
        # follows without the pause (`hurried`). Not stored: a restart plays on at the usual pace.
        self.hurry_for: int | None = None

    @property
    def players(self) -> int:
        return len(self.seats)

    def limits(self) -> tuple[int, int]:
        """The fewest and most players this room's game takes."""
        return _player_limits(self.preset, json.dumps(self.options, sort_keys=True))

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

    def hurried(self) -> bool:
        """The bots finish this game at once (see `hurry_for`)."""
        g = self.game
        return self.hurry_for is not None and g is not None and not g.over and self.hurry_for in g.out

    def bot_level(self, seat: int) -> str:
        """The level of the bot that plays `seat` (a bot seat or one handed to a bot)."""
        s = self.seats.get(seat)
        return self.bot_levels.host if s is None else self.bot_levels.of(s)

    def seat_of(self, token_hash: str | None) -> int | None:
        """The seat whose token hashes to `token_hash` (None: a spectator)."""
        if not token_hash:
            return None
        for s in self.seats.values():
            if s.token_hash and secrets.compare_digest(s.token_hash, token_hash):
                return s.seat
        return None


@functools.lru_cache(maxsize=256)
def _player_limits(preset: str, options: str) -> tuple[int, int]:
    """A room's player limits (they build a game to ask its rules: every table rendering
    needs them, so they are worked out once per preset and options)."""
    return engine.player_limits(preset, json.loads(options))
