"""Issue 38 item 3 in a real browser, on a 360 px phone: a short game finished by clicking, its
replay, "Analyse" pressed from the keyboard, the progress swapped in place until the strong bot's
judgement of every decision is there (summary per player, every decision, its marks), the focus
on the analysis's heading, a decision's step link stepping the replay to that move with its
verdict, no page wider than the phone, nothing the CSP blocks, no serious axe finding; then the
same analysis (stored: nothing runs again) in Finnish on the phone and in Danish and Icelandic on
a laptop. Screenshots (GURKA_SHOTS): analysis-<device>-<language>.png."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.e2e.page_checks import Checks
from tests.e2e.test_replay_browser import LAPTOP, PHONE, finished_game
from tests.support.waiting import wait_page, wait_selector, watch_page

pytestmark = pytest.mark.e2e

DONE = "() => document.querySelector('#analysis')?.dataset.status === 'done'"


def test_a_finished_game_is_analysed_on_a_phone_by_keyboard(server: str, browser, shots: Path) -> None:  # type: ignore[no-untyped-def]
    checks = Checks(limit=360)
    ctx = checks.watch(browser.new_context(**PHONE, locale="en-GB"))
    try:
        page = watch_page(ctx.new_page())
        finished_game(page, server, checks)
        page.locator(".gameover a[href$='/replay']").click()
        page.wait_for_url("**/replay")
        wait_selector(page, "#analysis[data-status=none] #analyse", what="the Analyse button")
        checks.look(page, "the replay, before its analysis")
        replay_url = page.url

        page.locator("#analyse").focus()
        page.keyboard.press("Enter")
        wait_page(page, "() => ['running', 'waiting', 'done'].includes(document.querySelector('#analysis')?.dataset.status)",
                  what="the analysis started")
        wait_page(page, DONE, what="the analysis done (its progress asked for every second)", timeout=120)
        assert page.evaluate("() => document.activeElement.id") == "analysis-title"  # the focus followed
        wait_page(page, "() => document.getElementById('announce').textContent.includes('The strong bot judged')",
                  what="the live region saying the analysis is done")
        rows = page.locator("#analysis table.decisions tbody tr:not(.deal)")
        assert rows.count() >= 3
        assert page.locator("#analysis table.analysis-summary tbody tr").count() == 2
        marks = page.locator("#analysis table.decisions .mark:visible").count()  # (a mark is drawn for a phone and for a laptop)
        summary = page.locator("#analysis .status-line").inner_text()
        assert f"{marks} move" in summary, (marks, summary)  # the marks the table shows are counted
        checks.look(page, "the replay with its analysis (phone)")
        page.screenshot(path=str(shots / "analysis-phone-en.png"), full_page=True)

        # a decision's step link steps the replay there (in place), its verdict in the step view
        link = page.locator("#analysis table.decisions tbody tr:not(.deal) td a").nth(1)
        step = int(link.inner_text())
        link.focus()
        page.keyboard.press("Enter")
        wait_page(page, "n => document.querySelector('#replay .where').textContent.startsWith('Step ' + n + ' of')", step,
                  what="the replay at the decision's step")
        wait_page(page, "() => document.querySelector('#step-verdict').textContent.includes('Analysis:')",
                  what="the step's verdict")
        assert page.locator("#analysis tr[aria-current=step]").count() == 1
        checks.look(page, "a decision's step, with its verdict")
        page.locator("#step-verdict").scroll_into_view_if_needed()
        page.screenshot(path=str(shots / "analysis-phone-en-step.png"))

        # Finnish (the longest words), on the phone: the stored analysis, nothing to run
        page.goto(replay_url)
        page.locator("nav.langs a[hreflang=fi]").click()
        wait_page(page, "() => document.documentElement.lang === 'fi' && document.querySelector('#analysis')?.dataset.status === 'done'",
                  what="the replay in Finnish with its analysis")
        assert "Kaikki päätökset" in page.locator("#analysis").inner_text()
        checks.look(page, "the analysis in Finnish (phone)")
        page.screenshot(path=str(shots / "analysis-phone-fi.png"), full_page=True)
        checks.assert_clean()
    finally:
        ctx.close()

    for lang in ("da", "is"):
        wide = Checks(limit=1280)
        laptop = wide.watch(browser.new_context(**LAPTOP))
        try:
            page = watch_page(laptop.new_page())
            page.goto(f"{server}/language/{lang}?next=/")
            page.goto(replay_url)
            wait_page(page, DONE, what=f"the stored analysis in {lang}")
            heading = {"da": "Alle beslutninger", "is": "Allar ákvarðanir"}[lang]
            assert heading in page.locator("#analysis").inner_text()
            wide.look(page, f"the analysis on a laptop ({lang})")
            page.screenshot(path=str(shots / f"analysis-laptop-{lang}.png"), full_page=True)
            wide.assert_clean()
        finally:
            laptop.close()


@pytest.mark.parametrize("preset", ["vidivellir", "rassi"])  # long games; rassi's moves are words
def test_an_opened_files_analysis_fits_a_phone_in_every_language(server: str, browser, preset: str) -> None:  # type: ignore[no-untyped-def]
    """A history file opened on /replay is analysed too; its analysis (every mark, rassi's answers
    and exchanges as words) never makes the page or its tables wider than a 360 px phone, in any
    of the four languages, and passes axe."""
    from app.rules.history_examples import example_text

    checks = Checks(limit=360)
    ctx = checks.watch(browser.new_context(**PHONE, locale="en-GB"))
    try:
        page = watch_page(ctx.new_page())
        page.goto(server + "/replay")
        page.fill("#text", example_text(preset))
        page.locator("main form button[type=submit]").click()
        page.wait_for_url("**/replay/*")
        replay_url = page.url
        page.locator("#analyse").click()
        wait_page(page, DONE, what="the file's analysis done", timeout=180)
        for lang in ("en", "da", "is", "fi"):
            page.goto(f"{server}/language/{lang}?next=/")
            page.goto(replay_url)
            wait_page(page, DONE, what=f"the stored analysis in {lang}")
            scrolling = page.evaluate("() => [...document.querySelectorAll('#analysis .tablewrap')]"
                                      ".filter(w => w.scrollWidth > w.clientWidth).length")
            assert scrolling == 0, f"a table of the analysis scrolls sideways in {lang}"
            checks.look(page, f"an opened file's analysis ({preset}, {lang})")
        checks.assert_clean()
    finally:
        ctx.close()
