"""Issue 37 item 4, in a real browser: the replay steps in place. Each arrow key was a whole page
load, so three quick presses moved one step. Now a step swaps the page's #replay (htmx) and goes
into the history: three presses sent at once move three steps, two quick clicks two, back and
forward step back and forth, all in one document; the focus stays on the link pressed and the
page's live region says where the replay is. Screenshots on a phone and a laptop."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.e2e.page_checks import Checks
from tests.e2e.test_every_page_browser import play_to_the_end
from tests.support.browser_tables import start_table_to_one_point
from tests.support.waiting import wait_page, wait_selector, watch_page

pytestmark = pytest.mark.e2e

PHONE = {"viewport": {"width": 360, "height": 740}, "device_scale_factor": 2, "is_mobile": True, "has_touch": True}
LAPTOP = {"viewport": {"width": 1280, "height": 860}}
PRESS_THREE = """() => { for (let i = 0; i < 3; i++)
  document.body.dispatchEvent(new KeyboardEvent('keydown', {key: 'ArrowRight', bubbles: true, cancelable: true})); }"""


def step_of(page) -> int:  # type: ignore[no-untyped-def]
    return int(page.evaluate("() => new URLSearchParams(location.search).get('step') || '0'"))


def wait_step(page, n: int) -> None:  # type: ignore[no-untyped-def]
    """The page shows step `n` (0-based) in its URL and in its step counter."""
    wait_page(page, """n => new URLSearchParams(location.search).get('step') === String(n)
                      && document.querySelector('#replay .where').textContent.startsWith('Step ' + (n + 1) + ' of')""",
              n, what=f"step {n} of the replay shown")


def finished_game(page, server: str, checks: Checks) -> None:  # type: ignore[no-untyped-def]
    """A two-player game against a bot that ends after its first deal (target 1), played by clicking."""
    start_table_to_one_point(page, server, seats=2, bots=1)
    play_to_the_end(page, checks)


@pytest.mark.parametrize("device", ["laptop", "phone"])
def test_the_replay_steps_in_place(server: str, browser, shots: Path, device: str) -> None:  # type: ignore[no-untyped-def]
    checks = Checks(limit=360 if device == "phone" else 1280)
    ctx = checks.watch(browser.new_context(**(PHONE if device == "phone" else LAPTOP)))
    try:
        page = watch_page(ctx.new_page())
        finished_game(page, server, checks)
        page.locator(".gameover a[href$='/replay']").click()
        page.wait_for_url("**/replay")
        wait_selector(page, "#replay[hx-history-elt] a[data-nav=next]", what="the replay's first step")
        total = int(page.locator("#replay .where").inner_text().rsplit(" ", 1)[-1])
        assert total >= 8, total
        page.evaluate("() => { window.__onePage = true; }")  # gone if a whole page is loaded
        history = page.evaluate("() => history.length")

        page.evaluate(PRESS_THREE)  # three presses before the first step has come back
        wait_step(page, 3)
        page.go_back()
        wait_step(page, 2)
        page.go_forward()
        wait_step(page, 3)
        page.evaluate("() => { const a = document.querySelector('#go-next'); a.click(); a.click(); }")
        wait_step(page, 5)
        assert page.evaluate("() => history.length") == history + 5  # one entry per step (3, then 2)
        checks.look(page, "the replay, stepped in place")

        page.locator("#go-next").focus()
        page.keyboard.press("Enter")
        wait_step(page, 6)
        assert page.evaluate("() => document.activeElement.id") == "go-next"  # the focus stayed
        wait_page(page, "() => document.getElementById('announce').textContent.includes('Step 7 of')",
                  what="the step said in the live region")
        page.keyboard.press("End")
        wait_step(page, total - 1)
        assert page.locator("#replay a[data-nav=next]").count() == 0
        page.keyboard.press("Shift+ArrowLeft")  # back to the deal's first step
        wait_step(page, 0)
        assert page.evaluate("() => window.__onePage === true"), "a step loaded a whole page"
        page.keyboard.press("ArrowRight")
        wait_step(page, 1)
        checks.look(page, "the replay after stepping by keys")
        page.screenshot(path=str(shots / f"replay-in-place-{device}.png"), full_page=device == "laptop")
        # a step's own link still works as a link (a new tab, or without script)
        page.goto(page.url.split("?", 1)[0] + page.locator("#go-next").get_attribute("href"))
        wait_step(page, 2)
        checks.assert_clean()
    finally:
        ctx.close()
