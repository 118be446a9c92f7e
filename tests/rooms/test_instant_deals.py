"""A deal that ends the moment it is dealt (gurka-is one-card deals) never leaves a room stuck:
the room deals on until somebody must act or the game is over, also after a restart."""

from __future__ import annotations

import asyncio

import pytest

from app.rooms import RoomManager

NAMES = ["Ann", "Bo", "Cy"]


async def wait_over(room, seconds: float = 30.0) -> None:  # type: ignore[no-untyped-def]
    loop = asyncio.get_running_loop()
    deadline = loop.time() + seconds
    while room.state.status != "over":
        g = room.state.game
        stuck = g is not None and not g.over and g.to_act is None and room.bots.seat() is None
        assert loop.time() < deadline, f"room stuck in phase {g.phase if g else None}, stuck={stuck}"
        await asyncio.sleep(0.005)


@pytest.mark.parametrize("hand_sizes", [[1], [2, 1]])
async def test_bots_finish_gurka_is_rooms_whose_deals_end_when_dealt(
    manager: RoomManager, hand_sizes: list[int]
) -> None:
    for dealer in range(3):
        room = await manager.create_table(
            preset="gurka-is", options={"hand_sizes": hand_sizes}, names=NAMES, dealer=dealer
        )
        g = room.state.game
        assert g is not None
        # right after the start somebody must act, or the game is already over
        assert g.over or g.to_act is not None
        for seat in range(3):
            if room.state.status == "playing":
                await room.hand_to_bot(room.state.host, seat)
        await wait_over(room)
        assert room.state.game is not None and room.state.game.over and room.state.game.ranking


async def test_a_room_stored_between_deals_deals_on_after_a_restart(manager: RoomManager) -> None:
    """A room saved in the old stuck state (a finished deal, no next deal in its log) deals on
    when the server starts again."""
    from app.store import rooms as store
    from app.store.db import session_scope

    room = await manager.create_table(preset="gurka-is", options={"hand_sizes": [1]}, names=NAMES,
                                      dealer=0)
    # forge the stuck log: drop every deal after the first (what the old server left behind)
    with session_scope(manager.db) as session:
        events = store.list_events(session, room_id=room.state.id)
        deals = [e for e in events if e.kind == "deal"]
        for extra in deals[1:]:
            session.delete(extra)
        row = store.get_room_by_id(session, room_id=room.state.id)
        assert row is not None
        row.version = deals[0].seq
        row.status = "playing"
        session.add(row)
    again = RoomManager(manager.db, bot_delay=0.0, takeover_seconds=0.0)
    again.load()
    stuck = again.get(room.state.slug)
    assert stuck is not None and stuck.state.game is not None
    assert stuck.state.game.phase == "waiting"  # the stored state really is the stuck one
    await again.start()
    loop = asyncio.get_running_loop()
    deadline = loop.time() + 10
    while not (stuck.state.game.over or stuck.state.game.to_act is not None):
        assert loop.time() < deadline, "the restarted room never dealt on"
        await asyncio.sleep(0.005)
    await again.stop()
