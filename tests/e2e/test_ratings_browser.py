"""In a real browser: the club's ratings page and a player's rating chart, after two nights and
again after a third (the ratings move); laptop and phone, axe. Screenshots."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from datetime import date, timedelta
from pathlib import Path

import pytest

from app.store import members as member_store
from app.store.db import make_engine, session_scope, upgrade
from tests.e2e.conftest import serve_app
from tests.e2e.page_checks import Checks
from tests.web.club.helpers import NINE, finished_night_in_store

pytestmark = pytest.mark.e2e

LAPTOP = {"viewport": {"width": 1280, "height": 900}}
PHONE = {"viewport": {"width": 360, "height": 740}, "device_scale_factor": 2, "is_mobile": True, "has_touch": True}


@pytest.fixture
def seeded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str]]:
    db = tmp_path_factory.mktemp("ratings") / "club.db"
    url = f"sqlite:///{db}"
    upgrade(url)
    engine = make_engine(url)
    with session_scope(engine) as session:
        for name in NINE:
            member_store.add_member(session, name=name)
    engine.dispose()
    with serve_app(tmp_path_factory, DATABASE_URL=url) as base:
        yield base, url


def add_night(url: str, seed: int, day: date) -> None:
    engine = make_engine(url)
    try:
        with session_scope(engine) as session:
            ids = {m.name: m.id for m in member_store.list_members(session)}
        finished_night_in_store(engine, ids=ids, players=NINE, day=day, seed=seed)  # type: ignore[arg-type]
    finally:
        engine.dispose()


def ratings_of(page) -> dict[str, float]:  # type: ignore[no-untyped-def]
    out = {}
    for row in page.locator("#ratings tbody tr").all():
        name = row.locator("th").inner_text().strip()
        out[name] = float(row.locator("td.pts").inner_text())
    return out


def test_a_nights_players_see_their_ratings_move(seeded: tuple[str, str], browser, shots: Path) -> None:  # type: ignore[no-untyped-def]
    base, url = seeded
    today = date.today()
    add_night(url, 3, today - timedelta(days=28))
    add_night(url, 11, today - timedelta(days=14))
    checks, phone_checks = Checks(limit=1280), Checks()
    laptop = checks.watch(browser.new_context(**LAPTOP)).new_page()
    phone = phone_checks.watch(browser.new_context(**PHONE)).new_page()
    try:
        checks.visit(laptop, base + "/club/ratings", "the ratings after two nights")
        before = ratings_of(laptop)
        assert set(before) == set(NINE) and list(before.values()) == sorted(before.values(), reverse=True)
        assert laptop.locator(".rating-spark").count() == 9
        laptop.screenshot(path=str(shots / "ratings-01-after-two-nights.png"), full_page=True)

        add_night(url, 29, today)  # tonight's night is recorded: the ratings move
        checks.visit(laptop, base + "/club/ratings", "the ratings after the third night")
        after = ratings_of(laptop)
        assert after != before and sum(1 for n in NINE if after[n] != before[n]) == 9
        laptop.screenshot(path=str(shots / "ratings-02-after-three-nights.png"), full_page=True)
        best = next(iter(after))
        laptop.get_by_role("link", name=best).first.click()
        laptop.wait_for_selector("#rating .rating-chart")
        # one point per table round: 16 base rounds and 6 final rounds a night, three nights
        assert laptop.locator("#rating .rating-chart circle.pt").count() == 3 * (16 + 6)
        checks.look(laptop, "a player's rating")
        laptop.locator("#rating").screenshot(path=str(shots / "ratings-03-player-chart.png"))

        phone.set_extra_http_headers({"accept-language": "fi"})
        phone_checks.visit(phone, base + "/club/ratings", "the ratings on a phone, in Finnish")
        assert phone.locator("h1").inner_text() == "Luokitus"
        phone.screenshot(path=str(shots / "ratings-04-phone-finnish.png"), full_page=True)
        phone_checks.visit(phone, base + "/club/players/" + best, "a player's rating on a phone")
        assert re.search(r"\d", phone.locator("#rating .stat-cards").inner_text())
        checks.assert_clean()
        phone_checks.assert_clean()
    finally:
        laptop.context.close()
        phone.context.close()
    assert os.path.exists(shots / "ratings-02-after-three-nights.png")
