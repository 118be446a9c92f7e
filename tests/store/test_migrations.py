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
