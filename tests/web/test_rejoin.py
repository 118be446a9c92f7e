"""Seats nobody can lose: each player sees their own rejoin code (and its QR code) on their own
page only; typing it on another device takes the seat there and the old device is told; wrong
codes are limited; the code never travels in a pushed table."""

from __future__ import annotations

import re

from fastapi.testclient import TestClient

from app.rooms.clock import FakeClock
from app.rooms.seat_changes import SEAT_MOVED
from app.web.shared.security import seat_cookie_name
from app.web.shared.throttle import Throttle
from tests.web.test_room_protocol import start, three_players
from tests.web.wsutil import Player, token_from

CODE = re.compile(r'<p class="code" aria-label="Your rejoin code">([A-Z0-9]{6})</p>')


def page(client: TestClient, slug: str, token: str | None) -> str:
    cookies = {seat_cookie_name(slug): token} if token else {}
    response = client.get(f"/r/{slug}", headers={"cookie": "; ".join(f"{k}={v}" for k, v in cookies.items())})
    assert response.status_code == 200
    return response.text


def test_a_phone_takes_the_seat_back_with_the_code_and_the_old_device_is_told(web: TestClient) -> None:
    slug, room, players = three_players(web)
    start(players, room)
    codes = []
    for p in players:
        html = page(web, slug, p.token)
        match = CODE.search(html)
        assert match, "each player sees their own code"
        codes.append(match.group(1))
        assert "<svg" in html and 'class="qr"' in html  # the QR code of the rejoin link
    assert len(set(codes)) == 3
    assert CODE.search(page(web, slug, None)) is None  # a spectator sees no code
    # no code ever travels in a pushed table (they are per device, not per seat view)
    for p in players:
        for frame in p.frames:
            for code in codes:
                assert code not in frame.get("content", "")

    # the link from the QR code shows the room with the code filled in: one tap takes the seat
    opened = web.get(f"/r/{slug}/rejoin?code={codes[1].lower()}")
    assert opened.status_code == 200 and f'value="{codes[1]}"' in opened.text
    hand = room.game.view(1)["hand"]
    response = web.post(f"/r/{slug}/rejoin", data={"code": codes[1].lower()[:3] + " " + codes[1][3:]},
                        follow_redirects=False)
    assert response.status_code == 303, response.text
    new_token = token_from(response, slug)
    web.cookies.clear()
    assert room.seat_for_token(new_token) == 1 and room.seat_for_token(players[1].token) is None
    # the old device is told plainly, then sees the table as a watcher
    notice = players[1].recv()
    assert notice["kind"] == "notice" and notice["message"] == SEAT_MOVED
    frame = players[1].recv_table()
    assert "data-hand" not in frame["content"]
    phone = Player(web, slug, new_token).connect()
    mine = phone.recv_table()
    for card in hand:
        assert f'data-card="{card}"' in mine["content"]
    # the seat has a new code now: the old one is spent
    again = web.post(f"/r/{slug}/rejoin", data={"code": codes[1]}, follow_redirects=False)
    assert again.status_code == 400 and "does not fit any seat" in again.text
    assert CODE.search(page(web, slug, new_token)).group(1) != codes[1]  # type: ignore[union-attr]
    phone.close()
    for p in players:
        p.close()


def test_wrong_codes_are_limited_per_address(web: TestClient) -> None:
    slug, room, players = three_players(web)
    start(players, room)
    right = CODE.search(page(web, slug, players[2].token)).group(1)  # type: ignore[union-attr]
    version = room.version
    for guess in ("AAAAAA", "CCCCCC", "DDDDDD", "EEEEEE", "FFFFFF"):
        response = web.post(f"/r/{slug}/rejoin", data={"code": guess}, follow_redirects=False)
        assert response.status_code == 400
    # the sixth try is refused, even with the right code, and nothing changed
    response = web.post(f"/r/{slug}/rejoin", data={"code": right}, follow_redirects=False)
    assert response.status_code == 429 and "Too many wrong codes" in response.text
    assert room.version == version and room.seat_for_token(players[2].token) == 2
    empty = web.post(f"/r/{slug}/rejoin", data={"code": ""}, follow_redirects=False)
    assert empty.status_code == 429  # still limited: no traceback, a clear page
    for p in players:
        p.close()


def test_the_wait_after_wrong_codes_ends_and_the_right_code_then_works(web: TestClient) -> None:
    """The back-off is capped and runs on the throttle's clock: the real player gets back in."""
    clock = FakeClock(start=0.0)
    web.app.state.rejoin_throttle = Throttle(free=2, base=30.0, clock=clock)  # type: ignore[attr-defined]
    slug, room, players = three_players(web)
    start(players, room)
    right = CODE.search(page(web, slug, players[2].token)).group(1)  # type: ignore[union-attr]
    for guess in ("AAAAAA", "CCCCCC"):
        assert web.post(f"/r/{slug}/rejoin", data={"code": guess}, follow_redirects=False).status_code == 400
    waiting = web.post(f"/r/{slug}/rejoin", data={"code": right}, follow_redirects=False)
    assert waiting.status_code == 429 and "try again in 30 s" in waiting.text
    clock.advance(30.0)
    moved = web.post(f"/r/{slug}/rejoin", data={"code": right}, follow_redirects=False)
    assert moved.status_code == 303 and room.seat_for_token(players[2].token) is None
    for p in players:
        p.close()


def test_an_unknown_room_link_gets_a_page_with_a_way_home(web: TestClient) -> None:
    for path in ("/r/nosuchroom", "/r/nosuchroom/rejoin?code=ABCDEF"):
        response = web.get(path)
        assert response.status_code == 404
        assert response.headers["content-type"].startswith("text/html")
        assert "No such room" in response.text and 'href="/"' in response.text
