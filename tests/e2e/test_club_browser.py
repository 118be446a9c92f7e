"""A real Chromium against a real uvicorn: an elder sets up a Gurka Night, a member follows it.

The database is seeded before the server starts (members, an elder, three finished nights),
so the new night starts everyone at last night's tables and the Hall of Fame has data.
Screenshots go to /tmp/shots/club (phone 390 px and laptop).
"""

from __future__ import annotations

import json
import os
import re
import time
from collections.abc import Iterator
from datetime import date, timedelta
from pathlib import Path

import pytest

from app.secret_key import new_secret
from app.store.db import make_engine, session_scope, upgrade
from tests.support.app_process import app_process
from tests.support.club_nights import club_in_store

from ..web.club.helpers import NINE, finished_night_in_store
from .csp_watch import WatchedBrowser

pytestmark = pytest.mark.e2e

SHOTS = Path(os.environ.get("GURKA_SHOTS", "/tmp/shots")) / "club"
CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]
PHONE = {"width": 390, "height": 844}
LAPTOP = {"width": 1280, "height": 800}
ELDER_PASSWORD = "old-and-wise-1"


@pytest.fixture
def server(tmp_path: Path) -> Iterator[str]:
    if not os.path.exists(CHROMIUM):
        pytest.skip("no Chromium at /usr/bin/chromium")
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
    with app_process(url, tmp_path / "server.log", SECRET_KEY=new_secret(), BOT_DELAY="0",
                     SEAT_TAKEOVER_SECONDS="0") as base:
        yield base


def shot(page, name: str) -> None:  # type: ignore[no-untyped-def]
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)
    page.screenshot(path=str(SHOTS / f"{name}_top.png"))  # the first screenful, at full size


def test_elder_sets_up_a_night_and_a_member_follows_it(server: str) -> None:
    from playwright.sync_api import expect, sync_playwright

    with sync_playwright() as pw:
        browser = WatchedBrowser(pw.chromium.launch(executable_path=CHROMIUM, args=ARGS))  # CSP violations fail the test
        try:
            # ---- the elder logs in and sets up tonight: Kim plays for Ann
            elder = browser.new_page(viewport=LAPTOP)
            elder.goto(f"{server}/club")
            elder.get_by_role("link", name="Elder login").click()
            elder.get_by_label("Name").fill("Elsa")
            elder.get_by_label("Password").fill("wrong password")
            elder.get_by_role("button", name="Log in").click()
            expect(elder.get_by_role("alert")).to_contain_text("do not match")
            elder.get_by_label("Password").fill(ELDER_PASSWORD)
            elder.get_by_role("button", name="Log in").click()
            expect(elder.locator(".club-who")).to_contain_text("Elsa")
            shot(elder, "home_laptop")

            elder.get_by_role("link", name="Set up a night").click()
            expect(elder.get_by_role("heading", name="Set up a Gurka Night")).to_be_visible()
            # last night's nine are proposed; Ann cannot come: Kim plays for her
            ann_row = elder.locator(".player-row").filter(
                has=elder.locator("select[name^=player] option[selected]", has_text=re.compile(r"^Ann\b"))
            )
            ann_select = ann_row.locator("select[name^=player]")
            ann_select.select_option(label=ann_select.locator("option", has_text="Kim").inner_text())
            ann_row.locator("select[name^=for]").select_option(label="Ann")
            shot(elder, "setup_laptop")
            elder.get_by_role("button", name="Draw lots and open the night").click()

            expect(elder.get_by_role("heading", name=re.compile("Gurka Night ·"))).to_be_visible()
            expect(elder.locator(".round-label")).to_have_text("Base round 1 of 16")
            expect(elder.locator(".club-table")).to_have_count(3)
            expect(elder.locator(".club-table .tag.dealer")).to_have_count(3)
            expect(elder.get_by_text("Kim plays for Ann")).to_be_visible()
            night_url = elder.url

            # ---- a member (no login) opens the night page on a phone
            member_ctx = browser.new_context(viewport=PHONE, device_scale_factor=2, is_mobile=True, has_touch=True)
            member = member_ctx.new_page()
            member.goto(night_url)
            expect(member.locator(".programme li.now")).to_contain_text("Meet and coffee")
            expect(member.locator(".record-form")).to_have_count(0)  # members only watch
            expect(member.locator("table.standings tbody tr")).to_have_count(9)
            shot(member, "night_phone_start")

            # ---- the elder records the winner table by hand; a mistake first
            form = elder.locator("#form-vinder")
            chairs = [c.strip() for c in form.locator(".agurk-field span").all_inner_texts()]
            form.locator("select[name=first_out]").select_option(chairs[0])
            form.locator("select[name=second_out]").select_option(chairs[0])
            form.locator("select[name=winner]").select_option(chairs[2])
            form.get_by_role("button", name="Save Vinderbord").click()
            form = elder.locator("#form-vinder")
            expect(form.get_by_role("alert")).to_contain_text(f"{chairs[0]} is chosen twice")
            expect(form.locator("select[name=winner]")).to_have_value(chairs[2])  # what was typed stays
            form.locator("select[name=second_out]").select_option(chairs[1])
            form.locator("input[name=agurk_2]").fill("1")
            form.get_by_role("button", name="Save Vinderbord").click()
            expect(elder.locator(".club-table.t-vinder .tag.ok")).to_be_visible()
            shot(elder, "night_laptop")

            # ---- the member's page follows by itself (htmx polling every 5 s)
            expect(member.locator(".club-table.t-vinder .tag.ok")).to_be_visible(timeout=12_000)
            expect(member.locator(".club-table.t-vinder .ct-result")).to_contain_text(chairs[2])
            shot(member, "night_phone_live")

            # ---- the member looks at the Hall of Fame and a player's page
            member.get_by_role("link", name="Hall of Fame").first.click()
            expect(member.locator("table.hof tbody tr")).to_have_count(9)
            member.get_by_role("link", name="Wins").click()
            expect(member).to_have_url(re.compile(r"sort=wins"))
            shot(member, "hof_phone")
            member.locator("table.hof tbody th a").first.click()
            expect(member.locator("svg.places-chart circle")).to_have_count(3)
            shot(member, "player_phone")
            member.goto(f"{server}/club/nights/3")
            expect(member.locator(".placement li")).to_have_count(9)
            expect(member.locator("#next-night")).to_contain_text("proposes two dates")
            shot(member, "done_night_phone")
            elder.goto(f"{server}/club/hall-of-fame")
            shot(elder, "hof_laptop")
            elder.goto(member.url)
            shot(elder, "player_laptop")
            member_ctx.close()
        finally:
            browser.close()


def play_my_turns(page, *, until: str, limit: float = 240.0) -> None:  # type: ignore[no-untyped-def]
    """Play the member's seat by clicking cards (the first legal play) until `until` shows."""
    deadline = time.monotonic() + limit
    while not page.locator(until).count():
        assert time.monotonic() < deadline, "the table's game did not end"
        table = page.locator("#table")
        mode = table.get_attribute("data-mode") if table.count() else None
        version = table.get_attribute("data-version") if table.count() else None
        if mode == "play":
            page.locator(".hand button.cardbtn.playable").first.click()
        elif mode == "select":
            hand = page.locator("[data-hand][data-select]")
            wanted = set(json.loads(hand.get_attribute("data-legal") or "[]")[0].split()[1:])
            buttons = hand.locator("button.cardbtn")
            for i in range(buttons.count()):
                button = buttons.nth(i)
                if (button.get_attribute("aria-pressed") == "true") != (button.get_attribute("data-code") in wanted):
                    button.click()
            page.locator("[data-send-selection]:visible").click()
        else:
            page.wait_for_timeout(50)
            continue
        # the push after our move (a refused click is simply retried with the fresh table)
        page.wait_for_function(
            f"() => document.querySelector('#table')?.dataset.version !== '{version}'"
            " || document.querySelector('#notice .toast')", timeout=10_000)


def test_a_club_round_flows_from_play_to_next_without_the_night_page(server: str) -> None:
    """A member proves who they are once (the personal link an elder sends), presses Play next to
    their own name, plays their table to its end on a phone, and goes on with "Next: …" from the
    room page; the elder lets bots play the other (absent) seats. Screenshots: the club room
    after its game (phone and laptop) and the live night page (laptop and phone)."""
    from playwright.sync_api import expect, sync_playwright

    with sync_playwright() as pw:
        browser = WatchedBrowser(pw.chromium.launch(executable_path=CHROMIUM, args=ARGS))  # CSP violations fail the test
        try:
            elder = browser.new_page(viewport=LAPTOP)
            elder.goto(f"{server}/club/login")
            elder.get_by_label("Name").fill("Elsa")
            elder.get_by_label("Password").fill(ELDER_PASSWORD)
            elder.get_by_role("button", name="Log in").click()
            elder.goto(f"{server}/club/nights/new")
            elder.locator("#mode").select_option("online")
            elder.locator("#turn_seconds").fill("45")
            elder.get_by_role("button", name="Draw lots and open the night").click()
            expect(elder.locator(".round-label")).to_have_text("Base round 1 of 16")
            expect(elder.get_by_text("played online, 45 s a turn")).to_be_visible()
            night_url = elder.url
            label = elder.locator(".club-table.t-vinder button.play-link").first.get_attribute("aria-label")
            me = (label or "").removeprefix("Play as ")
            assert me in NINE

            # the elder makes the member's personal link (sent by text message, say)
            elder.goto(f"{server}/club/members")
            row = elder.locator("li.member").filter(
                has=elder.locator(".member-head .name", has_text=re.compile(rf"^\s*{me}\s*$")))
            row.locator("summary").click()
            row.get_by_role("button", name="Make personal link").click()
            link = elder.locator(".copy-link").input_value()

            # the member on a phone: opens the link once, then a Play next to someone else moves
            # nobody, and their own Play seats them
            ctx = browser.new_context(viewport=PHONE, device_scale_factor=2, is_mobile=True, has_touch=True)
            member = ctx.new_page()
            member.goto(link)
            expect(member.get_by_role("heading", name=f"Hello {me}")).to_be_visible()
            member.goto(night_url)
            expect(member.locator(".club-who .me")).to_contain_text(me)
            other = member.locator(".club-table.t-vinder button.play-link").nth(1)
            other_name = (other.get_attribute("aria-label") or "").removeprefix("Play as ")
            other.click()
            expect(member.get_by_role("alert")).to_contain_text(f"This seat is {other_name}'s. Are you {other_name}?")
            member.go_back()
            member.get_by_role("button", name=f"Play as {me}").click()
            expect(member).to_have_url(re.compile(r"/r/[\w-]+$"))
            first_room = member.url
            expect(member.locator(".club-panel-title")).to_contain_text("Vinderbord, base round 1")

            # the elder: bots for the absent, once for the whole night (accepted at once, back to
            # the night, the switch shown pressed)
            elder.goto(night_url)
            switch = elder.get_by_role("button", name="Bots for the absent")
            expect(switch).to_have_attribute("aria-pressed", "false")
            switch.click()
            expect(elder).to_have_url(f"{night_url}#live")
            expect(switch).to_have_attribute("aria-pressed", "true")
            expect(elder.locator("#bots-state")).to_contain_text("Bots for the absent: on.")
            shot(elder, "night_bots_on_laptop")

            # the member plays to the end of the game and goes on from the room page
            play_my_turns(member, until=".club-panel .club-next, .club-panel .club-wait")
            expect(member.locator(".club-panel .club-result")).to_contain_text("went out first")
            next_button = member.locator(".club-panel .club-next button")
            expect(next_button).to_contain_text(re.compile(r"Next: \w+, base round 2 — Play"), timeout=30_000)
            shot(member, "room_after_game_phone")
            member.set_viewport_size(LAPTOP)
            shot(member, "room_after_game_laptop")
            member.set_viewport_size(PHONE)
            target = next_button.inner_text().removeprefix("Next: ").removesuffix(" — Play")
            next_button.click()
            expect(member).not_to_have_url(first_room)
            expect(member.locator(".club-panel-title")).to_contain_text(target)
            expect(member.locator(".seat.me")).to_contain_text(me)
            assert "/club/nights" not in member.url

            # the night page is live: it shows round 2 and the form records round 2 only
            elder.goto(night_url)
            expect(elder.locator(".round-label")).to_have_text("Base round 2 of 16")
            expect(elder.locator("input[name=round][value='1']")).to_have_count(0)
            shot(elder, "night_online_laptop")
            watcher = browser.new_page(viewport=PHONE)
            watcher.goto(night_url)
            shot(watcher, "night_online_phone")
            ctx.close()
        finally:
            browser.close()
