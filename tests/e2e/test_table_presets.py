"""In a real browser, one deal-ish of every preset against bots, doing that preset's own step
by clicking (or by keyboard): gurka-night keyboard play with focus and the previous trick kept
across live updates; gurka-is exchange and a multi-card lead; vidivellir exchange, a pair lead
and a kill or lay-on; kurkku's must-beat refusal; Rassi's double and pass (free cards when dealt)."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

import pytest

from tests.support.waiting import wait_page, wait_selector, wait_version_above, watch_page

pytestmark = pytest.mark.e2e

LAPTOP = {"viewport": {"width": 1280, "height": 860}}
PHONE = {"viewport": {"width": 390, "height": 844}, "device_scale_factor": 2, "is_mobile": True, "has_touch": True}
TURN = ("play", "select", "exchange", "rassi", "over")


# ------------------------------------------------------------------ helpers


def create_room(page, server: str, preset: str, *, seats: int, bots: int, options: tuple[str, ...] = ()) -> None:  # type: ignore[no-untyped-def]
    page.goto(server + "/")
    page.fill("#name", "Anna")
    if page.locator("#preset").input_value() != preset:  # the options are swapped in for the preset
        page.eval_on_selector("#options", "el => el.dataset.old = '1'")
        page.select_option("#preset", preset)
        wait_selector(page, f'#options:not([data-old]) a[href="/rules/{preset}"]', what=f"the options of {preset}")
    page.select_option("#seats", str(seats))
    page.select_option("#bots", str(bots))
    if options:
        page.click("#options summary")
        for name in options:
            page.check(f"input[name=opt_{name}]")
    page.click("button[type=submit]")
    page.wait_for_url("**/r/*")
    wait_selector(page, ".seat.me .dot.on", what="the host's socket up (a push marked her present)")
    page.get_by_role("button", name=re.compile("Start the game")).click()
    wait_selector(page, ".felt, .gameover", what="the game started")


def version(page) -> int:  # type: ignore[no-untyped-def]
    return int(page.locator("#table").get_attribute("data-version"))


def wait_turn(page, timeout: float = 10.0) -> str:  # type: ignore[no-untyped-def]
    """Wait until it is this player's turn (or the game is over); return the table's mode."""
    wait_page(
        page,
        "modes => { const t = document.getElementById('table'); return t && modes.includes(t.dataset.mode); }",
        list(TURN), what="my turn (or the game's end)", timeout=timeout,
    )
    return str(page.locator("#table").get_attribute("data-mode"))


def wait_after(page, before: int) -> None:  # type: ignore[no-untyped-def]
    wait_version_above(page, before)


def sent_nothing(page) -> bool:  # type: ignore[no-untyped-def]
    """The page has sent no action for the table it shows (table.js marks a sent table)."""
    return bool(page.evaluate("() => !document.getElementById('table').dataset.sent && !document.querySelector('.sending')"))


def legal(page) -> list[str]:  # type: ignore[no-untyped-def]
    return list(json.loads(page.locator("#table-move").get_attribute("data-legal") or "[]"))


def leading(page) -> bool:  # type: ignore[no-untyped-def]
    """Nobody has played to the trick yet (the section says so: its plays may be the last trick's, dimmed)."""
    return page.locator("#table[data-leading=true]").count() == 1


def hand_codes(page) -> list[str]:  # type: ignore[no-untyped-def]
    return list(page.eval_on_selector_all(".hand .cardbtn", "els => els.map(e => e.dataset.code)"))


def key_to(page, code: str) -> None:  # type: ignore[no-untyped-def]
    """Move the keyboard focus along the hand with the arrow keys to a card not yet selected."""
    codes = hand_codes(page)
    pressed = page.eval_on_selector_all(".hand .cardbtn", "els => els.map(e => e.getAttribute('aria-pressed'))")
    here = codes.index(page.evaluate("document.activeElement.dataset.code"))
    there = next(i for i, c in enumerate(codes) if c == code and pressed[i] != "true")
    for _ in range(abs(there - here)):
        page.keyboard.press("ArrowRight" if there > here else "ArrowLeft")
    assert page.evaluate("document.activeElement.dataset.code") == code


def select_and_send(page, cards: list[str]) -> None:  # type: ignore[no-untyped-def]
    for code in cards:
        page.locator(f'.hand .cardbtn[data-code="{code}"][aria-pressed=false]').first.click()
    button = page.locator("[data-send-selection]:visible")
    assert button.is_enabled(), f"{button.inner_text()} should be enabled for {cards}"
    before = version(page)
    button.click()
    wait_after(page, before)


def anna_s_last_play(page) -> tuple[str, int]:  # type: ignore[no-untyped-def]
    """How Anna's play just made reads on the felt, and how many cards it has: in the trick, or
    (the bots finished it and one of them led the next already) in the previous trick, opened."""
    found = page.evaluate("""() => { const li = [...document.querySelectorAll('#table-plays > li')]
        .filter(li => li.textContent.includes('Anna'));
        return li.length ? [li[0].textContent, li[0].querySelectorAll('.card').length] : null; }""")
    if found:
        return str(found[0]), int(found[1])
    if not page.locator("#table-previous details").evaluate("d => d.open"):
        page.locator("#table-previous summary").click()
    play = page.locator(".lastplays li", has_text="Anna").first
    return play.text_content(timeout=15000) or "", play.locator(".card").count()


def play_simply(page, mode: str) -> None:  # type: ignore[no-untyped-def]
    """Any legal move, by clicking: the first playable card, a single, or keep the hand."""
    before = version(page)
    if mode == "play":
        page.locator(".hand button.playable").first.click()
    elif mode == "select":
        lg = legal(page)
        singles = [a for a in lg if len(a.split()) == 2]
        select_and_send(page, (singles or lg)[0].split()[1:])
        return
    elif mode in ("exchange", "rassi"):
        page.get_by_role("button", name="Keep my hand").click()
    wait_after(page, before)


def no_hidden_cards(page) -> None:  # type: ignore[no-untyped-def]
    """Cards are drawn only in my hand, on the felt (played cards), in penalty piles and in the
    last deal's final cards; my hand has as many cards as my seat says (nobody else's)."""
    stray = page.evaluate(
        "Array.from(document.querySelectorAll('[data-card]'))"
        ".filter(c => !c.closest('.hand, .felt, .dealend, .pens')).map(c => c.dataset.card)"
    )
    assert stray == [], stray
    count = page.locator(".seat.me .count").inner_text()
    assert count.startswith(f"×{len(hand_codes(page))}"), count


def game_for(context_kw: dict, browser):  # type: ignore[no-untyped-def]
    ctx = browser.new_context(**context_kw)
    return ctx, watch_page(ctx.new_page())


# ------------------------------------------------------------------ presets


def test_gurka_night_by_keyboard(server: str, browser, shots: Path) -> None:  # type: ignore[no-untyped-def]
    ctx, page = game_for(LAPTOP, browser)
    try:
        create_room(page, server, "gurka-night", seats=3, bots=2)
        # Tab from the top of the page into the hand
        page.evaluate("document.activeElement && document.activeElement.blur()")
        for _ in range(30):
            page.keyboard.press("Tab")
            if page.evaluate("!!(document.activeElement && document.activeElement.closest('[data-hand]'))"):
                break
        else:
            pytest.fail("Tab never reached the hand")
        opened = False
        for turn in range(6):
            mode = wait_turn(page)
            assert mode == "play"
            no_hidden_cards(page)
            # open the previous trick by keyboard (on our turn: nothing else moves), then play on
            if not opened and page.locator("details.lasttrick:visible").count():
                back_to = page.evaluate("document.activeElement.dataset.code")
                page.locator("details.lasttrick summary").focus()
                page.keyboard.press("Enter")
                assert page.locator("details.lasttrick[open]").count() == 1
                page.locator("details.lasttrick .lastplays li").first.wait_for(timeout=15000)  # its plays come
                opened = True
                page.locator(f'.hand .cardbtn[data-code="{back_to}"]').focus()
            elif opened and page.locator("details.lasttrick:visible").count():
                assert page.locator("details.lasttrick[open]").count() == 1, "the previous trick stays open"
            focused = page.evaluate("document.activeElement.dataset.code || null")
            assert focused in hand_codes(page), "focus stays on a card of the hand across live updates"
            codes = hand_codes(page)
            playable = page.eval_on_selector_all(".hand .cardbtn.playable", "els => els.map(e => e.dataset.code)")
            if focused not in playable:  # Enter on a greyed card says why, and sends nothing
                before = version(page)
                page.keyboard.press("Enter")
                assert page.locator("[data-whyline]").inner_text().strip()
                assert version(page) == before
            i, j = codes.index(focused), codes.index(playable[0])
            for _ in range(abs(j - i)):
                page.keyboard.press("ArrowRight" if j > i else "ArrowLeft")
            assert page.evaluate("document.activeElement.dataset.code") == playable[0]
            before = version(page)
            page.keyboard.press("Enter")
            wait_after(page, before)
            if turn == 0:
                page.screenshot(path=str(shots / "presets-night-keyboard.png"))
            if page.locator(".dealend").count():
                break
        assert opened, "a previous trick was shown during the deal"
    finally:
        ctx.close()


def test_gurka_is_exchange_and_multi_card_lead(server: str, browser, shots: Path) -> None:  # type: ignore[no-untyped-def]
    ctx, page = game_for(PHONE, browser)
    try:
        create_room(page, server, "gurka-is", seats=2, bots=1, options=("exchange", "soft_discard"))
        exchanged = led_set = False
        deadline = time.monotonic() + 15
        while not (exchanged and led_set) and time.monotonic() < deadline:
            mode = wait_turn(page)
            if mode == "over":
                break
            if mode == "exchange" and not exchanged:
                assert "swap" in page.locator(".advice").inner_text()
                top = hand_codes(page)[-1]
                page.locator(f'.hand .cardbtn[data-code="{top}"]').click()
                assert page.locator("[data-send-selection]:visible").inner_text() == "Exchange 1 card"
                page.screenshot(path=str(shots / "presets-is-exchange-phone.png"))
                select_and_send(page, [])
                assert top not in hand_codes(page) or mode != "exchange"
                exchanged = True
            elif mode == "select" and leading(page) and any(len(a.split()) > 2 for a in legal(page)):
                cards = next(a for a in legal(page) if len(a.split()) > 2).split()[1:]
                assert "several of one rank" in page.locator(".advice").inner_text()
                # by keyboard: arrows to each card of the set, Space selects, Tab leaves the hand for Play
                page.locator(".hand .cardbtn[tabindex='0']").focus()
                for code in cards:
                    key_to(page, code)
                    page.keyboard.press("Space")
                assert page.locator("[data-send-selection]:visible").inner_text() == f"Play {len(cards)} cards"
                page.keyboard.press("Tab")
                assert page.evaluate("document.activeElement.dataset.sendSelection") == "play"
                page.screenshot(path=str(shots / "presets-is-set-selected-phone.png"))
                before = version(page)
                page.keyboard.press("Enter")
                wait_after(page, before)
                assert anna_s_last_play(page)[1] == len(cards), "the whole set is on the table"
                led_set = True
            elif mode == "play" and not leading(page):
                # take tricks to get the lead: the highest card that may be played
                before = version(page)
                page.locator(".hand button.playable").last.click()
                wait_after(page, before)
            else:
                play_simply(page, mode)
        assert exchanged, "the exchange step was offered"
        assert led_set, "a multi-card lead was made"
        assert page.evaluate("document.documentElement.scrollWidth - window.innerWidth") <= 0
    finally:
        ctx.close()


def test_vidivellir_pair_and_kill_or_lay_on(server: str, browser, shots: Path) -> None:  # type: ignore[no-untyped-def]
    ctx, page = game_for(LAPTOP, browser)
    try:
        exchanged = pair_led = answered = killed = False
        deadline = time.monotonic() + 25
        while time.monotonic() < deadline and not (exchanged and pair_led and killed):
            create_room(page, server, "vidivellir", seats=4, bots=3)
            while time.monotonic() < deadline and not (exchanged and pair_led and killed):
                mode = wait_turn(page)
                if mode == "over":
                    break
                if mode == "exchange" and not exchanged:
                    limit = int(page.locator("#table-move").get_attribute("data-max"))
                    if limit >= 1:
                        top = hand_codes(page)[-1]
                        page.locator(f'.hand .cardbtn[data-code="{top}"]').click()
                        select_and_send(page, [])
                        exchanged = True
                    else:
                        play_simply(page, mode)
                elif mode == "select" and leading(page) and not pair_led and any(len(a.split()) == 3 for a in legal(page)):
                    cards = next(a for a in legal(page) if len(a.split()) == 3).split()[1:]
                    select_and_send(page, cards)
                    assert anna_s_last_play(page)[1] == 2
                    pair_led = True
                elif mode == "select" and not leading(page):
                    advice = page.locator(".advice").inner_text()
                    options = legal(page)
                    assert all(len(a.split()) == len(options[0].split()) for a in options)
                    if len(options) == 1:  # only the lowest cards: selected already
                        assert "selected for you" in advice
                        assert page.locator("[data-send-selection]:visible").is_enabled()
                        before = version(page)
                        page.locator("[data-send-selection]:visible").click()
                        wait_after(page, before)
                    else:  # kill or lay on: not the lowest cards of the hand (by rank)
                        assert "killed by a" in advice
                        k = len(options[0].split()) - 1
                        lowest = sorted(c[0] for c in hand_codes(page)[:k])
                        better = [a for a in options if sorted(c[0] for c in a.split()[1:]) != lowest]
                        if not better:
                            play_simply(page, mode)
                            continue
                        select_and_send(page, better[0].split()[1:])
                        how = anna_s_last_play(page)[0]
                        assert "killed" in how or "laid on" in how, how
                        page.screenshot(path=str(shots / "presets-vidivellir-kill-or-lay-on.png"))
                        killed = True
                    answered = True
                elif mode == "play" and not leading(page):
                    before = version(page)  # take tricks to get the lead: the highest card allowed
                    # (the page marks its playable cards after the push that made it my turn; a
                    # CI run once found none for 30 s: a page stuck so fails here with its state)
                    wait_page(page, "() => !!document.querySelector('.hand button.playable')"
                                    " || document.getElementById('table').dataset.mode !== 'play'",
                              what="a playable card marked, or another mode", timeout=30)
                    if page.locator(".hand button.playable").count():
                        page.locator(".hand button.playable").last.click()
                        wait_after(page, before)
                else:
                    play_simply(page, mode)
        assert exchanged and pair_led and answered
        if not killed:
            pytest.xfail("no kill or lay-on came up in 25 s of random deals (pair lead and set answer checked)")
    finally:
        ctx.close()


def test_kurkku_must_beat(server: str, browser, shots: Path) -> None:  # type: ignore[no-untyped-def]
    ctx, page = game_for(PHONE, browser)
    try:
        create_room(page, server, "kurkku", seats=3, bots=2)
        refused = False
        for _ in range(30):
            mode = wait_turn(page)
            if mode == "over":
                break
            blocked = page.locator(".hand button.blocked")
            if mode == "play" and blocked.count() and "when you can" in page.locator(".advice").inner_text():
                before = version(page)
                blocked.first.click(force=True)  # aria-disabled: explains, sends nothing
                assert "must beat" in page.locator("[data-whyline]").inner_text()
                assert sent_nothing(page), "a refused card sends nothing (its click is handled at once)"
                assert version(page) == before
                page.screenshot(path=str(shots / "presets-kurkku-must-beat-phone.png"))
                refused = True
            play_simply(page, mode)
            if refused:
                break
        assert refused, "a must-beat turn came up"
    finally:
        ctx.close()


def test_rassi_double_then_pass(server: str, browser, shots: Path) -> None:  # type: ignore[no-untyped-def]
    ctx, page = game_for(LAPTOP, browser)
    try:
        create_room(page, server, "rassi", seats=2, bots=1)
        steps: list[str] = []
        for _ in range(12):
            mode = wait_turn(page)
            if mode != "rassi":
                break
            phase = page.locator(".statusbar .phase").inner_text()
            buttons = page.locator(".actions button").all_inner_texts()
            assert "Keep my hand" in buttons
            before_hand = hand_codes(page)
            before = version(page)
            if "free" in phase:
                assert "no picture card" in page.locator(".advice").inner_text()
                page.get_by_role("button", name=re.compile("Take free cards")).click()
                steps.append("free")
            elif "redouble" in phase:
                assert "×4" in page.locator(".advice").inner_text()
                page.get_by_role("button", name="Keep my hand").click()
                steps.append("pass")
            else:
                assert "double" in page.locator(".advice").inner_text()
                page.screenshot(path=str(shots / "presets-rassi-double.png"))
                page.get_by_role("button", name=re.compile("Double")).click()
                steps.append("double")
            wait_after(page, before)
            if steps[-1] in ("free", "double"):
                assert page.locator(".trick").inner_text()  # the felt says who swapped
            if steps[-1] == "double":
                assert page.locator(".seat.me .tag.mult").inner_text() == "×2"
                wait_turn(page)
                assert hand_codes(page) != before_hand, "a new hand after doubling"
        assert "double" in steps and "pass" in steps, steps
        assert wait_turn(page) in ("play", "select")
    finally:
        ctx.close()


def test_typed_name_survives_a_push(server: str, browser) -> None:  # type: ignore[no-untyped-def]
    """A friend typing a name to join keeps it (and the focus) when the host adds a bot meanwhile."""
    host_ctx, host = game_for(LAPTOP, browser)
    friend_ctx, friend = game_for(PHONE, browser)
    try:
        host.goto(server + "/")
        host.fill("#name", "Anna")
        host.select_option("#seats", "4")
        host.click("button[type=submit]")
        host.wait_for_url("**/r/*")
        friend.goto(host.url)
        wait_selector(host, ".seat.me .dot.on", what="the host's socket up")
        wait_selector(friend, "#join-name", what="the join form")
        friend.locator("#join-name").focus()
        friend.keyboard.type("Bo")
        before = version(friend)
        host.get_by_role("button", name="Add a bot").click()
        wait_after(friend, before)
        assert friend.locator("#join-name").input_value() == "Bo"
        assert friend.evaluate("document.activeElement.id") == "join-name"
        friend.keyboard.type("rje")
        friend.get_by_role("button", name="Take a seat").click()
        wait_selector(friend, ".seat.me:has-text('Borje')", what="Borje seated")
    finally:
        host_ctx.close()
        friend_ctx.close()


# In the page: count finished pushes, keep the latest, and let the test hand it in again.
REPLAYABLE_PUSHES = """(() => {
  const Real = window.WebSocket;
  window.WebSocket = class extends Real {
    constructor(...args) {
      super(...args);
      window.socket = this;
      this.addEventListener('message', (e) => {  // the latest table push (not chat frames)
        if (String(e.data).indexOf('"kind":"table"') >= 0) window.lastPush = e.data;
      });
    }
  };
  window.pushes = 0;
  document.addEventListener('htmx:ws:after:message:incoming', () => { window.pushes += 1; });
})();"""
REPLAY = "() => window.socket.dispatchEvent(new MessageEvent('message', { data: window.lastPush }))"
SLOW_SETTLE = 300  # ms; htmx's is 1 ms, which a busy machine stretches: make the window plain


def test_typed_name_survives_overlapping_pushes(server: str, browser) -> None:  # type: ignore[no-untyped-def]
    """htmx swaps a push in, then waits to settle before it is done: a key pressed in that
    window landed in the fresh, empty field and the letter typed before was lost ('o', not
    'Bo': the flaky failure of the test above, on a loaded machine). Pushes right behind each
    other (htmx handles them one after the other) keep the text and the caret too. The page
    replays the server's latest push at the worst moment; the settle wait is stretched as a
    loaded machine does."""
    host_ctx, host = game_for(LAPTOP, browser)
    friend_ctx, friend = game_for(PHONE, browser)

    def pushes() -> int:
        return int(friend.evaluate("() => window.pushes"))

    def settling() -> None:
        """(Pushes are morphed in: the field is never replaced, so there is no settling window
        to aim at any more; a key is typed right behind the replayed push instead.)"""

    try:
        friend.add_init_script(REPLAYABLE_PUSHES)
        host.goto(server + "/")
        host.fill("#name", "Anna")
        host.select_option("#seats", "4")
        host.click("button[type=submit]")
        host.wait_for_url("**/r/*")
        friend.goto(host.url)
        wait_page(friend, "() => window.pushes >= 1 && !!window.lastPush", what="the friend's first table push")
        friend.evaluate(f"() => {{ htmx.config.defaultSettleDelay = {SLOW_SETTLE}; }}")
        friend.locator("#join-name").focus()
        friend.keyboard.type("B")
        # a key pressed while a push settles
        seen = pushes()
        friend.evaluate(REPLAY)
        settling()
        friend.keyboard.type("o")
        wait_page(friend, "n => window.pushes > n", seen, what="the replayed push done")
        assert friend.locator("#join-name").input_value() == "Bo"
        # a second push right behind the first
        seen = pushes()
        friend.evaluate(REPLAY)
        settling()
        friend.evaluate(REPLAY)
        wait_page(friend, "n => window.pushes >= n + 2", seen, what="both replayed pushes done")
        assert friend.locator("#join-name").input_value() == "Bo"
        assert friend.evaluate("document.activeElement.id") == "join-name"
        friend.keyboard.type("rje")  # the caret stayed at the end
        friend.get_by_role("button", name="Take a seat").click()
        wait_selector(friend, ".seat.me:has-text('Borje')", what="Borje seated")
    finally:
        host_ctx.close()
        friend_ctx.close()
