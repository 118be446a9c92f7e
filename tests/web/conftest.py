from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from app.main import create_app
from tests.conftest import make_settings
from tests.web.table.wsutil import close_all


@pytest.fixture
def db_url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'rooms.db'}"


@pytest.fixture
def web(db_url: str) -> Iterator[TestClient]:
    with TestClient(create_app(make_settings(db_url))) as client:
        try:
            yield client
        finally:
            close_all()
