"""A member's own device in a real Chromium (issue 24, items 9 and 14): the elder copies a
member's personal link with its Copy button on a phone (the whole link readable, "Copied!"
shown and said to screen readers), the member's phone answers the date poll as that member (the name shown,
not chosen), the elder answers for another member (shown as entered by the elder), and a phone
that knows nobody is told how to get its link. Screenshots: the link page and the poll (phone).
"""

from __future__ import annotations

import re

import pytest

from .csp_watch import WatchedBrowser
from .test_club_browser import ARGS, CHROMIUM, ELDER_PASSWORD, LAPTOP, PHONE, server, shot

pytestmark = pytest.mark.e2e

__all__ = ["server"]  # the fixture: a seeded club (three finished nights) on a real uvicorn


def test_a_members_phone_answers_as_that_member_and_the_link_copies(server: str) -> None:
    from playwright.sync_api import expect, sync_playwright

    with sync_playwright() as pw:
        browser = WatchedBrowser(pw.chromium.launch(executable_path=CHROMIUM, args=ARGS))  # CSP violations fail the test
        try:
            # the elder, on a phone, logs in and proposes the next dates after the last night
            elder_ctx = browser.new_context(viewport=PHONE, device_scale_factor=2, is_mobile=True, has_touch=True)
            elder_ctx.grant_permissions(["clipboard-read", "clipboard-write"], origin=server)
            elder = elder_ctx.new_page()
            elder.goto(f"{server}/club/login")
            elder.get_by_label("Name").fill("Elsa")
            elder.get_by_label("Password").fill(ELDER_PASSWORD)
            elder.get_by_role("button", name="Log in").click()
            elder.goto(f"{server}/club/nights/3")
            winner = re.search(r"(\w+) won and proposes two dates", elder.locator("#next-night").inner_text())
            assert winner, "the last night has no winner to propose dates"
            member, other = [p for p in ("Bo", "Cy", "Di") if p != winner.group(1)][:2]
            elder.locator("#date_a").fill("2099-05-01")
            elder.locator("#date_b").fill("2099-05-08")
            elder.get_by_role("button", name="Propose the dates").click()
            expect(elder.locator("#next-night")).to_contain_text("Members answer by")

            # the member's personal link: copied with one press, the whole link readable on the phone
            elder.goto(f"{server}/club/members")
            row = elder.locator("li.member").filter(
                has=elder.locator(".member-head .name", has_text=re.compile(rf"^\s*{member}\s*$")))
            row.locator("summary").click()
            row.get_by_role("button", name="Make personal link").click()
            field = elder.locator("#member-link-field")
            link = field.input_value()
            assert re.fullmatch(rf"{re.escape(server)}/club/me/[\w-]+", link), link
            fits = field.evaluate("f => [f.scrollWidth <= f.clientWidth, f.scrollHeight <= f.clientHeight + 1]")
            assert fits == [True, True], "the link does not show whole in its field on a phone"
            copy = elder.get_by_role("button", name="Copy the link")
            copy.click()
            expect(elder.locator("#member-link .copy-row button")).to_have_text("Copied!")  # seen ...
            expect(elder.locator("#announce[aria-live=polite]")).to_have_text("Copied!")  # ... and heard
            assert elder.evaluate("navigator.clipboard.readText()") == link
            shot(elder, "member_link_copied_phone")

            # the member's phone opens the link once, then answers as that member
            member_ctx = browser.new_context(viewport=PHONE, device_scale_factor=2, is_mobile=True, has_touch=True)
            phone = member_ctx.new_page()
            phone.goto(link)
            expect(phone.get_by_role("heading", name=f"Hello {member}")).to_be_visible()
            phone.goto(f"{server}/club/nights/3#next-night")
            poll = phone.locator("#next-night")
            expect(poll.get_by_role("group", name=f"Which date suits you, {member}?")).to_be_visible()
            expect(poll.locator("select")).to_have_count(0)  # the name is shown, not chosen
            poll.get_by_role("radio").nth(1).check()
            poll.get_by_role("button", name="Answer").click()
            expect(phone.locator("#next-night .votes")).to_contain_text(member)
            expect(phone.locator("#next-night .votes")).not_to_contain_text("entered by")
            shot(phone, "date_poll_member_phone")

            # the elder answers for another member who rang: shown as entered by the elder
            elder.goto(f"{server}/club/nights/3#next-night")
            elder.locator("summary", has_text="Answer for a member").click()
            elder.get_by_label("Member").select_option(label=other)
            elder.locator(".vote-for").get_by_role("radio").first.check()
            elder.get_by_role("button", name="Answer for them").click()
            expect(elder.locator("#next-night .votes")).to_contain_text(f"{other} (entered by Elsa)")
            shot(elder, "date_poll_elder_phone")

            # a phone that knows nobody gets no form, only the way to its link
            stranger = browser.new_page(viewport=PHONE)
            stranger.goto(f"{server}/club/nights/3")
            expect(stranger.locator("#vote-how")).to_contain_text("open the personal link an elder sent you")
            expect(stranger.locator("#next-night form")).to_have_count(0)
            stranger.set_viewport_size(LAPTOP)
            member_ctx.close()
            elder_ctx.close()
        finally:
            browser.close()
