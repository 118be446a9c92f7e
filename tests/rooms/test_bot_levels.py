"""Bot levels in rooms: each bot seat's level and the host's level reach the bot pool's requests
(bot seats, "Let a bot play", the turn timer's default move, a level handed over by a club night),
they survive a restart (rebuilt from the event log), and a room of strong bots really thinks in
the pool's worker processes, off the event loop."""

from __future__ import annotations

import asyncio
import os
import random
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from app.bot_pool import BotMove, BotPool, BotRequest
from app.rooms import RoomManager, sync
from app.rooms.clock import FakeClock
from app.rooms.room import Refused
from app.rules.bots import move_for_view
from app.rules.search import Budget
from app.store.db import make_engine, upgrade


class RecordingPool(BotPool):
    """A pool that writes down which level was asked for which seat, and answers with the
    heuristic move here (no worker processes)."""

    def __init__(self) -> None:
        super().__init__(workers=1, warm=False)
        self.asked: list[tuple[int, str]] = []

    async def decide(self, request: BotRequest, delay: float = 0.0,
                     sleep: Callable[[float], Awaitable[Any]] = asyncio.sleep) -> BotMove:
        self.asked.append((int(request.view["seat"]), request.kind))
        await sleep(delay)
        return BotMove(move_for_view("heuristic", request.ruleset, request.view, request.seed), "here")


def database(tmp_path: Path) -> str:
    url = f"sqlite:///{tmp_path / 'rooms.db'}"
    upgrade(url)
    return url


def levels_asked(pool: RecordingPool) -> dict[int, set[str]]:
    found: dict[int, set[str]] = {}
    for seat, kind in pool.asked:
        found.setdefault(seat, set()).add(kind)
    return found


async def wait_for(condition: Callable[[], bool], seconds: float = 30.0) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + seconds
    while not condition():
        assert loop.time() < deadline, "timed out"
        await asyncio.sleep(0.005)


async def test_each_bot_plays_at_its_own_level_and_a_handed_seat_at_the_hosts(tmp_path: Path) -> None:
    pool = RecordingPool()
    manager = RoomManager(make_engine(database(tmp_path)), takeover_seconds=0.0, bot_pool=pool)
    room, _token = await manager.create_room(preset="gurka-night", options={}, seats=4, host_name="Ann", bots=3,
                                             bot_levels=["strong", "easy"], bot_level="easy")
    assert [room.bot_level(s) for s in (1, 2, 3)] == ["strong", "easy", "easy"]  # the third: the host's
    room.state.rng = random.Random(7)  # the test's setup: the same deals every run
    await room.start(0, dealer=0)
    await room.hand_to_bot(0, 0)  # nobody connected: Ann's seat goes to a bot, at the host's level
    await wait_for(lambda: room.state.status == "over")
    assert levels_asked(pool) == {0: {"easy"}, 1: {"strong"}, 2: {"easy"}, 3: {"easy"}}
    await manager.stop()


async def test_an_unknown_level_is_refused_and_no_room_is_made(tmp_path: Path) -> None:
    manager = RoomManager(make_engine(database(tmp_path)), bot_pool=RecordingPool())
    for levels, host in ((["genius"], "heuristic"), (["strong"], "random")):
        with pytest.raises(Refused, match="Unknown bot level"):
            await manager.create_room(preset="gurka-night", options={}, seats=3, host_name="Ann", bots=1,
                                      bot_levels=levels, bot_level=host)
    assert manager.rooms == {}
    await manager.stop()


async def test_levels_survive_a_restart(tmp_path: Path) -> None:
    url = database(tmp_path)
    manager = RoomManager(make_engine(url), takeover_seconds=0.0, bot_pool=RecordingPool())
    room, _token = await manager.create_room(preset="gurka-night", options={}, seats=5, host_name="Ann", bots=1,
                                             bot_levels=["easy"], bot_level="strong")
    await room.join("Bo")
    await room.add_bot(0, "heuristic")
    await room.add_bot(0)  # the host's level
    await room.remove_seat(0, 2)  # Bo leaves: the seats close up at the start, the levels stay with the bots
    levels = {room.state.seats[s].name: room.bot_level(s) for s in room.state.seats if room.state.seats[s].is_bot}
    assert sorted(levels.values()) == ["easy", "heuristic", "strong"]
    await room.start(0, dealer=0)
    assert {room.state.seats[s].name: room.bot_level(s) for s in room.state.seats if room.state.seats[s].is_bot} == levels
    slug = room.state.slug
    await manager.stop()

    again = RoomManager(make_engine(url), takeover_seconds=0.0, bot_pool=RecordingPool())
    again.load()
    back = again.get(slug)
    assert back is not None and back is not room
    assert {back.state.seats[s].name: back.bot_level(s) for s in back.state.seats if back.state.seats[s].is_bot} == levels
    assert back.state.bot_levels.host == "strong"
    await again.stop()


async def test_a_club_level_for_the_absent_survives_a_restart(tmp_path: Path) -> None:
    url = database(tmp_path)
    manager = RoomManager(make_engine(url), takeover_seconds=0.0, bot_pool=RecordingPool())
    room = await manager.create_table(preset="gurka-night", options={}, names=["Ann", "Bo", "Cy"], dealer=0)
    await room.hand_to_bot(room.state.host, 2, level="strong")  # the night's elders chose strong
    assert room.bot_level(2) == "strong" and room.bot_level(1) == "heuristic"  # 1: not handed over (default)
    await manager.stop()
    again = RoomManager(make_engine(url), takeover_seconds=0.0, bot_pool=RecordingPool())
    again.load()
    back = again.get(room.state.slug)
    assert back is not None and back.state.seats[2].bot_controlled and back.bot_level(2) == "strong"
    await again.stop()


async def test_the_turn_timer_plays_at_the_hosts_level(tmp_path: Path) -> None:
    clock = FakeClock(start=1_000_000.0)
    pool = RecordingPool()
    manager = RoomManager(make_engine(database(tmp_path)), clock=clock, takeover_seconds=3600.0, bot_pool=pool)
    room, _token = await manager.create_room(preset="gurka-night", options={}, seats=3, host_name="Ann",
                                             turn_seconds=20, bot_level="strong")
    await room.join("Bo")
    await room.join("Cy")
    await room.start(0, dealer=0)
    assert room.state.game is not None
    seat, version = room.state.game.to_act, room.state.version
    assert seat is not None
    clock.advance(21.0)
    await wait_for(lambda: room.state.version > version)
    assert pool.asked == [(seat, "strong")]
    assert room.state.time_note is not None  # the timed-out move was made and said
    await manager.stop()


async def test_let_a_bot_play_uses_the_hosts_level_after_a_restart(tmp_path: Path) -> None:
    url = database(tmp_path)
    manager = RoomManager(make_engine(url), takeover_seconds=3600.0, bot_pool=RecordingPool())
    room, _token = await manager.create_room(preset="gurka-night", options={}, seats=3, host_name="Ann",
                                             bot_level="easy")
    await room.join("Bo")
    await room.join("Cy")
    await room.start(0, dealer=1)
    await manager.stop()
    pool = RecordingPool()
    again = RoomManager(make_engine(url), takeover_seconds=0.0, bot_pool=pool)
    again.load()
    back = again.get(room.state.slug)
    assert back is not None and back.state.game is not None
    seat = back.state.game.to_act
    assert seat is not None
    await back.hand_to_bot((seat + 1) % 3, seat)
    await wait_for(lambda: bool(pool.asked))
    assert pool.asked[0] == (seat, "easy")
    await again.stop()


async def test_strong_bots_think_in_the_pools_worker_processes(tmp_path: Path) -> None:
    """A whole game of four strong bots through a real pool of one worker (a small budget; time
    enough to answer on a busy machine: the rooms' half second of grace made every answer late
    once, and every move the heuristic one)."""
    pool = BotPool(workers=1, budget=Budget(worlds=6), warm=False, grace=30.0)
    manager = RoomManager(make_engine(database(tmp_path)), takeover_seconds=0.0, bot_pool=pool)
    room, _token = await manager.create_room(preset="gurka-night", options={"target": 11}, seats=4,
                                             host_name="Ann", bots=3, bot_levels=["strong"] * 3,
                                             bot_level="strong")
    await wait_for(lambda: bool(pool.pids()), seconds=60)  # made with strong bots: the workers start at once
    assert os.getpid() not in pool.pids()
    await room.start(0, dealer=0)
    await room.hand_to_bot(0, 0)
    await wait_for(lambda: room.state.status == "over", seconds=300)
    assert pool.stats.searches > 0
    assert room.state.game is not None and room.state.game.over
    workers = pool.pids()
    await manager.stop()
    await pool.stop()  # the app's lifespan does this: the manager leaves a pool it was given
    assert pool.pids() == []
    for pid in workers:
        with pytest.raises(OSError):
            os.kill(pid, 0)


async def test_another_process_follows_the_levels(tmp_path: Path) -> None:
    """A second process serving the same room learns the levels from the events it catches up
    with (`sync.apply_above`), not only from a whole rebuild."""
    url = database(tmp_path)
    here = RoomManager(make_engine(url), takeover_seconds=0.0, bot_pool=RecordingPool())
    room, _token = await here.create_room(preset="gurka-night", options={}, seats=4, host_name="Ann",
                                          bot_level="easy")
    await room.join("Bo")
    there = RoomManager(make_engine(url), takeover_seconds=0.0, bot_pool=RecordingPool())
    there.load()
    other = there.get(room.state.slug)
    assert other is not None and other.state.bot_levels.host == "easy"
    await room.add_bot(0, "strong")
    await room.start(0, dealer=0)
    await room.hand_to_bot(0, 1, level="heuristic")
    snap = sync.read_above(other)
    assert snap is not None and sync.apply_above(other, snap)
    assert other.state.version == room.state.version
    assert [other.bot_level(s) for s in (1, 2)] == ["heuristic", "strong"]
    assert other.state.seats[2].is_bot and other.state.seats[1].bot_controlled
    await room.take_back(1)
    snap = sync.read_above(other)
    assert snap is not None and sync.apply_above(other, snap)
    assert other.bot_level(1) == "easy"  # back with its player: a later takeover is the host's level
    await here.stop()
    await there.stop()


async def test_levels_survive_a_restart_on_postgres(postgres_url: str, tmp_path: Path) -> None:
    upgrade(postgres_url)
    manager = RoomManager(make_engine(postgres_url), takeover_seconds=0.0, bot_pool=RecordingPool())
    room, _token = await manager.create_room(preset="gurka-night", options={}, seats=4, host_name="Ann", bots=2,
                                             bot_levels=["strong", "easy"], bot_level="strong")
    await room.start(0, dealer=0)
    await room.hand_to_bot(0, 0, level="easy")
    await manager.stop()
    again = RoomManager(make_engine(postgres_url), takeover_seconds=0.0, bot_pool=RecordingPool())
    again.load()
    back = again.get(room.state.slug)
    assert back is not None
    assert [back.bot_level(s) for s in (0, 1, 2)] == ["easy", "strong", "easy"]
    assert back.state.bot_levels.host == "strong"
    await again.stop()
