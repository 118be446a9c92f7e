"""In a real browser (three people, three browser contexts): the host closes the tab at their
turn and the game goes on within `turn_seconds` (the server's timer plays for them and says so);
the countdown runs on the seat to act; a phone takes a seat back with its rejoin code and the
old device is told. Screenshots: the table with the countdown and the rejoin panel, desktop and
390 px phone."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from tests.resilience.conftest import ServerProcess

pytestmark = pytest.mark.e2e

CHROMIUM = "/usr/bin/chromium"
TURN = 10  # the shortest turn timer a host may choose
PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True,
         "device_scale_factor": 2}


def my_turn(page) -> bool:  # type: ignore[no-untyped-def]
    return page.locator("#table[data-my-turn=true]").count() > 0


def move(page) -> None:  # type: ignore[no-untyped-def]
    """Make one legal move from the page, as a person would."""
    mode = page.locator("#table").get_attribute("data-mode")
    if mode == "play":
        page.locator(".cardbtn.playable").first.click()
    elif mode == "select":
        if page.locator(".cardbtn[aria-pressed=true]").count() == 0:
            page.locator(".cardbtn.playable").first.click()
        page.locator("[data-send-selection]:visible").click()
    elif mode == "exchange":
        page.locator("[data-key=keep]").click()


def version(page) -> int:  # type: ignore[no-untyped-def]
    return int(page.locator("#table").get_attribute("data-version"))


def test_the_host_leaves_at_their_turn_and_a_phone_takes_a_seat_back(
    browser, tmp_path: Path, shots: Path  # type: ignore[no-untyped-def]
) -> None:
    if not os.path.exists(CHROMIUM):
        pytest.skip("Debian's chromium is not installed")
    server = ServerProcess(f"sqlite:///{tmp_path / 'gurka.db'}", log_path=tmp_path / "server.log",
                           env={"BOT_DELAY": "0.05", "DEAL_PAUSE": "2", "SEAT_TAKEOVER_SECONDS": "60"})
    server.start()
    contexts = []
    try:
        desk = [browser.new_context(viewport={"width": 1280, "height": 900}) for _ in range(3)]
        contexts += desk
        anna, bo, cai = (c.new_page() for c in desk)
        anna.goto(server.url + "/")
        anna.fill("#name", "Anna")
        anna.fill("#turn_seconds", str(TURN))
        anna.get_by_role("button", name=re.compile("Open|Create", re.IGNORECASE)).first.click()
        anna.wait_for_selector(".seat.me .dot.on")
        link = anna.url
        for page, name in ((bo, "Bo"), (cai, "Cai")):
            page.goto(link)
            page.fill("#join-name", name)
            page.get_by_role("button", name="Take a seat").click()
            page.wait_for_selector(".seat.me .dot.on")
        anna.get_by_role("button", name=re.compile("Start the game")).click()
        for page in (anna, bo, cai):
            page.wait_for_selector(".hand .cardbtn")
        # play on until it is Anna's (the host's) turn
        for _ in range(60):
            if my_turn(anna):
                break
            for page in (bo, cai):
                if my_turn(page):
                    before = version(page)
                    move(page)
                    page.wait_for_function(f"() => +document.getElementById('table').dataset.version > {before}")
            anna.wait_for_timeout(150)
        assert my_turn(anna), "it never became the host's turn"
        # everybody sees the countdown on Anna's seat
        clock = bo.locator(".seat .turnbox .tag.clock:visible")  # (the row whose turn it is)
        clock.wait_for()
        first = int(clock.inner_text().split()[0])
        assert 0 < first <= TURN
        at = version(bo)
        # it counts down by itself, with no push: the page's own timer (a busy machine may run
        # that timer late, so wait for it rather than sample once after a fixed sleep)
        bo.wait_for_function(
            "([first, at]) => +document.querySelector('#table-seat-' + document.getElementById('table').dataset.toAct + ' .tag.clock').textContent.split(' ')[0] < first"
            " && +document.getElementById('table').dataset.version === at",
            arg=[first, at], timeout=(TURN - 2) * 1000)
        bo.screenshot(path=str(shots / "table-countdown-desktop.png"))
        stuck_at = version(bo)
        anna.close()  # the host closes the tab at their turn
        # the game goes on within turn_seconds (plus a little): the server played for Anna
        bo.wait_for_selector("text=Time: a bot played", timeout=(TURN + 6) * 1000)
        assert "for Anna" in bo.locator(".timenote").inner_text()
        assert version(bo) > stuck_at
        assert bo.locator(".seat", has_text="Anna").locator(".tag.bot").count() == 0  # still human

        # Bo opens "Use another device" and reads the code; a phone takes the seat with it
        bo.locator("#rejoin summary").click()
        code = bo.locator("#rejoin .code").inner_text().strip()
        assert re.fullmatch(r"[A-Z0-9]{6}", code)
        assert bo.locator("#rejoin svg.qr").count() == 1
        bo.locator("#rejoin").screenshot(path=str(shots / "rejoin-panel-desktop.png"))
        assert code not in cai.content()  # nobody else sees it
        phone_ctx = browser.new_context(**PHONE)
        contexts.append(phone_ctx)
        phone = phone_ctx.new_page()
        phone.goto(link)
        assert phone.locator(".hand").count() == 0
        phone.locator("#rejoin summary").click()
        phone.fill("#rejoin-code", code.lower())
        phone.get_by_role("button", name="Take my seat here").click()
        phone.wait_for_selector(".seat.me .dot.on")
        assert "Bo" in phone.locator(".seat.me").inner_text()
        phone.wait_for_selector(".hand .cardbtn")
        bo.wait_for_selector("text=Your seat moved to another device.")
        bo.wait_for_function("() => !document.querySelector('.seat.me')")
        # the old device no longer shows the code it gave away (spent: the seat has a new one)
        bo.wait_for_function("() => !document.querySelector('#rejoin .code')")
        assert code not in bo.locator("main").inner_text()
        # the hand keeps its place on the phone while the table above it changes
        top = phone.locator(".hand").bounding_box()["y"]
        phone.screenshot(path=str(shots / "table-phone.png"))
        phone.locator("#rejoin summary").click()
        phone.evaluate("() => window.scrollTo(0, document.body.scrollHeight)")
        phone.screenshot(path=str(shots / "rejoin-panel-phone.png"))
        phone.locator("#rejoin summary").click()
        for _ in range(3):
            if my_turn(cai):
                before = version(cai)
                move(cai)
                cai.wait_for_function(f"() => +document.getElementById('table').dataset.version > {before}")
            phone.wait_for_timeout(300)
            if phone.locator(".hand").count():
                assert abs(phone.locator(".hand").bounding_box()["y"] - top) < 60
    finally:
        for c in contexts:
            c.close()
        server.terminate()
