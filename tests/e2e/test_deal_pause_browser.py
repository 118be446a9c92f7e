"""Issue 37 item 2, in a real browser: during the pause after a deal the banner says "The deal is
over: here are its final cards", and the table shows them: the final trick on the felt and every
seat's final card under the deal's result, live and after a refresh, with two and three players."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e.conftest import serve_app
from tests.e2e.test_table_presets import LAPTOP, PHONE
from tests.support.waiting import wait_page, wait_selector, watch_page

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def paused(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with serve_app(tmp_path_factory, BOT_DELAY="0.05", DEAL_PAUSE="30") as base:
        yield base


def play_to_the_pause(page) -> None:  # type: ignore[no-untyped-def]
    """Play the host's cards (the first playable one) until the deal is over and paused."""
    for _ in range(40):
        if page.locator(".banner.nextdeal").count():
            return
        wait_page(page, "() => { const t = document.getElementById('table');"
                        " return t.dataset.mode === 'play' || !!document.querySelector('.banner.nextdeal'); }",
                  what="my turn or the deal's end", timeout=20)
        if page.locator(".banner.nextdeal").count():
            return
        before = page.locator("#table").get_attribute("data-version")
        page.locator(".hand button.cardbtn.playable").first.click()
        wait_page(page, "v => document.getElementById('table').dataset.version !== v", before,
                  what="the card played")
    raise AssertionError("the deal did not end")


def final_cards_shown(page, players: int) -> None:  # type: ignore[no-untyped-def]
    assert "here are its final cards" in page.locator(".banner.nextdeal").inner_text()
    plays = page.locator("#table-plays > li")
    assert plays.count() == players, "the final trick is on the felt"
    assert all(plays.nth(i).is_visible() for i in range(players))
    finals = page.locator(".dealend .finals li")
    assert finals.count() == players and finals.first.is_visible(), "every seat's final card"


@pytest.mark.parametrize(("players", "size"), [(2, PHONE), (3, LAPTOP)])
def test_the_pause_after_a_deal_shows_its_final_trick_and_cards(paused: str, browser, shots: Path,  # type: ignore[no-untyped-def]
                                                                players: int, size: dict) -> None:
    ctx = browser.new_context(**size)
    try:
        page = watch_page(ctx.new_page())
        page.goto(paused + "/")
        page.fill("#name", "Anna")
        page.select_option("#seats", str(players))
        page.select_option("#bots", str(players - 1))
        page.click("button[type=submit]")
        page.wait_for_url("**/r/*")
        wait_selector(page, ".seat.me .dot.on", what="the host's socket up")
        page.get_by_role("button", name="Start the game").first.click()
        wait_selector(page, ".felt", what="the deal on the felt")
        play_to_the_pause(page)
        final_cards_shown(page, players)
        page.screenshot(path=str(shots / f"deal-pause-{players}-players.png"), full_page=True)
        page.reload()
        wait_selector(page, ".banner.nextdeal", what="the pause after a refresh")
        final_cards_shown(page, players)
    finally:
        ctx.close()
