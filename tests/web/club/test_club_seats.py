"""Club seats are personal (issue 12): a member's Play seats only that member, on a device that
proved who they are once with the personal link an elder sent; anyone else's Play moves nobody.
Over real HTTP (the app's TestClient), against the real rooms."""

from __future__ import annotations

import re

from app.web.club import auth, identity
from app.web.shared.security import seat_cookie_name
from bench.table_wire import parse
from tests.support.club_nights import first_round_slugs, online_night

from .helpers import (
    add_members,
    become_elder,
    core,
    personal_link,
    remember_member,
    token,
)


def online_night_at_vinder(client) -> tuple[int, list[str], object]:  # type: ignore[no-untyped-def]
    """A new online night, the chairs of its first round's vinder table and that table's room."""
    night_id = online_night(client)
    slug = first_round_slugs(client, night_id)["vinder"]
    return night_id, core(client, night_id).tables["vinder"], client.app.state.rooms.get(slug)


def drop_cookie(client, name: str) -> None:  # type: ignore[no-untyped-def]
    for cookie in [c for c in client.cookies.jar if c.name == name]:
        client.cookies.jar.clear(cookie.domain, cookie.path, cookie.name)


def play(client, night_id: int, chair: int):  # type: ignore[no-untyped-def]
    url = f"/club/nights/{night_id}"
    return client.post(f"{url}/play/base-1-vinder/{chair}", data={"csrf": token(client, url)},
                       follow_redirects=False)


def test_an_anonymous_play_gets_no_seat_and_moves_nobody(client) -> None:
    night_id, chairs, room = online_night_at_vinder(client)
    before = [room.state.seats[i].token_hash for i in range(3)]
    response = play(client, night_id, 1)
    assert response.status_code == 403
    assert f"This seat is {chairs[1]}'s. Are you {chairs[1]}?" in response.text
    assert "does not know you yet" in response.text and "personal link" in response.text
    assert "gurka_seat_" not in response.headers.get("set-cookie", "")
    assert [room.state.seats[i].token_hash for i in range(3)] == before


def test_another_members_play_never_moves_the_seat(client) -> None:
    night_id, chairs, room = online_night_at_vinder(client)
    owner, other = chairs[1], chairs[0]
    remember_member(client, owner)  # the owner's device takes the seat
    response = play(client, night_id, 1)
    assert response.status_code == 303 and response.headers["location"] == f"/r/{room.state.slug}"
    found = re.search(rf"{seat_cookie_name(room.state.slug)}=([^;]+)", response.headers["set-cookie"])
    assert found and room.seat_for_token(found.group(1)) == 1
    owners_token = found.group(1)

    remember_member(client, other)  # the same browser now belongs to another member
    page = client.get(f"/club/nights/{night_id}").text
    assert f"You: <strong>{other}</strong>" in page
    assert page.count("play-link mine") == 1
    response = play(client, night_id, 1)
    assert response.status_code == 403
    assert f"This seat is {owner}'s. Are you {owner}?" in response.text
    assert f"This device knows you as <strong>{other}</strong>" in response.text
    assert "gurka_seat_" not in response.headers.get("set-cookie", "")
    assert room.seat_for_token(owners_token) == 1  # the owner still holds their seat
    with client.websocket_connect(f"/r/{room.state.slug}/ws",
                                  headers={"cookie": f"{seat_cookie_name(room.state.slug)}={owners_token}"}) as ws:
        frame = parse(ws.receive_text())
        assert all(f'data-card="{c}"' in frame["content"] for c in room.state.game.view(1)["hand"])

    assert play(client, night_id, 0).status_code == 303  # their own seat is theirs
    csrf = token(client, f"/club/nights/{night_id}")
    forged = client.post(f"/club/nights/{night_id}/play/base-1-vinder/0", data={"csrf": csrf + "x"})
    assert forged.status_code == 403  # the Play form is CSRF-checked too


def test_a_new_link_or_forget_revokes_remembered_devices(client) -> None:
    night_id, chairs, _room = online_night_at_vinder(client)
    old = personal_link(client, chairs[2])
    assert client.get(old).status_code == 200
    assert play(client, night_id, 2).status_code == 303
    new = personal_link(client, chairs[2])  # a new link: every device forgets, the old link dies
    assert new != old
    assert play(client, night_id, 2).status_code == 403
    assert client.get(old).status_code == 404
    assert client.get(new).status_code == 200 and play(client, night_id, 2).status_code == 303
    # the member forgets this device
    response = client.post("/club/me/forget", data={"csrf": token(client)}, follow_redirects=False)
    assert response.status_code == 303 and 'gurka_member=""' in response.headers["set-cookie"]
    drop_cookie(client, identity.COOKIE)
    assert play(client, night_id, 2).status_code == 403


def test_a_member_cookie_is_no_elder_session(client) -> None:
    """The device cookie is signed under its own key: pasted as the elders' session cookie it
    is refused (an elder's personal link does not make a device an elder)."""
    become_elder(client)
    add_members(client, ["Jens"])
    elder_link = personal_link(client, "Elsa")
    client.get(elder_link)
    device = client.cookies.get(identity.COOKIE)
    assert device
    client.cookies.clear()
    client.cookies.set(auth.COOKIE, device)
    page = client.get("/club/members").text
    assert "Log out" not in page and "Elder login" in page


def test_guessing_personal_links_is_throttled(client) -> None:
    become_elder(client)
    add_members(client, ["Mette"])
    good = personal_link(client, "Mette")
    for i in range(identity.TRIES_FREE):
        wrong = client.get(f"/club/me/not-a-link-{i}")
        assert wrong.status_code == 404 and "does not work" in wrong.text
    blocked = client.get(good)  # even the right link waits now, so guessing gains nothing
    assert blocked.status_code == 429 and "Too many wrong links" in blocked.text
    assert identity.COOKIE not in blocked.headers.get("set-cookie", "")
