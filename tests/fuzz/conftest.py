"""The fuzz suite: Hypothesis over the room websocket protocol and the forms and queries, with a
bounded budget (the whole folder runs in well under a minute as part of `make test`)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, settings

from app.main import create_app
from tests.conftest import make_settings
from tests.web.table.wsutil import close_all

settings.register_profile(
    "fuzz", max_examples=300, deadline=None, derandomize=False,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


@pytest.fixture
def fuzz_app(tmp_path: Path) -> Iterator[TestClient]:
    """The app with the message budgets lifted (the fuzzer sends far more than a person)."""
    config = make_settings(f"sqlite:///{tmp_path / 'fuzz.db'}", ws_player_messages=1_000_000,
                           ws_spectator_messages=1_000_000, ws_connects_per_address=1_000_000,
                           ws_per_address=1_000)
    with TestClient(create_app(config)) as client:
        try:
            yield client
        finally:
            close_all()
