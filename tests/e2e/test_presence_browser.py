"""In a real browser: a player who leaves and comes back is shown to the others by a small
presence update (htmx partials for the seat's marks), not by a new table: the host's table
element stays the very same node while Bo's dot goes off and on again."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e.conftest import CHROMIUM, ROOT, free_port
from tests.waiting import answers, wait_page, wait_selector, wait_until, watch_page, watching

pytestmark = pytest.mark.e2e

LAPTOP = {"viewport": {"width": 1280, "height": 860}}


@pytest.fixture(scope="module")
def slow_takeover_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A server where an absent seat is offered to a bot only after a minute (so a seat going
    away changes nothing but its presence marks)."""
    if not os.path.exists(CHROMIUM):
        pytest.skip("Debian's chromium is not installed (apt-get install -y chromium)")
    port = free_port()
    db = tmp_path_factory.mktemp("e2e-presence") / "gurka.db"
    env = dict(os.environ, DATABASE_URL=f"sqlite:///{db}", BOT_DELAY="0.05", SECRET_KEY="e2e",
               SEAT_TAKEOVER_SECONDS="60", DEAL_PAUSE="0", PYTHONPATH=str(ROOT))
    log_path = tmp_path_factory.mktemp("e2e-presence-log") / "server.log"
    log = open(log_path, "w")  # noqa: SIM115 (lives as long as the server)
    proc = subprocess.Popen(
        [sys.executable, "-m", "uvicorn", "app.main:create_app", "--factory", "--host", "127.0.0.1",
         "--port", str(port), "--ws", "websockets-sansio", "--ws-per-message-deflate", "false"],
        cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        with watching(log_path):
            wait_until(lambda: answers(base, proc), what=f"{base}/healthz to answer", timeout=30,
                       seen=lambda: f"server exit code {proc.poll()}")
            yield base
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()


SAME_TABLE = "() => document.getElementById('table').dataset.marked === 'kept'"


def test_a_seat_leaving_and_coming_back_updates_only_its_marks(slow_takeover_server: str, browser, shots: Path) -> None:  # type: ignore[no-untyped-def]
    server = slow_takeover_server
    host_ctx = browser.new_context(**LAPTOP)
    bo_ctx = browser.new_context(**LAPTOP)
    try:
        host = watch_page(host_ctx.new_page())
        host.goto(server + "/")
        host.fill("#name", "Anna")
        host.select_option("#seats", "3")
        host.select_option("#bots", "1")
        host.click("button[type=submit]")
        host.wait_for_url("**/r/*")
        link = host.locator("[data-room-link]").input_value()
        bo = watch_page(bo_ctx.new_page())
        bo.goto(link)
        bo.fill("#join-name", "Bo")
        bo.get_by_role("button", name="Take a seat").click()
        wait_selector(host, ".seat:has-text('Bo') .dot.on", what="Bo shown present to the host")
        host.get_by_role("button", name="Start the game").click()
        # the bot moves when it is its turn; then the game waits for Anna or Bo
        wait_page(host, "() => !!document.querySelector('#table .felt')", what="the deal on the felt")
        wait_until(lambda: host.locator("#table[data-my-turn=true]").count() + bo.locator("#table[data-my-turn=true]").count() > 0,
                   what="a human's turn (nothing moves until they act)", timeout=15)
        host.evaluate("() => { document.getElementById('table').dataset.marked = 'kept'; }")

        bo.close()  # Bo's tab closes
        wait_selector(host, ".seat:has-text('Bo') .dot.off", what="Bo shown away to the host")
        assert host.evaluate(SAME_TABLE), "the host's whole table was replaced for a presence change"
        assert host.locator(".seat:has-text('Bo') .sr-only:has-text('(away)')").count() == 1
        host.screenshot(path=str(shots / "presence-away.png"), full_page=True)

        bo = watch_page(bo_ctx.new_page())  # Bo comes back (his seat cookie)
        bo.goto(link)
        wait_selector(host, ".seat:has-text('Bo') .dot.on", what="Bo shown present again")
        assert host.evaluate(SAME_TABLE), "the host's whole table was replaced for a presence change"
        wait_selector(bo, ".seat.me .dot.on", what="Bo's own page with its seat")
    finally:
        host_ctx.close()
        bo_ctx.close()
