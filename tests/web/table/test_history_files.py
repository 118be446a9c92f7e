"""A finished game downloads as a history file, opens again on /replay in the same viewer with the
same scores, and a bad file is answered with its line, never a 500; nothing downloads while the
game is being played."""

from __future__ import annotations

import random
import re

import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.rules.history import read_games
from app.rules.history_examples import example_text
from tests.web.table.test_replay import NUM, ROW
from tests.web.table.test_room_protocol import play_one, start, three_players
from tests.web.table.wsutil import CODE, hidden_cards

ORIGIN = {"origin": "http://testserver"}


@pytest.fixture
def db_url(database_url: str) -> str:
    """Every test here runs on SQLite and on Postgres."""
    return database_url


def open_file(web: TestClient, text: str, *, upload: bool = False):
    if upload:
        return web.post("/replay", files={"file": ("game.txt", text.encode("utf-8"), "text/plain")},
                        headers=ORIGIN, follow_redirects=False)
    return web.post("/replay", files={"text": (None, text)}, headers=ORIGIN, follow_redirects=False)


def test_a_finished_game_downloads_and_opens_again_with_the_same_scores(web: TestClient) -> None:
    slug, room, players = three_players(web, target="12")
    start(players, room)
    rng = random.Random(5)
    for _ in range(5):
        play_one(players, room, rng)

    # while the game is played: no file, and not one hidden card in the refusal
    refused = web.get(f"/r/{slug}/history.txt")
    assert refused.status_code == 403 and "still being played" in refused.text
    hidden = hidden_cards(room, None) | {c for h in room.state.game.hands for c in h}
    body = refused.text.split('<main id="main">', 1)[1]
    assert not set(CODE.findall(body)) & hidden and "attachment" not in refused.headers.get("content-disposition", "")
    assert web.get(f"/r/{slug}/history.txt?game=1").status_code == 403

    while not room.state.game.over:
        play_one(players, room, rng)
    game = room.state.game
    replay = web.get(f"/r/{slug}/replay")
    assert f'href="/r/{slug}/history.txt?game=1" download' in replay.text

    got = web.get(f"/r/{slug}/history.txt?game=1")
    assert got.status_code == 200 and got.headers["content-type"] == "text/plain; charset=utf-8"
    assert got.headers["content-disposition"].startswith('attachment; filename="gurka-gurka-night-')
    text = got.content.decode("utf-8")
    [read] = read_games(text)
    assert read.names == ("Anna", "Bo", "Cai")
    assert read.game.scores == game.scores and read.game.ranking == game.ranking
    assert [d.as_dict() for d in read.game.deal_log] == [d.as_dict() for d in game.deal_log]
    assert read.tags["Link"] == f"http://testserver/r/{slug}" and read.tags["Game"] == "1"
    assert re.fullmatch(r"\d{4}-\d\d-\d\d", read.tags["Date"])
    assert web.get(f"/r/{slug}/history.txt").content == got.content  # the last finished game
    assert web.get(f"/r/{slug}/history.txt?game=7").status_code == 404

    # opened again, pasted or uploaded: the same replay, the same score sheet, the same steps
    for upload in (False, True):
        opened = open_file(web, text, upload=upload)
        assert opened.status_code == 303
        where = opened.headers["location"]
        assert re.fullmatch(r"/replay/[0-9a-f]{32}", where)
        last_step = len(read.game.log) - 1
        mine = web.get(f"{where}?step={last_step}")
        theirs = web.get(f"/r/{slug}/replay?step={last_step}")
        assert mine.status_code == 200
        assert ROW.findall(mine.text) == ROW.findall(theirs.text)
        totals = [int(x) for x in NUM.findall(ROW.findall(mine.text)[-1][1])]
        assert totals == game.scores
        assert re.search(r"Step (\d+) of (\d+)", mine.text).groups() == re.search(  # type: ignore[union-attr]
            r"Step (\d+) of (\d+)", theirs.text).groups()
        assert "Opened from a history file" in mine.text and "Table talk" not in mine.text
        assert web.get(f"{where}/history.txt").content == got.content
        danish = web.get(where, headers={"accept-language": "da"}).text
        assert "Åbnet fra en historikfil" in danish and "Download spillet (historikfil)" in danish
    for p in players:
        p.close()


def test_a_bad_file_gets_its_line_and_what_is_wrong(web: TestClient) -> None:
    good = example_text("kurkku")
    lines = good.split("\n")
    at = next(i for i, line in enumerate(lines) if re.fullmatch(r"\d play \w\w", line))
    seat = lines[at].split()[0]
    lines[at] = f"{seat} play 2Z"
    page = open_file(web, "\n".join(lines))
    assert page.status_code == 400
    assert f"Line {at + 1}:" in page.text and "&#39;2Z&#39; is not a card of this game" in page.text
    assert f'<pre class="bad-line">{seat} play 2Z</pre>' in page.text
    assert 'role="alert"' in page.text and "2Z" in page.text.split("<textarea", 1)[1]  # the text kept to fix
    # in Danish too
    danish = web.post("/replay", files={"text": (None, "deal 1\n")}, headers={**ORIGIN, "accept-language": "da"})
    assert danish.status_code == 400 and "Linje 1:" in danish.text
    # not UTF-8, nothing given, an unknown link
    latin = web.post("/replay", files={"file": ("g.txt", "[Seat 0 \"Bj\xf8rn\"]".encode("latin-1"), "text/plain")},
                     headers=ORIGIN)
    assert latin.status_code == 400 and "not UTF-8" in latin.text
    assert open_file(web, "   ").status_code == 400
    assert web.get("/replay/" + "0" * 32).status_code == 404
    assert web.get("/replay/../etc").status_code == 404
    assert web.get("/replay").status_code == 200


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                  HealthCheck.too_slow])
@given(cut=st.integers(0, 3000), junk=st.text(max_size=40))
def test_no_file_gets_a_500(web: TestClient, cut: int, junk: str) -> None:
    good = example_text("gurka-is")
    text = good[:cut] + junk + good[cut:]
    page = open_file(web, text)
    assert page.status_code in (303, 400)
    if page.status_code == 400:
        assert "Line " in page.text or "history file" in page.text


def test_opening_is_limited_per_visitor(web: TestClient) -> None:
    from app.web.table import open_history

    limits = open_history.limits(type("R", (), {"app": web.app})())  # type: ignore[arg-type]
    for _ in range(open_history.PER_ADDRESS):
        assert limits.take("testclient") is None
    refused = open_file(web, "deal 1\n")
    assert refused.status_code == 429 and "opened many files" in refused.text
    assert int(refused.headers["retry-after"]) > 0
