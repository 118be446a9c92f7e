"""In a real browser: the server restarts (SIGTERM, then `kill -9`) mid-game; the page shows
"reconnecting…", reconnects by itself, tells the server its version and gets the same table."""

from __future__ import annotations

import os
from pathlib import Path

import httpx
import pytest

from tests.resilience.conftest import ServerProcess

pytestmark = pytest.mark.e2e

CHROMIUM = "/usr/bin/chromium"


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
        form = {"name": "Anna", "preset": "gurka-night", "seats": "3", "bots": "2"}
        created = httpx.post(f"{server.url}/rooms", data=form, timeout=15)
        assert created.status_code == 303, created.text[:300]
        slug = created.headers["location"].rsplit("/", 1)[-1]
        token = created.cookies[f"gurka_seat_{slug}"]
        ctx = browser.new_context(viewport={"width": 1280, "height": 860})
        ctx.add_cookies(
            [{"name": f"gurka_seat_{slug}", "value": token, "url": f"{server.url}/r/{slug}"}]
        )
        page = ctx.new_page()
        page.goto(f"{server.url}/r/{slug}")
        page.wait_for_selector(".seat.me .dot.on")  # the socket is up (a push marked us present)
        page.get_by_role("button", name="Start the game").click()
        page.wait_for_selector(".hand .cardbtn")
        for how in ("sigterm", "kill"):
            page.wait_for_function("() => !document.documentElement.classList.contains('offline')")
            before = table_version(page)
            hand = sorted(
                page.locator(".hand .cardbtn").evaluate_all("els => els.map(e => e.dataset.code)")
            )
            if how == "sigterm":
                server.terminate()
            else:
                server.kill()
            page.wait_for_function(
                "() => document.documentElement.classList.contains('offline')", timeout=10_000
            )
            code = page.evaluate("() => document.documentElement.dataset.closeCode")
            assert code == ("1012" if how == "sigterm" else "1006"), code
            status = page.evaluate(
                "() => getComputedStyle(document.querySelector('.statusbar'), '::after').content"
            )
            assert "reconnecting" in status
            page.screenshot(path=str(shots / f"reconnecting-{how}.png"))
            server.start()
            page.wait_for_function(
                "() => !document.documentElement.classList.contains('offline')", timeout=30_000
            )
            page.wait_for_function(
                f"() => +document.getElementById('table').dataset.version >= {before}"
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
    except Exception:
        log = tmp_path / "server.log"
        print("server log (tail):", log.read_text()[-4000:] if log.exists() else "(none)")
        raise
    finally:
        server.kill()
