"""In a real browser: the server restarts (SIGTERM, then `kill -9`) mid-game; the page shows
"reconnecting…", reconnects by itself, tells the server its version and gets the same table."""

from __future__ import annotations

import os
from pathlib import Path

import httpx
import pytest

from tests.resilience.conftest import ServerProcess
from tests.support.waiting import wait_page, wait_selector, watch_page, watching

pytestmark = pytest.mark.e2e

CHROMIUM = "/usr/bin/chromium"
ONLINE = "() => !document.documentElement.classList.contains('offline')"
OFFLINE = "() => document.documentElement.classList.contains('offline')"


def table_version(page) -> int:  # type: ignore[no-untyped-def]
    return int(page.locator("#table").get_attribute("data-version"))


def test_page_reconnects_after_a_restart(browser, tmp_path: Path, shots: Path) -> None:  # type: ignore[no-untyped-def]
    if not os.path.exists(CHROMIUM):
        pytest.skip("Debian's chromium is not installed")
    server = ServerProcess(
        f"sqlite:///{tmp_path / 'gurka.db'}",
        log_path=tmp_path / "server.log",
        env={"BOT_DELAY": "0.05"},
    )
    server.start()
    try:
        with watching(server.log_path):
            form = {"name": "Anna", "preset": "gurka-night", "seats": "3", "bots": "2"}
            created = httpx.post(f"{server.url}/rooms", data=form, timeout=15)
            assert created.status_code == 303, created.text[:300]
            slug = created.headers["location"].rsplit("/", 1)[-1]
            token = created.cookies[f"gurka_seat_{slug}"]
            ctx = browser.new_context(viewport={"width": 1280, "height": 860})
            ctx.add_cookies(
                [{"name": f"gurka_seat_{slug}", "value": token, "url": f"{server.url}/r/{slug}"}]
            )
            page = watch_page(ctx.new_page())
            page.goto(f"{server.url}/r/{slug}")
            wait_selector(page, ".seat.me .dot.on", what="the socket up (a push marked us present)")
            page.get_by_role("button", name="Start the game").click()
            wait_selector(page, ".hand .cardbtn", what="a hand dealt")
            for how in ("sigterm", "kill"):
                wait_page(page, ONLINE, what="the page online")
                before = table_version(page)
                hand = sorted(
                    page.locator(".hand .cardbtn").evaluate_all("els => els.map(e => e.dataset.code)")
                )
                if how == "sigterm":
                    server.terminate()
                else:
                    server.kill()
                wait_page(page, OFFLINE, what=f"the page to notice the {how}")
                code = page.evaluate("() => document.documentElement.dataset.closeCode")
                assert code == ("1012" if how == "sigterm" else "1006"), code
                status = page.evaluate(
                    "() => getComputedStyle(document.querySelector('.statusbar'), '::after').content"
                )
                assert "reconnecting" in status
                page.screenshot(path=str(shots / f"reconnecting-{how}.png"))
                server.start()
                wait_page(page, ONLINE, what=f"the page back online after the {how}", timeout=30)
                wait_page(
                    page,
                    "v => +document.getElementById('table').dataset.version >= v",
                    before,
                    what=f"the table at version {before} or later",
                )
                assert table_version(page) >= before
                if table_version(page) == before:
                    assert (
                        sorted(
                            page.locator(".hand .cardbtn").evaluate_all(
                                "els => els.map(e => e.dataset.code)"
                            )
                        )
                        == hand
                    )
            ctx.close()
    finally:
        server.kill()
