"""A room's bots: when a bot is due (a bot seat, or a seat handed to one, is to act), it thinks in
the bot pool, off the event loop, while its usual delay runs, and its move then goes through the
action path like anybody's."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from typing import Protocol

from app.bot_pool import BotMove, BotRequest
from app.rooms.seats import Refused
from app.rooms.state import RoomState, RoomStatus

log = logging.getLogger("gurka.rooms")

Play = Callable[[int, str, int], Awaitable[object]]  # (seat, action, the version it was chosen at)


class Thinking(Protocol):
    """Where bots think (the room's host: the bot pool), and how long a bot waits."""

    @property
    def bot_delay(self) -> float: ...

    async def decide_bot(self, request: BotRequest, delay: float) -> BotMove: ...


def bot_request(state: RoomState, seat: int, level: str | None = None) -> BotRequest:
    """What the bot for `seat` (the seat to act) may know: that seat's view, the rules and a
    seed from the room's generator; the bot of `level`, else the seat's own."""
    assert state.game is not None
    kind = level or state.bot_level(seat)
    return BotRequest.for_seat(state.game, seat, kind, state.rng.randrange(2**31))


class Race(Protocol):
    """How the room's last change went (the room's `RoomChanges`)."""

    @property
    def moved_elsewhere(self) -> bool:
        """It lost the version race to another process (that process carries the bots on)."""
        ...


class Bots:
    def __init__(self, state: RoomState, thinking: Thinking, play: Play, race: Race) -> None:
        self.state = state
        self.thinking = thinking
        self.play = play  # the action path, as a bot (it refuses a stale move)
        self.race = race
        self.task: asyncio.Task[None] | None = None

    def seat(self) -> int | None:
        """The seat a bot should move for now, if any."""
        g = self.state.game
        if g is None or self.state.status != RoomStatus.PLAYING or g.over or g.to_act is None:
            return None
        s = self.state.seats.get(g.to_act)
        return s.seat if s is not None and s.botted else None

    def schedule(self) -> None:
        """Let a bot move if one is due. Idempotent: called after every accepted change and every
        seat change; a pending bot turn decides whose turn it is only when it runs, and looks again
        after its move, so a change made while it waited is never missed."""
        if self.seat() is None:
            return
        if self.task is not None and not self.task.done():
            return
        with contextlib.suppress(RuntimeError):
            self.task = asyncio.get_running_loop().create_task(self._turn(), name=f"bot-{self.state.slug}")

    async def _turn(self) -> None:
        """The bot to act thinks (in the bot pool, off the event loop) while its usual delay
        runs; its move then goes through the action path (a game that moved on meanwhile
        refuses it as stale, and the bot looks again)."""
        state = self.state
        try:
            seat, game = self.seat(), state.game
            if seat is None or game is None:
                return
            request = bot_request(state, seat)
            version = state.version
            delay = 0.0 if state.hurried() else self.thinking.bot_delay  # finishing at once: no delay
            move = await self.thinking.decide_bot(request, delay)
            action = move.action
            if state.game is game and self.seat() == seat:  # only the seats changed meanwhile
                version = state.version
        except Exception:
            log.exception("room %s: the bot could not choose", state.id)
            self._done()
            return
        try:
            await self.play(seat, action, version)
        except Refused as refused:
            log.info("room %s: bot move refused: %s", state.id, refused)
            if self.race.moved_elsewhere:  # lost the race to another process: it carries the bots on
                self._done()
                return
        self._done()
        if state.version != version:  # something moved (this move or another): look again
            self.schedule()

    def _done(self) -> None:
        if self.task is asyncio.current_task():
            self.task = None

    async def stop(self) -> None:
        task, self.task = self.task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(BaseException):
                await task
