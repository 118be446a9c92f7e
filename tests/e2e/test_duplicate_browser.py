"""A finished online night with duplicate deals (bots at every seat), in a real browser on a
360 px phone: the night page's duplicate section, a base round's and a final round's
comparison, a replay link into a table's replay at that deal, and a player's duplicate score
with its picture; none wider than the phone, nothing the CSP blocks, no serious axe finding."""

from __future__ import annotations

import os
import re
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e.conftest import CHROMIUM
from tests.e2e.page_checks import Checks
from tests.support.app_process import app_process

pytestmark = pytest.mark.e2e

PHONE = {"viewport": {"width": 360, "height": 740}, "is_mobile": True, "has_touch": True}
SECRET = "duplicate-walk-secret-" + "y" * 24


def play_duplicate_night(url: str) -> int:
    """A whole duplicate night with bots, played in this process on the database at `url`."""
    from fastapi.testclient import TestClient

    from app.main import create_app
    from app.web.club import online as club_online
    from tests.conftest import make_settings
    from tests.support.club_nights import duplicate_night, night_row
    from tests.web.club.helpers import core, switch_bots, token

    with TestClient(create_app(make_settings(url))) as client:
        night_id = duplicate_night(client)
        switch_bots(client, night_id, True)
        deadline = time.monotonic() + 300
        while night_row(client, night_id).status != "done":
            assert time.monotonic() < deadline, "the night did not finish"
            night = core(client, night_id)
            if night.phase == "playoff" and all(len(g) > club_online.MAX_ONLINE_PLAYOFF for g in night.playoffs):
                page = f"/club/nights/{night_id}"
                data = {"csrf": token(client, page), "group": "0",
                        **{f"place_{i}": p for i, p in enumerate(night.playoffs[0])}}
                client.post(f"{page}/playoff", data=data, follow_redirects=False)
            time.sleep(0.1)
        return night_id


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[str, int]]:
    if not os.path.exists(CHROMIUM):
        pytest.skip("Debian's chromium is not installed (apt-get install -y chromium)")
    url = f"sqlite:///{tmp_path / 'club.db'}"
    night_id = play_duplicate_night(url)
    with app_process(url, tmp_path / "server.log", SECRET_KEY=SECRET, BOT_DELAY="0") as base:
        yield base, night_id


def test_a_duplicate_nights_comparison_and_scores_on_a_phone(served: tuple[str, int], browser, shots: Path) -> None:  # type: ignore[no-untyped-def]
    base, night_id = served
    checks = Checks()
    ctx = checks.watch(browser.new_context(**PHONE))
    try:
        page = ctx.new_page()
        checks.visit(page, f"{base}/club/nights/{night_id}", "a duplicate night")
        rounds = page.locator("#duplicate .dup-rounds a")
        assert rounds.count() == 22
        assert page.locator("#duplicate table.dup-scores tbody tr").count() == 9
        rounds.first.click()
        page.wait_for_load_state("load")
        checks.look(page, "base round 1's comparison")
        assert page.locator("section.dup-deal").count() >= 2
        first_hand = page.locator("#deal-1 tbody tr").first.locator("th .dup-cards").inner_text()
        page.screenshot(path=str(shots / "duplicate-round-phone.png"))
        link = page.locator("#deal-2 thead a.replay-link").nth(1)
        href = link.get_attribute("href") or ""
        assert re.fullmatch(r"/r/[^/]+/replay\?deal=2", href), href
        link.click()
        page.wait_for_load_state("load")
        checks.look(page, "a table's replay at deal 2")
        assert page.locator("h2", has_text="Deal 2").count() == 1
        assert page.locator('p.deals a[aria-current="step"]').inner_text() == "2"
        assert first_hand
        checks.visit(page, f"{base}/club/nights/{night_id}/duplicate/finals/6", "final round 6's comparison")
        assert page.locator("section.dup-deal").count() >= 2
        checks.visit(page, f"{base}/club/players/Ann", "a player's duplicate score")
        assert page.locator("#duplicate svg.dup-chart rect").count() == 22
        page.locator("#duplicate").scroll_into_view_if_needed()
        page.screenshot(path=str(shots / "duplicate-player-phone.png"))
    finally:
        ctx.close()
    checks.assert_clean()
