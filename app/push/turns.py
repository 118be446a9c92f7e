""""Your turn": a message to the devices of the seat to act, once per turn, when it has been that
seat's turn for a while (`delay`) and none of its pages is visible.

`TurnWatch` is a room audience wrapped around the web side's one (it passes every News on
untouched, first): on news that the table changed it reads whose turn it is. A new turn (another
seat, or another token at that seat) sets one timer for the room; a move that leaves the turn
where it was changes nothing, so a flood of moves costs a dictionary look-up each and sends at
most one message per turn. When the timer fires and the turn is still the same, a seat whose
page says it is visible (`Visibility`) is looked at again later; otherwise the seat's devices
are told (`notify`, which claims the turn in the database first, so another process serving the
same room does not send it again).

Pages report their visibility over a small POST to their room (`/r/<slug>/visible`), which the
proxy routes to the process that serves the room, as it does the room's websocket.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from app.rooms.news import Audience, News, NewsKind
from app.rooms.state import RoomStatus

log = logging.getLogger("gurka.push")
VISIBLE_FOR = 45.0  # seconds a page's "visible" holds without a new one (pages say it every 20 s)


class Visibility:
    """Which pages of which seats are visible now, as the pages say (in this process).

    Each report carries the page's own count (`n`): a report that arrives after a newer one of
    the same page (requests overtake each other: the "visible" of a page's load and the "hidden"
    of its leaving) changes nothing."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        # (room id, token hash) -> page -> (its latest count, visible until, forgotten at)
        self.pages: dict[tuple[int, str], dict[str, tuple[int, float, float]]] = {}

    def report(self, room_id: int, token_hash: str, page: str, visible: bool, n: int = 0) -> None:
        now = self.clock()
        pages = self.pages.setdefault((room_id, token_hash), {})
        known = pages.get(page)
        if known is not None and n <= known[0] and n:
            return  # an older report, overtaken by a newer one
        pages[page] = (n, now + VISIBLE_FOR if visible else 0.0, now + 2 * VISIBLE_FOR)
        for old in [p for p, (_n, _until, forget) in pages.items() if forget <= now]:
            del pages[old]
        if len(pages) > 16:  # one seat's pages: drop the ones that went quiet first
            for stale in sorted(pages, key=lambda p: pages[p][2])[: len(pages) - 16]:
                del pages[stale]

    def any_visible(self, room_id: int, token_hash: str) -> bool:
        pages = self.pages.get((room_id, token_hash))
        if not pages:
            return False
        now = self.clock()
        return any(until > now for _n, until, _forget in pages.values())


@dataclass(frozen=True, slots=True)
class Turn:
    """One seat's turn in one room: the seat, its token's hash and the version it began at."""

    room_id: int
    slug: str
    seat: int
    token_hash: str
    since: int


Notify = Callable[[Turn], None]


class TurnWatch:
    """An audience that shows everything through `inner` and watches whose turn it is."""

    def __init__(self, inner: Audience[Any], *, delay: float, visibility: Visibility, notify: Notify) -> None:
        self.inner = inner
        self.delay = delay
        self.visibility = visibility
        self.notify = notify
        self.turns: dict[int, Turn] = {}  # room id -> the turn being watched
        self.timers: dict[int, asyncio.TimerHandle] = {}

    def publish(self, room: Any, news: News, /) -> None:
        self.inner.publish(room, news)
        if news.kind == NewsKind.TABLE:
            try:
                self.look(room)
            except Exception:
                log.exception("turn watch")

    def look(self, room: Any) -> None:
        state = room.state
        turn = _turn_of(state)
        watched = self.turns.get(state.id)
        if turn is not None and watched is not None and (watched.seat, watched.token_hash) == (turn.seat, turn.token_hash):
            return  # the same turn goes on: one message per turn, however many moves
        self._forget(state.id)
        if turn is not None:
            self.turns[state.id] = turn
            self._arm(room, turn, self.delay)

    def _arm(self, room: Any, turn: Turn, after: float) -> None:
        loop = asyncio.get_running_loop()
        self.timers[turn.room_id] = loop.call_later(after, self._due, room, turn)

    def _forget(self, room_id: int) -> None:
        self.turns.pop(room_id, None)
        timer = self.timers.pop(room_id, None)
        if timer is not None:
            timer.cancel()

    def _due(self, room: Any, turn: Turn) -> None:
        self.timers.pop(turn.room_id, None)
        now = _turn_of(room.state)
        if now is None or (now.seat, now.token_hash) != (turn.seat, turn.token_hash) or self.turns.get(turn.room_id) != turn:
            return
        if self.visibility.any_visible(turn.room_id, turn.token_hash):
            self._arm(room, turn, max(self.delay, 0.1))  # they are looking: look again later
            return
        self.notify(turn)

    def stop(self) -> None:
        for room_id in list(self.timers):
            self._forget(room_id)


def _turn_of(state: Any) -> Turn | None:
    """The turn of a human seat with a token, or None (no game, between deals, a bot to act)."""
    game = state.game
    if state.status != RoomStatus.PLAYING or game is None or game.to_act is None:
        return None
    seat = state.seats.get(game.to_act)
    if seat is None or seat.botted or not seat.token_hash:
        return None
    return Turn(state.id, state.slug, seat.seat, seat.token_hash, state.version)
