"""Bot levels on the web: the new-room form's level per bot seat and the host's level reach the
room and its page ("Bot (strong)", in the reader's language), a level that is not one is refused
with the form kept, and practice starts in one click: seated against three bots of the chosen
level (strong unless chosen), the game dealt and playing."""

from __future__ import annotations

import re

from fastapi.testclient import TestClient

from tests.web.table.wsutil import token_from


def room_of(web: TestClient, slug: str):  # type: ignore[no-untyped-def]
    return web.app.state.rooms.get(slug)  # type: ignore[attr-defined]


def bot_tags(html: str) -> list[str]:
    return re.findall(r'<span class="tag bot">([^<]*)</span>', html)


def test_the_forms_levels_reach_the_seats(web: TestClient) -> None:
    page = web.get("/").text  # no bots chosen yet: only the level for a player who is away
    assert 'name="level_1"' not in page and 'name="bot_level"' in page and 'action="/practice"' in page
    # choosing 3 bots asks for their levels (a choice made already is kept)
    part = web.get("/new/bot-levels", params={"preset": "gurka-night", "bots": "3", "level_2": "easy"}).text
    assert re.findall(r'name="(level_\d)"', part) == ["level_1", "level_2", "level_3"]
    assert re.search(r'name="level_2">\s*<option value="easy" selected', part)
    capped = web.get("/new/bot-levels", params={"preset": "gurka-night", "bots": "40"}).text
    assert len(re.findall(r'name="level_\d"', capped)) == 6  # gurka-night seats 7 at most: 6 bots
    assert web.get("/new/bot-levels", params={"preset": "chess"}).status_code == 404
    data = {"name": "Anna", "preset": "gurka-night", "seats": "4", "bots": "3", "level_1": "strong",
            "level_2": "easy", "bot_level": "easy"}  # the third bot: not chosen, so medium
    response = web.post("/rooms", data=data, follow_redirects=False)
    assert response.status_code == 303, response.text
    slug = response.headers["location"].rsplit("/", 1)[-1]
    room = room_of(web, slug)
    assert [room.bot_level(s) for s in (1, 2, 3)] == ["strong", "easy", "heuristic"]
    assert room.state.bot_levels.host == "easy"
    html = web.get(f"/r/{slug}").text
    assert bot_tags(html) == ["Bot (strong)", "Bot (easy)", "Bot (medium)"]
    danish = web.get(f"/r/{slug}", headers={"accept-language": "da"}).text
    assert bot_tags(danish) == ["Bot (stærk)", "Bot (let)", "Bot (mellem)"]


def test_a_level_that_is_not_one_is_refused_with_the_form_kept(web: TestClient) -> None:
    data = {"name": "Anna", "preset": "gurka-night", "seats": "3", "bots": "1", "level_1": "genius"}
    response = web.post("/rooms", data=data, follow_redirects=False)
    assert response.status_code == 400
    assert "Unknown bot level: choose easy, medium or strong." in response.text
    assert 'value="Anna"' in response.text
    assert web.app.state.rooms.rooms == {}  # type: ignore[attr-defined]


def test_practice_in_one_click(web: TestClient) -> None:
    response = web.post("/practice", data={"level": "strong"}, follow_redirects=False)
    assert response.status_code == 303, response.text
    slug = response.headers["location"].rsplit("/", 1)[-1]
    token_from(response, slug)  # the player holds seat 0's token
    room = room_of(web, slug)
    assert room.state.status == "playing" and room.state.game is not None and not room.state.game.over
    assert room.state.preset == "gurka-night" and len(room.state.seats) == 4
    assert not room.state.seats[0].botted
    assert [room.bot_level(s) for s in (1, 2, 3)] == ["strong"] * 3 and room.state.bot_levels.host == "strong"
    html = web.get(f"/r/{slug}").text
    assert bot_tags(html) == ["Bot (strong)"] * 3
    assert 'data-me="0"' in html and 'data-role="host"' in html  # the player is seated (their cookie)


def test_practice_at_another_level_and_a_level_that_is_not_one(web: TestClient) -> None:
    response = web.post("/practice", data={"level": "easy"}, follow_redirects=False)
    slug = response.headers["location"].rsplit("/", 1)[-1]
    assert [room_of(web, slug).bot_level(s) for s in (1, 2, 3)] == ["easy"] * 3
    refused = web.post("/practice", data={"level": "random"}, follow_redirects=False)
    assert refused.status_code == 400 and "Unknown bot level" in refused.text
    assert len(web.app.state.rooms.rooms) == 1  # type: ignore[attr-defined]


def test_a_taken_over_seat_says_which_level_plays_it() -> None:
    """Issue 37 item 6: a seat a bot took over said only "bot playing"; its tag names the level,
    in each language (the words; the table's seat row shows them once it carries the level)."""
    from app.i18n import use_language
    from app.web.table.bot_words import taken_tag

    assert taken_tag("strong") == "strong bot playing" and taken_tag(None) == "medium bot playing"
    assert taken_tag("easy") == "easy bot playing" and taken_tag("nonsense") == "medium bot playing"
    said = {}
    for lang in ("da", "fi", "is"):
        with use_language(lang):
            said[lang] = taken_tag("strong")
    assert said == {"da": "bot (stærk) spiller", "fi": "botti (vahva) pelaa", "is": "vélmenni (sterkt) spilar"}


def test_the_host_picks_the_level_of_the_bot_added_in_the_lobby(web: TestClient) -> None:
    """Issue 37 item 6: "Add a bot" in the lobby is a form with a level (the host's own chosen);
    the bot added plays at the level picked, and a seat a bot took over says its level."""
    from tests.web.table.wsutil import Player, create_room, settle

    slug, token = create_room(web, seats=4)
    host = Player(web, slug, token).connect()
    host.recv_table()
    form = re.search(r'<form class="addbot".*?</form>', host.visible, re.DOTALL)
    assert form and 'name="level"' in form.group(0) and '<option value="heuristic" selected>' in form.group(0)
    room = web.app.state.rooms.get(slug)  # type: ignore[attr-defined]
    host.send(do="add_bot", level="strong", v=room.state.version, aid="b1")
    settle(web)
    host.send(do="add_bot", v=room.state.version, aid="b2")  # no level: the host's
    settle(web)
    bots = [s for s in sorted(room.state.seats) if room.state.seats[s].is_bot]
    assert [room.bot_level(s) for s in bots] == ["strong", "heuristic"]
    host.close()
