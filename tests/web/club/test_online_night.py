"""A whole Gurka Night played online: bots at all nine seats, every table a `gurka-night` room,
every result recorded by the rooms' game-over hook, round after round, through the finals to
the placement and the Hall of Fame. And a member's Play link: a fresh seat token each time."""

from __future__ import annotations

import asyncio
import json
import re
import time

from app.club import RoundResult
from app.rooms.tokens import hash_token
from app.store import results as result_store
from app.store.db import session_scope
from app.web.club import online as club_online
from app.web.shared.security import seat_cookie_name
from bench.table_wire import parse
from tests.conftest import make_settings
from tests.support.club_nights import night_row, online_night

from .helpers import (
    NINE,
    bots_play,
    core,
    remember_member,
    switch_bots,
    token,
)

NIGHT_SECONDS = 240  # a bound against a stalled night, not a speed test


def test_a_whole_night_online_with_bots_at_every_seat(database_url: str) -> None:
    """On SQLite ~15 s, on Postgres ~30 s (66 table games, and any playoff)."""
    from fastapi.testclient import TestClient

    from app.main import create_app

    with TestClient(create_app(make_settings(database_url))) as client:
        play_a_whole_night(client)


def play_a_whole_night(client) -> None:  # type: ignore[no-untyped-def]
    night_id = online_night(client)
    url = f"/club/nights/{night_id}"
    csrf = token(client, url)
    manager = client.app.state.rooms
    started = time.monotonic()
    by_hand_playoffs = 0
    switch_bots(client, night_id, True)  # nobody came: an elder asks once for bots for the absent
    while True:
        assert time.monotonic() - started < NIGHT_SECONDS, f"the night did not finish: {core(client, night_id)!r}"
        row = night_row(client, night_id)
        if row.status == "done":
            break
        night = core(client, night_id)
        if night.phase == "playoff" and all(len(g) > club_online.MAX_ONLINE_PLAYOFF for g in night.playoffs):
            group = night.playoffs[0]  # too many for one table: recorded by hand
            data = {"csrf": csrf, "group": "0", **{f"place_{i}": p for i, p in enumerate(group)}}
            assert client.post(f"{url}/playoff", data=data, follow_redirects=False).status_code == 303
            by_hand_playoffs += 1
        time.sleep(0.1)
    elapsed = time.monotonic() - started

    night = core(client, night_id)
    row = night_row(client, night_id)
    assert night.phase == "done" and row.winner == night.winner
    assert len(night.placement()) == 9 and sorted(night.hall_of_fame().values()) == list(range(1, 10))
    with session_scope(client.app.state.engine) as session:
        results = result_store.list_results(session, night_id=night_id)
    tables = [r for r in results if r.phase != "playoff"]
    assert len([r for r in tables if r.phase == "base"]) == 16 * 3
    assert len([r for r in tables if r.phase == "finals"]) == 6 * 3
    playoffs = [r for r in results if r.phase == "playoff"]
    assert all(r.source == "online" for r in tables)
    assert len([r for r in playoffs if r.source == "online"]) == len(playoffs) - by_hand_playoffs

    # every table was seated in the round's chair order with its lot-drawn first dealer, and
    # its recorded result is the engine's
    rooms = row.state["rooms"]
    for rnd in night.history():
        for table, chairs in rnd.seating.items():
            entry = rooms[club_online.room_key(rnd.stage, rnd.number, table)]
            assert set(entry) == {"slug", "players", "dealer"}  # no seat token is stored
            room = manager.get(entry["slug"])
            assert [room.state.seats[i].name for i in range(3)] == list(chairs)
            assert room.state.game.first_dealer == list(chairs).index(rnd.dealers[table])
            assert rnd.results[table] == club_online.result_from_game(room.state.game, list(chairs))
    recorded = {(r.phase, r.round, r.table): RoundResult.from_dict(r.result) for r in tables}
    assert all(recorded[(r.stage, r.number, t)] == res for r in night.history() for t, res in r.results.items())

    # the night page shows the placement; the Hall of Fame counts the night
    page = client.get(url).text
    assert night.winner in page
    hof = client.get("/club/hall-of-fame").text
    for player in NINE:
        assert player in hof
    print(f"\nwhole online night: {len(tables)} table games, {len(playoffs)} playoff(s)"
          f" ({by_hand_playoffs} by hand), {elapsed:.1f} s")



def test_a_members_play_link_gives_a_fresh_seat_token_and_the_old_one_stops_working(client) -> None:
    night_id = online_night(client)
    url = f"/club/nights/{night_id}"
    page = client.get(url).text
    assert page.count(">Play</button>") == 9 and page.count(">Dealer<") == 3 and page.count(">Forhånd<") == 3
    row = night_row(client, night_id)
    entry = row.state["rooms"]["base-1-vinder"]
    assert set(entry) == {"slug", "players", "dealer"}
    night = core(client, night_id)
    assert entry["players"] == night.tables["vinder"]
    slug = entry["slug"]
    room = client.app.state.rooms.get(slug)
    assert room.state.game.dealer == night.tables["vinder"].index(night.dealers["vinder"])

    bo = night.tables["vinder"][1]

    def play_link() -> str:
        remember_member(client, bo)
        assert client.get(f"{url}/play/base-1-vinder/1").status_code == 405  # a link never takes a seat
        response = client.post(f"{url}/play/base-1-vinder/1", data={"csrf": token(client, url)},
                               follow_redirects=False)
        assert response.status_code == 303 and response.headers["location"] == f"/r/{slug}"
        cookie = response.headers["set-cookie"]
        assert f"Path=/r/{slug}" in cookie and "HttpOnly" in cookie and "samesite=lax" in cookie.lower()
        found = re.search(rf"{seat_cookie_name(slug)}=([^;]+)", cookie)
        assert found
        for cookie in [c for c in client.cookies.jar if c.name == seat_cookie_name(slug)]:
            client.cookies.jar.clear(cookie.domain, cookie.path, cookie.name)
        return found.group(1)

    first = play_link()
    assert room.seat_for_token(first) == 1
    with client.websocket_connect(f"/r/{slug}/ws", headers={"cookie": f"{seat_cookie_name(slug)}={first}"}) as ws:
        frame = parse(ws.receive_text())
        hand = room.state.game.view(1)["hand"]
        assert all(f'data-card="{card}"' in frame["content"] for card in hand)  # Bo sees Bo's hand

    second = play_link()
    assert second != first
    assert room.seat_for_token(second) == 1 and room.seat_for_token(first) is None
    with client.websocket_connect(f"/r/{slug}/ws", headers={"cookie": f"{seat_cookie_name(slug)}={first}"}) as ws:
        frame = parse(ws.receive_text())
        assert not any(f'data-card="{card}"' in frame["content"] for card in room.state.game.view(1)["hand"])
    # nothing in the night's record holds a token
    stored = json.dumps(night_row(client, night_id).state)
    assert first not in stored and second not in stored
    assert room.state.seats[1].token_hash == hash_token(second)
    csrf = token(client, url)
    assert client.post(f"{url}/play/base-1-vinder/1", data={"csrf": "forged"}).status_code == 403
    for wrong in ("base-1-vinder/3", "base-9-vinder/0"):
        response = client.post(f"{url}/play/{wrong}", data={"csrf": csrf}, follow_redirects=False)
        assert response.status_code == 404


def test_a_result_missed_across_a_restart_is_recorded_at_start(app_settings) -> None:  # type: ignore[no-untyped-def]
    from fastapi.testclient import TestClient

    from app.main import create_app

    with TestClient(create_app(app_settings)) as client:
        night_id = online_night(client)
        row = night_row(client, night_id)
        slug = row.state["rooms"]["base-1-vinder"]["slug"]
        manager = client.app.state.rooms
        manager.game_over_observers.clear()  # as if the app stopped before it could record
        room = manager.get(slug)
        bots_play(client, slug)
        deadline = time.monotonic() + 20
        while room.state.status != "over":
            assert time.monotonic() < deadline
            time.sleep(0.01)
        assert core(client, night_id).pending_tables == ["vinder", "mellan", "taber"]
    with TestClient(create_app(app_settings)) as client:
        night = core(client, night_id)
        assert "vinder" not in night.pending_tables
        assert night.current.results["vinder"] == club_online.result_from_game(
            client.app.state.rooms.get(slug).state.game, night.tables["vinder"]
        )


def test_a_playoff_is_played_online_and_recorded_from_its_room(client) -> None:
    """Base rounds typed in by hand (the same result pattern at every table ties two groups of
    players after every tie-break), then each playoff group gets its own room; bots play it and
    the ranking is recorded; the finals open."""
    night_id = online_night(client)
    url = f"/club/nights/{night_id}"
    csrf = token(client, url)
    while (night := core(client, night_id)).phase == "base":
        table = night.pending_tables[0]
        chairs = night.tables[table]
        data = {"csrf": csrf, "table": table, "phase": "base", "round": str(night.current.number),
                "first_out": chairs[0], "second_out": chairs[1], "winner": chairs[2]}
        assert client.post(f"{url}/results", data=data, follow_redirects=False).status_code == 303
    assert night.phase == "playoff" and all(2 <= len(g) <= 7 for g in night.playoffs)
    groups = [list(g) for g in night.playoffs]
    rooms = night_row(client, night_id).state["rooms"]
    playoff_rooms = {k: e for k, e in rooms.items() if k.startswith("playoff-")}
    assert sorted(sorted(e["players"]) for e in playoff_rooms.values()) == sorted(sorted(g) for g in groups)
    live = client.get(f"{url}/live").text
    assert live.count(">Play</button>") == sum(len(g) for g in groups)
    assert 'aria-pressed="false"' in live and f'action="{url}/bots"' in live
    switch_bots(client, night_id, True)  # nobody came to the playoffs: bots play them
    deadline = time.monotonic() + 30
    while core(client, night_id).phase == "playoff":
        assert time.monotonic() < deadline, "the playoffs were not recorded"
        time.sleep(0.02)
    night = core(client, night_id)
    assert night.stage == "finals"
    with session_scope(client.app.state.engine) as session:
        playoffs = [r for r in result_store.list_results(session, night_id=night_id) if r.phase == "playoff"]
    manager = client.app.state.rooms
    assert len(playoffs) == len(groups) and {r.source for r in playoffs} == {"online"}
    for entry in playoff_rooms.values():
        game = manager.get(entry["slug"]).state.game
        order = club_online.playoff_order(game, entry["players"])
        assert any(r.result["order"] == order for r in playoffs)
    finals = {"finals-1-finale", "finals-1-mellanfinale", "finals-1-taberfinale"}
    while not finals <= set(night_row(client, night_id).state["rooms"]):  # opened right after
        assert time.monotonic() < deadline, "the finals did not open"
        time.sleep(0.02)


def test_the_night_moves_on_when_the_page_of_the_last_move_closes_at_once(client) -> None:  # type: ignore[no-untyped-def]
    """A round's last move may come from a player's socket; closing the page cancels that
    socket's handler. The night moved on inside it: cancelled there, the next round was never
    (or only half) opened until a restart. Here each table's game-over is announced from a task
    that is cancelled at once, as a closed page's handler is."""
    night_id = online_night(client)
    rooms = dict(night_row(client, night_id).state["rooms"])
    manager = client.app.state.rooms
    observers = list(manager.game_over_observers)
    manager.game_over_observers.clear()  # the games end unheard first ...
    for entry in rooms.values():
        bots_play(client, entry["slug"])
    deadline = time.monotonic() + 30
    while not all(manager.get(e["slug"]).state.status == "over" for e in rooms.values()):
        assert time.monotonic() < deadline, "the bots did not finish round 1"
        time.sleep(0.02)
    manager.game_over_observers.extend(observers)

    async def announced_from_a_page_closed_at_once() -> None:  # ... then each is heard, and cut off
        for entry in rooms.values():
            task = asyncio.create_task(manager.game_over(manager.get(entry["slug"])))
            await asyncio.sleep(0)
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)

    client.portal.call(announced_from_a_page_closed_at_once)
    round_two = {f"base-2-{table}" for table in ("vinder", "mellan", "taber")}
    while not round_two <= set(night_row(client, night_id).state["rooms"]):
        assert time.monotonic() < deadline, f"round 2 did not open: {core(client, night_id).current!r}"
        time.sleep(0.02)
    assert core(client, night_id).current.number == 2
