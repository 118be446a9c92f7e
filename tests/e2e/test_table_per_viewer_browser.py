"""The table per version, in a real browser on a phone-sized page (issue 36): every viewer is
pushed the same table and reads its own words of it; what a reader holds on the page survives
the other players' moves, because pushes morph pieces in instead of replacing them.

- each seat reads "you" on its own row only, and the accessibility tree says "Your turn" to
  the seat whose turn it is alone (the others' words are display: none, not merely off-screen);
- focus on a card, a half-typed chat message, an open score sheet and an open previous trick
  stay while the others play; a card selection stays while the table changes around it;
- axe finds nothing serious on the table of any viewer.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.e2e.page_checks import AXE_SOURCE, SERIOUS
from tests.support.waiting import wait_page, wait_selector, wait_until, watch_page

pytestmark = pytest.mark.e2e

PHONE = {"viewport": {"width": 390, "height": 844}, "device_scale_factor": 2, "is_mobile": True, "has_touch": True}


def version(page) -> int:  # type: ignore[no-untyped-def]
    return int(page.locator("#table").get_attribute("data-version"))


def wait_version(page, at_least: int) -> None:  # type: ignore[no-untyped-def]
    wait_page(page, "v => { const t = document.getElementById('table'); return t && +t.dataset.version >= v; }",
              at_least, what=f"the table at version {at_least} or later")


def mode(page) -> str:  # type: ignore[no-untyped-def]
    return str(page.locator("#table").get_attribute("data-mode"))


def status(page) -> str:  # type: ignore[no-untyped-def]
    """The status line as the accessibility tree reads it to this viewer."""
    return str(page.locator("#table-say").aria_snapshot())


def own_rows(page) -> list[str]:  # type: ignore[no-untyped-def]
    """The seats whose row shows "you" on this page."""
    return page.eval_on_selector_all(
        ".seat", "rows => rows.filter(r => Array.from(r.querySelectorAll('.tag.you'))"
                 ".some(t => t.getClientRects().length)).map(r => r.dataset.seat)")


def deal(page) -> str:  # type: ignore[no-untyped-def]
    return str(page.locator("#table-pills").inner_text())


def hold_focus(page) -> str | None:  # type: ignore[no-untyped-def]
    """Focus the first card of the hand (if it holds any); the focused card's id."""
    cards = page.locator(".hand .cardbtn")
    if not cards.count():
        return None
    cards.first.focus()
    return str(page.evaluate("document.activeElement.id"))


def axe(page) -> list[str]:  # type: ignore[no-untyped-def]
    page.evaluate(AXE_SOURCE)
    result = page.evaluate("async () => await axe.run(document, {resultTypes: ['violations']})")
    return [f"{v['id']}: {v['help']}" for v in result["violations"] if v["impact"] in SERIOUS]


def test_each_viewer_reads_its_own_table_and_keeps_what_it_holds(server: str, browser, shots: Path) -> None:  # type: ignore[no-untyped-def]
    contexts = [browser.new_context(**PHONE) for _ in range(3)]
    try:
        host = watch_page(contexts[0].new_page())
        host.goto(server + "/")
        host.fill("#name", "Anna")
        host.select_option("#seats", "3")
        host.click("button[type=submit]")
        host.wait_for_url("**/r/*")
        wait_selector(host, ".seat.me .dot.on", what="the host's socket up")
        pages = [host]
        for name, ctx in (("Bo", contexts[1]), ("Cai", contexts[2])):
            page = watch_page(ctx.new_page())
            page.goto(host.url)
            page.fill("#join-name", name)
            page.get_by_role("button", name="Take a seat").click()
            wait_selector(page, ".seat.me .dot.on", what=f"{name} seated and connected")
            pages.append(page)
        wait_selector(host, ".seat:has-text('Cai') .dot.on", what="Cai shown present to the host")
        # the lobby: the host's buttons are the host's
        assert host.get_by_role("button", name="Start the game").count() == 1
        assert pages[1].get_by_role("button", name="Start the game").count() == 0
        host.get_by_role("button", name="Start the game").click()
        for page in pages:
            wait_selector(page, ".felt", what="the deal on the felt")
        wait_version(host, version(pages[1]))

        for seat, page in enumerate(pages):
            assert own_rows(page) == [str(seat)], (seat, own_rows(page))
            assert page.locator("#table").get_attribute("data-me") == str(seat)
        names = ["Anna", "Bo", "Cai"]
        # the seat whose turn it is reads "Your turn"; the others read whom they wait for
        turn = next(i for i, p in enumerate(pages) if mode(p) == "play")
        for seat, page in enumerate(pages):
            said = status(page)
            if seat == turn:
                assert "Your turn" in said and "Waiting for" not in said, said
            else:
                assert f"Waiting for {names[turn]}" in said and "Your turn" not in said, said
        for page in pages:
            assert axe(page) == [], page.url

        # Bo holds things on his page: a half-typed chat message, focus in his hand
        watcher = pages[(turn + 1) % 3]
        watcher.locator("#chat-text").fill("half a thou")
        focused = hold_focus(watcher)
        assert focused is not None and focused.startswith("card-")

        plays = 0
        sheet_opened = previous_opened = False
        while plays < 40:
            wait_until(lambda: any(mode(p) in ("play", "over") for p in pages), what="somebody's turn")
            actor = next((p for p in pages if mode(p) == "play"), None)
            if actor is None:
                break  # the game is over
            before = version(actor)
            if actor is watcher:  # his own move: then he holds things again
                actor.locator(".hand button.cardbtn.playable").first.click()
                for page in pages:
                    wait_version(page, before + 1)
                focused = hold_focus(watcher)
            else:
                dealt = deal(watcher)
                actor.locator(".hand button.cardbtn.playable").first.click()
                for page in pages:
                    wait_version(page, before + 1)
                # what the watcher holds stayed through the others' move
                assert watcher.locator("#chat-text").input_value() == "half a thou"
                if focused is not None and deal(watcher) == dealt:  # (a new deal is a new hand)
                    assert watcher.evaluate("document.activeElement.id") == focused, "focus stayed on the card"
                elif focused is None or deal(watcher) != dealt:
                    focused = hold_focus(watcher)
                if sheet_opened:
                    assert watcher.locator("details.scoresheet[open]").count() == 1, "the score sheet stays open"
                if previous_opened and watcher.locator("#table").get_attribute("data-previous"):  # (a trick was taken)
                    assert watcher.locator("#table-previous details[open]").count() == 1, "the previous trick stays open"
                    # and shows the trick taken last, asked for again once the next one was taken
                    watcher.wait_for_function(
                        "() => { const t = document.getElementById('table'), p = t.querySelector('.lastplays > div');"
                        " return p && p.dataset.trick === t.dataset.previous && p.querySelectorAll('li').length > 0; }",
                        timeout=15000)
            plays += 1
            if not sheet_opened and watcher.locator("details.scoresheet").count():
                watcher.locator("details.scoresheet summary").click()
                sheet_opened = True
                focused = hold_focus(watcher)
            if not previous_opened and watcher.locator("#table-previous details:visible").count():
                watcher.locator("#table-previous summary").click()
                previous_opened = True
                focused = hold_focus(watcher)
            if sheet_opened and previous_opened and plays >= 12:
                break
        assert sheet_opened and previous_opened, (sheet_opened, previous_opened)
        watcher.screenshot(path=str(shots / "per-viewer-phone-holding.png"), full_page=True)
        for seat, page in enumerate(pages):
            assert own_rows(page) == [str(seat)]
    finally:
        for ctx in contexts:
            ctx.close()


def test_a_card_selection_stays_while_the_table_changes_around_it(server: str, browser, shots: Path) -> None:  # type: ignore[no-untyped-def]
    """gurka-is with the exchange: at her exchange the host selects a card; a friend comes and goes
    and talks meanwhile (pushes to everybody): the card stays selected and the button says so."""
    host_ctx, friend_ctx = browser.new_context(**PHONE), browser.new_context(**PHONE)
    try:
        host = watch_page(host_ctx.new_page())
        host.goto(server + "/")
        host.fill("#name", "Anna")
        host.eval_on_selector("#options", "el => el.dataset.old = '1'")
        host.select_option("#preset", "gurka-is")
        wait_selector(host, '#options:not([data-old]) a[href="/rules/gurka-is"]', what="gurka-is's options")
        host.select_option("#seats", "3")
        host.select_option("#bots", "1")
        host.click("#options summary")
        host.check("input[name=opt_exchange]")
        host.click("button[type=submit]")
        host.wait_for_url("**/r/*")
        wait_selector(host, ".seat.me .dot.on", what="the host's socket up")
        friend = watch_page(friend_ctx.new_page())
        friend.goto(host.url)
        friend.fill("#join-name", "Bo")
        friend.get_by_role("button", name="Take a seat").click()
        wait_selector(friend, ".seat.me .dot.on", what="Bo seated")
        host.get_by_role("button", name=re.compile("Start the game")).click()
        # everybody plays on (a deal may have no exchange for her) until the host's exchange comes
        for _ in range(200):
            if mode(host) == "exchange":
                break
            actor = next((p for p in (host, friend) if mode(p) in ("exchange", "play", "select")), None)
            if actor is None:
                host.wait_for_timeout(50)
                continue
            before = version(actor)
            if mode(actor) == "exchange":
                actor.locator("[data-key=keep]:visible").click()
            else:
                legal = json.loads(actor.locator("#table-move").get_attribute("data-legal") or "[]")
                if not legal:  # (read between the table's push and the seat's own)
                    actor.wait_for_timeout(50)
                    continue
                cards = legal[0].split()[1:]
                if mode(actor) == "select":  # select exactly those cards (one possible play comes selected)
                    buttons = actor.locator(".hand .cardbtn")
                    for i in range(buttons.count()):
                        b = buttons.nth(i)
                        if (b.get_attribute("aria-pressed") == "true") != (b.get_attribute("data-code") in cards):
                            b.click()
                    actor.locator("[data-send-selection]:visible").click()
                else:
                    actor.locator(f'.hand .cardbtn[data-code="{cards[0]}"]').first.click()
            wait_version(actor, before + 1)
        assert mode(host) == "exchange", "the host's exchange came"
        card = host.locator(".hand .cardbtn").first
        card.click()
        assert card.get_attribute("aria-pressed") == "true"
        button = host.locator("[data-send-selection]:visible")
        label = button.inner_text()
        seq = int(host.locator("#table").get_attribute("data-seq"))
        friend.locator("#chat-text").fill("take your time")
        friend.locator("#chat-text").press("Enter")
        wait_selector(host, "#chat-log :text('take your time')", what="Bo's words at the host's")
        # Bo's page goes and comes back: his row changes for everybody, twice. (Not a reload: the
        # new page's socket may be up before the server hears the old one close, and then Bo
        # never looks away and nothing is pushed.)
        friend.close()
        wait_selector(host, ".seat:has-text('Bo') .dot.off", what="Bo away")
        wait_page(host, "s => +document.getElementById('table').dataset.seq > s", seq, what="pushes to the host")
        friend = watch_page(friend_ctx.new_page())
        friend.goto(host.url)
        wait_selector(host, ".seat:has-text('Bo') .dot.on", what="Bo back")
        assert card.get_attribute("aria-pressed") == "true", "the selected card stays selected"
        assert button.inner_text() == label and button.is_enabled()
        host.screenshot(path=str(shots / "per-viewer-selection-phone.png"), full_page=True)
    finally:
        host_ctx.close()
        friend_ctx.close()
