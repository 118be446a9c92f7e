"""The level of the bots for the absent: the elder who turns the night's switch on picks it, every
absent seat of the night is handed to a bot of that level (stored with the room's takeover), the
night page says which level and when, on the club's clock, and the level stays with the night
(its state survives a result being recorded and a restart)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC
from zoneinfo import ZoneInfo

import pytest
from fastapi.testclient import TestClient

from app.club import Night
from app.main import create_app
from app.rooms.clock import FakeClock
from app.store import night_replay
from app.store import nights as night_store
from app.store.db import session_scope
from app.web.club import absent_bots
from app.web.club import online as club_online
from tests.conftest import make_settings
from tests.support.club_nights import online_night
from tests.web.table.wsutil import close_all

from .helpers import NINE, token
from .test_absent_bots import GRACE, away, rooms_now, seats_of, wait_for

ZONE = "America/St_Johns"  # half an hour off every whole-hour zone: no UTC time looks like it


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


def settings_for(url: str):  # type: ignore[no-untyped-def]
    return make_settings(url, seat_takeover_seconds=GRACE, bot_delay=1.0, club_time_zone=ZONE)


@pytest.fixture
def client(sqlite_url: str, clock: FakeClock) -> Iterator[TestClient]:
    with TestClient(create_app(settings_for(sqlite_url), clock=clock)) as web:
        try:
            yield web
        finally:
            close_all()


def switch_on(web: TestClient, night_id: int, level: str) -> int:
    url = f"/club/nights/{night_id}"
    response = web.post(f"{url}/bots", data={"csrf": token(web, url), "on": "yes", "level": level},
                        follow_redirects=False)
    return response.status_code


def test_the_elders_level_plays_every_absent_seat(client: TestClient, clock: FakeClock) -> None:
    night_id = online_night(client)
    assert switch_on(client, night_id, "genius") == 422  # not a level: nothing switched on
    assert "Bots for the absent: off." in client.get(f"/club/nights/{night_id}/live").text
    assert switch_on(client, night_id, "easy") == 303
    client.portal.call(clock.advance, GRACE + 1)  # type: ignore[union-attr]
    seats = seats_of(client, rooms_now(client, night_id))
    wait_for("a bot at every seat", lambda: all(r.state.seats[c].botted for r, _k, c in seats.values())
             and away(client, night_id) == set(NINE), client)
    assert {room.bot_level(chair) for room, _k, chair in seats.values()} == {"easy"}
    # the night's level is the tables' own too: their turn timers play at it (issue 37 item 6)
    assert {room.state.bot_levels.host for room, _k, _c in seats.values()} == {"easy"}

    live = client.get(f"/club/nights/{night_id}/live").text
    with session_scope(client.app.state.engine) as session:  # type: ignore[attr-defined]
        row = night_store.get_night(session, night_id=night_id)
        assert row is not None and row.bots_for_absent_since is not None
        since = row.bots_for_absent_since
    local = (since if since.tzinfo is not None else since.replace(tzinfo=UTC)).astimezone(ZoneInfo(ZONE))
    assert f"{local:%H:%M}; level: Easy." in live, live[live.find("bots-state"):][:600]
    assert " UTC" not in live


def test_the_level_stays_with_the_night(sqlite_url: str) -> None:
    settings = settings_for(sqlite_url)
    with TestClient(create_app(settings, clock=FakeClock())) as web:
        night_id = online_night(web)
        assert switch_on(web, night_id, "strong") == 303
        with session_scope(web.app.state.engine) as session:  # type: ignore[attr-defined]
            row = night_store.get_night(session, night_id=night_id)
            assert row is not None
            # the night's summary is written afresh with each result: the level is kept
            night_replay.save_state(session, row, Night.new(players=list(NINE), seed=5))
        close_all()
    with TestClient(create_app(settings, clock=FakeClock())) as web:
        assert absent_bots.wish_of(web.app, night_id).level == "strong"  # type: ignore[arg-type]
        assert "level: Strong." in web.get(f"/club/nights/{night_id}/live").text
        close_all()


def test_every_table_of_the_night_times_out_at_the_nights_level(sqlite_url: str) -> None:
    """Issue 37 item 6: a club table's turn timer played at medium whatever the night's level. The
    tables playing when the elders choose a level take it (stored as the room's event, so a restart
    keeps it), and every table opened after is made at it."""
    settings = settings_for(sqlite_url)
    with TestClient(create_app(settings, clock=FakeClock())) as web:
        night_id = online_night(web)
        rooms = rooms_now(web, night_id)
        manager = web.app.state.rooms  # type: ignore[attr-defined]
        assert {manager.get(e["slug"]).state.bot_levels.host for e in rooms.values()} == {"heuristic"}
        assert club_online._table_settings(web.app, night_id)[1] == "heuristic"  # type: ignore[arg-type]
        assert switch_on(web, night_id, "strong") == 303
        wait_for("the tables at the night's level",
                 lambda: {manager.get(e["slug"]).state.bot_levels.host for e in rooms.values()} == {"strong"}, web)
        # the next round's tables are made at it
        assert club_online._table_settings(web.app, night_id)[1] == "strong"  # type: ignore[arg-type]
        close_all()
    with TestClient(create_app(settings, clock=FakeClock())) as web:
        manager = web.app.state.rooms  # type: ignore[attr-defined]
        assert {manager.get(e["slug"]).state.bot_levels.host for e in rooms.values()} == {"strong"}
        close_all()
