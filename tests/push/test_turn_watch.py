"""The turn watch: one message per turn however many moves, none while a page of the seat is
visible, none for a turn that passed before it had lasted `delay`; every news still reaches the
real audience first."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any

from app.push.turns import Turn, TurnWatch, Visibility
from app.rooms.news import News, NewsKind
from app.rooms.seats import Seat
from app.rooms.state import RoomStatus


@dataclass
class Shown:
    news: list[News] = field(default_factory=list)

    def publish(self, room: Any, news: News, /) -> None:
        self.news.append(news)


def room(to_act: int | None = 0) -> Any:
    seats = {s: Seat(s, f"P{s}", token_hash=f"{s}" * 64) for s in range(3)}
    state = SimpleNamespace(id=1, slug="abc", status=RoomStatus.PLAYING, version=5, seats=seats,
                            game=SimpleNamespace(to_act=to_act))
    return SimpleNamespace(state=state)


def moved(watch: TurnWatch, r: Any, to_act: int | None) -> None:
    r.state.version += 1
    r.state.game.to_act = to_act
    watch.publish(r, News(NewsKind.TABLE, r.state.version, ()))


async def test_a_flood_of_moves_in_one_turn_sends_one_message() -> None:
    told: list[Turn] = []
    shown = Shown()
    watch = TurnWatch(shown, delay=0.1, visibility=Visibility(), notify=told.append)
    r = room()
    for _ in range(500):  # seat 0's turn all along (a long exchange, a flood of table changes)
        moved(watch, r, 0)
    await asyncio.sleep(0.3)
    assert [(t.seat, t.since) for t in told] == [(0, 6)]
    assert len(shown.news) == 500  # every news went on to the real audience
    moved(watch, r, 0)
    await asyncio.sleep(0.3)
    assert len(told) == 1  # still the same turn: no second message


async def test_turns_that_pass_quickly_send_nothing_and_a_new_turn_sends_again() -> None:
    told: list[Turn] = []
    watch = TurnWatch(Shown(), delay=1.0, visibility=Visibility(), notify=told.append)
    r = room()
    # (a second's delay: on a busy machine a 10 ms sleep once took longer than 0.15 s, and a
    # quick turn looked like a long one)
    for i in range(60):  # the turn goes round faster than the delay
        moved(watch, r, i % 3)
        await asyncio.sleep(0.01)
    assert told == []
    moved(watch, r, 1)
    moved(watch, r, None)  # between deals: nobody's turn
    await asyncio.sleep(1.5)
    assert told == []
    moved(watch, r, 2)
    await asyncio.sleep(1.5)
    assert [t.seat for t in told] == [2]
    r.state.seats[1] = Seat(1, "Bot", is_bot=True)
    moved(watch, r, 1)  # a bot's turn: nobody to tell
    await asyncio.sleep(1.5)
    assert [t.seat for t in told] == [2]
    watch.stop()


async def test_a_visible_page_holds_the_message_back_until_it_is_hidden() -> None:
    told: list[Turn] = []
    seen = Visibility()
    watch = TurnWatch(Shown(), delay=0.1, visibility=seen, notify=told.append)
    r = room()
    seen.report(1, "0" * 64, "laptop", True)
    seen.report(1, "0" * 64, "phone", False)
    moved(watch, r, 0)
    await asyncio.sleep(0.35)
    assert told == []
    seen.report(1, "0" * 64, "laptop", False)
    await asyncio.sleep(0.25)
    assert [t.seat for t in told] == [0]


def test_a_visible_report_runs_out_when_the_page_goes_quiet() -> None:
    now = [100.0]
    seen = Visibility(clock=lambda: now[0])
    seen.report(1, "h", "p", True)
    assert seen.any_visible(1, "h") and not seen.any_visible(1, "other") and not seen.any_visible(2, "h")
    now[0] += 46  # no heartbeat for longer than a page's "visible" holds (a crashed tab)
    assert not seen.any_visible(1, "h")


def test_a_report_overtaken_by_a_newer_one_of_the_same_page_changes_nothing() -> None:
    seen = Visibility()
    seen.report(1, "h", "p", False, 2)  # the page's leaving arrives first
    seen.report(1, "h", "p", True, 1)  # then the "visible" of its load, sent before it
    assert not seen.any_visible(1, "h")
    seen.report(1, "h", "p", True, 3)
    assert seen.any_visible(1, "h")
