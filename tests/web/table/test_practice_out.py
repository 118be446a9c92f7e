"""Issue 37 item 5: practice, once you are out. A player alone with bots who went out watched the
bots play on (about two minutes) with no way out. Now the table offers "Finish at once" (the
bots play the rest without their delay and without the pause between deals) and "New practice
game". The clock here never moves: before "Finish at once" the game waits in the pause after
the deal (30 s) for good; after it, the game ends without the clock."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from app.main import create_app
from app.rooms.clock import FakeClock
from app.rules import card_height
from app.web.shared.security import seat_cookie_name
from tests.conftest import make_settings
from tests.support.waiting import wait_until
from tests.web.table.wsutil import close_all, create_room

ATTEMPTS = 40


@pytest.fixture
def web(tmp_path: Path) -> Iterator[TestClient]:
    settings = make_settings(f"sqlite:///{tmp_path / 'practice.db'}", deal_pause=30.0)
    with TestClient(create_app(settings, clock=FakeClock())) as client:
        try:
            yield client
        finally:
            close_all()


def lowest(actions: list[str], game) -> str:  # type: ignore[no-untyped-def]
    """The play of the lowest card (keeping the high ones makes going out likely)."""
    plays = [a for a in actions if a.startswith("play ")] or actions
    return min(plays, key=lambda a: card_height(a.split()[1], game.ruleset) if a.startswith("play ") else 0)


def play_the_first_deal(web: TestClient, room) -> None:  # type: ignore[no-untyped-def]
    """The player (seat 0) plays its lowest card at each turn until the first deal is over."""
    web.portal.call(room.start, 0)  # type: ignore[union-attr]
    while True:
        wait_until(lambda: room.state.game.to_act == 0 or room.state.game.phase == "waiting" or room.state.game.over,
                   what="the player's turn or the deal's end")
        g = room.state.game
        if g.phase == "waiting" or g.over:
            return
        before = room.state.version
        web.portal.call(room.act, 0, lowest([str(a) for a in g.legal_actions()], g), before)  # type: ignore[union-attr]
        wait_until(lambda: room.state.version > before, what="the player's move taken")  # noqa: B023


def out_after_the_first_deal(web: TestClient):  # type: ignore[no-untyped-def]
    """A room of a player and two bots (target 1: the deal's loser is out) where the player went
    out in the first deal and the bots play on: (slug, room, the player's token)."""
    for _ in range(ATTEMPTS):
        slug, token = create_room(web, seats=3, bots=2, target="1")
        room = web.app.state.rooms.get(slug)
        play_the_first_deal(web, room)
        if 0 in room.state.game.out and not room.state.game.over:
            return slug, room, token
    pytest.fail(f"the player never went out first in {ATTEMPTS} games")


def test_once_out_the_player_can_finish_at_once_or_start_anew(web: TestClient) -> None:
    slug, room, token = out_after_the_first_deal(web)
    page = web.get(f"/r/{slug}").text
    assert 'id="practice-out"' not in page  # a spectator is not offered it
    web.cookies.set(seat_cookie_name(slug), token)
    page = web.get(f"/r/{slug}").text
    assert 'id="practice-out"' in page and "You are out of this game." in page
    assert f'action="/r/{slug}/finish"' in page and "Finish at once" in page
    level = re.search(r'name="level" value="([^"]+)"', page)
    assert level and level.group(1) == "heuristic" and "New practice game" in page
    # the game waits in the pause after the deal, and would for 30 s of a clock that never moves
    assert room.state.game.phase == "waiting" and not room.state.game.over

    web.cookies.clear()
    assert web.post(f"/r/{slug}/finish", follow_redirects=False).status_code == 303  # a spectator: nothing
    assert room.state.game.phase == "waiting" and room.state.hurry_for is None
    web.cookies.set(seat_cookie_name(slug), token)
    answer = web.post(f"/r/{slug}/finish", follow_redirects=False)
    assert answer.status_code == 303 and answer.headers["location"] == f"/r/{slug}"
    wait_until(lambda: room.state.game.over, what="the bots finishing the game at once", timeout=30)
    assert room.state.game.deal_no >= 2
    over = web.get(f"/r/{slug}").text
    assert 'id="practice-out"' not in over and "Game over" in over

    fresh = web.post("/practice", data={"level": level.group(1)}, follow_redirects=False)
    assert fresh.status_code == 303 and fresh.headers["location"] != f"/r/{slug}"
    new = web.app.state.rooms.get(fresh.headers["location"].rsplit("/", 1)[-1])
    assert new.state.game is not None and not new.state.game.over and {new.bot_level(s) for s in (1, 2, 3)} == {"heuristic"}


def test_a_player_still_in_is_not_offered_it(web: TestClient) -> None:
    slug, token = create_room(web, seats=3, bots=2)
    room = web.app.state.rooms.get(slug)
    web.portal.call(room.start, 0)  # type: ignore[union-attr]
    web.cookies.set(seat_cookie_name(slug), token)
    assert 'id="practice-out"' not in web.get(f"/r/{slug}").text  # still in
    web.post(f"/r/{slug}/finish")
    assert room.state.hurry_for is None
