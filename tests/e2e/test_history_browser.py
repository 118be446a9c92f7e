"""In a real browser: a finished game downloads from its replay as a history file, opens again on
/replay from that file in the same viewer (same final scores), and a broken file is answered with
its line, in English and Danish; on a laptop and a phone, passing axe. Screenshots."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from app.rules.history import read_games
from tests.e2e.clicking import move
from tests.e2e.page_checks import Checks

pytestmark = pytest.mark.e2e

PHONE = {"viewport": {"width": 360, "height": 740}, "device_scale_factor": 2, "is_mobile": True, "has_touch": True}
LAPTOP = {"viewport": {"width": 1280, "height": 900}, "accept_downloads": True}


def finals(page) -> str:  # type: ignore[no-untyped-def]
    return re.sub(r"\s+", " ", page.locator(".replay .result").inner_text())


def test_download_then_open_the_file_again(server: str, browser, shots: Path, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    checks = Checks(limit=1280)
    ctx = checks.watch(browser.new_context(**LAPTOP))
    phone_checks = Checks()
    phone_ctx = phone_checks.watch(browser.new_context(**PHONE))
    try:
        anna = ctx.new_page()
        created = anna.request.post(server + "/rooms", form={
            "name": "Anna <b>\"A\"</b>", "preset": "gurka-night", "seats": "3", "bots": "2", "opt_target": "4",
        }, max_redirects=0)
        assert created.status == 303
        anna.goto(server + created.headers["location"])
        anna.get_by_role("button", name="Start the game").click()
        anna.wait_for_selector(".felt")
        for _ in range(2000):
            if anna.locator(".gameover").count():
                break
            if anna.locator("#table[data-my-turn=true]").count():
                version = int(anna.locator("#table").get_attribute("data-version"))
                if move(anna):  # (False: the turn ended while it was read, or its mode is not here yet)
                    anna.wait_for_function("v => +document.getElementById('table').dataset.version > v", arg=version)
            else:
                anna.wait_for_timeout(25)
        anna.wait_for_selector(".gameover")
        anna.get_by_role("link", name="Step through this game in its replay").click()
        anna.wait_for_url("**/replay")
        checks.look(anna, "the replay with Download")
        anna.screenshot(path=str(shots / "history-01-replay-with-download.png"), full_page=True)
        expected = finals(anna)

        with anna.expect_download() as caught:
            anna.get_by_role("link", name="Download the game (history file)").click()
        download = caught.value
        assert download.suggested_filename.startswith("gurka-gurka-night-")
        saved = tmp_path / download.suggested_filename
        download.save_as(saved)
        text = saved.read_text(encoding="utf-8")
        [game] = read_games(text)
        assert game.names[0] == 'Anna <b>"A"</b>' and '[Seat 0 "Anna <b>\\"A\\"</b>"]' in text

        # open it again from the file: the same viewer, the same final scores, no room needed
        anna.goto(server + "/replay")
        checks.look(anna, "the open-a-file form")
        anna.set_input_files("#file", str(saved))
        anna.get_by_role("button", name="Open the replay").click()
        anna.wait_for_url(re.compile(r".*/replay/[0-9a-f]{32}$"))
        assert finals(anna) == expected
        assert anna.locator(".replay-step .hands li").count() == 3
        anna.keyboard.press("ArrowRight")
        anna.wait_for_url("**step=1")
        anna.keyboard.press("End")
        anna.wait_for_function("() => !location.search.endsWith('step=1')")
        assert anna.locator(".replay-step .dealline").count() == 1
        checks.look(anna, "an opened file's replay")
        anna.screenshot(path=str(shots / "history-02-opened-file-replay.png"), full_page=True)

        # a broken file: the line and what is wrong, the text kept to fix
        lines = text.split("\n")
        at = next(i for i, line in enumerate(lines) if re.fullmatch(r"\d play \w\w", line))
        lines[at] = lines[at][:2] + "play QQ"
        anna.goto(server + "/replay")
        anna.fill("#text", "\n".join(lines))
        anna.get_by_role("button", name="Open the replay").click()
        alert = anna.locator("#open-error")
        alert.wait_for()
        assert f"Line {at + 1}:" in alert.inner_text() and "'QQ' is not a card of this game" in alert.inner_text()
        checks.look(anna, "a broken file's message")
        anna.screenshot(path=str(shots / "history-03-broken-file.png"), full_page=True)

        # on a phone, in Danish
        phone = phone_ctx.new_page()
        phone.set_extra_http_headers({"accept-language": "da"})
        phone.goto(server + "/replay")
        phone.fill("#text", "\n".join(lines))
        phone.get_by_role("button", name="Åbn gennemgangen").click()
        phone.locator("#open-error").wait_for()
        assert f"Linje {at + 1}:" in phone.locator("#open-error").inner_text()
        phone_checks.look(phone, "a broken file's message on a phone, in Danish")
        phone.screenshot(path=str(shots / "history-04-phone-danish-broken-file.png"), full_page=True)
        phone.fill("#text", text)
        phone.get_by_role("button", name="Åbn gennemgangen").click()
        phone.wait_for_url(re.compile(r".*/replay/[0-9a-f]{32}$"))
        assert phone.get_by_role("link", name="Download spillet (historikfil)").count() == 1
        assert "Åbnet fra en historikfil" in phone.locator(".opened").inner_text()
        phone_checks.look(phone, "an opened file's replay on a phone, in Danish")
        phone.screenshot(path=str(shots / "history-05-phone-danish-opened.png"), full_page=True)
        checks.assert_clean()
        phone_checks.assert_clean()
    finally:
        ctx.close()
        phone_ctx.close()
