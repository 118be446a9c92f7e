"""The story of every game: replayed from the stored event log, equal to the game; refused (and
leaking no card) while the game is still being played."""

from __future__ import annotations

import random
import re

import pytest
from fastapi.testclient import TestClient

from app.rooms.replay import build_stories
from app.store import rooms as store
from app.store.db import session_scope
from tests.web.table.test_room_protocol import play_one, start, three_players
from tests.web.table.wsutil import CODE, Player, card_words, hidden_cards

ROW = re.compile(r"<tr[^>]*>\s*<th scope=\"row\">(\d+)</th>(.*?)</tr>", re.DOTALL)
NUM = re.compile(r'<td class="num[^"]*">(-?\d+)</td>')


@pytest.fixture
def db_url(database_url: str) -> str:
    """Every test here runs on SQLite and on Postgres."""
    return database_url



def stored_events(web: TestClient, room_id: int) -> list:
    with session_scope(web.app.state.engine) as session:
        return [(e.seat, e.kind, dict(e.payload), e.at) for e in store.list_events(session, room_id=room_id)]


def test_replay_before_the_end_is_refused_and_the_replay_of_a_finished_game_equals_it(web: TestClient) -> None:
    slug, room, players = three_players(web, target="12")
    start(players, room)
    rng = random.Random(8)
    for _ in range(7):
        play_one(players, room, rng)

    # during the game: refused, with a clear page and not one hidden card
    hidden = hidden_cards(room, None) | {c for h in room.state.game.hands for c in h}
    assert hidden, "there are hidden cards to leak"
    for url in (f"/r/{slug}/replay", f"/r/{slug}/replay?game=1&step=3"):
        response = web.get(url)
        assert response.status_code == 403
        assert "still being played" in response.text
        body = response.text.split('<main id="main">', 1)[1]  # past the static favicon's data URL
        assert not set(CODE.findall(body)) & hidden
        assert not [c for c in hidden if not c.startswith("X") and card_words(c) in body]
        assert "data-card" not in body

    while not room.state.game.over:
        play_one(players, room, rng)
    game = room.state.game

    # the story rebuilt from the stored log equals the game
    stories = build_stories(room.state.preset, room.state.options, stored_events(web, room.state.id))
    assert len(stories) == 1 and stories[0].over
    story = stories[0]
    assert [d.as_dict() for d in story.deal_log] == [d.as_dict() for d in game.deal_log]
    assert story.game.scores == game.scores and story.game.ranking == game.ranking
    assert story.steps[-1].deal_end == game.deal_log[-1]

    # the page: the score sheet's rows hold every deal's totals, as the engine counted them
    page = web.get(f"/r/{slug}/replay?step={len(story.steps) - 1}")
    assert page.status_code == 200
    rows = ROW.findall(page.text)
    assert [int(no) for no, _ in rows] == [d.deal_no for d in game.deal_log]
    final_totals = [int(x) for x in NUM.findall(rows[-1][1])]
    assert final_totals == game.scores
    # every hand face up at a deal's first step
    first = web.get(f"/r/{slug}/replay?step=0")
    dealt = stored_events(web, room.state.id)
    hands = next(p for _, kind, p, _ in dealt if kind == "deal")["hands"]
    for hand in hands:
        for code in hand:
            assert f'data-card="{code}"' in first.text
    assert 'rel="next"' in first.text and 'data-nav="next-deal"' in first.text
    # bad links get a page, never an error
    assert web.get(f"/r/{slug}/replay?step=abc").status_code == 200
    assert web.get(f"/r/{slug}/replay?step=-5").status_code == 200
    missing = web.get(f"/r/{slug}/replay?game=zz")
    assert missing.status_code == 404 and "no game with that number" in missing.text
    assert web.get(f"/r/{slug}/replay?game=2").status_code == 404
    # the game-over panel links the replay; the score sheet is at every seat, totals as counted
    assert f"/r/{slug}/replay" in players[0].visible
    for p in players:
        sheet = ROW.findall(p.visible)
        assert [int(x) for x in NUM.findall(sheet[-1][1])] == game.scores
    spectator = Player(web, slug, None).connect()
    spectator.recv_table()
    assert "Score sheet" not in spectator.visible and "Score sheet" in spectator.table["content"]
    spectator.close()
    for p in players:
        p.close()


def test_chat_appears_alongside_the_replay(web: TestClient) -> None:
    slug, room, players = three_players(web, target="12")
    start(players, room)
    players[1].send(do="say", text="good luck all")
    for p in players:
        p.recv()
    rng = random.Random(3)
    while not room.state.game.over:
        play_one(players, room, rng)
    page = web.get(f"/r/{slug}/replay")
    assert page.status_code == 200 and "good luck all" in page.text
    for p in players:
        p.close()


FINAL = re.compile(r'<p class="result">(.*?)</p>', re.DOTALL)


def test_the_final_line_shares_places_as_the_game_over_panel_does(web: TestClient) -> None:
    """Issue 37 item 3: vidivellir ends when the first player is out; the two players left on 0
    share first place. The game-over panel said so; the replay's "Final:" line said 1. and 2."""
    slug, room, players = three_players(web, preset="vidivellir", target="1")
    start(players, room)
    rng = random.Random(3)
    while not room.state.game.over:  # vidivellir plays sets (chosen on the page): any legal action
        actor = players[room.state.game.to_act]
        before = room.state.version
        actor.send(do="act", action=rng.choice(room.state.game.view(room.state.game.to_act)["legal"]), v=actor.version,
                   aid=f"a{before}")
        for p in players:
            assert p.recv_table()["version"] > before
    scores, ranking = room.state.game.scores, room.state.game.ranking
    assert sorted(scores)[:2] == [0, 0] and len(room.state.game.deal_log) == 1  # one deal: one player out
    names = ["Anna", "Bo", "Cai"]
    panel = players[0].table["content"]
    assert panel.count('<span class="place">1<span class="sr-only"> (shared)</span></span>') == 2
    page = web.get(f"/r/{slug}/replay")
    assert page.status_code == 200
    final = re.sub(r"<[^>]+>", "", FINAL.search(page.text).group(1))
    first, second, last = ranking
    assert final == (f"Final: 1. (shared) {names[first]} (0), 1. (shared) {names[second]} (0), "
                     f"3. {names[last]} ({scores[last]})"), final
