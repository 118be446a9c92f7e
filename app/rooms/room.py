"""An authoritative room: one asyncio lock serialises every change.

Every accepted change gets the next version number(s) and is committed to the event log
before anybody is told; then each connection is offered what changed of its seat's table (the
frames are the host's: app/web/table/publisher.py).

A `LiveRoom` is built up in layers, one job each: `state` (what it holds, its rebuild from the
log), `presence` (seats and who is here), `publishing` (frames to connections), `actions` (the
action path and bots), `turns` (timed moves, the next deal, the host role), `messages` (client
frames) and `timers` (what is due when). Its host is a `RoomHost`.
"""

from __future__ import annotations

import contextlib

from app.rooms.host import Event, RoomHost
from app.rooms.messages import MAX_FRAME
from app.rooms.seats import BOT_NAMES, MAX_NAME, Refused, Seat, clean_name
from app.rooms.timers import RoomTimers

__all__ = [
    "BOT_NAMES", "MAX_FRAME", "MAX_NAME", "Event", "LiveRoom", "Refused", "RoomHost", "Seat",
    "clean_name",
]


class LiveRoom(RoomTimers):
    async def stop(self) -> None:
        await self.stop_timers()
        self.presence.cancel()
        if self._retry_task is not None:
            self._retry_task.cancel()
        if self._bot_task is not None:
            self._bot_task.cancel()
            with contextlib.suppress(BaseException):
                await self._bot_task
        for conn in list(self.connections):
            await conn.stop()
        self.connections.clear()
