"""An app with web push on, sending to the tests' own push service on 127.0.0.1; the store's engine on
a migrated database."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Engine

from app.main import create_app
from app.push.keys import new_private_key, public_key
from app.store.db import make_engine, upgrade
from bench.push_service import PushService
from tests.conftest import make_settings


@pytest.fixture
def engine(database_url: str) -> Iterator[Engine]:
    """The app's tables, migrated, on a fresh database (each test runs on SQLite and Postgres)."""
    upgrade(database_url)
    made = make_engine(database_url)
    try:
        yield made
    finally:
        made.dispose()


@pytest.fixture
def vapid_key() -> str:
    return new_private_key()


@pytest.fixture
def push_service(vapid_key: str) -> Iterator[PushService]:
    service = PushService(public_key(vapid_key))
    try:
        yield service
    finally:
        service.close()


def push_settings(db_url: str, vapid_key: str, **more: Any) -> Any:
    return make_settings(db_url, vapid_private_key=vapid_key, push_allow_loopback=True,
                         push_turn_delay=0.3, push_club_every=0.2, **more)


@pytest.fixture
def pushing(tmp_path: Path, vapid_key: str) -> Iterator[TestClient]:
    app = create_app(push_settings(f"sqlite:///{tmp_path / 'push.db'}", vapid_key))
    with TestClient(app) as client:
        yield client
