from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from app.main import create_app
from tests.conftest import make_settings
from tests.web.table.wsutil import close_all


@pytest.fixture(scope="session")
def migrated_sqlite(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One SQLite file brought up to the newest schema, once per run (the migrations themselves
    are tested from an empty database in tests/store/test_migrations.py)."""
    from app.store.db import upgrade

    path = tmp_path_factory.mktemp("migrated") / "rooms.db"
    upgrade(f"sqlite:///{path}")
    assert not path.with_name(path.name + "-wal").exists()  # all of it in the one file
    return path


@pytest.fixture
def db_url(tmp_path: Path, migrated_sqlite: Path) -> str:
    """A database of this test's own: a copy of the migrated file (the app still runs its
    migrations at start, which find nothing left to do), not a fresh migration per test."""
    shutil.copyfile(migrated_sqlite, tmp_path / "rooms.db")
    return f"sqlite:///{tmp_path / 'rooms.db'}"


@pytest.fixture
def sqlite_url(tmp_path: Path, migrated_sqlite: Path) -> str:
    """tests/conftest.py's SQLite database (behind its `client`), for a web test: a copy of the
    migrated file too."""
    shutil.copyfile(migrated_sqlite, tmp_path / "gurka.db")
    return f"sqlite:///{tmp_path / 'gurka.db'}"


@pytest.fixture
def web(db_url: str) -> Iterator[TestClient]:
    with TestClient(create_app(make_settings(db_url))) as client:
        try:
            yield client
        finally:
            close_all()
