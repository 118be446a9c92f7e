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
