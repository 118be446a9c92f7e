"""Between games: a latecomer takes a free seat, the rematch starts only when every seated
player who is here has said yes, a player away keeps their seat (a bot plays it until they are
back and act), and the vote survives a restart."""

from __future__ import annotations

import asyncio

import pytest

from app.rooms import RoomManager
from app.rooms.room import LiveRoom, Refused
from tests.rooms.told import Listener


def connect(room: LiveRoom, token: str) -> Listener:
    conn = Listener(token)
    room.attach(conn)
    return conn


async def finished_room(manager: RoomManager) -> tuple[LiveRoom, list[str], list[Listener]]:
    room, t0 = await manager.create_room(preset="gurka-night", options={}, seats=4, host_name="Ann",
                                         turn_seconds=0)
    tokens = [t0] + [(await room.join(name))[1] for name in ("Bo", "Cy")]
    await room.start(0, dealer=0)
    for seat in range(3):  # nobody is here yet: bots play the whole game for them
        await room.hand_to_bot(0, seat)
    loop = asyncio.get_running_loop()
    deadline = loop.time() + 30
    while room.state.status != "over":
        assert loop.time() < deadline
        await asyncio.sleep(0.01)
    conns = [connect(room, t) for t in tokens]
    return room, tokens, conns


async def test_latecomer_sits_down_and_the_rematch_waits_for_every_yes(manager: RoomManager) -> None:
    room, _tokens, conns = await finished_room(manager)
    assert all(room.state.seats[s].bot_controlled for s in range(3))
    seat, late_token = await room.join("Dee")  # between games: a free seat is taken
    assert seat == 3
    late = connect(room, late_token)
    room.detach(conns[2])  # Cy has gone away
    assert not await room.vote_rematch(1)
    with pytest.raises(Refused, match="said yes already"):
        await room.vote_rematch(1)
    assert room.state.status == "over" and room.rematch_waits_for() == [0, 3]
    # the vote is in the event log: a restarted server still knows who said yes
    again = RoomManager(manager.db)
    again.load()
    assert again.get(room.state.slug).state.ready == {1}  # type: ignore[union-attr]
    assert not await room.vote_rematch(3)
    assert await room.vote_rematch(0)  # the last yes of those here starts it
    assert room.state.status == "playing" and room.state.game is not None and room.state.game.players == 4
    assert [room.state.seats[i].name for i in range(4)] == ["Ann", "Bo", "Cy", "Dee"]
    # those who said yes play their own seats again; Cy keeps hers, a bot plays it for now
    assert [room.state.seats[i].bot_controlled for i in range(4)] == [False, False, True, False]
    assert room.state.ready == set()
    with pytest.raises(Refused):
        await room.join("Eve")  # during a game nobody sits down
    for conn in [*conns, late]:
        room.detach(conn)
