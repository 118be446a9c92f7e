"""The club night flows by itself (issue 12), over real websockets: a club table's room shows
its round, then the result with "wait for the other tables" (live progress, pushed), then each
seated member's "Next: <table>, base round 2 — Play", which seats them at their next table
without the night page. Bots for the absent are accepted at once and carried out when allowed;
a table recorded by hand closes its room with a message to anyone in it."""

from __future__ import annotations

import re
import time
from typing import Any

from fastapi.testclient import TestClient

from app.main import create_app
from app.store import nights as night_store
from app.store.db import session_scope
from app.web.club import table_flow
from app.web.shared.security import seat_cookie_name
from bench.table_wire import apply, parse
from tests.conftest import make_settings
from tests.support.club_nights import online_night, rooms_of, wait_table_recorded

from .helpers import (
    bots_play,
    core,
    remember_member,
    switch_bots,
    token,
)

WAIT = 30.0


def seat_cookie(response: Any, slug: str) -> str:
    found = re.search(rf"{seat_cookie_name(slug)}=([^;]+)", response.headers.get("set-cookie", ""))
    assert found, "no seat cookie for that room"
    return found.group(1)


def frames_until(ws: Any, text: str) -> str:
    """The table pushed to this socket (whole, or changes of it) until it contains `text` (a
    bounded wait; a change to a table this test has not kept asks for the whole table)."""
    deadline = time.monotonic() + WAIT
    table: str | None = None
    while time.monotonic() < deadline:
        frame = parse(ws.receive_text())
        if frame.get("kind") == "table":
            table = str(frame["content"])
        elif frame.get("kind") in ("fragments", "private"):
            if table is None:
                ws.send_json({"do": "sync"})
                continue
            table = apply(table, frame)
        if table is not None and text in table:
            return table
    raise AssertionError(f"no frame with {text!r}")


def wait_over(room: Any) -> None:
    deadline = time.monotonic() + WAIT
    while room.state.status != "over":
        assert time.monotonic() < deadline, "the table's game did not end"
        time.sleep(0.02)


def test_a_round_played_by_bots_flows_to_next_and_the_next_tables_room(both_client: Any) -> None:
    client = both_client
    night_id = online_night(client)
    url = f"/club/nights/{night_id}"
    night = core(client, night_id)
    me = night.tables["vinder"][0]
    rooms = rooms_of(client, night_id)
    manager = client.app.state.rooms
    vinder = manager.get(rooms["base-1-vinder"]["slug"])
    remember_member(client, me)
    response = client.post(f"{url}/play/base-1-vinder/0", data={"csrf": token(client, url)}, follow_redirects=False)
    mine = seat_cookie(response, vinder.state.slug)
    for c in [c for c in client.cookies.jar if c.name.startswith("gurka_seat_")]:
        client.cookies.jar.clear(c.domain, c.path, c.name)  # sent only where a test says so

    # while playing, the room names its table and round
    page = client.get(f"/r/{vinder.state.slug}", headers={"cookie": f"{seat_cookie_name(vinder.state.slug)}={mine}"}).text
    assert "Gurka Night</a> · <strong>Vinderbord, base round 1</strong>" in page

    # nobody plays: bots take every seat, one table first
    bots_play(client, vinder.state.slug)
    wait_over(vinder)
    cookie = {"cookie": f"{seat_cookie_name(vinder.state.slug)}={mine}"}
    with client.websocket_connect(f"/r/{vinder.state.slug}/ws", headers=cookie) as ws:
        first = frames_until(ws, "Waiting for the other tables")
        assert "1 of 3 recorded" in first and "went out first" in first
        assert "club-next" not in first
        bots_play(client, rooms["base-1-mellan"]["slug"])
        frames_until(ws, "2 of 3 recorded")  # live progress, pushed
        bots_play(client, rooms["base-1-taber"]["slug"])
        content = frames_until(ws, "Next: ")  # pushed when the round advances
    night = core(client, night_id)
    assert night.current.number == 2
    table = next(t for t, chairs in night.tables.items() if me in chairs)
    label = f"{ {'vinder': 'Vinderbord', 'mellan': 'Mellanbord', 'taber': 'Taberbord'}[table] }, base round 2"
    assert f"Next: {label} — Play" in content
    assert f'action="/r/{vinder.state.slug}/club-next"' in content

    # a spectator of the finished table sees the result but no Next button
    with client.websocket_connect(f"/r/{vinder.state.slug}/ws") as ws:
        spectator = frames_until(ws, "went out first")
        assert "club-next" not in spectator

    # "Next" seats the member at their next table (a POST under the room's path, seat cookie)
    nobody = client.post(f"/r/{vinder.state.slug}/club-next", follow_redirects=False)
    assert nobody.status_code == 303 and nobody.headers["location"] == f"/r/{vinder.state.slug}"
    assert "gurka_seat_" not in nobody.headers.get("set-cookie", "")
    foreign = client.post(f"/r/{vinder.state.slug}/club-next", headers={**cookie, "origin": "https://evil.example"})
    assert foreign.status_code == 403
    response = client.post(f"/r/{vinder.state.slug}/club-next", headers=cookie, follow_redirects=False)
    nxt = rooms_of(client, night_id)[f"base-2-{table}"]
    assert response.status_code == 303 and response.headers["location"] == f"/r/{nxt['slug']}"
    token2 = seat_cookie(response, nxt["slug"])
    room2 = manager.get(nxt["slug"])
    chair = nxt["players"].index(me)
    assert room2.seat_for_token(token2) == chair
    with client.websocket_connect(f"/r/{room2.state.slug}/ws",
                                  headers={"cookie": f"{seat_cookie_name(room2.state.slug)}={token2}"}) as ws:
        content = frames_until(ws, "base round 2")
        assert all(f'data-card="{c}"' in content for c in room2.state.game.view(chair)["hand"])


def test_bots_for_the_absent_is_accepted_at_once_and_carried_out_when_allowed(app_settings: Any) -> None:
    settings = make_settings(app_settings.database_url, seat_takeover_seconds=1.5)
    with TestClient(create_app(settings)) as client:
        night_id = online_night(client)
        room = client.app.state.rooms.get(rooms_of(client, night_id)["base-1-vinder"]["slug"])
        # the room itself refuses a takeover this early ...
        started = time.monotonic()
        switch_bots(client, night_id, True)  # ... the elder's wish is accepted at once
        assert not any(room.state.seats[s].botted for s in room.state.seats)
        with session_scope(client.app.state.engine) as session:
            assert night_store.get_night(session, night_id=night_id).bots_for_absent_by == "Elsa"
        wait_over(room)  # carried out once allowed, and the bots play the game to its end
        assert time.monotonic() - started >= 1.0
        assert all(room.state.seats[s].botted for s in room.state.seats)
        wait_table_recorded(client, night_id, "vinder", within=WAIT)


def test_a_table_recorded_by_hand_closes_its_room_and_the_form_follows_the_round(client: Any) -> None:
    night_id = online_night(client)
    url = f"/club/nights/{night_id}"
    night = core(client, night_id)
    rooms = rooms_of(client, night_id)
    mellan = client.app.state.rooms.get(rooms["base-1-mellan"]["slug"])
    chairs = night.tables["mellan"]
    with client.websocket_connect(f"/r/{mellan.state.slug}/ws") as ws:
        frames_until(ws, "Mellanbord, base round 1")
        data = {"csrf": token(client, url), "table": "mellan", "phase": "base", "round": "1",
                "first_out": chairs[0], "second_out": chairs[1], "winner": chairs[2]}
        assert client.post(f"{url}/results", data=data, follow_redirects=False).status_code == 303
        deadline = time.monotonic() + WAIT
        notice, closed = None, None
        while notice is None or closed is None:
            assert time.monotonic() < deadline
            frame = parse(ws.receive_text())
            if frame.get("kind") == "notice":
                notice = frame["message"]
            elif "club-closed" in frame["content"]:
                closed = frame["content"]
        assert notice == table_flow.HAND_CLOSED
        assert "recorded this table by hand" in closed
    page = client.get(url).text
    assert 'id="form-mellan"' not in page and 'id="form-vinder"' in page
    # the other two tables end by bots: the round advances and the form offers round 2 only
    bots_play(client, rooms["base-1-vinder"]["slug"])
    bots_play(client, rooms["base-1-taber"]["slug"])
    deadline = time.monotonic() + WAIT
    round_two = {f"base-2-{table}" for table in ("vinder", "mellan", "taber")}
    while core(client, night_id).current.number != 2 or not round_two <= set(rooms_of(client, night_id)):
        assert time.monotonic() < deadline  # the round moved on and its rooms are open
        time.sleep(0.05)
    # the round's rooms open a moment after the round (their commits are awaited): the page
    # settles, and then stays as it is
    while True:
        page = client.get(url).text
        stamp = re.search(r'/fresh\?v=([0-9a-f]+)"', page)
        assert stamp
        if client.get(f"{url}/fresh?v={stamp.group(1)}").status_code == 204:
            break
        assert time.monotonic() < deadline, "the night page never settled"
        time.sleep(0.05)
    assert '<input type="hidden" name="round" value="2">' in page
    assert '<input type="hidden" name="round" value="1">' not in page
    assert page.count('class="panel record-form') == 3
    assert client.get(f"{url}/fresh?v=stale").status_code == 200


def test_panels_lost_in_a_restart_or_made_elsewhere_come_back_by_themselves(client: Any) -> None:
    """Each process keeps its club panels in memory; a watch re-reads the open online nights every
    few seconds, so a process that did not record a table (another process did, or it was
    restarted) shows the same panels soon after, pushed to the room's sockets."""
    night_id = online_night(client)
    slug = rooms_of(client, night_id)["base-1-taber"]["slug"]
    with client.websocket_connect(f"/r/{slug}/ws") as ws:
        frames_until(ws, "Taberbord, base round 1")
        table_flow.panels_of(client.app).clear()  # as if this process had never computed them
        started = time.monotonic()
        frames_until(ws, "Taberbord, base round 1")  # pushed again by the watch
        assert time.monotonic() - started < table_flow.WATCH_SECONDS + 3
    assert "Taberbord, base round 1" in client.get(f"/r/{slug}").text
