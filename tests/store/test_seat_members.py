"""Who took a room's seat (seat_members), on SQLite and Postgres: kept per room, oldest first,
and swept with the room when nobody ever started it."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from app.store import members as member_store
from app.store import rooms as store
from app.store import seat_members
from app.store.db import make_engine, session_scope, upgrade


def test_seat_rows_are_kept_and_go_with_a_swept_room(database_url: str) -> None:
    upgrade(database_url)
    engine = make_engine(database_url)
    try:
        long_ago = datetime.now(UTC) - timedelta(days=2)
        with session_scope(engine) as session:
            ann = member_store.add_member(session, name="Ann")
            idle = store.create_room(session, slug="idle-room", preset="kurkku", options={}, seats=3, seen_at=long_ago)
            kept = store.create_room(session, slug="kept-room", preset="kurkku", options={}, seats=3)
            assert idle.id is not None and kept.id is not None and ann.id is not None
            seat_members.seat_taken(session, room_id=idle.id, seat=0, member_id=ann.id)
            seat_members.seat_taken(session, room_id=kept.id, seat=0, member_id=ann.id)
            seat_members.seat_taken(session, room_id=kept.id, seat=1, member_id=None)
            idle_id, kept_id = idle.id, kept.id
        with session_scope(engine) as session:
            rooms = seat_members.rooms_with_members(session)
            assert set(rooms) == {idle_id, kept_id}
            assert [(r.seat, r.member_id is None) for r in rooms[kept_id]] == [(0, False), (1, True)]
            assert store.delete_idle_lobbies(session, before=datetime.now(UTC) - timedelta(days=1)) == [idle_id]
        with session_scope(engine) as session:
            assert set(seat_members.rooms_with_members(session)) == {kept_id}
    finally:
        engine.dispose()
