"""In a real browser: a host makes a room, two friends join by the link, they play a deal by
clicking cards and every page follows live; a refresh mid-deal keeps the seat; phone size."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.waiting import wait_page, wait_selector, watch_page

pytestmark = pytest.mark.e2e

PHONE = {"viewport": {"width": 360, "height": 740}, "device_scale_factor": 2, "is_mobile": True, "has_touch": True}
LAPTOP = {"viewport": {"width": 1280, "height": 860}}


def version(page) -> int:  # type: ignore[no-untyped-def]
    return int(page.locator("#table").get_attribute("data-version"))


def wait_version(page, at_least: int) -> None:  # type: ignore[no-untyped-def]
    wait_page(
        page,
        "v => { const t = document.getElementById('table'); return t && +t.dataset.version >= v; }",
        at_least, what=f"the table at version {at_least} or later",
    )


def my_turn(page) -> bool:  # type: ignore[no-untyped-def]
    return page.locator("#table[data-mode=play] .hand button.cardbtn.playable").count() > 0


def hand_count(page) -> int:  # type: ignore[no-untyped-def]
    return page.locator(".hand .cardbtn").count()


def test_three_friends_play_a_deal(server: str, browser, shots: Path) -> None:  # type: ignore[no-untyped-def]
    host_ctx = browser.new_context(**LAPTOP)
    bo_ctx = browser.new_context(**LAPTOP)
    cai_ctx = browser.new_context(**PHONE)
    try:
        host = watch_page(host_ctx.new_page())
        host.goto(server + "/")
        host.screenshot(path=str(shots / "01-home.png"), full_page=True)
        host.fill("#name", "Anna")
        host.select_option("#seats", "3")
        host.click("button[type=submit]")
        host.wait_for_url("**/r/*")
        link = host.locator("[data-room-link]").input_value()
        assert link.startswith(server + "/r/")
        wait_selector(host, ".seat.me .dot.on", what="the host's socket up (a push marked her present)")

        pages = {"Anna": host}
        for name, ctx in (("Bo", bo_ctx), ("Cai", cai_ctx)):
            page = watch_page(ctx.new_page())
            page.goto(link)
            page.fill("#join-name", name)
            page.get_by_role("button", name="Take a seat").click()
            wait_selector(page, ".seat.me .dot.on", what=f"{name} seated and connected")
            pages[name] = page
        # the host's page saw both friends arrive without a reload
        wait_selector(host, ".seat:has-text('Cai') .dot.on", what="Cai shown present to the host")
        host.screenshot(path=str(shots / "02-lobby-host.png"), full_page=True)
        pages["Cai"].screenshot(path=str(shots / "03-lobby-phone.png"), full_page=True)

        host.get_by_role("button", name="Start the game").click()
        for page in pages.values():
            wait_selector(page, ".felt", what="the deal on the felt")
        v = version(host)
        for page in pages.values():
            wait_version(page, v)

        players = list(pages.values())
        plays = 0
        refreshed = False
        used_keyboard = False
        while True:
            actor = next((p for p in players if my_turn(p)), None)
            assert actor is not None, "somebody must be able to play"
            before = version(actor)
            if not used_keyboard and actor is pages["Bo"]:
                actor.locator(".hand button.cardbtn").first.focus()
                playable = actor.locator(".hand button.cardbtn")
                codes = [playable.nth(i).get_attribute("data-code") for i in range(playable.count())]
                target = actor.locator(".hand button.cardbtn.playable").first.get_attribute("data-code")
                for _ in range(codes.index(target)):
                    actor.keyboard.press("ArrowRight")
                actor.keyboard.press("Enter")
                used_keyboard = True
            else:
                actor.locator(".hand button.cardbtn.playable").first.click()
            for page in players:
                wait_version(page, before + 1)
            plays += 1
            if plays == 4:
                pages["Cai"].screenshot(path=str(shots / "04-phone-mid-deal.png"), full_page=True)
                host.screenshot(path=str(shots / "05-laptop-mid-deal.png"), full_page=True)
            if plays == 5 and not refreshed:
                bo = pages["Bo"]
                cards = hand_count(bo)
                bo.reload()
                wait_selector(bo, ".seat.me:has-text('Bo') .dot.on", what="Bo back in his seat after a reload")
                assert hand_count(bo) == cards
                wait_version(bo, version(host))
                refreshed = True
            if host.locator(".dealend").count() and all(p.locator(".dealend").count() for p in players):
                break
            assert plays < 60
        assert plays >= 3 * 5
        for page in players:
            assert "Deal 2" in page.locator(".statusbar").inner_text()
        host.screenshot(path=str(shots / "06-laptop-deal-end.png"), full_page=True)
        pages["Cai"].screenshot(path=str(shots / "07-phone-deal-end.png"), full_page=True)

        # a card that cannot be played says why (when a player holds one)
        for page in players:
            blocked = page.locator(".hand button.cardbtn.blocked")
            if blocked.count():
                blocked.first.click()
                assert page.locator("[data-whyline]").inner_text().strip()
                break
        # phone: nothing sticks out sideways
        cai = pages["Cai"]
        overflow = cai.evaluate("document.documentElement.scrollWidth - window.innerWidth")
        assert overflow <= 0
        # the room is not in the URL bar of anybody with a token, and the token is not readable
        assert "gurka_seat" not in cai.evaluate("document.cookie")
    finally:
        for ctx in (host_ctx, bo_ctx, cai_ctx):
            ctx.close()
