"""Who sits where and who is here: seat lookups, presence and absence, bot takeover limits."""

from __future__ import annotations

import functools
import json

from app.rooms import engine
from app.rooms.state import RoomState
from app.rooms.tokens import hash_token


class RoomPresence(RoomState):
    @property
    def players(self) -> int:
        return len(self.seats)

    def seat_for_token(self, token: str | None) -> int | None:
        return self.seat_of(hash_token(token)) if token else None

    def present(self) -> set[int]:
        seats = {c.seat for c in self.connections if not c.closed and c.seat is not None}
        return {s for s in seats if s is not None}

    def limits(self) -> tuple[int, int]:
        return _player_limits(self.preset, json.dumps(self.options, sort_keys=True))

    def absent_for(self, seat: int) -> float:
        if seat in self.present():
            return 0.0
        now = self.manager.clock.now()
        return now - self.absent_since.get(seat, now)

    def can_hand_to_bot(self, seat: int, present: set[int] | None = None) -> bool:
        """Whether seat `seat` can be handed to a bot now (`present`: `self.present()`, when the
        caller has it)."""
        s = self.seats.get(seat)
        if s is None or s.botted or self.status != "playing":
            return False
        if seat in (self.present() if present is None else present):
            return False
        return self.absent_for(seat) >= self.manager.takeover_seconds


@functools.lru_cache(maxsize=256)
def _player_limits(preset: str, options: str) -> tuple[int, int]:
    """A room's player limits (they build a game to ask its rules: every table rendering
    needs them, so they are worked out once per preset and options)."""
    return engine.player_limits(preset, json.loads(options))
