"""Seat tokens are random and only their hashes compared; the event log refuses a forked history."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.rooms.tokens import hash_token, new_slug, new_token, token_matches
from app.store import rooms as store
from app.store.db import make_engine, session_scope, upgrade


def test_tokens_are_random_and_only_hashes_are_compared() -> None:
    a, b = new_token(), new_token()
    assert a != b and len(a) >= 43
    assert token_matches(a, hash_token(a)) and not token_matches(b, hash_token(a))
    assert not token_matches(None, hash_token(a))
    assert len({new_slug() for _ in range(200)}) == 200


def test_record_events_is_versioned(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'e.db'}"
    upgrade(url)
    engine = make_engine(url)
    with session_scope(engine) as session:
        room = store.create_room(session, slug="abc", preset="kurkku", options={}, seats=3)
        v = store.record_events(session, room_id=room.id, seen_version=0,
                                events=[(0, "create", {}), (0, "join", {"seat": 0})])
        assert v == 2
    with pytest.raises(store.VersionConflict), session_scope(engine) as session:
        store.record_events(session, room_id=room.id, seen_version=1, events=[(1, "join", {})])
    with session_scope(engine) as session:
        events = store.list_events(session, room_id=room.id)
        assert [(e.seq, e.kind) for e in events] == [(1, "create"), (2, "join")]
        assert store.get_room(session, slug="abc").version == 2
    engine.dispose()
