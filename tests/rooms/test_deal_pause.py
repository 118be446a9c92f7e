"""The short pause after a deal (final trick and final cards stay on the table), on a fake
clock: nobody moves and nothing is dealt until it is over, any seated player may skip it, and
deals that end when dealt pause too but never stall."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from app.rooms import RoomManager
from app.rooms.clock import FakeClock
from app.rooms.room import LiveRoom, Refused
from app.store.db import make_engine, upgrade

NAMES = ["Ann", "Bo", "Cy"]


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def manager(tmp_path: Path, clock: FakeClock) -> RoomManager:
    url = f"sqlite:///{tmp_path / 'rooms.db'}"
    upgrade(url)
    return RoomManager(make_engine(url), bot_delay=0.0, takeover_seconds=0.0, deal_pause=2.0, clock=clock)


async def until(condition, seconds: float = 20.0) -> None:  # type: ignore[no-untyped-def]
    loop = asyncio.get_running_loop()
    deadline = loop.time() + seconds
    while not condition():
        assert loop.time() < deadline, "timed out"
        await asyncio.sleep(0.002)


async def all_bots(room: LiveRoom) -> None:
    for seat in range(3):
        await room.hand_to_bot(room.state.host, seat)


async def test_the_next_deal_waits_for_the_pause_and_bots_wait_too(manager: RoomManager, clock: FakeClock) -> None:
    room = await manager.create_table(preset="gurka-night", options={}, names=NAMES, dealer=0, turn_seconds=0)
    await all_bots(room)
    await until(lambda: room.state.game is not None and room.state.game.phase == "waiting")
    g = room.state.game
    assert g is not None and g.deal_no == 1 and room.deal_due() is not None
    version = room.state.version
    await asyncio.sleep(0.05)
    assert room.state.version == version and room.state.game is g  # nobody moves during the pause
    assert g.view(None)["last_deal"] is not None  # the final cards are there to see
    clock.advance(1.0)
    await asyncio.sleep(0.05)
    assert room.state.game is g and g.deal_no == 1
    clock.advance(1.1)
    await until(lambda: room.state.game is not None and room.state.game.deal_no == 2)


async def test_a_seated_player_skips_the_pause_a_watcher_cannot(manager: RoomManager) -> None:
    room = await manager.create_table(preset="gurka-night", options={}, names=NAMES, dealer=0, turn_seconds=0)
    await all_bots(room)
    await until(lambda: room.state.game is not None and room.state.game.phase == "waiting")
    with pytest.raises(Refused, match="Only the players"):
        await room.deal_next(room.state.version, by=-1)
    assert room.state.game is not None and room.state.game.deal_no == 1
    assert await room.deal_next(room.state.version, by=2)
    assert room.state.game.deal_no == 2
    assert not await room.deal_next(room.state.version, by=2)  # nothing to deal now: no change


async def test_one_card_deals_pause_one_by_one_and_the_game_still_ends(manager: RoomManager, clock: FakeClock) -> None:
    room = await manager.create_table(preset="gurka-is", options={"hand_sizes": [1]}, names=NAMES, dealer=0,
                                      turn_seconds=0)
    g = room.state.game
    assert g is not None and g.deal_no == 1 and g.phase == "waiting"  # decided when dealt
    for _ in range(500):
        if room.state.status == "over":
            break
        before = room.state.game.deal_no
        clock.advance(2.0)
        await until(lambda before=before: room.state.game.deal_no > before or room.state.status == "over")
    assert room.state.status == "over" and room.state.game.over
