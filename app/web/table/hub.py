"""In-process fan-out: one writer task and one bounded queue per connection.

Nobody awaits a client's socket: a room's news is made into frames (`frames.py`) that are offered
to each connection, and the room moves on. What a slow reader costs stays small and ends when it goes:

- a frame offered as `whole` (a whole table) supersedes every frame still waiting in the queue
  that was offered as `whole` or `part` (a whole table, or a change of one: the newest whole one
  says it all; notices and chat lines keep their place), so a reader that is behind and gets a
  sync gets only the latest; parts never supersede each other (each builds on the last). The hub
  never reads a frame: what a frame is, its sender says;
- a connection whose queue is full, or whose writer has been stuck on one frame for longer than
  `send_stall` seconds (the client stopped reading), is dropped, so a phone in a tunnel can never
  stall the table or pile up frames for everybody else;
- a dropped connection lets go of its queue at once, gets `close_wait` seconds to take its close
  frame, and sets `gone`, so the socket's handler stops serving it. A slow reader is closed with
  1013 ("try again later") and a reason, the code a browser reconnects on; the connection keeps
  that code and reason (`close_code`, `close_reason`), so the handler's own close, which may
  reach the socket first, says the same.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import time
from collections import deque
from collections.abc import Awaitable, Callable
from typing import Any

log = logging.getLogger("gurka.web.hub")

QUEUE_SIZE = 32  # frames: a change of the table is one or two (shared, private), a few hundred bytes each
SEND_STALL = 5.0  # seconds one frame may take to leave before the reader counts as gone
CLOSE_WAIT = 2.0  # seconds a dropped reader gets to take its close frame
TOO_SLOW = 1013  # "try again later": the close code for a reader that fell behind
TOO_SLOW_REASON = "fell behind the table: reconnect for the whole table"
_ids = itertools.count(1)


class Connection:
    """One websocket of one seat holder (or a spectator)."""

    def __init__(
        self,
        send: Callable[[str], Awaitable[Any]],
        close: Callable[[int, str], Awaitable[Any]],
        *,
        token_hash: str | None,
        queue_size: int = QUEUE_SIZE,
        lang: str = "en",
        send_stall: float = SEND_STALL,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.id = next(_ids)
        self.token_hash = token_hash  # who this is; the room maps it to a seat (None: spectator)
        self.lang = lang  # the reader's language: every frame for this connection is said in it
        self.seat: int | None = None
        self.shown: tuple[int, int | None] | None = None  # the table's seq and seat it was last shown
        self._send = send
        self._close = close
        self.queue: deque[tuple[str, bool]] = deque()  # (frame, whether a whole frame supersedes it)
        self.queue_size = queue_size
        self.send_stall = send_stall
        self.clock = clock
        self.closed = False
        self.close_code, self.close_reason = 1000, ""  # how the socket is to be closed
        self.gone = asyncio.Event()  # set once dropped or stopped
        self.connected_at = time.monotonic()
        self._ready = asyncio.Event()
        self._sending_since: float | None = None
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._writer(), name=f"ws-writer-{self.id}")

    def pending(self) -> list[str]:
        """The frames waiting to be sent, oldest first."""
        return [frame for frame, _part in self.queue]

    def offer(self, frame: str, *, whole: bool = False, part: bool = False) -> bool:
        """Queue a frame; False (and the connection is dropped) if the client is too slow.

        `whole`: the frame says all that the `whole` and `part` frames still waiting would say
        (they are dropped); `part`: a later `whole` frame makes this one needless."""
        if self.closed:
            return False
        started = self._sending_since
        if started is not None and self.clock() - started > self.send_stall:
            log.info("dropping slow connection %s (seat %s): one frame took over %.0f s",
                     self.id, self.seat, self.send_stall)
            self.drop(code=TOO_SLOW, reason=TOO_SLOW_REASON)
            return False
        if whole and self.queue:
            self.queue = deque(item for item in self.queue if not item[1])
        if len(self.queue) >= self.queue_size:
            log.info("dropping slow connection %s (seat %s)", self.id, self.seat)
            self.drop(code=TOO_SLOW, reason=TOO_SLOW_REASON)
            return False
        self.queue.append((frame, whole or part))
        self._ready.set()
        return True

    def drop(self, *, code: int = 1000, reason: str = "") -> None:
        if self.closed:
            return
        self.close_code, self.close_reason = code, reason
        self._let_go()
        if self._task is not None:
            self._task.cancel()
            self._task = None  # a cancelled task keeps its traceback: no cycle back to us
        with contextlib.suppress(RuntimeError):
            asyncio.get_running_loop().create_task(self._safe_close(code, reason))

    def _let_go(self) -> None:
        self.closed = True
        self.queue.clear()
        self.gone.set()

    async def _safe_close(self, code: int, reason: str) -> None:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._close_quietly(code, reason), CLOSE_WAIT)

    async def _close_quietly(self, code: int, reason: str) -> None:
        """The socket's own close; its failure ends here (a failed task would hold its traceback,
        and with it this connection, until a full garbage collection)."""
        with contextlib.suppress(Exception):  # the socket is gone already
            await self._close(code, reason)

    async def _writer(self) -> None:
        try:
            while True:
                while not self.queue:
                    self._ready.clear()
                    await self._ready.wait()
                frame, _part = self.queue.popleft()
                self._sending_since = self.clock()
                await self._send(frame)
                self._sending_since = None
        except asyncio.CancelledError:
            raise
        except Exception:  # noqa: BLE001  (the socket went away: the receive loop will see it)
            self._let_go()

    async def stop(self) -> None:
        self._let_go()
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(BaseException):
                await task
