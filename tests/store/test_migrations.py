"""Every migration runs up and down on SQLite and on Postgres."""

from __future__ import annotations

from sqlalchemy import inspect

from app.store.db import downgrade, make_engine, upgrade


def table_names(url: str) -> set[str]:
    engine = make_engine(url)
    try:
        return set(inspect(engine).get_table_names())
    finally:
        engine.dispose()


def test_upgrade_downgrade_upgrade(database_url: str) -> None:
    upgrade(database_url)
    tables = table_names(database_url)
    assert "alembic_version" in tables
    assert tables - {"alembic_version"}, "the schema should have tables after upgrade"

    downgrade(database_url, "base")
    assert table_names(database_url) <= {"alembic_version"}

    upgrade(database_url)
    assert table_names(database_url) == tables


def test_upgrade_is_idempotent(database_url: str) -> None:
    upgrade(database_url)
    before = table_names(database_url)
    upgrade(database_url)
    assert table_names(database_url) == before


def test_an_open_nights_old_per_table_bot_wishes_become_its_night_long_switch(database_url: str) -> None:
    """Before 0008 an elder's bots for the absent were kept per table in `nights.state["bots"]`;
    an open night that had any keeps them on for the rest of the night, one that had none or is
    over does not get them."""
    import json
    from datetime import date

    from sqlalchemy import text

    upgrade(database_url, "0007_chat")
    engine = make_engine(database_url)
    try:
        with engine.begin() as conn:
            for night_id, status, state in ((1, "open", {"rooms": {}, "bots": ["base-1-vinder"]}),
                                            (2, "open", {"rooms": {}}),
                                            (3, "done", {"bots": ["base-16-taber"]})):
                conn.execute(text(
                    "INSERT INTO nights (id, date, host, status, mode, seed, players, start, state, created_by,"
                    " created_at, turn_seconds) VALUES (:id, :day, 'Ann', :status, 'online', 5, '[]', '{}',"
                    " :state, 'Elsa', :day, 60)"),
                    {"id": night_id, "day": date(2026, 1, 2), "status": status, "state": json.dumps(state)})
        upgrade(database_url)
        with engine.connect() as conn:
            switched = dict(conn.execute(text("SELECT id, bots_for_absent_by FROM nights ORDER BY id")).all())
            since = conn.execute(text("SELECT bots_for_absent_since FROM nights WHERE id = 1")).scalar()
    finally:
        engine.dispose()
    assert switched == {1: "", 2: None, 3: None} and since is not None


def test_waiting_rooms_from_before_the_sweep_get_the_whole_idle_time_and_club_tables_none(database_url: str) -> None:
    """0010 gives each waiting room made before it a `seen_at` of the upgrade's moment (a sweep
    waits the whole idle time from there); a club table waiting to start and a started room stay
    unswept (None)."""
    from datetime import UTC, datetime

    from sqlalchemy import text

    upgrade(database_url, "0009_table_phones")
    engine = make_engine(database_url)
    try:
        with engine.begin() as conn:
            for room_id, status, payload in ((1, "lobby", '{"preset": "gurka-night"}'),
                                             (2, "lobby", '{"preset": "gurka-night", "table": true}'),
                                             (3, "playing", '{"preset": "gurka-night"}')):
                conn.execute(text("INSERT INTO rooms (id, slug, preset, options, seats, status, version, host, created_at)"
                                  " VALUES (:id, :slug, 'gurka-night', '{}', 3, :status, 1, 0, :at)"),
                             {"id": room_id, "slug": f"room{room_id}", "status": status, "at": datetime.now(UTC)})
                conn.execute(text("INSERT INTO room_events (room_id, seq, seat, kind, payload, at)"
                                  " VALUES (:id, 1, 0, 'create', :payload, :at)"),
                             {"id": room_id, "payload": payload, "at": datetime.now(UTC)})
        before = datetime.now(UTC)
        upgrade(database_url)
        with engine.connect() as conn:
            seen = dict(conn.execute(text("SELECT id, seen_at FROM rooms ORDER BY id")).all())
    finally:
        engine.dispose()
    assert seen[2] is None and seen[3] is None
    assert seen[1] is not None
    stamp = seen[1] if isinstance(seen[1], datetime) else datetime.fromisoformat(str(seen[1]))
    assert stamp.replace(tzinfo=stamp.tzinfo or UTC) >= before.replace(microsecond=0)
