"""A room's timers: the turn timer, the pause before the next deal, the moment an absent seat
may go to a bot (the button is pushed then) and the host role passing on.

Nothing sleeps as the source of truth: every moment is computed from stored facts (the time
the current version was committed, the room's `turn_seconds`, when a seat went away), so a
restarted server (or another process) re-arms from the same facts. One task per room sleeps
on the rooms' clock until the earliest moment, then starts the matching room operation for
the version it was armed for; any change re-arms it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from typing import Protocol

from app.rooms.host import Timing
from app.rooms.presence import Presence
from app.rooms.seats import Refused
from app.rooms.state import RoomState, RoomStatus

log = logging.getLogger("gurka.rooms")


class Timed(Protocol):
    """The moments a room's timers wait for, and what each one starts (the room's `Turns`)."""

    def turn_deadline(self) -> float | None: ...

    def deal_due(self) -> float | None: ...

    def next_host(self) -> int | None: ...

    async def expire_turn(self, seen: int) -> str | None: ...

    async def deal_next(self, seen: int | None, by: int | None = None) -> bool: ...

    async def pass_host(self) -> int | None: ...


class Timers:
    def __init__(self, state: RoomState, turns: Timed, presence: Presence, timing: Timing,
                 show: Callable[[], None]) -> None:
        self.state = state
        self.turns = turns
        self.presence = presence
        self.timing = timing
        self.show = show  # show everybody their table as it is now (a button may have appeared)
        self.armed_version = state.version
        self.task: asyncio.Task[None] | None = None
        self.moment = 0.0  # when the timer task wakes next
        self.due: tuple[float, str, int] = (0.0, "turn", state.version)  # armed last: (moment, kind, version)

    def new_turn(self) -> None:
        """The room is about to be shown: if it reached a new version, the turn starts now."""
        state = self.state
        if state.version != self.armed_version:
            self.armed_version = state.version
            state.turn_started = self.timing.clock.now()

    def next_moment(self) -> tuple[float, str] | None:
        """The earliest thing due: ("turn" | "deal" | "away", when)."""
        moments: list[tuple[float, str]] = []
        deadline = self.turns.turn_deadline()
        if deadline is not None:
            moments.append((deadline, "turn"))
        deal = self.turns.deal_due()
        if deal is not None:
            moments.append((deal, "deal"))
        takeover = self.timing.takeover_seconds
        now = self.timing.clock.now()
        if self.turns.next_host() is not None:  # the host is away and someone else is here
            moments.append((self.presence.absent_since.get(self.state.host, now) + takeover, "away"))
        if self.state.status == RoomStatus.PLAYING:
            present = self.presence.present()
            for s in self.state.seats.values():
                if s.botted or s.seat in present:
                    continue
                moment = self.presence.absent_since.get(s.seat, now) + takeover
                if moment > now:  # the "Let a bot play" button appears then
                    moments.append((moment, "away"))
        return min(moments) if moments else None

    def arm(self) -> None:
        """(Re)start the timer for the earliest moment due (idempotent, cheap). A timer asleep
        until an earlier moment is kept: it wakes then and sleeps on until the moment armed last
        (a move puts the turn's deadline later: no new task per move)."""
        due = self.next_moment()
        old = self.task
        running = old is not None and not old.done() and old is not asyncio.current_task()
        if due is not None:
            self.due = (due[0], due[1], self.state.version)
            if running and self.moment <= due[0]:
                return
        if running:
            assert old is not None
            old.cancel()
        self.task = None
        if due is None:
            return
        self.moment = due[0]
        with contextlib.suppress(RuntimeError):  # no running loop (a room loaded outside one)
            self.task = asyncio.get_running_loop().create_task(self._fire(due[0]), name=f"timer-{self.state.slug}")

    async def _fire(self, moment: float) -> None:
        clock = self.timing.clock
        while True:
            await clock.sleep_until(moment)
            at, kind, version = self.due  # what was armed last, for the version then
            if at <= moment:
                break
            moment = self.moment = at
        try:
            if kind == "turn":
                await self.turns.expire_turn(version)
            elif kind == "deal":
                await self.turns.deal_next(version)
            else:
                await self.turns.pass_host()
        except Refused as refused:  # another process moved first: it carries on from there
            log.info("room %s: %s timer did nothing: %s", self.state.id, kind, refused)
        except Exception:
            log.exception("room %s: the %s timer failed", self.state.id, kind)
            return
        if self.task is not asyncio.current_task():
            return  # the change it made re-armed the timer already
        self.task = None
        self.show()  # show what is due now (the "Let a bot play" button), without re-arming
        upcoming = self.next_moment()
        # look again, but never retry a moment that passed without any change in a loop
        if upcoming is not None and (upcoming[0] > clock.now() or self.state.version != version):
            self.arm()

    async def stop(self) -> None:
        task = self.task
        self.task = None
        if task is not None:
            task.cancel()
            with contextlib.suppress(BaseException):
                await task
