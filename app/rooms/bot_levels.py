"""Which bot level plays each botted seat of a room, rebuilt from the room's event log.

Nothing here needs a table of its own: the levels ride in events the room stores anyway.

* ``create`` carries ``bot_level``: the host's level, the one the turn timer's default move and
  "Let a bot play" use (default: heuristic).
* ``bot`` carries ``level``: a bot seat's own level. Bot seats are keyed by their name, which a
  room keeps unique and which stays when the seats are renumbered at the start.
* ``takeover`` carries ``level``: the bot that plays a handed-over seat (a club night's elders
  choose it for the absent); ``takeback`` ends it.
* ``bot_level`` carries ``level``: the host's level from then on (a club night's elders chose
  a level for the night while its tables were open: their turn timers play at it).

A room notes every event it adopts (`note`), and a rebuild replays them all, so a restarted
server, or another process, knows the same levels.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from app.rooms.seats import Seat
from app.rules.bots import BOTS, LEVELS

__all__ = ["DEFAULT_LEVEL", "LEVELS", "BotLevels", "level_or_default", "parse_level"]

DEFAULT_LEVEL = "heuristic"


def parse_level(raw: object) -> str | None:
    """A level a host may choose (`LEVELS`), or None for anything else."""
    return raw if isinstance(raw, str) and raw in LEVELS else None


def level_or_default(raw: object, default: str = DEFAULT_LEVEL) -> str:
    """A stored level (any bot kind, ``random`` included), or `default` for anything else."""
    return raw if isinstance(raw, str) and raw in BOTS else default


@dataclass
class BotLevels:
    host: str = DEFAULT_LEVEL  # the turn timer's default move and "Let a bot play"
    by_name: dict[str, str] = field(default_factory=dict)  # bot seats, by their name
    taken: dict[int, str] = field(default_factory=dict)  # seats handed to a bot, by seat

    def note(self, kind: str, payload: dict[str, Any]) -> None:
        """Take in one stored event (others are ignored)."""
        if kind == "create":
            self.host = level_or_default(payload.get("bot_level"))
        elif kind == "bot" and isinstance(payload.get("name"), str):
            self.by_name[payload["name"]] = level_or_default(payload.get("level"))
        elif kind == "takeover" and isinstance(payload.get("seat"), int):
            self.taken[payload["seat"]] = level_or_default(payload.get("level"), self.host)
        elif kind == "takeback" and isinstance(payload.get("seat"), int):
            self.taken.pop(payload["seat"], None)
        elif kind == "bot_level":
            self.host = level_or_default(payload.get("level"), self.host)

    def of(self, seat: Seat) -> str:
        """The level of the bot that plays `seat` (a bot seat, or one handed to a bot)."""
        if seat.is_bot:
            return self.by_name.get(seat.name, DEFAULT_LEVEL)
        return self.taken.get(seat.seat, self.host)

    def copy(self) -> BotLevels:
        return BotLevels(self.host, dict(self.by_name), dict(self.taken))
