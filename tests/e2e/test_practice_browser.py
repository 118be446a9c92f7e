"""In a real browser: a player starts a practice game against three strong bots with one click on
the home page, is seated and dealt at once, the seats say "Bot (strong)", and the player plays
moves by clicking cards while the bots (thinking in the server's bot pool) answer."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.e2e.clicking import move
from tests.support.waiting import wait_page, wait_selector, watch_page

pytestmark = pytest.mark.e2e

LAPTOP = {"viewport": {"width": 1280, "height": 860}}
MOVES = 4
# a move is ours to make, or the game (or the deal) is over
MY_TURN_OR_DONE = """() => {
  const t = document.getElementById('table');
  return t && (['play', 'select', 'exchange', 'rassi'].includes(t.dataset.mode) || !!document.querySelector('.gameover'));
}"""


def version(page) -> int:  # type: ignore[no-untyped-def]
    return int(page.locator("#table").get_attribute("data-version"))


def test_practice_against_strong_bots_in_one_click(server: str, browser, shots: Path) -> None:  # type: ignore[no-untyped-def]
    ctx = browser.new_context(**LAPTOP)
    try:
        page = watch_page(ctx.new_page())
        page.goto(server + "/")
        assert page.locator("#practice_level").input_value() == "strong"  # the level unless chosen
        page.click("form.practice button[type=submit]")  # the one click
        page.wait_for_url("**/r/*")
        wait_selector(page, "#table .seat.me", what="the player seated at the practice table")
        tags = [t.strip() for t in page.locator("#table .tag.bot").all_text_contents()]
        assert tags == ["Bot (strong)"] * 3, tags
        assert page.locator("#table .seat").count() == 4
        played = 0
        for _ in range(MOVES):
            wait_page(page, MY_TURN_OR_DONE, what="the player's turn (the strong bots answered)", timeout=30)
            if page.locator(".gameover").count():
                break
            before = version(page)
            assert move(page), "no move could be clicked on the player's turn"
            played += 1
            wait_page(page, "v => +document.getElementById('table').dataset.version > v", before,
                      what="the move taken by the table", timeout=15)
        assert played >= 2, f"only {played} moves were played"
        page.screenshot(path=str(shots / "practice-strong.png"), full_page=True)
    finally:
        ctx.close()


def test_the_new_room_form_asks_a_level_for_each_bot(server: str, browser) -> None:  # type: ignore[no-untyped-def]
    ctx = browser.new_context(**LAPTOP)
    try:
        page = watch_page(ctx.new_page())
        page.goto(server + "/")
        assert page.locator("#bot-levels select").count() == 1  # no bots yet: the away bot's level only
        page.fill("#name", "Anna")
        page.select_option("#seats", "4")
        page.select_option("#bots", "2")
        wait_selector(page, "#level_2", what="a level for each of the two bots")
        page.select_option("#level_1", "strong")
        page.select_option("#level_2", "easy")
        page.select_option("#bots", "3")  # one more: the choices made stay
        wait_selector(page, "#level_3", what="a level for the third bot")
        assert page.locator("#level_1").input_value() == "strong"
        page.locator("form.create button[type=submit]").click()
        page.wait_for_url("**/r/*")
        wait_selector(page, "#table .tag.bot", what="the bots seated")
        tags = [t.strip() for t in page.locator("#table .tag.bot").all_text_contents()]
        assert tags == ["Bot (strong)", "Bot (easy)", "Bot (medium)"], tags
    finally:
        ctx.close()
