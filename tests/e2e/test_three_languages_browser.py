"""In a real browser, three readers at one table, each in their own language: a Dane (browser
locale da-DK) hosts, an Icelander (the switch's cookie) and a Finn (locale fi-FI, on a phone)
join. Each sees the status line, a refusal and every pushed table in their own words."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.waiting import wait_page, wait_selector, watch_page

pytestmark = pytest.mark.e2e

PHONE = {"viewport": {"width": 390, "height": 800}, "device_scale_factor": 2, "is_mobile": True, "has_touch": True}
LAPTOP = {"viewport": {"width": 1280, "height": 860}}

# The page's own socket, kept where a test can reach it (the app never looks at it).
KEEP_SOCKET = """
document.addEventListener("htmx:ws:after:connection", function (event) {
  var socket = event.detail && event.detail.connection && event.detail.connection.socket;
  if (socket) window.__testSocket = socket;
});
"""
# what each reader's status line says: whose turn it is
STATUS = {
    "da": ("Din tur", "Venter på"),
    "is": ("Þú átt leik", "Beðið eftir"),
    "fi": ("Sinun vuorosi", "Odotetaan pelaajaa"),
}
NOT_OVER = {"da": "Spillet er ikke slut endnu.", "is": "Spilinu er ekki lokið enn.", "fi": "Peli ei ole vielä päättynyt."}
NAME_TAKEN = {"is": "Einhver við borðið heitir nú þegar Anna: veldu annað nafn.",
              "fi": "Pöydässä on jo Anna: valitse toinen nimi."}
TAKE_SEAT = {"is": "Fá sér sæti", "fi": "Istu pöytään"}


def version(page) -> int:  # type: ignore[no-untyped-def]
    return int(page.locator("#table").get_attribute("data-version"))


def status_in(page, lang: str) -> str:  # type: ignore[no-untyped-def]
    text = page.locator("#table .statusbar .status").inner_text()
    assert text.startswith(STATUS[lang]), (lang, text)
    return text


def test_three_readers_each_in_their_own_language(server: str, browser, shots: Path) -> None:  # type: ignore[no-untyped-def]
    da_ctx = browser.new_context(locale="da-DK", **LAPTOP)
    is_ctx = browser.new_context(**LAPTOP)
    is_ctx.add_cookies([{"name": "lang", "value": "is", "url": server}])
    fi_ctx = browser.new_context(locale="fi-FI", **PHONE)
    try:
        for ctx in (da_ctx, is_ctx, fi_ctx):
            ctx.add_init_script(KEEP_SOCKET)
        host = watch_page(da_ctx.new_page())
        host.goto(server + "/")
        assert host.locator("html").get_attribute("lang") == "da"
        assert host.locator("h1").inner_text() == "Spil Gurka med vennerne"
        host.fill("#name", "Anna")
        host.select_option("#seats", "3")
        host.get_by_role("button", name="Opret rum").click()
        host.wait_for_url("**/r/*")
        link = host.locator("[data-room-link]").input_value()
        wait_selector(host, ".seat.me .dot.on", what="the host's socket up")

        pages = {"da": host}
        for lang, ctx, name in (("is", is_ctx, "Bjarki"), ("fi", fi_ctx, "Kaisa")):
            page = watch_page(ctx.new_page())
            page.goto(link)
            assert page.locator("html").get_attribute("lang") == lang
            # a refusal of the join form, in the reader's words
            page.fill("#join-name", "Anna")
            page.get_by_role("button", name=TAKE_SEAT[lang]).click()
            wait_selector(page, "#notice .toast", what=f"the {lang} join refusal")
            assert page.locator("#notice .toast span").inner_text() == NAME_TAKEN[lang]
            page.fill("#join-name", name)
            page.get_by_role("button", name=TAKE_SEAT[lang]).click()
            wait_selector(page, ".seat.me .dot.on", what=f"{name} seated and connected")
            pages[lang] = page
        wait_selector(host, ".seat:has-text('Kaisa') .dot.on", what="Kaisa shown present to the host")

        host.get_by_role("button", name="Start spillet").click()
        for page in pages.values():
            wait_selector(page, ".felt", what="the deal on the felt")
        v = version(host)
        for lang, page in pages.items():
            wait_page(page, "v => +document.getElementById('table').dataset.version >= v", v,
                      what=f"the {lang} page at version {v}")
            status_in(page, lang)
        pages["fi"].screenshot(path=str(shots / "lang-01-fi-phone.png"), full_page=True)
        pages["is"].screenshot(path=str(shots / "lang-02-is-laptop.png"), full_page=True)

        # a refusal over each page's own socket, said in the language that socket connected in
        for lang, page in pages.items():
            wait_page(page, "() => window.__testSocket && window.__testSocket.readyState === 1",
                      what=f"the {lang} page's socket kept")
            page.evaluate("() => window.__testSocket.send(JSON.stringify({do: 'rematch'}))")
            wait_page(page, "t => { const n = document.querySelector('#notice .toast span');"
                            " return n && n.textContent === t; }", NOT_OVER[lang],
                      what=f"the {lang} refusal {NOT_OVER[lang]!r}")

        # the seat to act plays a highlighted card; the pushed table reaches everyone in their words
        actor = next((p for p in pages.values()
                      if p.locator("#table[data-mode=play] .hand button.cardbtn.playable").count()), None)
        if actor is None:  # the deal may ask for a set: select the preselected or first legal cards
            actor = next(p for p in pages.values() if p.locator("#table[data-my-turn=true]").count())
        before = version(host)
        playable = actor.locator("#table[data-mode=play] .hand button.cardbtn.playable")
        if playable.count():
            playable.first.click()
        else:
            actor.locator(".hand button.cardbtn.playable").first.click()
            actor.locator("button[data-key=send]").click()
        for lang, page in pages.items():
            wait_page(page, "v => +document.getElementById('table').dataset.version > v", before,
                      what=f"the {lang} page past version {before}")
            text = status_in(page, lang)
            assert "Waiting for" not in text and "Your turn" not in text
        content = {lang: page.locator("#table").inner_html() for lang, page in pages.items()}
        assert "Omgang 1" in content["da"] and "Umferð 1" in content["is"] and "Jako 1" in content["fi"]
        pages["fi"].screenshot(path=str(shots / "lang-03-fi-after-move.png"), full_page=True)
        host.screenshot(path=str(shots / "lang-04-da-after-move.png"), full_page=True)
    finally:
        for ctx in (da_ctx, is_ctx, fi_ctx):
            ctx.close()
