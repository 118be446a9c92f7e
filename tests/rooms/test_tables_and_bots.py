"""Rooms seated by name with a fixed first dealer, fresh seat tokens, bots that never stall,
and game-over observers called after the final event is committed."""

from __future__ import annotations

import asyncio

import pytest

from app.rooms import RoomManager
from app.rooms.room import LiveRoom, Refused
from app.rooms.tokens import hash_token
from app.store import rooms as store
from app.store.db import session_scope
from tests.rooms.told import Listener

NAMES = ["Ann", "Bo", "Cy"]


async def wait_for(condition, seconds: float = 20.0) -> None:  # type: ignore[no-untyped-def]
    loop = asyncio.get_running_loop()
    deadline = loop.time() + seconds
    while not condition():
        assert loop.time() < deadline, "timed out"
        await asyncio.sleep(0.005)


async def test_a_table_is_seated_by_name_with_the_given_first_dealer(manager: RoomManager) -> None:
    for dealer in range(3):
        room = await manager.create_table(preset="gurka-night", options={}, names=NAMES, dealer=dealer)
        assert [room.state.seats[i].name for i in range(3)] == NAMES
        assert room.state.status == "playing" and room.state.game is not None
        assert room.state.game.dealer == dealer
    # the dealer is replayed from the log after a restart
    again = RoomManager(manager.db)
    again.load()
    assert again.get(room.state.slug).state.game.dealer == 2  # type: ignore[union-attr]
    with pytest.raises(Refused):
        await manager.create_table(preset="gurka-night", options={}, names=NAMES, dealer=5)
    # long names are cut to the room's length and still tell the players apart
    long = ["Christopher Alexander Smith-Jones", "Christopher Alexander Smith-Brown", "Bo"]
    room = await manager.create_table(preset="gurka-night", options={}, names=long, dealer=0)
    shown = [room.state.seats[i].name for i in range(3)]
    assert len(set(shown)) == 3 and shown[2] == "Bo" and all(len(n) <= 24 for n in shown)


async def test_a_fresh_token_takes_the_seat_and_the_old_one_stops_working(manager: RoomManager) -> None:
    room = await manager.create_table(preset="gurka-night", options={}, names=NAMES, dealer=0)
    first = await room.issue_token(1)
    assert room.seat_for_token(first) == 1
    old_conn = Listener(first)
    room.attach(old_conn)
    assert old_conn.seat == 1
    second = await room.issue_token(1)
    assert room.seat_for_token(second) == 1
    assert room.seat_for_token(first) is None
    assert old_conn.seat is None  # the old device only watches now
    with session_scope(manager.db) as session:
        stored = {s.seat: s.token_hash for s in store.list_seats(session, room_id=room.state.id)}
    assert stored[1] == hash_token(second) and second not in stored.values()
    with pytest.raises(Refused):
        await room.issue_token(7)
    room.detach(old_conn)
    await old_conn.stop()


async def test_seats_handed_to_bots_one_by_one_never_stall(manager: RoomManager) -> None:
    """Each hand-over moves the version; a bot turn scheduled for an earlier version must still
    look again and play, whoever's turn it is by then."""
    for _ in range(5):
        room = await manager.create_table(preset="gurka-night", options={}, names=NAMES, dealer=0)
        first = room.state.game.to_act  # type: ignore[union-attr]
        for seat in (first, (first + 1) % 3, (first + 2) % 3):  # one by one, no pause between
            await room.hand_to_bot(room.state.host, seat)
        await wait_for(lambda room=room: room.state.status == "over")
        assert room.state.game is not None and room.state.game.over


async def test_a_bot_turn_that_was_pending_during_changes_plays_for_the_new_state(
    manager: RoomManager,
) -> None:
    manager.bot_delay = 0.01
    room = await manager.create_table(preset="gurka-night", options={}, names=NAMES, dealer=0)
    await room.hand_to_bot(room.state.host, room.state.game.to_act)  # type: ignore[union-attr]
    # while that bot waits, every other seat goes to a bot too and a token is issued
    for seat in range(3):
        if not room.state.seats[seat].botted:
            await room.hand_to_bot(room.state.host, seat)
    await room.issue_token(0)
    await wait_for(lambda: room.state.status == "over")


async def test_game_over_observers_run_once_after_the_final_event_is_committed(
    manager: RoomManager,
) -> None:
    seen: list[tuple[str, str, int]] = []

    def plain(room: LiveRoom) -> None:
        with session_scope(manager.db) as session:
            row = store.get_room(session, slug=room.state.slug)
            assert row is not None
            seen.append(("plain", row.status, row.version))

    async def coroutine(room: LiveRoom) -> None:
        await asyncio.sleep(0)
        seen.append(("async", room.state.status, room.state.version))

    def broken(room: LiveRoom) -> None:
        raise RuntimeError("an observer that fails does not stop the others")

    manager.on_game_over(broken)
    manager.on_game_over(plain)
    manager.on_game_over(coroutine)
    room = await manager.create_table(preset="gurka-night", options={}, names=NAMES, dealer=1)
    for seat in range(3):
        await room.hand_to_bot(room.state.host, seat)
    await wait_for(lambda: len(seen) == 2)
    await asyncio.sleep(0.05)
    assert seen == [("plain", "over", room.state.version), ("async", "over", room.state.version)]


async def test_a_club_table_offers_no_rematch_even_after_a_restart(manager: RoomManager) -> None:
    room = await manager.create_table(preset="gurka-night", options={}, names=NAMES, dealer=0)
    ordinary, _token = await manager.create_room(preset="gurka-night", options={}, seats=3,
                                                 host_name="Dan")
    assert room.state.club_table and not ordinary.state.club_table
    for seat in range(3):
        await room.hand_to_bot(room.state.host, seat)
    await wait_for(lambda: room.state.status == "over")
    version = room.state.version
    with pytest.raises(Refused, match="Gurka Night table"):
        await room.rematch(0, version)
    assert room.state.version == version and room.state.status == "over"
    again = RoomManager(manager.db)
    again.load()
    assert again.get(room.state.slug).state.club_table  # type: ignore[union-attr]
    assert not again.get(ordinary.state.slug).state.club_table  # type: ignore[union-attr]
