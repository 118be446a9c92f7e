"""A table in three languages, played end to end in real browsers (issue 13's "done when"): a Dane
(browser locale da-DK) hosts, an Icelander (the language switch's cookie) and a Finn (locale fi-FI,
on a 390 px phone) join one table, each reading their own language; they chat (escaped plain text)
and react (the emoji shows by the sender's seat); with every tab in the background, each hears (a
beep) and sees (title, favicon, a notification) when it becomes their turn, never for their own
move, and a spectator is never alerted; they play the whole game by clicking the cards the page
marks playable; afterwards each steps through the game's replay with the keyboard: every hand face
up, in their own language, with the talk alongside.

The browser's notification permission and sound are stood in for by recorders (an init script):
a headless browser shows no notification and plays no sound that a test could observe.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from tests.support.waiting import page_state, wait_page, wait_selector, wait_until, watch_page

pytestmark = pytest.mark.e2e

PHONE = {"viewport": {"width": 390, "height": 800}, "device_scale_factor": 2, "is_mobile": True, "has_touch": True}
LAPTOP = {"viewport": {"width": 1280, "height": 860}}

# Before any page script runs: recorders for the notifications and the beeps (the permission is
# granted, as after the player said yes), and the page's own socket kept where the test sees it.
RECORDERS = """
window.__notes = [];
window.__beeps = 0;
(function () {
  function RecordedNotification(title, options) {
    window.__notes.push({ title: String(title), body: (options && options.body) || "", hidden: document.hidden });
    this.close = function () {};
  }
  RecordedNotification.permission = "granted";
  RecordedNotification.requestPermission = function () { return Promise.resolve("granted"); };
  window.Notification = RecordedNotification;
  function CountedAudio() { window.__beeps += 1; throw new Error("no sound in a test"); }
  window.AudioContext = CountedAudio;
  window.webkitAudioContext = CountedAudio;
  document.addEventListener("htmx:ws:after:connection", function (event) {
    var socket = event.detail && event.detail.connection && event.detail.connection.socket;
    if (socket) window.__testSocket = socket;
  });
})();
"""
# The tab goes to the background (what the page reads of it: document.hidden, visibilityState).
HIDE = """() => {
  Object.defineProperty(document, "hidden", { configurable: true, get: () => true });
  Object.defineProperty(document, "visibilityState", { configurable: true, get: () => "hidden" });
  document.dispatchEvent(new Event("visibilitychange"));
}"""
RECORD_TITLES = """() => {
  window.__titles = [];
  new MutationObserver(() => window.__titles.push(document.title))
    .observe(document.querySelector("title"), { childList: true, characterData: true, subtree: true });
}"""
ICON = """() => document.querySelector("link[rel=icon]").getAttribute("href")"""
# the page's turn, title, favicon and notifications at one instant
SNAPSHOT = """() => ({
  mine: document.getElementById("table").dataset.myTurn === "true",
  title: document.title,
  icon: document.querySelector("link[rel=icon]").getAttribute("href"),
  notes: window.__notes.length,
})"""
SETTLED = """a => {
  const t = document.getElementById("table");
  return +t.dataset.version > a.v && (t.dataset.myTurn === "true" || document.title === a.title);
}"""
TURN_ICON_MARK = "%23d33"  # the red dot of the your-turn favicon (URL-encoded '#d33')

WORDS: dict[str, dict[str, str]] = {
    "da": {"create": "Opret rum", "start": "Start spillet", "talk": "Bordsnak", "turn": "● Din tur",
           "status_turn": "Din tur", "waiting": "Venter på", "deal": "Omgang", "replay_link": "Gå spillet igennem i gennemgangen",
           "replay": "Gennemgang:", "step": "Trin", "over": "Spillet er slut"},
    "is": {"take_seat": "Fá sér sæti", "talk": "Borðspjall", "turn": "● Komið að þér", "status_turn": "Þú átt leik",
           "waiting": "Beðið eftir", "deal": "Umferð", "replay_link": "Farðu í gegnum spilið í upprifjuninni",
           "replay": "Upprifjun:", "step": "Skref", "over": "Spilinu er lokið"},
    "fi": {"take_seat": "Istu pöytään", "talk": "Pöytäjutut", "turn": "● Sinun vuorosi", "status_turn": "Sinun vuorosi",
           "waiting": "Odotetaan pelaajaa", "deal": "Jako", "replay_link": "Käy peli läpi uusinnassa",
           "replay": "Uusinta:", "step": "Vaihe", "over": "Peli päättyi"},
}
ENGLISH = ("Your turn", "Waiting for", "Table talk", "Game over", "Deal 1", "Step 1 of")
NAMES = {"da": "Anna", "is": "Bjarki", "fi": "Kaisa"}
SAYS = {
    "da": "Held og lykke, alle sammen!",
    "is": "Takk, sömuleiðis <b>feitt</b> https://example.com",
    "fi": "Kiitos! Pelataan 🥒",
}
REACTS = {"da": "thumbs-up", "is": "party", "fi": "cucumber"}  # the icons of 👍 🎉 🥒


def version(page: Any) -> int:
    return int(page.locator("#table").get_attribute("data-version"))


def my_turn(page: Any) -> bool:
    return bool(page.locator("#table[data-my-turn=true]").count())


def over(page: Any) -> bool:
    return bool(page.locator("#table .gameover").count())


def play_marked_card(page: Any) -> None:
    """A move the page offers: a card it marks playable, or (a set to choose) the first legal set."""
    mode = page.locator("#table").get_attribute("data-mode")
    if mode == "play":
        page.locator("#table .hand button.cardbtn.playable").first.click()
        return
    assert mode == "select", f"no move offered in mode {mode!r}: {page_state(page)}"
    legal = json.loads(page.locator("#table-move").get_attribute("data-legal"))
    for code in legal[0].split()[1:]:
        button = page.locator(f'#table .hand button.cardbtn[data-code="{code}"][aria-pressed=false]').first
        if button.count():
            button.click()
    page.locator("#table [data-send-selection]:visible").click()


def step_of(page: Any) -> int:
    found = re.search(r"[?&]step=(\d+)", page.url)
    assert found, page.url
    return int(found.group(1))


def no_english(text: str, lang: str) -> None:
    leaked = [e for e in ENGLISH if e in text]
    assert not leaked, f"{lang}: English on the page: {leaked}"


def test_three_players_each_in_their_language_talk_hear_their_turn_play_and_replay(server: str, browser: Any, shots: Path) -> None:
    contexts = {
        "da": browser.new_context(locale="da-DK", **LAPTOP),
        "is": browser.new_context(**LAPTOP),
        "fi": browser.new_context(locale="fi-FI", **PHONE),
    }
    contexts["is"].add_cookies([{"name": "lang", "value": "is", "url": server}])
    rail_ctx = browser.new_context(locale="da-DK", **LAPTOP)  # a spectator: the table is full
    try:
        for ctx in (*contexts.values(), rail_ctx):
            ctx.add_init_script(RECORDERS)

        # ------------------------------------------------ one table, three languages
        host = watch_page(contexts["da"].new_page())
        host.goto(server + "/")
        assert host.locator("html").get_attribute("lang") == "da"
        assert host.locator("#preset").input_value() == "gurka-night"
        host.fill("#name", NAMES["da"])
        host.select_option("#seats", "3")
        host.locator("details.options summary").click()
        host.fill("#opt_target", "4")  # a short game: a few deals
        host.get_by_role("button", name=WORDS["da"]["create"]).click()
        host.wait_for_url("**/r/*")
        link = host.url
        wait_selector(host, ".seat.me .dot.on", what="the host seated and connected")
        pages = {"da": host}
        for lang in ("is", "fi"):
            page = watch_page(contexts[lang].new_page())
            page.goto(link)
            assert page.locator("html").get_attribute("lang") == lang
            page.fill("#join-name", NAMES[lang])
            page.get_by_role("button", name=WORDS[lang]["take_seat"]).click()
            wait_selector(page, ".seat.me .dot.on", what=f"{NAMES[lang]} seated and connected")
            pages[lang] = page
        rail = watch_page(rail_ctx.new_page())
        rail.goto(link)
        wait_selector(rail, "#table", what="the spectator's table")
        assert rail.locator("#join-name").count() == 0, "the table is full: the fourth is a spectator"
        everyone = [*pages.values(), rail]
        for page in everyone:
            wait_page(page, "() => window.__testSocket && window.__testSocket.readyState === 1",
                      what="the page's socket open")
        for lang, page in pages.items():
            for other in NAMES.values():
                wait_selector(page, f".seat:has-text('{other}') .dot.on", what=f"{other} shown present to {lang}")
            assert page.locator("#chat-title").inner_text() == WORDS[lang]["talk"]
            no_english(page.locator("main").inner_text(), lang)
        seat_of = {lang: int(page.locator(".seat.me .reaction").get_attribute("id").removeprefix("react-"))
                   for lang, page in pages.items()}
        assert sorted(seat_of.values()) == [0, 1, 2]

        # ------------------------------------------------ table talk and reactions
        for lang, page in pages.items():
            page.fill("#chat-text", SAYS[lang])
            page.press("#chat-text", "Enter")
            for reader in everyone:
                wait_selector(reader, f"#chat-log li:has-text({json.dumps(SAYS[lang][:12], ensure_ascii=False)})",
                              what=f"{NAMES[lang]}'s message in every chat log")
            assert page.input_value("#chat-text") == "", "the box empties once the message is sent"
        for reader in everyone:
            log = reader.locator("#chat-log")
            assert "<b>feitt</b>" in log.inner_text(), "markup is shown as the text it is"
            assert log.locator("b:has-text('feitt')").count() == 0 and log.locator("a").count() == 0
            assert reader.locator("[role=log]:has(#chat-log)").get_attribute("aria-live") == "polite"
        assert rail.locator("#chat-text").count() == 0, "a spectator may not talk unless the host allows"
        for lang, page in pages.items():
            page.locator(f".reactbtn:has([data-reaction={REACTS[lang]}])").click()
            for reader in everyone:
                bubble = f"#react-{seat_of[lang]} .bubble [data-reaction={REACTS[lang]}]"
                wait_selector(reader, bubble, what=f"{NAMES[lang]}'s {REACTS[lang]} by their seat")
                seat = reader.locator(f".seat:has(#react-{seat_of[lang]}) .name").inner_text()
                assert seat == NAMES[lang], (seat, lang)
        for lang, page in pages.items():
            page.screenshot(path=str(shots / f"three-languages-01-{lang}-lobby-talk.png"), full_page=True)

        # ------------------------------------------------ alerts on, every tab in the background
        for page in pages.values():
            page.locator("[data-alert-toggle=sound]").check()
            page.locator("[data-alert-toggle=notify]").check()
        assert rail.locator("[data-alert-toggle]").count() == 0, "a spectator has no alerts to turn on"
        rail.evaluate("() => { localStorage.setItem('gurka.sound', 'on'); localStorage.setItem('gurka.notify', 'on'); }")
        base_icon = {}
        for page in everyone:
            page.evaluate(HIDE)
            page.evaluate(RECORD_TITLES)
            base_icon[page] = page.evaluate(ICON)
            assert TURN_ICON_MARK not in base_icon[page]
        beeps_before = {lang: page.evaluate("window.__beeps") for lang, page in pages.items()}  # the toggle's sample
        base_title = {page: page.title() for page in everyone}
        assert not any(t.startswith("●") for t in base_title.values())

        # ------------------------------------------------ the game, to its end
        host.get_by_role("button", name=WORDS["da"]["start"]).click()
        for page in everyone:
            wait_selector(page, ".felt", what="the deal on the felt")
        moves = dict.fromkeys(pages, 0)
        shot_mid = False
        while True:
            actor_lang = wait_until(
                lambda: "over" if over(host) else next((lang for lang, p in pages.items() if my_turn(p)), None),
                what="someone's turn or the end of the game", timeout=15,
                seen=lambda: {lang: page_state(p) for lang, p in pages.items()})
            if actor_lang == "over":
                break
            actor = pages[actor_lang]
            # the player whose turn it became sees it in the background tab, in their own words
            wait_page(actor, "t => document.title.startsWith(t + ' · ')", WORDS[actor_lang]["turn"],
                      what=f"the {actor_lang} title marked")
            # (the favicon is set in the same pass as the title, or the next: waited for, not read)
            wait_page(actor, "m => document.querySelector('link[rel=icon]').getAttribute('href').includes(m)",
                      TURN_ICON_MARK, what="the favicon shows the turn")
            status = actor.locator("#table .statusbar .status").inner_text()
            if not my_turn(actor):  # (the turn moved on while it was read, on a busy machine: look again)
                continue
            assert status.startswith(WORDS[actor_lang]["status_turn"]), (actor_lang, status)
            for lang, page in pages.items():
                if page is not actor:
                    assert page.title() == base_title[page], f"no alert for {lang}, who waits"
                    assert page.evaluate(ICON) == base_icon[page]
            assert rail.title() == base_title[rail] and rail.evaluate(ICON) == base_icon[rail]
            if not shot_mid and moves[actor_lang] == 2:
                shot_mid = True
                for lang, page in pages.items():
                    # the phone's hand is fixed to the bottom of its screen: shot as the screen shows it
                    page.screenshot(path=str(shots / f"three-languages-02-{lang}-mid-game.png"), full_page=lang != "fi")
                    no_english(page.locator("#table").inner_text(), lang)
            notes_before = actor.evaluate("window.__notes.length")
            before = version(actor)
            play_marked_card(actor)
            # after one's own move: either the turn is still one's own (a trick won, the next deal)
            # or the title is back; one's own move never notifies
            wait_page(actor, SETTLED, {"v": before, "title": base_title[actor]},
                      what=f"{actor_lang}'s move pushed back and the title settled")
            moves[actor_lang] += 1
            after = actor.evaluate(SNAPSHOT)
            if not after["mine"]:
                assert after["notes"] == notes_before, "an alert for one's own move"
                assert after["title"] == base_title[actor] and TURN_ICON_MARK not in after["icon"]
            assert sum(moves.values()) < 300, "the game did not end"

        assert all(moves.values()), f"each of the three played: {moves}"
        for lang, page in pages.items():
            wait_selector(page, "#table .gameover", what=f"the end of the game for {lang}")
            assert page.locator("#table .gameover h2").inner_text() == WORDS[lang]["over"]
            assert not page.title().startswith("●")
            notes = page.evaluate("window.__notes")
            assert notes, f"{lang} was notified of a turn while the tab was hidden"
            assert all(n["hidden"] and n["title"] == WORDS[lang]["turn"] for n in notes), notes
            assert all("Your turn" not in n["body"] and n["body"] for n in notes), notes
            assert any(t.startswith(WORDS[lang]["turn"]) for t in page.evaluate("window.__titles"))
            assert page.evaluate("window.__beeps") > beeps_before[lang], f"{lang} heard a beep"
            page.screenshot(path=str(shots / f"three-languages-03-{lang}-game-over.png"), full_page=True)
        assert rail.evaluate("window.__titles") == [], "a spectator's title never changed"
        assert rail.evaluate("window.__notes") == [] and rail.evaluate("window.__beeps") == 0

        # ------------------------------------------------ the replay, in each language
        for lang, page in pages.items():
            page.get_by_role("link", name=WORDS[lang]["replay_link"]).click()
            page.wait_for_url("**/replay")
            assert page.locator("html").get_attribute("lang") == lang
            assert page.locator("h1").inner_text().startswith(WORDS[lang]["replay"])
            talk = page.locator(".replay-chat").inner_text()
            assert all(said.split()[0] in talk for said in SAYS.values()), talk
            assert page.locator(".replay-chat b:has-text('feitt')").count() == 0
            hands = page.locator(".replay-step .hands li")
            assert hands.count() == 3
            assert all(hands.nth(i).locator(".card").count() == 7 for i in range(3)), "every hand face up"
            assert page.locator(".replay-step h2").inner_text() == f"{WORDS[lang]['deal']} 1"
            no_english(page.locator("main").inner_text(), lang)
            # a move, a trick, a deal, and back, with the keyboard
            page.keyboard.press("ArrowRight")
            page.wait_for_url("**step=1")
            page.keyboard.press("ArrowDown")
            page.wait_for_function("() => +new URLSearchParams(location.search).get('step') > 1")
            first_trick = step_of(page)
            assert page.locator(".replay-step .plays").count() == 1, "a finished trick is shown"
            page.keyboard.press("ArrowDown")
            page.wait_for_function("s => +new URLSearchParams(location.search).get('step') > s", arg=first_trick)
            page.keyboard.press("ArrowUp")
            page.wait_for_url(f"**step={first_trick}")
            page.keyboard.press("ArrowLeft")
            page.wait_for_url(f"**step={first_trick - 1}")
            page.keyboard.press("Home")
            page.wait_for_url("**step=0")
            # deal by deal through the whole game, then back
            deals = 1
            while page.locator("a[data-nav=next-deal]").count():
                page.keyboard.press("Shift+ArrowRight")
                deals += 1
                wait_page(page, "t => document.querySelector('.replay-step h2').textContent === t",
                          f"{WORDS[lang]['deal']} {deals}", what=f"deal {deals} of the {lang} replay")
                assert page.locator(".replay-step .hands li .card").count() > 0, "the hands face up"
            assert deals >= 2, "the game took more than one deal"
            page.keyboard.press("Shift+ArrowLeft")
            wait_page(page, "t => document.querySelector('.replay-step h2').textContent === t",
                      f"{WORDS[lang]['deal']} {deals - 1}", what=f"back to deal {deals - 1}")
            page.keyboard.press("End")
            wait_page(page, "() => !document.querySelector('a[data-nav=next]')", what="the last step")
            assert page.locator(".replay-step .dealline").count() == 1, "the last step shows the last deal's result"
            where = page.locator(".stepnav .where").inner_text()
            assert where.startswith(WORDS[lang]["step"]), where
            page.screenshot(path=str(shots / f"three-languages-04-{lang}-replay.png"), full_page=True)
        overflow = pages["fi"].evaluate("document.documentElement.scrollWidth - window.innerWidth")
        assert overflow <= 0, "the replay fits the phone"
    finally:
        for ctx in (*contexts.values(), rail_ctx):
            ctx.close()
