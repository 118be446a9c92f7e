"""In a real browser: your-turn alerts fire for the player whose turn it becomes and never for a
spectator; the friends talk and react; after the game the replay steps with the arrow keys.
Screenshots of the chat panel and the replay page, on a laptop and a phone."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.waiting import wait_page

pytestmark = pytest.mark.e2e

PHONE = {"viewport": {"width": 360, "height": 740}, "device_scale_factor": 2, "is_mobile": True, "has_touch": True}
LAPTOP = {"viewport": {"width": 1280, "height": 900}}
TURN = "● Your turn"

RECORD_TITLES = """() => {
  window.__titles = [];
  new MutationObserver(() => window.__titles.push(document.title))
    .observe(document.querySelector('title'), {childList: true, characterData: true, subtree: true});
}"""


def version(page) -> int:  # type: ignore[no-untyped-def]
    return int(page.locator("#table").get_attribute("data-version"))


def wait_version(page, at_least: int) -> None:  # type: ignore[no-untyped-def]
    page.wait_for_function(
        "v => { const t = document.getElementById('table'); return t && +t.dataset.version >= v; }",
        arg=at_least, timeout=10_000,
    )


SAID = ("() => { const said = document.getElementById('announce'), say = document.getElementById('table-say');"
        " return !!(said && say && said.textContent"
        " && said.textContent === say.innerText.replace(/\\s+/g, ' ').trim()); }")


def mine(page) -> bool:  # type: ignore[no-untyped-def]
    return page.locator("#table[data-my-turn=true]").count() > 0


def act(page) -> bool:  # type: ignore[no-untyped-def]
    """Play what the page offers: a highlighted card, or the first legal set; False if the page's
    turn has just ended (its own frame after a push came in after it was seen as its turn)."""
    table = page.locator("#table")
    mode = table.get_attribute("data-mode")
    if mode == "play":
        page.locator(".hand button.cardbtn.playable").first.click()
        return True
    if mode != "select":
        return False
    legal = json.loads(page.locator("#table-move").get_attribute("data-legal"))
    wanted = legal[0].split()[1:]
    for code in wanted:
        button = page.locator(f'.hand button.cardbtn[data-code="{code}"][aria-pressed=false]').first
        if button.count():
            button.click()
    page.locator("[data-send-selection]:visible").click()
    return True


def test_alerts_talk_and_the_replay(server: str, browser, shots: Path) -> None:  # type: ignore[no-untyped-def]
    anna_ctx, bo_ctx = browser.new_context(**LAPTOP), browser.new_context(**PHONE)
    rail_ctx = browser.new_context(**LAPTOP)
    try:
        anna = anna_ctx.new_page()
        created = anna.request.post(server + "/rooms", form={
            "name": "Anna", "preset": "gurka-night", "seats": "3", "bots": "1", "opt_target": "4",
        }, max_redirects=0)
        assert created.status == 303
        link = server + created.headers["location"]
        anna.goto(link)
        bo = bo_ctx.new_page()
        bo.goto(link)
        bo.fill("#join-name", "Bo")
        bo.get_by_role("button", name="Take a seat").click()
        bo.wait_for_selector(".seat.me")
        rail = rail_ctx.new_page()  # the table is full: a spectator
        rail.goto(link)
        rail.wait_for_selector("#table")
        anna.wait_for_selector(".seat:has-text('Bo') .dot.on")
        titles = {}
        for page in (anna, bo, rail):
            page.evaluate(RECORD_TITLES)
            titles[page] = page.title()
        assert not any(t.startswith(TURN) for t in titles.values())

        # table talk: escaped plain text, a reaction by the seat, a polite live region
        anna.fill("#chat-text", "Good luck! <b>no bold</b> https://example.com")
        anna.press("#chat-text", "Enter")
        bo.wait_for_selector("#chat-log li:has-text('Good luck!')")
        assert bo.locator("#chat-log b:has-text('no bold')").count() == 0
        assert bo.locator("#chat-log a").count() == 0
        assert anna.input_value("#chat-text") == ""
        bo.fill("#chat-text", "Thanks, you too 🥒")
        bo.press("#chat-text", "Enter")
        anna.wait_for_selector("#chat-log li:has-text('you too')")
        bo.get_by_role("button", name="React with thumbs up").click()
        anna.wait_for_selector("#react-2 .bubble")
        assert rail.locator("#chat-log li:has-text('Good luck!')").count() == 1
        assert rail.locator("#chat-text").count() == 0, "spectators may not talk unless the host allows"
        assert anna.locator("[role=log]:has(#chat-log)").get_attribute("aria-live") == "polite"
        anna.screenshot(path=str(shots / "talk-01-laptop-lobby-chat.png"), full_page=True)
        bo.screenshot(path=str(shots / "talk-02-phone-lobby-chat.png"), full_page=True)

        anna.get_by_role("button", name="Start the game").click()
        for page in (anna, bo, rail):
            page.wait_for_selector(".felt")
            # the status line as this page reads it is said to screen readers (a moment after a push)
            wait_page(page, SAID, what="the status line in the polite live region")
        turns = {anna: 0, bo: 0}
        plays = 0
        waited = 0
        while not anna.locator(".gameover").count():
            actor = next((p for p in (anna, bo) if mine(p)), None)
            if actor is None:  # a bot is thinking, or a push is on its way
                waited += 1
                assert waited < 400, "nobody's turn for too long"
                anna.wait_for_timeout(25)
                continue
            waited = 0
            other = bo if actor is anna else anna
            actor.wait_for_function("t => document.title.startsWith(t)", arg=TURN, timeout=5_000)
            if not mine(other):
                assert other.title() == titles[other], "no alert for the player who waits"
            assert rail.title() == titles[rail], "no alert for a spectator"
            before = version(actor)
            if not act(actor):  # (the seat's own frame of the last push had not come in yet)
                continue
            turns[actor] += 1
            wait_version(actor, before + 1)
            plays += 1
            if plays == 6:
                anna.locator(".scoresheet summary").click() if anna.locator(".scoresheet").count() else None
                anna.screenshot(path=str(shots / "talk-03-laptop-mid-game.png"), full_page=True)
                bo.screenshot(path=str(shots / "talk-04-phone-mid-game.png"), full_page=True)
            assert plays < 400
        assert turns[anna] and turns[bo]
        assert rail.evaluate("window.__titles") == [], "a spectator's title never changed"
        assert any(t.startswith(TURN) for t in anna.evaluate("window.__titles"))
        assert any(t.startswith(TURN) for t in bo.evaluate("window.__titles"))
        for page in (anna, bo):
            page.wait_for_selector(".gameover")
            assert not page.title().startswith(TURN)

        # the story: from the game-over panel to the replay, stepped with the arrow keys
        anna.get_by_role("link", name="Step through this game in its replay").click()
        anna.wait_for_url("**/replay")
        assert "Good luck!" in anna.locator(".replay-chat").inner_text()
        hands = anna.locator(".replay-step .hands li")
        assert hands.count() == 3 and hands.first.locator(".card").count() > 0
        anna.keyboard.press("ArrowRight")
        anna.wait_for_url("**step=1")
        anna.keyboard.press("ArrowLeft")
        anna.wait_for_url("**step=0")
        anna.keyboard.press("End")
        anna.wait_for_function("() => !location.search.endsWith('step=0')")
        assert anna.locator(".replay-step .dealline").count() == 1, "the last step shows the last deal's result"
        anna.keyboard.press("Home")
        anna.wait_for_url("**step=0")
        anna.keyboard.press("Shift+ArrowRight")
        anna.wait_for_function("() => !location.search.endsWith('step=0')")
        assert "Deal 2" in anna.locator(".replay-step h2").inner_text()
        anna.screenshot(path=str(shots / "talk-05-laptop-replay.png"), full_page=True)
        bo.goto(anna.url)
        bo.screenshot(path=str(shots / "talk-06-phone-replay.png"), full_page=True)
        overflow = bo.evaluate("document.documentElement.scrollWidth - window.innerWidth")
        assert overflow <= 0
    finally:
        for ctx in (anna_ctx, bo_ctx, rail_ctx):
            ctx.close()
