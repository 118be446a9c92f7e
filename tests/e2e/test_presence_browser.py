"""In a real browser: a player who leaves and comes back is shown to the others by a small
presence update (htmx partials for the seat's marks), not by a new table: the host's table
element stays the very same node while Bo's dot goes off and on again."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e.conftest import serve_app
from tests.support.waiting import wait_page, wait_selector, wait_until, watch_page

pytestmark = pytest.mark.e2e

LAPTOP = {"viewport": {"width": 1280, "height": 860}}


@pytest.fixture(scope="module")
def slow_takeover_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A server where an absent seat is offered to a bot only after a minute (so a seat going
    away changes nothing but its presence marks)."""
    with serve_app(tmp_path_factory, SEAT_TAKEOVER_SECONDS="60") as base:
        yield base


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
