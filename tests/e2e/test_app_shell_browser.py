"""The installable app in a phone-sized Chromium (issue 39): the manifest and the service worker
pass Chromium's installability checks (DevTools `Page.getInstallabilityErrors`), the manifest
speaks the reader's language, and a table phone whose network dies reloads from the worker with
its form, its chairs and its queue of results, and sends the queue once when the network is back.
Screenshots (GURKA_SHOTS): the table phone reloaded offline with its queue."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.e2e.conftest import ARGS, CHROMIUM
from tests.e2e.page_checks import Checks
from tests.e2e.test_home_night_browser import (
    PHONE,
    chairs_of,
    elder_links,
    home,
    rows,
    shoot,
    tap_result,
)
from tests.resilience.tcp_proxy import ThreadedProxy
from tests.support.waiting import wait_page, wait_selector, watch_page

pytestmark = pytest.mark.e2e
__all__ = ["home"]  # the fixture, shared with the home night's browser tests

CONTROLLED = "() => !!navigator.serviceWorker.controller"


def test_the_app_passes_chromiums_installability_checks(server: str, browser: Any, tmp_path: Path) -> None:
    checks = Checks()
    # A profile on disk: Chromium never offers to install from an incognito context (Playwright's
    # new_context is one), so the check would stop at "in-incognito".
    ctx = checks.watch(browser.browser_type.launch_persistent_context(
        str(tmp_path / "profile"), executable_path=CHROMIUM, args=ARGS, headless=True, **PHONE, locale="da-DK"))
    try:
        page = watch_page(ctx.new_page())
        checks.visit(page, server + "/", "the home page, installable")
        wait_page(page, "async () => !!(await navigator.serviceWorker.ready).active",
                  what="the service worker active", timeout=15)
        cdp = ctx.new_cdp_session(page)
        errors = cdp.send("Page.getInstallabilityErrors")["installabilityErrors"]
        assert errors == [], errors
        manifest = cdp.send("Page.getAppManifest")
        assert manifest["url"].endswith("/manifest.webmanifest") and not manifest["errors"]
        parsed = page.evaluate("async () => (await fetch('/manifest.webmanifest')).json()")
        assert parsed["lang"] == "da" and parsed["display"] == "standalone"
        assert "Spil Gurka" in parsed["description"]  # in the reader's language
        assert {i["purpose"] for i in parsed["icons"]} == {"any", "maskable"}
        # a page the worker has not kept, with no network: the offline page, in Danish
        ctx.set_offline(True)
        page.goto(server + "/club/hall-of-fame")
        wait_selector(page, "h1", what="the offline page")
        assert page.locator("h1").inner_text() == "Ingen forbindelse"
        checks.look(page, "the offline page")
    finally:
        ctx.close()
    checks.assert_clean()


def test_a_table_phone_reloads_with_no_network_and_sends_its_queue_when_back(
        home: dict[str, Any], browser: Any, shots: Path) -> None:
    base, night_id, engine = home["base"], home["night"], home["engine"]
    elder, links = elder_links(browser, base, night_id)
    # A dead network for real: the phone reaches the app through a proxy that the test cuts.
    # (Playwright's set_offline alone does not hold back a service worker's own fetches.)
    server_port = int(base.rsplit(":", 1)[1])
    proxy = ThreadedProxy("127.0.0.1", server_port)
    link = links["vinder"].replace(f":{server_port}/", f":{proxy.port}/")
    checks = Checks()
    ctx = checks.watch(browser.new_context(**PHONE))
    try:
        page = watch_page(ctx.new_page())
        page.goto(link)
        wait_page(page, "async () => !!(await navigator.serviceWorker.ready).active",
                  what="the service worker active", timeout=15)
        page.reload()  # now the worker serves the page, and keeps it
        wait_page(page, CONTROLLED, what="the page under the service worker")
        wait_selector(page, "form[data-result-form]", what="the vinder phone")
        chairs = chairs_of(page)
        assert len(chairs) == 3

        proxy.cut()
        ctx.set_offline(True)
        tap_result(page, chairs[0], chairs[1])
        page.get_by_role("button", name="Save the result").click()
        wait_selector(page, "#outbox:not([hidden])", what="the result waiting to be sent")

        answer = page.reload()  # the network is dead: the worker answers with the kept page
        assert answer is not None and answer.from_service_worker
        wait_selector(page, "#outbox:not([hidden])", what="the queue after a reload with no network")
        assert chairs_of(page) == chairs  # the form's chairs, from the kept page
        assert page.locator(".phone-round").inner_text().strip()
        outbox = page.locator("#outbox").inner_text()
        assert f"{chairs[2]} won" in outbox
        checks.look(page, "the vinder phone reloaded with no network")
        shoot(page, shots, "phone-360-en-offline-reload")
        assert rows(engine, night_id) == []

        proxy.restore()
        ctx.set_offline(False)
        wait_page(page, "() => document.getElementById('phone-say').dataset.kind === 'saved'",
                  what="the kept result sent when the network is back", timeout=20)
        wait_page(page, "() => document.getElementById('outbox').hidden", what="the outbox empty")
        assert rows(engine, night_id) == [("base", 1, "vinder", "phone")]
        shoot(page, shots, "phone-360-en-back-online")
    finally:
        ctx.close()
        elder.close()
        proxy.close()
    checks.assert_clean()
