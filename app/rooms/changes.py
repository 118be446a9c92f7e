"""The one way a room changes: check under the lock, commit to the event log, then apply.

Commit, then apply: a change is worked out on a fork of the game and staged as a `Change`
without touching the room's state; the writer thread commits it off the event loop, and only once
the commit succeeded does the state adopt it. A commit that fails leaves the room exactly as it
was (memory is always the last committed state), so the room carries on by itself as soon as the
database answers again.

What happens around a change (publishing it, the bots and timers looking again, the game-over
observers) is the room's: `RoomChanges` is handed a `ChangeSite` that does it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Generic, Protocol, TypeVar

from app.rooms import engine
from app.rooms.clock import Clock
from app.rooms.host import Event
from app.rooms.seats import Refused, Seat
from app.rooms.state import RoomState, RoomStatus
from app.rules.text import Text
from app.store.room_writes import VersionConflict

log = logging.getLogger("gurka.rooms")

T = TypeVar("T")

NOT_SAVED = Text("The server could not save that move (the database is not answering); nothing changed, "
                 "try again in a moment.")
RETRY_SECONDS = 2.0  # after a failed commit, bots and timers try again this much later


class NotSaved(Refused):
    """The change could not be committed: nothing changed, the room is as it was."""


@dataclass
class Change(Generic[T]):
    """A staged room change: the events to commit and what the room becomes once they are.

    `game` (a fork, or a new game) replaces the room's game; `seats`, `status` and `host` replace
    the room's when given; `after` are in-memory-only steps run once the commit succeeded."""

    result: T
    events: list[Event] = field(default_factory=list)
    seats: dict[int, Seat] | None = None
    status: RoomStatus | None = None
    host: int | None = None
    game: engine.Game | None = None
    after: list[Callable[[], object]] = field(default_factory=list)


def old_news(note_seat: int | None, events: Iterable[Event]) -> bool:
    """Whether a "Time: a bot played … for X" note about `note_seat` is no longer news after
    `events` (seat, kind, payload): once that seat moves again (its player, or a bot for it)
    or a new deal is dealt. (Another timeout of the seat brings a note of its own.)"""
    return any(kind == "deal" or (kind == "act" and seat == note_seat and not payload.get("timeout"))
               for seat, kind, payload in events)


def status_after(game: engine.Game | None, status: RoomStatus | None) -> RoomStatus | None:
    """The status to store: over once `game` has ended, else `status`."""
    return RoomStatus.OVER if game is not None and game.over else status


class ChangeSite(Protocol):
    """What a room's changes need from the room around them."""

    @property
    def clock(self) -> Clock: ...

    async def store(self, change: Change[T]) -> int:
        """Commit the change's events (and seats, status, host) after the state's version; the
        new version. Raises VersionConflict if the room moved on elsewhere."""
        ...

    async def reload(self) -> None:
        """Adopt the room as the database now has it (after another process moved it)."""
        ...

    def seats_changed(self) -> None:
        """The state's seats changed: every connection sits where its token now says."""
        ...

    def changed(self) -> None:
        """The state changed (or may have): show it to everybody."""
        ...

    def look_again(self) -> None:
        """Bots and timers: see what is due now."""
        ...

    async def game_over(self) -> None:
        """The game just ended (its final change is committed and shown)."""
        ...


class RoomChanges:
    def __init__(self, state: RoomState, site: ChangeSite) -> None:
        self.state = state
        self.site = site
        self.lock = asyncio.Lock()  # one change at a time
        # The version this process's commit in flight will give the room (None: none in flight):
        # its own doorbell may ring before the commit is adopted, and needs no catching up.
        self.committing: int | None = None
        # True when this process's last change lost the version race to another process: that
        # process's action path drives the bots from there (a bot here stops re-trying).
        self.moved_elsewhere = False
        self.retry_task: asyncio.Task[None] | None = None  # bots and timers again after a failed commit

    async def run(self, fn: Callable[[], Change[T]]) -> T:
        """Stage the change (`fn`, on a fork: it never touches the state), commit it, and only
        then adopt it and show it."""
        state = self.state
        async with self.lock:
            was_over = state.status == RoomStatus.OVER
            for attempt in range(3):
                try:
                    change = fn()
                except Refused:
                    if attempt:  # reloaded after a conflict: everybody here gets the fresh table
                        self.site.changed()
                    raise
                except Exception:
                    log.exception("room %s: a change could not be worked out; nothing changed", state.id)
                    raise Refused(Text("Something went wrong on the server; nothing changed.")) from None
                if not change.events:  # nothing to store
                    self.adopt(change, state.version)
                    result = change.result
                    break
                try:
                    version = await self._store(change)
                except VersionConflict:
                    # Another process moved this room first: the database refused our version.
                    # Adopt what it wrote (one consistent snapshot) and check the request again
                    # (a move made on the old version is then refused as stale; a join retries).
                    log.info("room %s: another process moved first; reloading", state.id)
                    self.moved_elsewhere = True
                    try:
                        await self.site.reload()
                    except Exception as exc:  # noqa: BLE001  (any failure: nothing changed)
                        log.warning("room %s: could not reload (%s); nothing changed", state.id,
                                    exc.__class__.__name__)
                        self.retry_later()
                        raise NotSaved(NOT_SAVED) from None
                    continue
                except Exception as exc:  # noqa: BLE001  (any failure: nothing changed)
                    log.warning("room %s: the change was not saved (%s: %s); nothing changed", state.id,
                                exc.__class__.__name__, str(exc).splitlines()[0][:200] if str(exc) else "")
                    self.retry_later()
                    raise NotSaved(NOT_SAVED) from None
                self.adopt(change, version)
                result = change.result
                break
            else:
                self.site.changed()
                raise Refused(Text(
                    "Another move reached the table first (it is now at version %(version)s): "
                    "here is the fresh table.", version=state.version
                ))
            game_over = state.status == RoomStatus.OVER and not was_over
            self.moved_elsewhere = False
        self.site.changed()
        self.site.look_again()
        if game_over:
            await self.site.game_over()
        return result

    def adopt(self, change: Change[T], version: int) -> None:
        """The change is committed at `version`: the state becomes what it staged."""
        state = self.state
        with state.state_lock:
            if change.game is not None:
                state.game = change.game
            if change.seats is not None:
                state.seats = dict(sorted(change.seats.items()))
            if change.status is not None:
                state.status = change.status
            if change.host is not None:
                state.host = change.host
            state.version = version
            for _seat, kind, payload in change.events:
                state.bot_levels.note(kind, payload)
        if state.time_note is not None and old_news(state.time_note_seat, change.events):
            state.time_note = state.time_note_seat = None
        for step in change.after:
            step()
        if change.seats is not None:
            self.site.seats_changed()

    async def _store(self, change: Change[T]) -> int:
        self.committing = self.state.version + len(change.events)
        try:
            return await self.site.store(change)
        finally:
            self.committing = None

    def retry_later(self) -> None:
        """After a failed commit: let the bots and timers look again a little later (the room
        itself needs nothing: it is still at its last committed state)."""
        if self.retry_task is not None and not self.retry_task.done():
            return
        with contextlib.suppress(RuntimeError):
            self.retry_task = asyncio.get_running_loop().create_task(
                self._retry_after(RETRY_SECONDS), name=f"retry-{self.state.slug}"
            )

    async def _retry_after(self, delay: float) -> None:
        clock = self.site.clock
        await clock.sleep_until(clock.now() + delay)
        self.site.look_again()

    def stop(self) -> None:
        if self.retry_task is not None:
            self.retry_task.cancel()
