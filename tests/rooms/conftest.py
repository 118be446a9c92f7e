"""Fixtures for the rooms tests: a room manager on a fresh SQLite database."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.rooms import RoomManager
from app.store.db import make_engine, upgrade


@pytest.fixture
def manager(tmp_path: Path) -> RoomManager:
    """No bot delay, no takeover delay: the tests drive the timing themselves."""
    url = f"sqlite:///{tmp_path / 'rooms.db'}"
    upgrade(url)
    return RoomManager(make_engine(url), bot_delay=0.0, takeover_seconds=0.0)
