"""The club pages in Danish, Icelandic and Finnish in a real Chromium, on a phone and a laptop:
longer words (Finnish!) must not push the page wider than the screen. Screenshots go to
/tmp/shots/club/<lang>-*.png."""

from __future__ import annotations

import pytest

from . import test_club_browser as club_browser
from .csp_watch import WatchedBrowser
from .test_club_browser import ARGS, CHROMIUM, ELDER_PASSWORD, LAPTOP, PHONE, shot

server = club_browser.server  # the seeded club server (a fixture)

pytestmark = pytest.mark.e2e

# language → words that show the page is in that language (Hall of Fame, night page, setup)
WORDS = {
    "da": ("Alle tider", "Placering", "De ni spillere"),
    "is": ("Frá upphafi", "Lokastaða", "Spilararnir níu"),
    "fi": ("Kaikkien aikojen", "Sijoitukset", "Yhdeksän pelaajaa"),
}
WIDER_THAN_THE_SCREEN = "document.documentElement.scrollWidth - window.innerWidth"


@pytest.mark.parametrize("lang", sorted(WORDS))
def test_the_club_pages_fit_the_screen_in_every_language(server: str, lang: str) -> None:
    from playwright.sync_api import sync_playwright

    hof_word, night_word, setup_word = WORDS[lang]
    with sync_playwright() as p:
        browser = WatchedBrowser(p.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True))  # CSP violations fail the test
        try:
            for size_name, size in (("phone", PHONE), ("laptop", LAPTOP)):
                context = browser.new_context(viewport=size)
                context.add_cookies([{"name": "lang", "value": lang, "url": server}])
                page = context.new_page()
                page.goto(f"{server}/club/login")
                page.fill("#name", "Elsa")
                page.fill("#password", ELDER_PASSWORD)
                page.click("form[action='/club/login'] button[type=submit]")
                page.wait_for_url(f"{server}/club**")
                for path, word, name in (("/club/hall-of-fame", hof_word, "hof"),
                                         ("/club/nights/3", night_word, "night"),
                                         ("/club/nights/new", setup_word, "setup"),
                                         ("/club/players/Ann", None, "player"),
                                         ("/club/members", None, "members")):
                    page.goto(f"{server}{path}")
                    assert page.evaluate("document.documentElement.lang") == lang
                    if word:
                        assert word in page.inner_text("main"), f"{lang} {path}: no {word!r}"
                    overflow = page.evaluate(WIDER_THAN_THE_SCREEN)
                    shot(page, f"{lang}-{name}-{size_name}")
                    assert overflow <= 0, f"{lang} {path} on a {size_name}: {overflow}px wider than the screen"
                context.close()
        finally:
            browser.close()
