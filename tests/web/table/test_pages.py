"""Pages, cookies, restart."""

from __future__ import annotations

import json
import random
import re

from fastapi.testclient import TestClient
from sqlmodel import select

from app.main import create_app
from app.rooms.engine import make_game
from app.rooms.tokens import hash_token
from app.store.db import session_scope
from app.store.rooms import RoomSeat
from tests.conftest import make_settings
from tests.web.table.wsutil import Player, create_room, join


def test_home_offers_every_preset_with_explained_options(web: TestClient) -> None:
    page = web.get("/")
    assert page.status_code == 200
    for preset in ("gurka-night", "gurka-is", "vidivellir", "kurkku", "rassi"):
        assert f'value="{preset}"' in page.text
    assert "The penalty points at which a player is out" in page.text
    assert 'href="/rules/gurka-night"' in page.text
    fragment = web.get("/new/options", params={"preset": "vidivellir"})
    assert fragment.status_code == 200
    assert 'id="options"' in fragment.text and "<html" not in fragment.text
    assert "Play on to the last player" in fragment.text
    assert '<option value="6"' in fragment.text and '<option value="7"' not in fragment.text


def test_create_room_sets_an_httponly_cookie_and_stores_only_a_hash(web: TestClient) -> None:
    response = web.post("/rooms", data={"name": "Anna", "preset": "kurkku", "seats": "4", "bots": "1"},
                        follow_redirects=False)
    assert response.status_code == 303
    location = response.headers["location"]
    slug = location.rsplit("/", 1)[-1]
    assert re.fullmatch(r"/r/[A-Za-z0-9]{12}", location)
    cookie = response.headers["set-cookie"]
    assert "HttpOnly" in cookie and "SameSite=lax" in cookie and f"Path=/r/{slug}" in cookie
    token = re.search(r"=([^;]+);", cookie).group(1)
    assert token not in location
    with session_scope(web.app.state.engine) as session:
        rows = session.exec(select(RoomSeat)).all()
        assert [r.token_hash for r in rows if not r.is_bot] == [hash_token(token)]
        assert all(token not in (r.token_hash or "") for r in rows)
    page = web.get(location)
    assert page.status_code == 200 and "Anna" in page.text and "Start the game" in page.text
    assert token not in page.text


def test_bad_room_forms_are_explained(web: TestClient) -> None:
    response = web.post("/rooms", data={"name": "", "preset": "gurka-night", "seats": "3"})
    assert response.status_code == 400 and "display name" in response.text
    response = web.post("/rooms", data={"name": "A", "preset": "gurka-is", "seats": "8"})
    assert response.status_code == 400 and "2 to 5 players" in response.text
    assert web.get("/r/nosuchroom").status_code == 404


def test_join_page_and_full_table(web: TestClient) -> None:
    slug, _ = create_room(web, seats=2)
    page = web.get(f"/r/{slug}")
    assert "Take a seat" in page.text
    join(web, slug, "Bo")
    response = web.post(f"/r/{slug}/join", data={"name": "Cai"})
    assert response.status_code == 400 and "full" in response.text


def test_rules_pages(web: TestClient) -> None:
    for slug in ["", "gurka-night", "gurka-is", "vidivellir", "kurkku", "rassi"]:
        page = web.get(f"/rules/{slug}")
        assert page.status_code == 200, slug
        assert f'<a href="/rules/{slug}" aria-current="page">' in page.text, slug
        assert page.text.count('aria-current="page"') == 1, slug
    assert web.get("/rules/poker").status_code == 404


def test_a_restarted_server_brings_the_room_back_exactly(db_url: str) -> None:
    settings = make_settings(db_url)
    with TestClient(create_app(settings)) as first:
        slug, t0 = create_room(first, preset="vidivellir", seats=3)
        t1, t2 = join(first, slug, "Bo"), join(first, slug, "Cai")
        players = [Player(first, slug, t).connect() for t in (t0, t1, t2)]
        for i, p in enumerate(players):
            p.drain(3 - i)
        room = first.app.state.rooms.get(slug)
        players[0].send(do="start", v=players[0].version)
        for p in players:
            p.recv_table()
        rng = random.Random(2)
        for _ in range(6):
            g = room.state.game
            seat = g.to_act
            action = str(rng.choice(g.legal_actions()))
            players[seat].send(do="act", action=action, v=players[seat].version)
            for p in players:
                p.recv_table()
        saved = (room.state.version, room.state.status, json.dumps(room.state.game.to_json(), sort_keys=True),
                 [room.state.game.view(s) for s in (0, 1, 2, None)], room.state.seats)
        for p in players:
            p.close()
    with TestClient(create_app(settings)) as second:
        again = second.app.state.rooms.get(slug)
        assert again is not None
        assert (again.state.version, again.state.status, json.dumps(again.state.game.to_json(), sort_keys=True),
                [again.state.game.view(s) for s in (0, 1, 2, None)], again.state.seats) == saved
        seat = again.state.game.to_act
        me = Player(second, slug, (t0, t1, t2)[seat]).connect()
        frame = me.recv_table()
        assert frame["version"] == saved[0]
        me.send(do="act", action=str(again.state.game.legal_actions()[0]), v=frame["version"])
        assert me.recv_table()["version"] > saved[0]
        me.close()


def test_every_preset_offers_its_own_options(web: TestClient) -> None:
    for preset in ["gurka-night", "gurka-is", "vidivellir", "kurkku", "rassi"]:
        form = web.get("/new/options", params={"preset": preset}).text
        for common in ("opt_target", "opt_hand_sizes", "opt_must_beat", "opt_next_dealer"):
            assert f'name="{common}"' in form, (preset, common)
        assert ('name="opt_black_sevens"' in form) == (preset == "gurka-is")
        assert ('name="opt_deal_schedule"' in form) == (preset == "gurka-is")
        assert ('name="opt_play_on"' in form) == (preset == "vidivellir")
        assert ('name="opt_decks"' in form) == (preset == "vidivellir")
        assert ('name="opt_eight_led_lowest"' in form) == (preset == "gurka-night")


def test_a_host_option_reaches_the_game(web: TestClient) -> None:
    slug, _ = create_room(web, preset="gurka-night", seats=3, bots=2, hand_sizes="5", target="30",
                          eight_led_lowest="on")  # a checked box, as the browser sends it
    room = web.app.state.rooms.get(slug)
    assert room.state.options == {"hand_sizes": [5], "target": 30}
    response = web.post("/rooms", data={"name": "Bo", "preset": "gurka-night", "seats": "7",
                                        "opt_hand_sizes": "10"})
    assert response.status_code == 400 and "hand_sizes" in response.text


def test_the_zigzag_deal_is_a_host_option(web: TestClient) -> None:
    form = web.get("/new/options", params={"preset": "gurka-is"}).text
    assert 'value="zigzag"' in form and 'value="cycle"' in form
    slug, _ = create_room(web, preset="gurka-is", seats=3, bots=2, deal_schedule="zigzag",
                          beat_equal="on", exact_clear="on")  # the preset's checked boxes
    room = web.app.state.rooms.get(slug)
    assert room.state.options == {"deal_schedule": "zigzag"}
    game = make_game(room.state.preset, 3, 0, room.state.options)   # as the room starts its game
    assert game.ruleset.deal_schedule == "zigzag" and game.next_hand_size() == 6
    response = web.post("/rooms", data={"name": "Bo", "preset": "gurka-is", "seats": "3",
                                        "opt_deal_schedule": "spiral"})
    assert response.status_code == 400 and "deal_schedule" in response.text
