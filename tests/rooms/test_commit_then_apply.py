"""Commit, then apply: a change the database did not take leaves the room exactly as it was
(memory is the last committed state), only its sender hears about it, and the room goes on by
itself once the database answers again; the stored log still rebuilds the very same room."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any, cast

import pytest
from sqlalchemy import Engine

from app.rooms import RoomManager
from app.rooms.changes import NOT_SAVED, RETRY_SECONDS, NotSaved
from app.rooms.clock import FakeClock
from app.rooms.news import NewsKind, Notice
from app.rooms.room import LiveRoom
from app.store.db import make_engine, upgrade
from tests.rooms.told import Listener, Told
from tests.support.waiting import await_until


def connection(token: str | None) -> Listener:
    return Listener(token)


def state(room: LiveRoom) -> tuple[Any, ...]:
    game = json.dumps(room.state.game.to_json(), sort_keys=True) if room.state.game is not None else None
    return room.state.version, room.state.status, room.state.host, dict(room.state.seats), game, set(room.state.ready), dict(room.state.timeouts)


@pytest.fixture
def url(tmp_path: Path) -> str:
    url = f"sqlite:///{tmp_path / 'rooms.db'}"
    upgrade(url)
    return url


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def manager(url: str, clock: FakeClock) -> RoomManager:
    return RoomManager(make_engine(url), bot_delay=1.0, takeover_seconds=0.0, clock=clock, audience=Told())


def unreachable_database(tmp_path: Path) -> Engine:
    """An engine whose every connection fails (its file cannot be opened)."""
    return make_engine(f"sqlite:///{tmp_path / 'no' / 'such' / 'dir' / 'x.db'}")


async def three_at_the_table(manager: RoomManager) -> tuple[LiveRoom, list[str]]:
    room, t0 = await manager.create_room(preset="gurka-night", options={}, seats=3, host_name="Anna",
                                         turn_seconds=0)
    _s1, t1 = await room.join("Bo")
    _s2, t2 = await room.join("Cai")
    return room, [t0, t1, t2]


async def test_a_move_that_is_not_saved_changes_nothing_and_the_next_one_works(
    manager: RoomManager, url: str, tmp_path: Path
) -> None:
    room, tokens = await three_at_the_table(manager)
    await room.start(0, dealer=0)
    conns = [connection(t) for t in tokens]
    for conn in conns:
        room.attach(conn)
    told = cast(Told, manager.audience).of
    assert room.state.game is not None and room.state.game.to_act is not None
    seat = room.state.game.to_act
    action = str(room.state.game.legal_actions()[0])
    before, game_before = state(room), room.state.game
    seen = [len(told(c)) for c in conns]

    good = manager.writer.db
    manager.writer.db = unreachable_database(tmp_path)
    with pytest.raises(NotSaved, match="could not save that move"):
        await room.act(seat, action, room.state.version)
    assert state(room) == before and room.state.game is game_before
    # through the socket: the sender is told plainly, with its (unchanged) table; nobody else
    # hears anything
    await room.handle(conns[seat], json.dumps({"do": "act", "action": action, "v": room.state.version}))
    heard = told(conns[seat])[seen[seat]:]
    assert [n.kind for n in heard] == [NewsKind.NOTICE, NewsKind.WHOLE_TABLE]
    assert heard[0].notice == Notice(NOT_SAVED, "error") and heard[1].version == before[0]
    for other in (s for s in range(3) if s != seat):
        assert len(told(conns[other])) == seen[other], "another seat heard of a change nobody saved"
    assert state(room) == before

    manager.writer.db = good  # the database answers again: no reload, no restart
    await room.act(seat, action, room.state.version)
    assert room.state.version > before[0]
    assert all(told(c)[-1].kind == NewsKind.TABLE and told(c)[-1].version == room.state.version for c in conns)
    # the log holds exactly what the room shows: a fresh process rebuilds the same room
    fresh = RoomManager(make_engine(url))
    fresh.load()
    assert state(fresh.rooms[room.state.slug]) == state(room)


@pytest.mark.parametrize("op", ["join", "add_bot", "start", "issue_token"])
async def test_every_kind_of_change_that_is_not_saved_changes_nothing(
    manager: RoomManager, tmp_path: Path, op: str
) -> None:
    room, _t0 = await manager.create_room(preset="gurka-night", options={}, seats=4, host_name="Anna",
                                          turn_seconds=0)
    await room.join("Bo")
    await room.join("Cai")
    before = state(room)
    good = manager.writer.db
    manager.writer.db = unreachable_database(tmp_path)
    calls = {
        "join": lambda: room.join("Dag"),
        "add_bot": lambda: room.add_bot(0),
        "start": lambda: room.start(0, dealer=1),
        "issue_token": lambda: room.issue_token(1),
    }
    with pytest.raises(NotSaved):
        await calls[op]()
    assert state(room) == before
    manager.writer.db = good
    await calls[op]()
    assert room.state.version > before[0]


async def test_bots_carry_on_by_themselves_once_the_database_answers(
    manager: RoomManager, clock: FakeClock, tmp_path: Path
) -> None:
    room, _tokens = await three_at_the_table(manager)
    await room.start(0, dealer=0)
    for seat in range(3):  # nobody is connected: every seat goes to a bot
        await room.hand_to_bot(0, seat)
    version = room.state.version
    good = manager.writer.db
    manager.writer.db = unreachable_database(tmp_path)
    clock.advance(1.0)  # the bot's moment: its move is not saved
    await await_until(lambda: room.changes.retry_task is not None, what="a retry planned after the failed commit")
    assert room.state.version == version
    manager.writer.db = good

    async def moved() -> bool:
        clock.advance(RETRY_SECONDS)
        await asyncio.sleep(0.01)
        return room.state.version > version

    for _ in range(200):
        if await moved():
            break
    assert room.state.version > version, "the bots did not carry on once the database answered"
