"""An online game counts for the ratings when every seat was taken by a device known as a member:
three members' devices make and join a kurkku room, the game is played out, and the ratings
show it as a kurkku result; a game with a seat nobody knows counts for no one."""

from __future__ import annotations

import time
from typing import Any

from app.web.shared.security import seat_cookie_name
from tests.web.club.helpers import add_members, become_elder, bots_play, remember_member
from tests.web.club.test_ratings import row_of
from tests.web.table.wsutil import Player, token_from


def sit(client: Any, member: str | None, slug: str | None = None) -> tuple[str, str]:
    """`member`'s device (None: a device no member's link opened) makes a room or joins `slug`."""
    if member is None:
        client.cookies.delete("gurka_member")
    else:
        remember_member(client, member)
    if slug is None:
        response = client.post("/rooms", data={"name": member or "Guest", "preset": "kurkku", "seats": "3",
                                               "bots": "0", "opt_target": "12"}, follow_redirects=False)
        slug = response.headers["location"].rsplit("/", 1)[-1]
    else:
        response = client.post(f"/r/{slug}/join", data={"name": member or "Guest"}, follow_redirects=False)
    assert response.status_code == 303, response.text
    token = token_from(response, slug)
    client.cookies.delete(seat_cookie_name(slug))
    return slug, token


def play_out(client: Any, slug: str, host_token: str) -> None:
    host = Player(client, slug, host_token).connect()
    try:
        host.recv_table()
        host.send(do="start", v=host.version)
        host.recv_table()
    finally:
        host.close()
    bots_play(client, slug)
    room = client.app.state.rooms.get(slug)
    deadline = time.monotonic() + 60
    while not room.state.game.over:
        assert time.monotonic() < deadline, "the bots did not finish the game"
        time.sleep(0.02)


def test_a_game_of_three_members_is_rated_and_one_with_a_stranger_is_not(client: Any) -> None:
    become_elder(client)
    add_members(client, ["Ann", "Bo", "Cy"])
    slug, host = sit(client, "Ann")
    sit(client, "Bo", slug)
    sit(client, "Cy", slug)
    other, other_host = sit(client, "Ann")
    sit(client, "Bo", other)
    sit(client, None, other)
    play_out(client, slug, host)
    play_out(client, other, other_host)

    page = client.get("/club/ratings").text
    rows = {name: row_of(page, name) for name in ("Ann", "Bo", "Cy")}
    assert all(r[3] == 1 for r in rows.values())  # the game with a stranger counted for no one
    assert "<h2>Kurkku (Finnish)</h2>" in page
    room = client.app.state.rooms.get(slug)
    ranking = room.state.game.ranking
    names = [room.state.seats[s].name for s in ranking]
    best = max(rows, key=lambda n: rows[n][1])
    assert best == names[0] or room.state.game.scores[ranking[0]] == room.state.game.scores[ranking[1]]
    player = client.get("/club/players/Cy").text
    assert "Kurkku (Finnish)" in player.split('id="rating"', 1)[1]
