"""A real uvicorn server on a free loopback port with a temp SQLite DB, and Debian's Chromium."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from app.secret_key import new_secret
from tests.e2e.csp_watch import SEEN, Violations, WatchedBrowser
from tests.support.app_process import ROOT, free_port, server_process, uvicorn_args

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
        "--disable-component-update", "--disable-sync"]
SHOTS = Path(os.environ.get("GURKA_SHOTS", "/tmp/shots"))

pytestmark = pytest.mark.e2e


@contextmanager
def serve_app(tmp_path_factory: pytest.TempPathFactory, **settings: str) -> Iterator[str]:
    """A real uvicorn server of the app on a free loopback port, its own SQLite file, and its log
    watched (a wait that runs out prints its tail). `settings`: environment overrides."""
    if not os.path.exists(CHROMIUM):
        pytest.skip("Debian's chromium is not installed (apt-get install -y chromium)")
    port = free_port()
    db = tmp_path_factory.mktemp("e2e") / "gurka.db"
    env = dict(os.environ, DATABASE_URL=f"sqlite:///{db}", BOT_DELAY="0.05", SECRET_KEY=new_secret(),
               SEAT_TAKEOVER_SECONDS="0", DEAL_PAUSE="0", PYTHONPATH=str(ROOT),
               NEW_ROOMS_PER_ADDRESS="100000")  # one server, every test's rooms made from 127.0.0.1
    env.update(settings)
    log_path = tmp_path_factory.mktemp("e2e-log") / "server.log"
    with server_process(uvicorn_args(port, access_log=True), port, log_path, env) as base:
        yield base


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with serve_app(tmp_path_factory) as base:
        yield base


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    # Per module, not per session: playwright's sync API keeps an event loop running in this
    # thread while it is open, and every async test collected after it would then fail.
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        try:
            yield WatchedBrowser(b)  # every context listens for CSP violations (csp_watch.py)
        finally:
            b.close()


@pytest.fixture(autouse=True)
def csp_violations() -> Iterator[Violations]:
    """Fail the test if any page it opened violated the Content-Security-Policy."""
    SEEN.clear()
    watched = Violations()
    yield watched
    seen = watched.take()
    if seen:
        pytest.fail(f"{len(seen)} Content-Security-Policy violation(s):\n  " + "\n  ".join(seen), pytrace=False)


@pytest.fixture(scope="session")
def shots() -> Path:
    SHOTS.mkdir(parents=True, exist_ok=True)
    return SHOTS
