"""Issue 25 in a real browser on a phone-sized page: a push replaces only the fragments that
changed, so the card that has the keyboard focus and a half-typed chat message stay as they are
while the other players (bots) move; the page applies the pushes and ends at the very table a
fresh load shows."""

from __future__ import annotations

import time

import pytest

from tests.e2e.test_table_presets import PHONE, create_room, play_simply, version
from tests.support.waiting import wait_page, watch_page

pytestmark = pytest.mark.e2e

# What the page had focused when each push arrived, and what it has after it (per push).
LOG = """() => {
  window.__pushes = [];
  document.addEventListener("htmx:ws:after:message:incoming", () => {
    const t = document.getElementById("table"), a = document.activeElement;
    window.__pushes.push({mode: t.dataset.mode, version: +t.dataset.version, kept: !!(a && a.__marked)});
  });
}"""


def test_focus_and_typed_chat_survive_other_players_moves_on_a_phone(server: str, browser) -> None:  # type: ignore[no-untyped-def]
    ctx = browser.new_context(**PHONE)
    page = watch_page(ctx.new_page())
    try:
        create_room(page, server, "gurka-night", seats=3, bots=2)
        page.evaluate(LOG)
        page.fill("#chat-text", "half a mess")  # typed, never sent
        kept = 0
        deadline = time.monotonic() + 60
        while kept < 4 and time.monotonic() < deadline:
            mode = page.locator("#table").get_attribute("data-mode")
            if mode == "over":
                break
            if mode in ("play", "select", "exchange", "rassi"):
                play_simply(page, mode)
                continue
            # the mode, the version and the mark in one look: a push between them (my turn
            # coming) must not leave the test waiting for a move that is mine to make
            before = page.evaluate("""() => {
              const table = document.getElementById("table");
              const card = document.querySelector("#table [data-hand] .cardbtn");
              if (!card || table.dataset.mode !== "watch") return null;
              card.focus(); card.__marked = true; window.__pushes = [];
              return document.activeElement === card ? +table.dataset.version : null;
            }""")
            if before is None:
                time.sleep(0.05)
                continue
            # (or my turn: the table's frame at that version came, and the seat's own, saying it
            # is my turn, comes after it)
            wait_page(page, "v => { const t = document.getElementById('table');"
                            " return +t.dataset.version > v || t.dataset.mode !== 'watch'; }", before,
                      what="another player's move")
            pushes = page.evaluate("window.__pushes")
            # while it is still not my turn, my hand's fragment was not replaced: the very card
            # element keeps the focus (a push that brings my turn redraws my hand)
            for push in pushes:
                if push["mode"] == "watch":
                    assert push["kept"], pushes
                    kept += 1
                else:
                    break
        assert kept >= 4, f"focus was checked across {kept} other players' moves"
        assert page.locator("#chat-text").input_value() == "half a mess"
        # what the pushes built is what a fresh load of the page shows
        shown = page.evaluate("document.getElementById('table').outerHTML.replace(/\\s+/g, ' ')")
        version_shown = version(page)
        fresh = ctx.new_page()
        fresh.goto(page.url)
        fresh.wait_for_selector("#table")
        if version(fresh) == version_shown:
            again = fresh.evaluate("document.getElementById('table').outerHTML.replace(/\\s+/g, ' ')")
            assert again.count("cardbtn") == shown.count("cardbtn")
            assert again.count('class="seat') == shown.count('class="seat')
    finally:
        ctx.close()
