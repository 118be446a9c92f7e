"""Bots for the absent, pressed once, for the whole night (issue 24, item 8).

The scenario: an online night on a fake clock (turn timer 30 s, grace time 20 s). In round 1
everybody but Ida presses Play and plays; the elder turns on bots for the absent once. From
round 2 on Cy and Fi never press Play again. Six rounds are played by the others over real
websockets, and after round 1 no request comes from the elder's device. Every absent seat goes
to a bot before any turn timer runs out for it: in rounds 1 and 2 after the grace time, from
round 3 on the moment its room opens (the clock never moves again, so no grace time can pass).

Then the smaller rules: Play ends the wish for that player and gives their seat back; turning
the switch off ends it for everyone; the switch and who is away survive a restart.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import anyio
import httpx
import pytest
from fastapi.testclient import TestClient

from app.main import create_app
from app.rooms.clock import FakeClock
from app.store import absences as absence_store
from app.store import members as member_store
from app.store import nights as night_store
from app.store import results as result_store
from app.store import rooms as room_store
from app.store.db import session_scope
from app.web.club import online as club_online
from app.web.club import table_flow
from app.web.shared.security import seat_cookie_name
from tests.conftest import make_settings
from tests.support.club_nights import online_night
from tests.web.table.wsutil import Player, close_all

from .helpers import (
    NINE,
    PASSWORD,
    core,
    csrf_of,
    personal_link,
    remember_member,
    setup_form,
    switch_bots,
    token,
)

TURN, GRACE = 30, 20.0
NEVER_COMES = {"Ida"}
GONE_AFTER_ROUND_1 = {"Cy", "Fi"}
ROUNDS = 6
WAIT = 60.0  # a bound against a stalled night, not a speed test


class Device:
    """One browser: its own cookies, and a log of the requests it made (with the round then)."""

    def __init__(self, client: TestClient) -> None:
        self.client = client
        self.jar = httpx.Cookies()
        self.log: list[tuple[int, str, str]] = []
        self.round = 0

    @contextmanager
    def _mine(self) -> Iterator[TestClient]:
        saved = self.client.cookies
        self.client.cookies = self.jar
        try:
            yield self.client
        finally:
            self.jar = httpx.Cookies(self.client.cookies)
            self.client.cookies = saved

    def get(self, url: str) -> httpx.Response:
        self.log.append((self.round, "GET", url))
        with self._mine() as client:
            return client.get(url)

    def post(self, url: str, data: dict[str, str]) -> httpx.Response:
        self.log.append((self.round, "POST", url))
        with self._mine() as client:
            return client.post(url, data=data, follow_redirects=False)

    def form(self, page: str, action: str, data: dict[str, str]) -> httpx.Response:
        """Open `page`, then send one of its forms (with the page's CSRF token)."""
        return self.post(action, {"csrf": csrf_of(self.get(page).text), **data})


def wait_for(what: str, check: Any, client: TestClient, state: Any = None) -> Any:
    deadline = time.monotonic() + WAIT
    while True:
        found = check()
        if found:
            return found
        assert time.monotonic() < deadline, f"waited in vain for {what}" + (f": {state()}" if state else "")
        client.portal.call(asyncio.sleep, 0.02)  # type: ignore[union-attr]


def drain(player: Player) -> None:
    """Throw away what was pushed to this socket so far (this test reads the room itself)."""
    stream = player.ws._send_rx

    def take() -> None:
        while True:
            try:
                stream.receive_nowait()
            except anyio.WouldBlock:
                return

    player.ws.portal.call(take)


def events_of(client: TestClient, slug: str) -> list[room_store.RoomEvent]:
    with session_scope(client.app.state.engine) as session:  # type: ignore[attr-defined]
        room = room_store.get_room(session, slug=slug)
        assert room is not None and room.id is not None
        return room_store.list_events(session, room_id=room.id)


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def night_client(sqlite_url: str, clock: FakeClock) -> Iterator[TestClient]:
    settings = make_settings(sqlite_url, seat_takeover_seconds=GRACE)
    with TestClient(create_app(settings, clock=clock)) as client:
        try:
            yield client
        finally:
            close_all()


@pytest.fixture
def still_client(sqlite_url: str, clock: FakeClock) -> Iterator[TestClient]:
    """Bots move only when the fake clock lets them (`bot_delay`): nothing moves on by itself
    while a test looks."""
    settings = make_settings(sqlite_url, seat_takeover_seconds=GRACE, bot_delay=1.0)
    with TestClient(create_app(settings, clock=clock)) as client:
        yield client


def set_up(client: TestClient) -> tuple[Device, dict[str, Device], int]:
    """The elder's device sets up the club and an online night; each member's device opens the
    personal link the elder made for it."""
    elder = Device(client)
    elder.form("/club/setup", "/club/setup", {"name": "Elsa", "password": PASSWORD, "password2": PASSWORD})
    for name in NINE:
        assert elder.form("/club/members", "/club/members", {"name": name}).status_code in (200, 303)
    with session_scope(client.app.state.engine) as session:  # type: ignore[attr-defined]
        ids = {m.name: m.id for m in member_store.list_members(session)}
    data = {**setup_form(ids, NINE), "mode": "online", "turn_seconds": str(TURN)}  # type: ignore[arg-type]
    response = elder.form("/club/nights/new", "/club/nights/new", data)
    assert response.status_code == 303, response.text
    night_id = int(response.headers["location"].rsplit("/", 1)[1])
    devices: dict[str, Device] = {}
    for name in NINE:
        if name in NEVER_COMES:
            continue
        with elder._mine() as as_elder:
            link = personal_link(as_elder, name)
        devices[name] = Device(client)
        assert f"knows you as <strong>{name}</strong>" in devices[name].get(link).text
    return elder, devices, night_id


def rooms_now(client: TestClient, night_id: int) -> dict[str, dict[str, Any]]:
    with session_scope(client.app.state.engine) as session:  # type: ignore[attr-defined]
        row = night_store.get_night(session, night_id=night_id)
        assert row is not None
        from app.store import night_replay

        loaded = night_replay.load(session, night_id=night_id)
        assert loaded is not None
        return club_online.current_rooms(row, loaded[2])


def press_play(client: TestClient, device: Device, night_id: int, key: str, chair: int) -> Player:
    """The member's Play on the night page, then their table's websocket."""
    url = f"/club/nights/{night_id}"
    response = device.form(url, f"{url}/play/{key}/{chair}", {})
    assert response.status_code == 303, response.text
    slug = response.headers["location"].rsplit("/", 1)[1]
    cookie = next(c for c in device.jar.jar if c.name == seat_cookie_name(slug))
    return Player(client, slug, cookie.value).connect()


def test_a_night_of_six_online_rounds_with_bots_for_the_absent_needs_no_elder_after_round_one(
    night_client: TestClient, clock: FakeClock
) -> None:
    client = night_client
    manager = client.app.state.rooms  # type: ignore[attr-defined]
    elder, devices, night_id = set_up(client)
    url = f"/club/nights/{night_id}"
    advanced: dict[int, float] = {}  # round → seconds the clock was moved on in it
    absent_by_round: dict[int, set[str]] = {}
    rooms_by_round: dict[int, dict[str, dict[str, Any]]] = {}

    for rnd in range(1, ROUNDS + 1):
        for device in [elder, *devices.values()]:
            device.round = rnd
        rooms = wait_for(f"the rooms of round {rnd}",
                         lambda rnd=rnd: (r if len(r := rooms_now(client, night_id)) == 3
                                          and all(k.startswith(f"base-{rnd}-") for k in r) else None), client,
                         lambda: (rooms_now(client, night_id), core(client, night_id).current))
        rooms_by_round[rnd] = rooms
        absent = NEVER_COMES | (GONE_AFTER_ROUND_1 if rnd > 1 else set())
        absent_by_round[rnd] = absent

        # those who come press Play next to their own name and sit down
        players: list[tuple[Any, int, Player]] = []
        for key, entry in rooms.items():
            for chair, name in enumerate(entry["players"]):
                if name not in absent:
                    players.append((manager.get(entry["slug"]), chair, press_play(client, devices[name], night_id,
                                                                                   key, chair)))
        wait_for("everybody who came to be seen at their table",
                 lambda players=players: all(seat in room.present() for room, seat, _p in players), client)

        if rnd == 1:  # the elder's one press of the night
            response = elder.form(url, f"{url}/bots", {"on": "yes"})
            assert response.status_code == 303
            page = elder.get(url).text
            assert 'aria-pressed="true"' in page and "Bots for the absent: on." in page
        absent_seats = [(manager.get(e["slug"]), chair) for e in rooms.values()
                        for chair, name in enumerate(e["players"]) if name in absent]
        if rnd <= 2:  # someone who played before (or nobody knows yet) gets the grace time
            client.portal.call(clock.advance, GRACE + 1)  # type: ignore[union-attr]
            advanced[rnd] = GRACE + 1
        wait_for(f"bots at the absent seats of round {rnd}",
                 lambda seats=absent_seats: all(room.state.seats[seat].botted for room, seat in seats), client,
                 lambda seats=absent_seats: [(room.state.seats[seat].name, room.state.seats[seat].botted, room.state.status,
                                              room.absent_for(seat)) for room, seat in seats])

        # everybody can see who a bot plays for (at a table a human still plays at)
        live = devices["Ann"].get(f"{url}/live").text
        for room, seat in absent_seats:
            name = next(e["players"][seat] for e in rooms.values() if e["slug"] == room.state.slug)
            if room.state.status == "playing" and any(r is room for r, _s, _p in players):
                row = live[live.index(f">{name}</a>"):]
                assert row[:row.index("</li>")].count("a bot plays") == 1, name

        # the round is played to its end: the humans move as soon as it is their turn
        def round_recorded(rnd: int = rnd, players: list[tuple[Any, int, Player]] = players) -> bool:
            for room, seat, player in players:
                drain(player)
                with room.state_lock:
                    game, version = room.state.game, room.state.version
                    mine = (room.state.status == "playing" and game is not None and not game.over
                            and game.to_act == seat and not room.state.seats[seat].botted)
                    action = str(game.legal_actions()[0]) if mine else None
                if action is not None:
                    player.send(do="act", action=action, v=version)
                    wait_for("a move to be taken", lambda room=room, version=version: room.state.version > version, client)
            return len(core(client, night_id).history()[rnd - 1].results) == 3

        wait_for(f"round {rnd} to be recorded", round_recorded, client)
        for _room, _seat, player in players:
            player.close()

    # nothing came from the elder's device after round 1; every result came from its table
    assert [entry for entry in elder.log if entry[0] > 1] == []
    with session_scope(client.app.state.engine) as session:  # type: ignore[attr-defined]
        results = result_store.list_results(session, night_id=night_id)
        assert result_store.list_corrections(session, night_id=night_id) == []
    assert len(results) >= ROUNDS * 3
    assert all(r.source == "online" for r in results[: ROUNDS * 3])

    # no absent seat ever waited for a turn timer, let alone two; from round 3 on the clock never
    # moved, so each of those seats went to a bot when its room opened (no grace time passed)
    assert set(advanced) == {1, 2}
    for rnd, rooms in rooms_by_round.items():
        for entry in rooms.values():
            events = events_of(client, entry["slug"])
            for chair, name in enumerate(entry["players"]):
                if name not in absent_by_round[rnd]:
                    continue
                assert [e for e in events if e.kind == "takeover" and e.payload.get("seat") == chair], (rnd, name)
                assert not [e for e in events if e.kind == "act" and e.seat == chair and e.payload.get("timeout")], (
                    f"round {rnd}: {name}'s seat waited for a turn timer")
    with session_scope(client.app.state.engine) as session:  # type: ignore[attr-defined]
        away = {a.player for a in absence_store.list_absences(session, night_id=night_id)}
    assert away == NEVER_COMES | GONE_AFTER_ROUND_1


# ------------------------------------------------------------------ the smaller rules


def seats_of(client: TestClient, rooms: dict[str, dict[str, Any]]) -> dict[str, tuple[Any, str, int]]:
    """Each player of these rooms → (their room, its table key, their chair)."""
    manager = client.app.state.rooms  # type: ignore[attr-defined]
    return {name: (manager.get(e["slug"]), key, chair)
            for key, e in rooms.items() for chair, name in enumerate(e["players"])}


def away(client: TestClient, night_id: int) -> set[str]:
    with session_scope(client.app.state.engine) as session:  # type: ignore[attr-defined]
        return {a.player for a in absence_store.list_absences(session, night_id=night_id)}


def everybody_botted_and_away(client: TestClient, night_id: int, clock: FakeClock) -> dict[str, tuple[Any, str, int]]:
    """The elder turns bots for the absent on, nobody comes, the grace time passes."""
    switch_bots(client, night_id, True)
    client.portal.call(clock.advance, GRACE + 1)  # type: ignore[union-attr]
    seats = seats_of(client, rooms_now(client, night_id))
    wait_for("a bot at every seat, and everybody away",
             lambda: all(room.state.seats[chair].botted for room, _k, chair in seats.values())
             and away(client, night_id) == set(NINE), client)
    return seats


def bot_tags(live: str) -> dict[str, int]:
    """Each chair's player on the live night page → how many "a bot plays" tags their line has."""
    out = {}
    for name in NINE:
        row = live[live.index(f">{name}</a>"):]
        out[name] = row[:row.index("</li>")].count("a bot plays")
    return out


def test_play_ends_the_wish_for_that_player_and_off_ends_it_for_everyone(
    still_client: TestClient, clock: FakeClock
) -> None:
    client = still_client
    night_id = online_night(client)
    url = f"/club/nights/{night_id}"
    page = client.get(f"{url}/live").text
    assert 'aria-pressed="false"' in page and "Bots for the absent: off." in page
    seats = everybody_botted_and_away(client, night_id, clock)
    page = client.get(f"{url}/live").text
    assert 'aria-pressed="true"' in page and "Bots for the absent: on." in page
    assert "Elsa turned them on at" in page and "Press the button again to turn them off." in page
    assert bot_tags(page) == dict.fromkeys(NINE, 1)

    # Bo presses Play: the wish for Bo ends and the bot gives Bo's seat back
    room, key, chair = seats["Bo"]
    remember_member(client, "Bo")
    response = client.post(f"{url}/play/{key}/{chair}", data={"csrf": token(client, url)}, follow_redirects=False)
    assert response.status_code == 303 and response.headers["location"] == f"/r/{room.state.slug}"
    assert not room.state.seats[chair].botted
    mine = [e.kind for e in events_of(client, room.state.slug) if e.kind in ("token", "takeover", "takeback")
            and e.payload.get("seat") == chair]
    assert mine == ["takeover", "token", "takeback"]
    assert away(client, night_id) == set(NINE) - {"Bo"}
    page = client.get(f"{url}/live").text
    assert bot_tags(page) == {**dict.fromkeys(NINE, 1), "Bo": 0}
    assert "Away, played by bots until they press Play: " in page
    assert "Bo" not in page[page.index("Away, played by bots"):].split(".")[0]

    # only an elder can switch, and only on or off
    client.cookies.clear()
    response = client.post(f"{url}/bots", data={"csrf": token(client, url), "on": "no"}, follow_redirects=False)
    assert response.status_code == 303 and response.headers["location"].startswith("/club/login")
    become_elder_again = client.post(  # the elder logs in again
        "/club/login", data={"csrf": token(client, "/club/login"), "name": "Elsa", "password": PASSWORD},
        follow_redirects=False)
    assert become_elder_again.status_code == 303
    assert away(client, night_id) == set(NINE) - {"Bo"}
    bad = client.post(f"{url}/bots", data={"csrf": token(client, url), "on": "maybe"}, follow_redirects=False)
    assert bad.status_code == 422 and "on or off" in bad.text

    # off: the wish ends for everyone; the seats bots play now stay so until taken back
    switch_bots(client, night_id, False)
    assert away(client, night_id) == set()
    page = client.get(f"{url}/live").text
    assert 'aria-pressed="false"' in page and "Bots for the absent: off." in page
    assert all(room.state.seats[chair].botted for name, (room, _k, chair) in seats.items() if name != "Bo")


def round_two_of(client: TestClient, night_id: int, clock: FakeClock) -> Any:
    """A check for `wait_for`: the rooms of round 2 once all three are open, else None after
    moving the clock on 2 s (the bots play round 1 as time passes)."""
    def round_two() -> dict[str, dict[str, Any]] | None:
        rooms = rooms_now(client, night_id)
        if all(k.startswith("base-2-") for k in rooms) and len(rooms) == 3:
            return rooms
        client.portal.call(clock.advance, 2.0)  # type: ignore[union-attr]
        return None

    return round_two


def test_next_play_in_a_room_ends_the_wish_too(still_client: TestClient, clock: FakeClock) -> None:
    client = still_client
    night_id = online_night(client)
    url = f"/club/nights/{night_id}"
    _room, key, chair = seats_of(client, rooms_now(client, night_id))["Cy"]
    remember_member(client, "Cy")  # Cy presses Play, and then does not come after all
    response = client.post(f"{url}/play/{key}/{chair}", data={"csrf": token(client, url)},
                           follow_redirects=False)
    first = response.headers["location"].rsplit("/", 1)[1]
    cy_cookie = next(c.value for c in client.cookies.jar if c.name == seat_cookie_name(first))
    everybody_botted_and_away(client, night_id, clock)

    rooms = wait_for("round 2", round_two_of(client, night_id, clock), client)
    room, _key, chair = seats_of(client, rooms)["Cy"]
    wait_for("a bot at Cy's new seat at once", lambda: room.state.seats[chair].botted, client)
    wait_for("Cy's Next button", lambda: table_flow.panels_of(client.app).get(first)  # type: ignore[arg-type]
             and table_flow.panels_of(client.app)[first].next_for, client)  # type: ignore[arg-type]

    response = client.post(f"/r/{first}/club-next", headers={"cookie": f"{seat_cookie_name(first)}={cy_cookie}"},
                           follow_redirects=False)
    assert response.status_code == 303 and response.headers["location"] == f"/r/{room.state.slug}"
    assert not room.state.seats[chair].botted
    assert away(client, night_id) == set(NINE) - {"Cy"}


def test_the_wish_and_who_is_away_survive_a_restart(sqlite_url: str) -> None:
    settings = make_settings(sqlite_url, seat_takeover_seconds=GRACE, bot_delay=1.0)
    clock = FakeClock()
    with TestClient(create_app(settings, clock=clock)) as client:
        night_id = online_night(client)
        everybody_botted_and_away(client, night_id, clock)
    clock = FakeClock()
    with TestClient(create_app(settings, clock=clock)) as client:
        url = f"/club/nights/{night_id}"
        page = client.get(f"{url}/live").text
        assert "Bots for the absent: on." in page and away(client, night_id) == set(NINE)

        rooms = wait_for("round 2 after the restart", round_two_of(client, night_id, clock), client)
        seats = seats_of(client, rooms)
        since = clock.now()
        # the clock stands still (less than the grace time passed since the rooms opened): the
        # seats go to bots because their players are still away
        wait_for("a bot at every seat of round 2", lambda: all(r.state.seats[c].botted for r, _k, c in seats.values()),
                 client)
        assert clock.now() == since
