"""Every page of the club and of a Gurka Night on a 360 px phone, in a real browser: never wider
than the screen (at every moment, a club table's game included), nothing the
Content-Security-Policy blocks, no serious or critical axe-core finding
(tests/e2e/page_checks.py).

The walk, as an elder and as a member: the club's home, the elder login (a wrong password
first), the members with a member's personal link, the Hall of Fame and a player's page, a
finished night with its date poll, a correction and the corrections log, the beer ledger,
setting up a night, the night live with its online tables, a seat that is someone else's,
a club table from its first deal to its game over with "Next: … — Play", and the next table.
The database is seeded before the server starts (members, an elder, three finished nights).
Screenshot (GURKA_SHOTS): the club table's game over on a 390 px phone."""

from __future__ import annotations

import contextlib
import os
import re
import time
from collections.abc import Iterator
from datetime import date, timedelta
from pathlib import Path

import pytest
from playwright.sync_api import TimeoutError as PageTimeout

from app.store.db import make_engine, session_scope, upgrade
from tests.e2e.clicking import move
from tests.e2e.conftest import CHROMIUM
from tests.e2e.page_checks import Checks
from tests.support.app_process import app_process
from tests.support.club_nights import club_in_store
from tests.support.waiting import wait_page, wait_selector, watch_page
from tests.web.club.helpers import NINE, finished_night_in_store

pytestmark = pytest.mark.e2e

PHONE = {"viewport": {"width": 360, "height": 740}, "is_mobile": True, "has_touch": True}
ELDER_PASSWORD = "old-and-wise-1"


@pytest.fixture
def club(tmp_path: Path) -> Iterator[str]:
    if not os.path.exists(CHROMIUM):
        pytest.skip("Debian's chromium is not installed (apt-get install -y chromium)")
    url = f"sqlite:///{tmp_path / 'club.db'}"
    upgrade(url)
    engine = make_engine(url)
    with session_scope(engine) as session:
        ids = club_in_store(session, elder_password=ELDER_PASSWORD, members=[*NINE, "Kim"])
    today = date.today()
    for k, seed in enumerate((3, 11, 29)):
        finished_night_in_store(engine, ids=ids, players=NINE, day=today - timedelta(days=70 - 28 * k),
                                seed=seed, host="Ann")
    engine.dispose()
    with app_process(url, tmp_path / "server.log", SECRET_KEY="club-walk-secret-" + "x" * 24, BOT_DELAY="0",
                     SEAT_TAKEOVER_SECONDS="0", DEAL_PAUSE="0") as base:
        yield base


def play_club_table(page, checks: Checks, *, limit: float = 300.0) -> None:  # type: ignore[no-untyped-def]
    """Play the member's seat by clicking until the table's game is over and the club panel
    says what comes next; the page is looked at (axe included) at the first turn."""
    deadline = time.monotonic() + limit
    looked = False
    while not page.locator(".club-panel .club-next, .club-panel .club-wait, .club-panel .club-over").count():
        assert time.monotonic() < deadline, "the club table's game did not end"
        table = page.locator("#table")
        version = int(table.get_attribute("data-version") or "0") if table.count() else 0
        if not looked and table.count() and table.get_attribute("data-mode") in ("play", "select"):
            checks.look(page, "a club table, at my turn")
            looked = True
        if table.count() and move(page):
            wait_page(page, "v => +document.getElementById('table').dataset.version > v"
                            " || !!document.querySelector('#notice .toast')", version,
                      what="the club table after my move")
        else:
            page.wait_for_timeout(50)


def test_every_club_and_night_page_fits_a_phone_breaks_no_policy_and_passes_axe(
    club: str, browser, shots: Path  # type: ignore[no-untyped-def]
) -> None:
    checks = Checks()
    elder_ctx = checks.watch(browser.new_context(**PHONE))
    member_ctx = checks.watch(browser.new_context(**PHONE))
    try:
        elder = watch_page(elder_ctx.new_page())
        checks.visit(elder, club + "/club", "the club's home, as a visitor")
        checks.visit(elder, club + "/club/hall-of-fame", "the Hall of Fame")
        elder.locator("table.hof tbody th a").first.click()
        elder.wait_for_load_state("load")
        checks.look(elder, "a player's page")
        checks.visit(elder, club + "/club/nights/3", "a finished night, as a visitor")

        # the elder logs in (a wrong password first)
        checks.visit(elder, club + "/club/login", "the elder login")
        elder.get_by_label("Name").fill("Elsa")
        elder.get_by_label("Password").fill("wrong password")
        elder.get_by_role("button", name="Log in").click()
        wait_selector(elder, "[role=alert]", what="the login refused")
        checks.look(elder, "the elder login, refused")
        elder.get_by_label("Password").fill(ELDER_PASSWORD)
        elder.get_by_role("button", name="Log in").click()
        wait_selector(elder, ".club-who", what="the elder logged in")
        checks.look(elder, "the club's home, as an elder")

        checks.visit(elder, club + "/club/members", "the members")
        elder.locator("li.member summary").first.click()
        checks.look(elder, "the members, one opened")

        # a finished night: its date poll, a correction, the corrections log, the beer ledger
        checks.visit(elder, club + "/club/nights/3", "a finished night, as an elder")
        if elder.locator("#date_a").count():
            soon = date.today() + timedelta(days=10)
            elder.fill("#date_a", soon.isoformat())
            elder.fill("#date_b", (soon + timedelta(days=7)).isoformat())
            elder.locator("#next-night button[type=submit]").click()
            elder.wait_for_load_state("load")
            checks.look(elder, "a finished night, dates proposed")
        elder.locator("a.correct-link").first.click()
        elder.wait_for_load_state("load")
        checks.look(elder, "correcting a result")
        elder.locator("#reason").fill("The scorer swapped two names.")
        elder.get_by_role("button", name="Save the correction").click()
        elder.wait_for_load_state("load")
        checks.look(elder, "after a correction")
        checks.visit(elder, club + "/club/corrections", "the corrections log")
        checks.visit(elder, club + "/club/beer", "the beer ledger")
        elder.locator("#debt-member").select_option(index=1)
        elder.locator("#debt-reason").fill("Came a week late")
        elder.get_by_role("button", name="Record the crate").click()
        elder.wait_for_load_state("load")
        checks.look(elder, "the beer ledger, a crate owed")
        elder.get_by_role("button", name="Mark paid").first.click()
        elder.wait_for_load_state("load")
        checks.look(elder, "the beer ledger, a crate paid")

        # tonight, online: set up, then the night live
        checks.visit(elder, club + "/club/nights/new", "setting up a night")
        elder.locator("#mode").select_option("online")
        elder.get_by_role("button", name="Draw lots and open the night").click()
        wait_selector(elder, ".round-label", what="the night open")
        checks.look(elder, "the night live, as an elder")
        night = elder.url
        label = elder.locator(".club-table.t-vinder button.play-link").first.get_attribute("aria-label") or ""
        me = label.removeprefix("Play as ")
        assert me in NINE, label

        # the member's personal link, made by the elder and opened on the member's phone
        elder.goto(club + "/club/members")
        row = elder.locator("li.member").filter(
            has=elder.locator(".member-head .name", has_text=re.compile(rf"^\s*{me}\s*$")))
        row.locator("summary").click()
        row.get_by_role("button", name="Make personal link").click()
        elder.wait_for_load_state("load")
        checks.look(elder, "a member's personal link")
        link = elder.locator(".copy-link").input_value()

        member = watch_page(member_ctx.new_page())
        checks.visit(member, link, "the member's own page (the personal link opened)")
        checks.visit(member, night, "the night live, as a member")
        other = member.locator(".club-table.t-vinder button.play-link").nth(1)
        other.click()
        member.wait_for_load_state("load")
        checks.look(member, "a seat that is someone else's")
        member.goto(night)
        member.get_by_role("button", name=f"Play as {me}").click()
        member.wait_for_url(re.compile(r"/r/[\w-]+$"))
        wait_selector(member, ".club-panel", what="the club table's panel")
        checks.look(member, "a club table, before its first deal")
        first_room = member.url

        # the elder lets bots play the absent seats; the member plays the game to its end
        elder.goto(night)
        elder.locator("#bots-switch button[aria-pressed=false]").click()  # once for the whole night
        wait_selector(elder, "#bots-switch button[aria-pressed=true]", what="bots for the absent on")
        checks.look(elder, "the night live, its tables playing")
        play_club_table(member, checks)
        wait_selector(member, ".club-panel .club-next button", what="Next: … — Play", timeout=60)
        checks.look(member, "a club table, game over with Next")
        next_button = member.locator(".club-panel .club-next button")
        with_next = browser.new_context(viewport={"width": 390, "height": 844}, device_scale_factor=2,
                                        is_mobile=True, has_touch=True)
        try:
            with_next.add_cookies(member_ctx.cookies())
            shot = with_next.new_page()
            shot.goto(first_room)
            wait_selector(shot, ".club-panel .club-next button", what="Next: … — Play on a 390 px phone")
            assert shot.evaluate("document.documentElement.scrollWidth") <= 390
            shot.screenshot(path=str(shots / "club-gameover-390.png"), full_page=True)
        finally:
            with_next.close()
        # Next is a form post; a push that redraws the club panel as it is pressed can swallow the
        # press (the old button leaves the page), so a press that led nowhere is made again
        for _press in range(2):
            if _holds(member, "url => location.href !== url", first_room, timeout=0.1):
                break  # the first press got there after all, only slowly
            with contextlib.suppress(PageTimeout):
                next_button.click(timeout=5000)
            if _holds(member, "url => location.href !== url", first_room, timeout=15):
                break
        wait_page(member, "url => location.href !== url", first_room, what="the next table", timeout=15)
        member.wait_for_load_state("load")
        checks.look(member, "the next club table")
        checks.visit(elder, night, "the night live, round 2")
        checks.visit(member, club + "/club/hall-of-fame", "the Hall of Fame, as a member")
    finally:
        elder_ctx.close()
        member_ctx.close()
    checks.assert_clean()


def _holds(page, expression: str, arg: object, *, timeout: float) -> bool:  # type: ignore[no-untyped-def]
    """True once the JS `expression` holds in the page, False if it did not within `timeout`."""
    try:
        page.wait_for_function(expression, arg=arg, timeout=timeout * 1000, polling=100)
    except PageTimeout:
        return False
    return True


def test_a_night_on_real_cards_its_table_phone_and_board_fit_a_phone_break_no_policy_and_pass_axe(
    club: str, browser  # type: ignore[no-untyped-def]
) -> None:
    """The night page's table phones (QR codes and links), a table's phone from its form to its
    check and its recorded result, the board, and a table link that does not work."""
    checks = Checks()
    elder_ctx = checks.watch(browser.new_context(**PHONE))
    phone_ctx = checks.watch(browser.new_context(**PHONE))
    try:
        elder = watch_page(elder_ctx.new_page())
        elder.goto(club + "/club/login")
        elder.get_by_label("Name").fill("Elsa")
        elder.get_by_label("Password").fill(ELDER_PASSWORD)
        elder.get_by_role("button", name="Log in").click()
        wait_selector(elder, ".club-who", what="the elder logged in")
        elder.goto(club + "/club/nights/new")
        elder.get_by_role("button", name="Draw lots and open the night").click()
        wait_selector(elder, "#phones", what="the night on real cards with its table phones")
        checks.look(elder, "a night on real cards, with its table phones, as an elder")
        link = elder.locator("#link-vinder").input_value()
        night = elder.url.split("#")[0]

        phone = watch_page(phone_ctx.new_page())
        checks.visit(phone, link, "a table's phone, its result form")
        form = phone.locator("form[data-result-form]")
        names = form.locator("input[name='first_out']").evaluate_all("inputs => inputs.map(i => i.value)")
        form.locator(".taps").nth(0).get_by_role("radio", name=names[0], exact=True).click()
        form.locator(".taps").nth(1).get_by_role("radio", name=names[1], exact=True).click()
        form.get_by_role("button", name=f"One agurk more for {names[2]}").click()
        form.get_by_role("button", name="Check the result").click()
        wait_selector(phone, "[data-confirm]:not([hidden])", what="the result to check")
        checks.look(phone, "a table's phone, checking a result")
        phone.get_by_role("button", name="Save the result").click()
        wait_selector(phone, "#phone-live .recorded", what="the result recorded")
        checks.look(phone, "a table's phone, its result recorded")
        checks.visit(phone, night.replace("/club/nights/", "/club/nights/", 1) + "/board", "the board on a phone")
        checks.visit(phone, link[:-4] + "AAAA", "a table link that does not work")
        checks.visit(elder, night, "the night page with a result from a table's phone")
    finally:
        elder_ctx.close()
        phone_ctx.close()
    checks.assert_clean()
