"""What a room needs from whoever hosts it (the manager), as a small protocol.

A room never imports its manager: it is handed a `RoomHost` and calls it back with itself.
"""

from __future__ import annotations

from typing import Protocol, TypeVar

from app.bot_pool import BotMove, BotRequest
from app.rooms.chat import ChatLine
from app.rooms.clock import Clock
from app.rooms.news import News
from app.rooms.seats import Seat
from app.store import room_writes

Event = room_writes.Event  # seat, kind, payload

R_contra = TypeVar("R_contra", contravariant=True)


class Timing(Protocol):
    """The clock and timings a room's host sets, and the decks it deals from."""

    @property
    def bot_delay(self) -> float:
        """Seconds a bot waits before it acts."""
        ...

    @property
    def clock(self) -> Clock:
        """The rooms' clock (wall-clock seconds; a fake one in tests)."""
        ...

    @property
    def deal_pause(self) -> float:
        """Seconds the final trick and cards stay on the table before the next deal (0: none)."""
        ...

    @property
    def takeover_seconds(self) -> float:
        """How long a seat must be empty before it can be handed to a bot."""
        ...

    def deck_for(self, key: str, deal_no: int, /) -> list[str] | None:
        """Deal `deal_no` (1, 2, ...) of a duplicate round's table: the deck stored under `key`
        in its order, or None (a fresh shuffle). Answers at once, on the event loop."""
        ...


class RoomHost(Timing, Protocol[R_contra]):
    """The services a room of type `R_contra` is given by its host."""

    async def store_commit(
        self,
        room: R_contra,
        *,
        events: list[Event],
        seats: list[Seat] | None,
        status: str | None,
        host: int | None,
    ) -> int:
        """Commit events (and seat/status/host changes) after the room's version, off the event
        loop, in one transaction (maybe shared with other rooms' commits); the new version once it
        committed. Raises VersionConflict if the room moved on elsewhere."""
        ...

    async def decide_bot(self, request: BotRequest, delay: float) -> BotMove:
        """A bot's move, never sooner than `delay` seconds on the rooms' clock; the thinking
        runs off the event loop, overlapping the delay (the bot pool, `app.bot_pool`)."""
        ...

    async def reload(self, room: R_contra) -> None:
        """Rebuild the room from one consistent snapshot of the database, read off the event loop
        (after another process moved it first)."""
        ...

    async def game_over(self, room: R_contra) -> None:
        """Tell whoever listens that the room's game has just ended."""
        ...

    def publish(self, room: R_contra, news: News, /) -> None:
        """Show `news` about `room` to its readers (the web layer draws it and makes the frames)."""
        ...

    def save_chat(self, room: R_contra, line: ChatLine, /) -> None:
        """Store one chat line with the room (blocking: called off the event loop)."""
        ...
