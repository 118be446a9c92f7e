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

from app.rooms.messages import RoomMessages
from app.rooms.seats import Refused

log = logging.getLogger("gurka.rooms")


class RoomTimers(RoomMessages):
    def publish(self) -> None:
        if self.version != self.armed_version:  # a new version: the turn starts now
            self.armed_version = self.version
            self.turn_started = self.manager.clock.now()
        super().publish()
        self.arm()

    def rearm(self) -> None:
        self.arm()

    def next_moment(self) -> tuple[float, str] | None:
        """The earliest thing due: ("turn" | "deal" | "away", when)."""
        moments: list[tuple[float, str]] = []
        deadline = self.turn_deadline()
        if deadline is not None:
            moments.append((deadline, "turn"))
        deal = self.deal_due()
        if deal is not None:
            moments.append((deal, "deal"))
        takeover = self.manager.takeover_seconds
        now = self.manager.clock.now()
        if self.next_host() is not None:  # the host is away and someone else is here
            moments.append((self.absent_since.get(self.host, now) + takeover, "away"))
        if self.status == "playing":
            present = self.present()
            for s in self.seats.values():
                if s.botted or s.seat in present:
                    continue
                moment = self.absent_since.get(s.seat, now) + takeover
                if moment > now:  # the "Let a bot play" button appears then
                    moments.append((moment, "away"))
        return min(moments) if moments else None

    def arm(self) -> None:
        """(Re)start the timer for the earliest moment due (idempotent, cheap). A timer asleep
        until an earlier moment is kept: it wakes then and sleeps on until the moment armed last
        (a move puts the turn's deadline later: no new task per move)."""
        due = self.next_moment()
        old = self._timer_task
        running = old is not None and not old.done() and old is not asyncio.current_task()
        if due is not None:
            self._timer_due = (due[0], due[1], self.version)
            if running and self._timer_moment <= due[0]:
                return
        if running:
            assert old is not None
            old.cancel()
        self._timer_task = None
        if due is None:
            return
        self._timer_moment = due[0]
        with contextlib.suppress(RuntimeError):  # no running loop (a room loaded outside one)
            self._timer_task = asyncio.get_running_loop().create_task(self._fire(due[0]), name=f"timer-{self.slug}")

    async def _fire(self, moment: float) -> None:
        clock = self.manager.clock
        while True:
            await clock.sleep_until(moment)
            at, kind, version = self._timer_due  # what was armed last, for the version then
            if at <= moment:
                break
            moment = self._timer_moment = at
        try:
            if kind == "turn":
                await self.expire_turn(version)
            elif kind == "deal":
                await self.deal_next(version)
            else:
                await self.pass_host()
        except Refused as refused:  # another process moved first: it carries on from there
            log.info("room %s: %s timer did nothing: %s", self.id, kind, refused)
        except Exception:
            log.exception("room %s: the %s timer failed", self.id, kind)
            return
        if self._timer_task is not asyncio.current_task():
            return  # the change it made re-armed the timer already
        self._timer_task = None
        super().publish()  # show what is due now (the "Let a bot play" button), without re-arming
        upcoming = self.next_moment()
        # look again, but never retry a moment that passed without any change in a loop
        if upcoming is not None and (upcoming[0] > clock.now() or self.version != version):
            self.arm()

    async def stop_timers(self) -> None:
        task = self._timer_task
        self._timer_task = None
        if task is not None:
            task.cancel()
            with contextlib.suppress(BaseException):
                await task
