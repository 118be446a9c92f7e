"""Room timers on a fake clock: the seat takeover delay and the bot's delay are measured on the
manager's clock, so these tests move time by hand instead of waiting real seconds."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.rooms import RoomManager
from app.rooms.room import Refused
from app.store.db import make_engine, upgrade
from tests.fake_clock import FakeClock
from tests.waiting import await_until

NAMES = ["Ann", "Bo", "Cy"]


def manager_on(clock: FakeClock, tmp_path: Path, **timing: float) -> RoomManager:
    url = f"sqlite:///{tmp_path / 'rooms.db'}"
    upgrade(url)
    return RoomManager(make_engine(url), clock=clock, sleep=clock.sleep, **timing)  # type: ignore[arg-type]


async def test_an_absent_seat_goes_to_a_bot_only_after_the_takeover_delay(tmp_path: Path) -> None:
    clock = FakeClock()
    manager = manager_on(clock, tmp_path, takeover_seconds=60.0, bot_delay=1.0)
    room = await manager.create_table(preset="gurka-night", options={}, names=NAMES, dealer=0)
    away = 2
    assert not room.can_hand_to_bot(away)
    with pytest.raises(Refused, match=r"away only briefly: try again in 6[01] s"):  # (int+1: 61 at 60.0)
        await room.hand_to_bot(room.host, away)
    clock.advance(59.5)
    assert room.absent_for(away) == 59.5
    with pytest.raises(Refused, match=r"try again in 1 s"):
        await room.hand_to_bot(room.host, away)
    assert not room.seats[away].botted
    version = room.version
    clock.advance(0.5)
    assert room.can_hand_to_bot(away)
    await room.hand_to_bot(room.host, away)
    assert room.seats[away].botted and room.version == version + 1
    await manager.stop()


async def test_a_bot_moves_after_its_delay_on_the_clock_and_not_before(tmp_path: Path) -> None:
    clock = FakeClock()
    manager = manager_on(clock, tmp_path, takeover_seconds=0.0, bot_delay=0.8)
    room = await manager.create_table(preset="gurka-night", options={}, names=NAMES, dealer=0)
    assert room.game is not None
    seat = room.game.to_act
    assert seat is not None
    await room.hand_to_bot(room.host, seat)
    version = room.version
    await await_until(lambda: clock.sleeping == 1, what="the bot's delay armed",
                      seen=lambda: f"{clock.sleeping} timers")
    clock.advance(0.7)
    for _ in range(20):  # the loop runs freely: still nothing, the delay is not over
        await clock.sleep(0)
    assert room.version == version and room.game.to_act == seat
    clock.advance(0.1)
    await await_until(lambda: room.version > version, what="the bot's move once its delay is over",
                      seen=lambda: f"version {room.version}, to act {room.game and room.game.to_act}")
    await manager.stop()
