"""Issue 37 item 5, in a real browser: a player alone with bots who goes out is offered "Finish
at once" and "New practice game" on the table. The server here pauses 30 s between deals and its
bots wait before each move, so watching the rest would take a long while: "Finish at once" ends
the game in a few seconds, and "New practice game" seats the player at a new table. Screenshots
on a phone and a laptop."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e.clicking import move
from tests.e2e.conftest import serve_app
from tests.e2e.page_checks import Checks
from tests.support.browser_tables import start_table_to_one_point
from tests.support.waiting import wait_page, wait_selector, watch_page

pytestmark = pytest.mark.e2e

PHONE = {"viewport": {"width": 360, "height": 740}, "device_scale_factor": 2, "is_mobile": True, "has_touch": True}
LAPTOP = {"viewport": {"width": 1280, "height": 860}}
ATTEMPTS = 15
# my turn, or the first deal is over for me: out (the panel), still in (the pause's banner), or the end
MOVE_OR_DONE = """() => !!document.querySelector('#practice-out, .banner.nextdeal, .gameover')
  || ['play', 'select', 'exchange'].includes(document.getElementById('table').dataset.mode)"""
# click the lowest playable card: keeping the high ones makes going out likely
PLAY_LOWEST = """() => {
  const order = '23456789TJQKAX';
  const cards = Array.from(document.querySelectorAll('.hand button.cardbtn.playable'));
  if (!cards.length) return false;
  cards.sort((a, b) => order.indexOf(a.dataset.code[0]) - order.indexOf(b.dataset.code[0]));
  cards[0].click();
  return true;
}"""


@pytest.fixture(scope="module")
def slow_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with serve_app(tmp_path_factory, BOT_DELAY="0.25", DEAL_PAUSE="30") as base:
        yield base


def out_in_the_first_deal(page, server: str) -> None:  # type: ignore[no-untyped-def]
    """New tables of the player and two bots (target 1: a deal's loser is out) until the player
    goes out in the first deal."""
    for _ in range(ATTEMPTS):
        start_table_to_one_point(page, server, bots=2)
        while True:
            wait_page(page, MOVE_OR_DONE, what="my turn or the end of the first deal", timeout=30)
            if page.locator("#practice-out, .banner.nextdeal, .gameover").count():
                break
            version = int(page.locator("#table").get_attribute("data-version"))
            mode = page.locator("#table").get_attribute("data-mode")
            if mode == "play":
                assert page.evaluate(PLAY_LOWEST)
            elif not move(page):  # (the turn seen had just ended: the seat's own frame came in after the push's)
                continue
            wait_page(page, "v => +document.getElementById('table').dataset.version > v"
                            " || !!document.querySelector('#notice .toast')", version, what="my move taken")
        if page.locator("#practice-out").count():
            return
    pytest.fail(f"the player never went out in the first deal of {ATTEMPTS} games")


@pytest.mark.parametrize("device", ["phone", "laptop"])
def test_once_out_finish_at_once_or_start_anew(slow_server: str, browser, shots: Path, device: str) -> None:  # type: ignore[no-untyped-def]
    checks = Checks(limit=360 if device == "phone" else 1280)
    ctx = checks.watch(browser.new_context(**(PHONE if device == "phone" else LAPTOP)))
    try:
        page = watch_page(ctx.new_page())
        out_in_the_first_deal(page, slow_server)
        panel = page.locator("#practice-out")
        assert "You are out of this game." in panel.inner_text()
        checks.look(page, "a practice player who is out")
        panel.scroll_into_view_if_needed()
        page.screenshot(path=str(shots / f"practice-out-{device}.png"), full_page=device == "laptop")
        room = page.url
        # the deal pause alone is 30 s; finishing at once takes a few
        page.get_by_role("button", name="Finish at once").click()
        wait_selector(page, ".gameover", what="the game finished at once", timeout=10)
        assert page.url == room and page.locator("#practice-out").count() == 0
        checks.look(page, "the practice game finished at once")
        page.screenshot(path=str(shots / f"practice-finished-{device}.png"), full_page=device == "laptop")
        # out again in a new game: a new practice game from the panel
        out_in_the_first_deal(page, slow_server)
        room = page.url
        page.get_by_role("button", name="New practice game").click()
        page.wait_for_url(lambda url: "/r/" in url and url != room)
        wait_selector(page, "#table .seat.me", what="seated at the new practice table")
        assert page.locator("#table .tag.bot").count() == 3
        checks.look(page, "a new practice game")
        checks.assert_clean()
    finally:
        ctx.close()
