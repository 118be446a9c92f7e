"""Room timers on a fake clock: the seat takeover delay and the bot's delay are measured on the
manager's clock, so these tests move time by hand instead of waiting real seconds."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from app.rooms import RoomManager
from app.rooms.clock import FakeClock
from app.rooms.room import Refused
from app.store.db import make_engine, upgrade

NAMES = ["Ann", "Bo", "Cy"]


def manager_on(clock: FakeClock, tmp_path: Path, **timing: float) -> RoomManager:
    url = f"sqlite:///{tmp_path / 'rooms.db'}"
    upgrade(url)
    return RoomManager(make_engine(url), clock=clock, **timing)  # type: ignore[arg-type]


async def test_an_absent_seat_goes_to_a_bot_only_after_the_takeover_delay(tmp_path: Path) -> None:
    clock = FakeClock(start=1_000_000.0)
    manager = manager_on(clock, tmp_path, takeover_seconds=60.0, bot_delay=1.0)
    room = await manager.create_table(preset="gurka-night", options={}, names=NAMES, dealer=0)
    away = 2
    assert not room.can_hand_to_bot(away)
    with pytest.raises(Refused, match=r"away only briefly: try again in 6[01] s"):  # (int+1: 61 at 60.0)
        await room.hand_to_bot(room.state.host, away)
    clock.advance(59.5)
    assert room.absent_for(away) == 59.5
    with pytest.raises(Refused, match=r"try again in 1 s"):
        await room.hand_to_bot(room.state.host, away)
    assert not room.state.seats[away].botted
    version = room.state.version
    clock.advance(0.5)
    assert room.can_hand_to_bot(away)
    await room.hand_to_bot(room.state.host, away)
    assert room.state.seats[away].botted and room.state.version == version + 1
    await manager.stop()


async def test_moves_keep_one_sleeping_timer_that_still_ends_the_turn_on_time(tmp_path: Path) -> None:
    """A move puts the turn's deadline later: the timer asleep until the earlier deadline is
    kept (no task per move); it wakes, sleeps on until the deadline now due, and then a bot
    plays for the seat that ran out of time, not a moment before."""
    clock = FakeClock(start=1_000_000.0)
    manager = manager_on(clock, tmp_path, takeover_seconds=3600.0, bot_delay=1.0)
    room = await manager.create_table(preset="gurka-night", options={}, names=NAMES, dealer=0, turn_seconds=30)
    timer = room.timers.task
    assert timer is not None
    for _ in range(4):
        clock.advance(10.0)  # each move well inside the turn's 30 s
        seat = room.state.game.to_act
        await room.act(seat, room.state.game.view(seat)["legal"][0], room.state.version)
        assert room.timers.task is timer, "a move replaced the sleeping timer"
    version = room.state.version
    clock.advance(29.0)
    for _ in range(5):
        await asyncio.sleep(0)
    assert room.state.version == version, "the turn ended before its 30 s"
    clock.advance(1.5)
    for _ in range(50):
        if room.state.version > version:
            break
        await asyncio.sleep(0.01)
    assert room.state.version == version + 1 and "Time" in (room.state.time_note or "")
    await manager.stop()
