"""Concurrent writers on one room version: exactly one wins, on SQLite and on Postgres."""

from __future__ import annotations

import threading

from app.store import rooms as store
from app.store.db import make_engine, session_scope, upgrade


def test_two_writers_on_the_same_version_exactly_one_wins(database_url: str) -> None:
    """Two processes (here: two threads with their own connections) both saw version 2 and
    both commit: the version check lets one through; the other learns it lost and writes nothing."""
    upgrade(database_url)
    engine = make_engine(database_url)
    try:
        with session_scope(engine) as session:
            room = store.create_room(
                session, slug="race", preset="gurka-night", options={}, seats=3
            )
            room_id = room.id
            assert room_id is not None
            store.record_events(
                session,
                room_id=room_id,
                seen_version=0,
                events=[(0, "create", {}), (0, "join", {"seat": 0})],
            )
        for round_no in range(5):
            seen = 2 + round_no
            barrier = threading.Barrier(2)
            outcome: dict[str, str] = {}

            def write(
                name: str, seen: int, barrier: threading.Barrier, outcome: dict[str, str]
            ) -> None:
                try:
                    with session_scope(engine) as session:
                        barrier.wait(10)
                        store.record_events(
                            session,
                            room_id=room_id,
                            seen_version=seen,
                            events=[(0, "act", {"action": f"play {name}"})],
                        )
                    outcome[name] = "won"
                except store.VersionConflict:
                    outcome[name] = "lost"
                except Exception as exc:  # noqa: BLE001  (an integrity error also means: lost)
                    outcome[name] = f"error {type(exc).__name__}"

            threads = [
                threading.Thread(target=write, args=(n, seen, barrier, outcome)) for n in ("A", "B")
            ]
            for t in threads:
                t.start()
            for t in threads:
                t.join(30)
            assert sorted(outcome.values()) == ["lost", "won"], outcome
            with session_scope(engine) as session:
                events = store.list_events(session, room_id=room_id)
                assert [e.seq for e in events] == list(range(1, seen + 2))
                winner = next(n for n, o in outcome.items() if o == "won")
                assert events[-1].payload == {"action": f"play {winner}"}
                row = store.get_room_by_id(session, room_id=room_id)
                assert row is not None and row.version == seen + 1
    finally:
        engine.dispose()
