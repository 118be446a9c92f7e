"""A night played online: setting it up opens the three rooms of a round through the room
layer, players get their table links, and a finished table is recorded from the engine (by the
rooms' game-over hook: nobody needs to look at the night page)."""

from __future__ import annotations

import time

from app.store import nights as night_store
from app.store import results as result_store
from app.store.db import session_scope
from app.web.club import online as club_online
from tests.support.club_nights import online_night

from .helpers import (
    bots_play,
    core,
    remember_member,
    token,
)


def test_an_online_round_with_bots_is_recorded_automatically(client) -> None:
    night_id = online_night(client)
    url = f"/club/nights/{night_id}"
    page = client.get(url).text
    assert page.count("Watch the table") == 3 and page.count(">Play</button>") == 9
    assert page.count(f'action="{url}/bots"') == 1  # the elder's one switch for the night

    with session_scope(client.app.state.engine) as session:
        rooms = night_store.get_night(session, night_id=night_id).state["rooms"]
    assert sorted(rooms) == ["base-1-mellan", "base-1-taber", "base-1-vinder"]
    night = core(client, night_id)
    chairs = night.tables["vinder"]
    manager = client.app.state.rooms
    room = manager.get(rooms["base-1-vinder"]["slug"])
    assert [room.state.seats[i].name for i in range(3)] == chairs  # seated in chair order
    assert room.state.status == "playing"

    # a member's Play puts the seat cookie on the room's path and opens the room
    remember_member(client, chairs[1])
    response = client.post(f"{url}/play/base-1-vinder/1", data={"csrf": token(client, url)},
                           follow_redirects=False)
    assert response.headers["location"] == f"/r/{room.state.slug}"
    assert f"gurka_seat_{room.state.slug}=" in response.headers["set-cookie"]
    assert f"Path=/r/{room.state.slug}" in response.headers["set-cookie"]

    # nobody came: the bots play every seat, and the round records itself
    for entry in rooms.values():
        bots_play(client, entry["slug"])
    deadline = time.monotonic() + 25
    while time.monotonic() < deadline:
        live = client.get(f"{url}/live").text
        with session_scope(client.app.state.engine) as session:
            opened = night_store.get_night(session, night_id=night_id).state["rooms"]
        # the round is recorded (the live page moves on), then the next round's rooms open
        if "Base round 2 of 16" in live and "base-2-vinder" in opened:
            break
        time.sleep(0.2)
    else:
        raise AssertionError("the online round did not finish")

    with session_scope(client.app.state.engine) as session:
        results = result_store.list_results(session, night_id=night_id)
        rooms = night_store.get_night(session, night_id=night_id).state["rooms"]
    assert len(results) == 3 and {r.source for r in results} == {"online"}
    game = manager.get(rooms["base-1-vinder"]["slug"]).state.game
    names = chairs
    vinder = next(r for r in results if r.table == "vinder").result
    assert vinder == club_online.result_from_game(game, names).to_dict()
    assert vinder["out"] == [names[s] for s in game.out[:2]]
    assert "base-2-vinder" in rooms  # the next round's rooms are open, seated by the movement
    night = core(client, night_id)
    room2 = manager.get(rooms["base-2-vinder"]["slug"])
    assert [room2.state.seats[i].name for i in range(3)] == night.tables["vinder"]
