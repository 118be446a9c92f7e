"""Fixtures of the club's page tests."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.main import create_app
from tests.conftest import make_settings


@pytest.fixture
def both_client(database_url: str) -> Iterator[Any]:
    """A client on SQLite and on Postgres (when TEST_DATABASE_URL is set)."""
    with TestClient(create_app(make_settings(database_url))) as client:
        yield client
