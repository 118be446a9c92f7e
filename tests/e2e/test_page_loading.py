"""In a real browser: the room page opens its websocket however its scripts arrive.

htmx starts itself one task after it runs once the page is parsed; its websocket extension
must be registered by then, or `hx-ws:connect` is never seen and the page sits without a
socket (seen under load, when the extension's file came a little late)."""

from __future__ import annotations

import pytest

from tests.support.waiting import wait_page, watch_page

pytestmark = pytest.mark.e2e

NOTE_PUSHES = (
    "document.addEventListener('htmx:ws:after:message:incoming', () => { window.pushes = (window.pushes || 0) + 1; });"
)


def test_the_socket_opens_when_the_websocket_extension_arrives_late(server: str, browser) -> None:  # type: ignore[no-untyped-def]
    ctx = browser.new_context(viewport={"width": 1280, "height": 860})
    try:
        page = watch_page(ctx.new_page())
        page.goto(server + "/")
        page.fill("#name", "Anna")
        page.click("button[type=submit]")
        page.wait_for_url("**/r/*")
        room = page.url
        held: list[object] = []
        page.route("**/static/vendor/htmx/ext/hx-ws.min.js", lambda route: held.append(route))
        page.add_init_script(NOTE_PUSHES)
        page.goto(room, wait_until="commit")
        wait_page(page, "() => !!window.htmx", what="htmx itself loaded", timeout=30)
        assert len(held) == 1, "the extension's request is held back"
        page.evaluate("() => new Promise(r => setTimeout(r, 20))")  # time for htmx to start itself
        held[0].continue_()  # type: ignore[attr-defined]
        wait_page(page, "() => window.pushes >= 1", what="a push on this page's own socket", timeout=30)
    finally:
        ctx.close()


def test_a_wait_looks_again_while_a_head_script_holds_the_page(server: str, browser) -> None:  # type: ignore[no-untyped-def]
    """While the parser waits on a script in <head>, the page is render-blocked and runs no
    animation frames: a wait that polled on frames looked once and never again (the cause of
    the flake above, when htmx.min.js ran just after that one look)."""
    ctx = browser.new_context()
    try:
        page = watch_page(ctx.new_page())
        held: list[object] = []
        page.route("**/static/vendor/htmx/ext/hx-ws.min.js", lambda route: held.append(route))
        page.goto(server + "/", wait_until="commit")
        page.evaluate("() => setTimeout(() => { window.late = true; }, 200)")
        wait_page(page, "() => window.late === true", what="a flag set 200 ms later, parser held", timeout=10)
        assert len(held) == 1, "the page's parser was held the whole time"
        assert page.evaluate("() => document.readyState") == "loading"
        held[0].continue_()  # type: ignore[attr-defined]
    finally:
        ctx.close()
