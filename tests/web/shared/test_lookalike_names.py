"""Issue 10: look-alike names are the same name, at a table and among club members; the name
shown keeps the user's spelling without invisible characters."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from app.names import display_name, name_key
from tests.web.club.helpers import become_elder, member_ids, token
from tests.web.table.wsutil import create_room

LOOKALIKES_OF_ANNA = ["Ａｎｎａ", "\u0410nna", "ᴬnna", "Anna\u200b", "A\u200dnna", "ANNA", "\u0391nna", "anna "]


@pytest.mark.parametrize("name", LOOKALIKES_OF_ANNA)
def test_lookalikes_share_a_key(name: str) -> None:
    assert name_key(name) == name_key("Anna")


def test_different_names_keep_different_keys() -> None:
    assert len({name_key(n) for n in ["Anna", "Ann", "Annã", "Bo", "Bob", "José", "Jose"]}) == 7
    assert name_key("Jose\u0301") == name_key("José")  # decomposed and composed


def test_display_keeps_the_spelling_but_drops_invisible_characters() -> None:
    assert display_name("  Ａｎｎａ \u200b ", max_len=24) == "Ａｎｎａ"
    assert display_name("Bo\u200b\u202e", max_len=24) == "Bo"
    assert display_name("Jose\u0301", max_len=24) == "José"


@pytest.mark.parametrize("name", LOOKALIKES_OF_ANNA)
def test_a_lookalike_of_a_seated_player_cannot_join(web: TestClient, name: str) -> None:
    slug, _ = create_room(web, name="Anna")
    response = web.post(f"/r/{slug}/join", data={"name": name}, follow_redirects=False)
    assert response.status_code == 400
    assert "already called Anna" in response.text
    assert "set-cookie" not in response.headers
    assert [s.name for s in web.app.state.rooms.get(slug).state.seats.values()] == ["Anna"]


def test_an_invisible_character_is_dropped_from_a_shown_name(web: TestClient) -> None:
    slug, _ = create_room(web, name="Anna")
    assert web.post(f"/r/{slug}/join", data={"name": "Bo\u200b"}, follow_redirects=False).status_code == 303
    assert [s.name for s in web.app.state.rooms.get(slug).state.seats.values()] == ["Anna", "Bo"]


@pytest.mark.parametrize("twin", ["Bo\u200b", "BO", "Во", "Ｂｏ"])
def test_club_members_cannot_be_added_twice_under_a_lookalike(client, twin: str) -> None:
    become_elder(client)
    csrf = token(client, "/club/members")
    assert client.post("/club/members", data={"csrf": csrf, "name": "Bo"}).status_code == 200
    response = client.post("/club/members", data={"csrf": csrf, "name": twin})
    assert response.status_code == 422
    assert "There is already a member called Bo" in response.text
    assert sorted(member_ids(client)) == ["Bo", "Elsa"]


def test_composed_and_decomposed_jose_are_one_member(client) -> None:
    become_elder(client)
    csrf = token(client, "/club/members")
    assert client.post("/club/members", data={"csrf": csrf, "name": "José"}).status_code == 200
    assert client.post("/club/members", data={"csrf": csrf, "name": "Jose\u0301"}).status_code == 422
