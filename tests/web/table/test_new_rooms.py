"""Issue 24: one visitor made 1,482 rooms in a minute. Making rooms is limited per address and in
total (NEW_ROOMS_PER_ADDRESS, NEW_ROOMS_TOTAL per 10 minutes): past the limit a small page says
so plainly, in the reader's language, with 429 and Retry-After; a refused form uses up nothing;
the window moves on with the (fake) clock."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from app.main import create_app
from app.rooms.clock import FakeClock
from app.web.table.new_rooms import WINDOW, NewRooms, address_key
from tests.conftest import make_settings
from tests.web.table.wsutil import close_all

FORM = {"name": "Anna", "preset": "gurka-night", "seats": "3", "bots": "2", "turn_seconds": "0"}


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(start=1_000_000.0)


@pytest.fixture
def app_settings(tmp_path: Path):  # type: ignore[no-untyped-def]
    return make_settings(f"sqlite:///{tmp_path / 'rooms.db'}", new_rooms_per_address=4, new_rooms_total=6)


def visitor(app, address: str) -> TestClient:  # type: ignore[no-untyped-def]
    return TestClient(app, client=(address, 50000))


@pytest.fixture
def app(app_settings, clock: FakeClock) -> Iterator[object]:  # type: ignore[no-untyped-def]
    made = create_app(app_settings, clock=clock)
    with TestClient(made):
        try:
            yield made
        finally:
            close_all()


def make(client: TestClient, **form: str):  # type: ignore[no-untyped-def]
    return client.post("/rooms", data={**FORM, **form}, follow_redirects=False)


def rooms_of(app) -> int:  # type: ignore[no-untyped-def]
    return len(app.state.rooms.rooms)


def test_one_address_makes_its_share_then_is_told_to_wait(app, clock: FakeClock) -> None:  # type: ignore[no-untyped-def]
    eve = visitor(app, "203.0.113.5")
    assert [make(eve).status_code for _ in range(4)] == [303] * 4
    refused = make(eve, name="Eve the fifth")
    assert refused.status_code == 429 and refused.headers["retry-after"] == str(int(WINDOW))
    assert "You have made many rooms just now; try again in 10 min." in refused.text
    assert 'href="/"' in refused.text  # a way back to the form
    assert not any(c.startswith("gurka_seat_") for c in refused.headers.get_list("set-cookie"))
    assert rooms_of(app) == 4
    # someone else is not held by Eve's share
    assert make(visitor(app, "198.51.100.7")).status_code == 303
    clock.advance(WINDOW / 2)
    refused = make(eve)
    assert refused.status_code == 429 and "try again in 5 min." in refused.text
    clock.advance(WINDOW / 2)
    assert make(eve).status_code == 303  # the window has moved on


def test_all_addresses_together_meet_the_total(app) -> None:  # type: ignore[no-untyped-def]
    made = [make(visitor(app, f"10.0.{i}.1")).status_code for i in range(6)]
    assert made == [303] * 6
    refused = make(visitor(app, "10.0.99.1"))
    assert refused.status_code == 429
    assert "Many rooms are being made on this server just now; try again in 10 min." in refused.text


def test_a_refused_form_uses_up_nothing_and_the_refusal_is_in_the_readers_language(app) -> None:  # type: ignore[no-untyped-def]
    eve = visitor(app, "203.0.113.9")
    for _ in range(10):
        assert make(eve, seats="99").status_code == 400  # a form the server refuses: no room, nothing counted
    assert [make(eve).status_code for _ in range(4)] == [303] * 4
    danish = eve.post("/rooms", data=FORM, headers={"accept-language": "da"}, follow_redirects=False)
    assert danish.status_code == 429 and re.search(r'<html lang="da"', danish.text)
    assert "Du har oprettet mange rum lige nu; prøv igen om 10 min." in danish.text


def test_an_ipv6_household_counts_as_one_address() -> None:
    assert address_key("2001:db8:1:2:aaaa::1") == address_key("2001:db8:1:2:ffff::9") == "2001:db8:1:2::/64"
    assert address_key("::ffff:192.0.2.1") == "192.0.2.1" and address_key("192.0.2.1") == "192.0.2.1"
    assert address_key("testclient") == "testclient"
    limits = NewRooms(per_address=2, total=100, clock=lambda: 0.0)
    assert limits.take("2001:db8:1:2::1") is None and limits.take("2001:db8:1:2::2") is None
    full = limits.take("2001:db8:1:2:3:4:5:6")
    assert full is not None and full.limit == "address" and full.wait == WINDOW
    assert limits.take("2001:db8:1:3::1") is None  # the next /64 is another household


def test_a_swept_waiting_room_says_why_it_is_gone(app_settings, clock: FakeClock) -> None:  # type: ignore[no-untyped-def]
    app = create_app(app_settings, clock=clock)
    with TestClient(app) as client:
        made = make(client)
        slug = made.headers["location"].rsplit("/", 1)[-1]
        sweep = app.state.rooms.lobby_sweep
        for _ in range(3):  # the first sweeps after a start only mark
            clock.advance(61 * 60)
            client.portal.call(sweep.sweep)  # type: ignore[union-attr]
        gone = client.get(f"/r/{slug}")
        assert gone.status_code == 404
        assert "A room whose game never started is closed once nobody has had it open for 60 minutes." in gone.text
