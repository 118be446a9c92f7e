"""Who is here: a room's connections, the seats they hold, since when a seat has been away, and
what that allows (an absent seat handed to a bot after its grace time).

The connections are the room's readers: a connection says which seat's token it holds; the room
maps it to a seat (`reseat`, after seats changed). Nothing here sends anything.
"""

from __future__ import annotations

from app.rooms.host import Timing
from app.rooms.news import Reader
from app.rooms.state import RoomState, RoomStatus
from app.rooms.tokens import hash_token


class Presence:
    def __init__(self, state: RoomState, timing: Timing) -> None:
        self.state = state
        self.timing = timing
        self.connections: set[Reader] = set()
        now = timing.clock.now()
        self.absent_since: dict[int, float] = dict.fromkeys(state.seats, now)

    # ------------------------------------------------------------------ comings and goings

    def attach(self, conn: Reader) -> bool:
        """`conn` joins the readers, at the seat its token says; True if its seat just became
        present (a spectator, or a second tab of a present seat, changes nothing)."""
        conn.seat = self.state.seat_of(conn.token_hash)
        arrived = conn.seat is not None and conn.seat not in self.present()
        self.connections.add(conn)
        return arrived

    def detach(self, conn: Reader) -> bool:
        """`conn` is gone; True if its seat just became absent."""
        self.connections.discard(conn)
        conn.closed = True
        if conn.seat is not None and conn.seat not in self.present():
            self.absent_since[conn.seat] = self.timing.clock.now()
            return True
        return False

    def away_from_now(self, seat: int) -> None:
        """`seat`'s grace time starts again now (it was handed a new token, or taken back)."""
        self.absent_since[seat] = self.timing.clock.now()

    def renumber(self, renumber: dict[int, int]) -> None:
        """The seats were renumbered (a game's start closes the gaps)."""
        self.absent_since = {renumber[k]: v for k, v in self.absent_since.items() if k in renumber}

    def reseat(self) -> None:
        """Every connection sits where its token now says (after seats changed)."""
        for conn in self.connections:
            conn.seat = self.state.seat_of(conn.token_hash)

    def readers(self) -> list[Reader]:
        """The open connections (the closed ones are let go of here)."""
        for conn in [c for c in self.connections if c.closed]:
            self.connections.discard(conn)
        return list(self.connections)

    def at(self, seat: int) -> list[Reader]:
        """The open connections of `seat`."""
        return [c for c in self.connections if c.seat == seat and not c.closed]

    # ------------------------------------------------------------------ questions

    def seat_for_token(self, token: str | None) -> int | None:
        return self.state.seat_of(hash_token(token)) if token else None

    def present(self) -> set[int]:
        """The seats with an open connection."""
        return {c.seat for c in self.connections if not c.closed and c.seat is not None}

    def absent_for(self, seat: int) -> float:
        """Seconds `seat` has been away (0 while it is here)."""
        if seat in self.present():
            return 0.0
        now = self.timing.clock.now()
        return now - self.absent_since.get(seat, now)

    def can_hand_to_bot(self, seat: int, present: set[int] | None = None) -> bool:
        """Whether seat `seat` can be handed to a bot now (`present`: `self.present()`, when the
        caller has it)."""
        s = self.state.seats.get(seat)
        if s is None or s.botted or self.state.status != RoomStatus.PLAYING:
            return False
        if seat in (self.present() if present is None else present):
            return False
        return self.absent_for(seat) >= self.timing.takeover_seconds

    def handovers(self) -> frozenset[int]:
        """The seats a "Let a bot play" button is offered for now."""
        if self.state.status != RoomStatus.PLAYING:
            return frozenset()
        present = self.present()
        return frozenset(i for i in self.state.seats if self.can_hand_to_bot(i, present))
