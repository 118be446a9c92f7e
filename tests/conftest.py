"""Fixtures shared by every test folder: settings on a fresh database, an app client, Postgres."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.secret_key import new_secret
from app.settings import Settings
from bench.fresh_database import fresh_database

POSTGRES_URL = os.environ.get("TEST_DATABASE_URL", "")
needs_postgres = pytest.mark.skipif(
    not POSTGRES_URL,
    reason="no PostgreSQL: set TEST_DATABASE_URL=postgresql+psycopg://user@host:5432/db to run",
)


def make_settings(database_url: str, **overrides: object) -> Settings:
    values: dict[str, object] = {
        "database_url": database_url,
        "secret_key": new_secret(),  # never a constant: a known key would sign an elder
        "bot_delay": 0.0,
        "seat_takeover_seconds": 0.0,
        "deal_pause": 0.0,
        # the pacer freezes what lives: a test that looks for objects or cycles would not see them
        "gc_pacing": False,
        "allowed_origins": ["http://testserver"],
    }
    values.update(overrides)
    return Settings(**values)  # type: ignore[arg-type]


@pytest.fixture
def sqlite_url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'gurka.db'}"


@pytest.fixture
def postgres_url() -> Iterator[str]:
    """A brand-new, empty Postgres database for one test, dropped afterwards."""
    if not POSTGRES_URL:
        pytest.skip("no PostgreSQL: set TEST_DATABASE_URL to run the Postgres tests")
    with fresh_database(POSTGRES_URL, "gurka_test_") as url:
        yield url


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """Each test using this runs on SQLite and on Postgres."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'gurka.db'}"
    return str(request.getfixturevalue("postgres_url"))


@pytest.fixture
def app_settings(sqlite_url: str) -> Settings:
    return make_settings(sqlite_url)


@pytest.fixture
def client(app_settings: Settings) -> Iterator[object]:
    from fastapi.testclient import TestClient

    from app.main import create_app

    with TestClient(create_app(app_settings)) as test_client:
        yield test_client
