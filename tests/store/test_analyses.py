"""The analyses' table: made by its migration as the model says (SQLite and Postgres), one row per
game (a second insert fails), and a failed or quiet run taken over by one request only."""

from __future__ import annotations

from datetime import timedelta

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy.exc import IntegrityError
from sqlmodel import SQLModel

from app.store import analyses as store
from app.store.db import make_engine, session_scope, upgrade, utc_now


@pytest.fixture
def engine(database_url: str):  # type: ignore[no-untyped-def]
    upgrade(database_url)
    engine = make_engine(database_url)
    try:
        yield engine
    finally:
        engine.dispose()


def test_the_migration_makes_the_table_the_model_describes(engine) -> None:  # type: ignore[no-untyped-def]
    with engine.connect() as connection:
        context = MigrationContext.configure(connection, opts={"compare_type": True})
        diff = compare_metadata(context, SQLModel.metadata)
    mine = [c for c in diff if "game_analyses" in repr(c)]
    assert mine == []


def test_one_row_per_game_and_one_request_takes_over_a_quiet_run(engine) -> None:  # type: ignore[no-untyped-def]
    with session_scope(engine) as s:
        store.add_analysis(s, game_key="room:1:1", visitor="a" * 64, total=10)
    with pytest.raises(IntegrityError), session_scope(engine) as s:
        store.add_analysis(s, game_key="room:1:1", visitor="b" * 64, total=10)
    with session_scope(engine) as s:
        assert store.active_for_visitor(s, visitor="a" * 64, quiet_since=utc_now() - timedelta(minutes=1)) == ["room:1:1"]
        assert store.count_active(s, quiet_since=utc_now() - timedelta(minutes=1)) == 1
        # a run touched just now is not taken over
        assert not store.take_over(s, game_key="room:1:1", visitor="b" * 64, total=10,
                                   quiet_since=utc_now() - timedelta(minutes=1))
        store.beat(s, game_key="room:1:1", status=store.RUNNING, done=4)
    with session_scope(engine) as s:
        row = store.get_analysis(s, game_key="room:1:1")
        assert row is not None and (row.status, row.done, row.total) == ("running", 4, 10)
    # quiet (its process gone): the first request takes it over, the second does not
    later = utc_now() + timedelta(seconds=1)
    with session_scope(engine) as s:
        assert store.take_over(s, game_key="room:1:1", visitor="b" * 64, total=10, quiet_since=later)
    with session_scope(engine) as s:
        assert not store.take_over(s, game_key="room:1:1", visitor="c" * 64, total=10,
                                   quiet_since=utc_now() - timedelta(minutes=1))
        store.finish(s, game_key="room:1:1", result={"judged": []})
    with session_scope(engine) as s:
        row = store.get_analysis(s, game_key="room:1:1")
        assert row is not None and (row.status, row.done, row.visitor, row.result) == ("done", 10, "b" * 64, {"judged": []})
        # a finished run is never taken over
        assert not store.take_over(s, game_key="room:1:1", visitor="c" * 64, total=10, quiet_since=utc_now() + timedelta(days=1))
        store.add_analysis(s, game_key="file:ab:1", visitor=None, total=3)
        store.fail(s, game_key="file:ab:1")
    with session_scope(engine) as s:  # a failed run is taken over at once
        assert store.take_over(s, game_key="file:ab:1", visitor="c" * 64, total=3, quiet_since=utc_now() - timedelta(minutes=1))
