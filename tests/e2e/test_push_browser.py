"""Web push in a phone-sized Chromium (issue 39), end to end as far as a headless browser can go:
it cannot reach a real push service to subscribe, so the test posts the subscription itself (keys
made here, as a browser makes them, pointing at the tests' own push service on 127.0.0.1).

A practice table: the player's page is open, then they leave it for the notification settings;
it is their turn, no page of theirs is visible, so the app's "your turn" arrives at the push
service (VAPID checked, decrypted with the device's key). That very message is handed to the
page's service worker through the DevTools protocol (`ServiceWorker.deliverPushMessage`), which
shows it as a notification (permission granted to the context); a click on it (a
`notificationclick` dispatched in the worker: headless Chromium has no notification to click)
takes the window to the table. Screenshots (GURKA_SHOTS): the settings panel on a phone."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from app.push.keys import new_private_key, public_key
from bench.push_service import PushService
from tests.e2e.conftest import serve_app
from tests.e2e.page_checks import Checks
from tests.support.waiting import wait_page, wait_until, watch_page

pytestmark = pytest.mark.e2e
PHONE = {"viewport": {"width": 360, "height": 740}, "is_mobile": True, "has_touch": True}
VAPID = new_private_key()


@pytest.fixture(scope="module")
def push_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with serve_app(tmp_path_factory, VAPID_PRIVATE_KEY=VAPID, PUSH_ALLOW_LOOPBACK="true",
                   PUSH_TURN_DELAY="0.5") as base:
        yield base


@pytest.fixture
def push_service() -> Iterator[PushService]:
    service = PushService(public_key(VAPID))
    try:
        yield service
    finally:
        service.close()


def registration_id(page: Any, cdp: Any) -> str:
    found: dict[str, str] = {}

    def seen(event: dict[str, Any]) -> None:
        for reg in event.get("registrations", []):
            if not reg.get("isDeleted"):
                found["id"] = reg["registrationId"]

    cdp.on("ServiceWorker.workerRegistrationUpdated", seen)
    cdp.send("ServiceWorker.enable")
    for _ in range(150):  # Playwright hands events over only while it runs: wait through it
        if "id" in found:
            return found["id"]
        page.wait_for_timeout(100)
    raise AssertionError("no service worker registration reported over the DevTools protocol")


def test_your_turn_reaches_the_push_service_and_the_worker_shows_it(
        push_server: str, push_service: PushService, browser: Any, shots: Path) -> None:
    base = push_server
    checks = Checks()
    ctx = checks.watch(browser.new_context(**PHONE))
    ctx.grant_permissions(["notifications"], origin=base)
    try:
        page = watch_page(ctx.new_page())
        checks.visit(page, base + "/push", "the notification settings, not subscribed")
        assert page.get_by_role("button", name="Turn on notifications on this device").is_visible()
        _device, subscription = push_service.device("phone")
        answer = ctx.request.post(base + "/push/subscriptions", data=json.dumps({"subscription": subscription}),
                                  headers={"Content-Type": "application/json"})
        assert answer.ok, answer.text()
        page.reload()
        checks.look(page, "the notification settings, subscribed")
        assert page.get_by_role("checkbox", name="It is my turn at a table, and none of my pages is open").is_checked()
        page.screenshot(path=str(shots / "push-settings-360-en.png"), full_page=True)

        made = ctx.request.post(base + "/practice", form={"level": "easy"}, max_redirects=0)
        slug = made.headers["location"].rsplit("/", 1)[-1]
        page.goto(f"{base}/r/{slug}")  # the table: visible, so no message while it is shown
        wait_page(page, "() => !!document.querySelector('#table')", what="the table")
        page.goto(base + "/push")  # left the table: no page of the seat is visible now
        [got] = push_service.wait_for(1, timeout=60)  # (the sender is a process of its own: slow to start on a busy machine)
        assert got.message["url"] == f"/r/{slug}" and got.message["title"] == "Your turn"

        wait_page(page, "async () => !!(await navigator.serviceWorker.ready).active", what="the worker", timeout=15)
        page.reload()
        wait_page(page, "() => !!navigator.serviceWorker.controller", what="the page under the worker")
        cdp = ctx.new_cdp_session(page)
        cdp.send("ServiceWorker.deliverPushMessage", {"origin": base, "registrationId": registration_id(page, cdp),
                                                      "data": json.dumps(got.message)})
        shown_js = """async () => (await (await navigator.serviceWorker.ready).getNotifications())
                       .map(n => ({title: n.title, body: n.body, tag: n.tag, url: n.data && n.data.url}))"""
        seen: list = []

        def one_shown() -> bool:  # (read at once: the worker may close it when a page of the seat shows)
            seen[:] = page.evaluate(shown_js)
            return len(seen) == 1

        wait_until(one_shown, what="the notification", timeout=15)
        [shown] = seen
        assert shown == {"title": "Your turn", "body": got.message["body"], "tag": f"turn-{slug}",
                         "url": f"/r/{slug}"}

        [worker] = ctx.service_workers
        worker.evaluate("""async () => {
            const [n] = await self.registration.getNotifications();
            self.dispatchEvent(new NotificationEvent("notificationclick", { notification: n }));
        }""")
        wait_page(page, "slug => location.pathname === '/r/' + slug", slug, what="the table opened by the click")
        assert page.evaluate(shown_js) == []  # the click closed the notification
    finally:
        ctx.close()
    checks.assert_clean()
