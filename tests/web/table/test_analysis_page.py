"""The strong bot's analysis on a finished game's replay (issue 38 item 3): it runs once per game
(stored: a second click, another visitor and requests sent at once get that one run), its
progress is a small fragment the page asks for, a game whose cards are still secret is refused
with nothing started, stored or shown, and a visitor may run one at a time and a few per hour,
told why in their language."""

from __future__ import annotations

import asyncio
import functools
import re
import threading
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.main import create_app
from app.rooms.analyses import Analyses
from app.rooms.replay import build_stories
from app.rules.analysis import analyse, decisions
from app.rules.history import read_games
from app.rules.history_examples import example_text
from app.store import analyses as store
from app.store.db import session_scope
from app.web.table.analysis_view import analyses_of
from tests.conftest import make_settings
from tests.web.club.helpers import bots_play
from tests.web.table.test_replay import stored_events
from tests.web.table.wsutil import CODE, close_all, create_room, hidden_cards

HX = {"hx-request": "true", "origin": "http://testserver"}
STATUS = re.compile(r'<section class="analysis[^"]*" id="analysis"[^>]*data-status="(\w+)"')


class GatedPool:
    """The bot pool's stand-in: each job (one decision) waits until the test lets it go, then is
    judged here by the real core (a few worlds: quick). Counts what it was asked to judge."""

    def __init__(self) -> None:
        self.gate = threading.Semaphore(0)
        self.asked: list[int] = []

    async def job(self, fn: Any, *args: Any) -> Any:
        self.asked.append(args[1].step)
        if not await asyncio.to_thread(self.gate.acquire, True, 20):
            raise TimeoutError("the test never let the decision go")
        return fn(*args)

    def let(self, n: int) -> None:
        for _ in range(n):
            self.gate.release()


@pytest.fixture
def db_url(database_url: str) -> str:
    """Every test here runs on SQLite and on Postgres."""
    return database_url


@pytest.fixture
def app_settings(db_url: str):  # type: ignore[no-untyped-def]
    return make_settings(db_url, analyses_per_visitor=2, analyses_per_address=3)


@pytest.fixture
def gated(app_settings: Any) -> Iterator[tuple[TestClient, GatedPool]]:
    """An app whose analyses judge through a `GatedPool` (every decision's progress written)."""
    pool = GatedPool()
    with TestClient(create_app(app_settings)) as web:
        web.app.state.analyses = Analyses(web.app.state.engine, pool, worlds=2, seconds=None, beat_every=0.0)  # type: ignore[arg-type]
        try:
            yield web, pool
        finally:
            pool.let(10_000)
            close_all()


def opened(web: TestClient, preset: str) -> str:
    """A history file opened on /replay: its replay's address."""
    response = web.post("/replay", files={"text": (None, example_text(preset))}, headers={"origin": "http://testserver"},
                        follow_redirects=False)
    assert response.status_code == 303, response.text
    return str(response.headers["location"])


def row_of(web: TestClient, key: str) -> store.GameAnalysis | None:
    with session_scope(web.app.state.engine) as session:
        return store.get_analysis(session, game_key=key)


def wait_for(what: str, check: Any, timeout: float = 60.0) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        found = check()
        if found:
            return found
        assert time.monotonic() < deadline, f"waited {timeout} s for {what}"
        time.sleep(0.02)


def status_of(html: str) -> str:
    found = STATUS.search(html)
    assert found, html[:2000]
    return found.group(1)


def finished_room(web: TestClient, target: str = "5") -> tuple[str, Any]:
    """A three-seat room its bots play to the end (its host's seat too: nobody came)."""
    slug, _token = create_room(web, name="Anna", seats=3, bots=2, target=target)
    room = web.app.state.rooms.get(slug)
    web.portal.call(functools.partial(room.start, 0))  # type: ignore[union-attr]
    bots_play(web, slug)
    wait_for("the bots' game to end", lambda: room.state.game.over)
    return slug, room


# ------------------------------------------------------------------ once per game, stored


def test_a_games_analysis_runs_once_and_every_later_request_gets_the_stored_result(web: TestClient) -> None:
    analyses = web.app.state.analyses = Analyses(web.app.state.engine, web.app.state.rooms.bot_pool, worlds=6,
                                                 seconds=None)
    slug, room = finished_room(web)
    page = web.get(f"/r/{slug}/replay")
    assert page.status_code == 200 and status_of(page.text) == "none"
    assert f'<form method="post" action="/r/{slug}/analysis?game=1&amp;step=0"' in page.text
    assert 'id="analyse"' in page.text

    started = web.post(f"/r/{slug}/analysis?game=1&step=0", headers=HX)
    assert started.status_code == 200 and status_of(started.text) in ("running", "done")
    assert "gurka_visitor" in started.headers.get("set-cookie", "")
    key = f"room:{room.state.id}:1"
    assert analyses.running() in ([key], [])  # (it may be over already)
    wait_for("the analysis to be done", lambda: status_of(web.get(f"/r/{slug}/analysis?game=1&step=0").text) == "done")

    # stored: the strong bot's judgement of every decision of the game, as the core gives it
    row = row_of(web, key)
    assert row is not None and row.status == "done" and row.result is not None
    expected = analyse(room.state.game, seed=1, worlds=6)
    assert [(j["step"], j["seat"], j["played"], j["best"], j["cost"], j["mark"]) for j in row.result["judged"]] == \
        [(j.step, j.seat, j.played, j.best, j.cost, j.mark) for j in expected]
    assert row.done == row.total == len(decisions(room.state.game)) > 0

    # a second click, another visitor: the stored result, nothing run again
    for fresh_visitor in (False, True):
        if fresh_visitor:
            web.cookies.clear()
        again = web.post(f"/r/{slug}/analysis?game=1&step=0", headers=HX)
        assert again.status_code == 200 and status_of(again.text) == "done"
        assert analyses.running() == []
        later = row_of(web, key)
        assert later is not None and (later.id, later.started_at, later.updated_at) == (row.id, row.started_at, row.updated_at)

    # the replay shows it: every decision, each linking its step, and the step view's verdict
    story = build_stories(room.state.preset, room.state.options, stored_events(web, room.state.id))[0]
    for j in expected:
        assert story.steps[j.step].action == j.played and story.steps[j.step].actor == j.seat
    judged = expected[0]
    step = web.get(f"/r/{slug}/replay?game=1&step={judged.step}")
    assert status_of(step.text) == "done"
    assert len(re.findall(r'<tr class="[^"]*"(?: aria-current="step")?>\s*<td><a href="\?game=1&amp;step=\d+"', step.text)) \
        == len(expected)
    verdict = step.text.split('id="step-verdict"', 1)[1].split("</div>", 1)[0]
    assert "Analysis:" in verdict
    assert ("choice too" in verdict) == (judged.best == judged.played)
    marked = next((j for j in expected if j.mark), None)
    if marked is not None:
        at_mark = web.get(f"/r/{slug}/replay?game=1&step={marked.step}").text
        verdict = at_mark.split('id="step-verdict"', 1)[1].split("</div>", 1)[0]
        assert f'class="mark {marked.mark}"' in verdict and "place points lost" in verdict
    # a plain form (no htmx) is sent back to the replay, at its analysis
    plain = web.post(f"/r/{slug}/analysis?game=1&step=4", headers={"origin": "http://testserver"},
                     follow_redirects=False)
    assert plain.status_code == 303 and plain.headers["location"] == f"/r/{slug}/replay?game=1&step=4#analysis"


def test_requests_sent_at_once_start_one_run_in_every_process(gated: tuple[TestClient, GatedPool]) -> None:
    web, pool = gated
    analyses: Analyses = web.app.state.analyses
    replay = opened(web, "gurka-night")
    key = "file:" + replay.rsplit("/", 1)[-1] + ":1"
    answers: list[int] = []

    web.cookies.set("gurka_visitor", "one-visitor-two-tabs")

    def click() -> None:  # a double click, two tabs: one visitor's requests at once
        answers.append(web.post(f"{replay}/analysis?game=1&step=0", headers=HX).status_code)

    clicks = [threading.Thread(target=click) for _ in range(6)]
    for c in clicks:
        c.start()
    for c in clicks:
        c.join(30)
    assert answers == [200] * 6
    assert analyses.running() == [key]
    wait_for("the first decision asked for", lambda: pool.asked)
    assert len(pool.asked) == 1
    # another process (its own Analyses on the same database) does not start a second run
    other = Analyses(web.app.state.engine, GatedPool(), worlds=2, seconds=None)  # type: ignore[arg-type]
    row = row_of(web, key)
    assert row is not None and not other.claim(key, "someone-else", row.total)

    game = read_games(example_text("gurka-night"))[0].game
    listed = decisions(game)
    pool.let(len(listed))
    wait_for("the analysis to be done", lambda: (r := row_of(web, key)) is not None and r.status == "done")
    assert pool.asked == [d.step for d in listed]  # every decision judged once, in order


# ------------------------------------------------------------------ progress


def test_the_progress_fragment_says_how_far_the_analysis_is_then_shows_it(gated: tuple[TestClient, GatedPool]) -> None:
    web, pool = gated
    replay = opened(web, "kurkku")
    key = "file:" + replay.rsplit("/", 1)[-1] + ":1"
    total = len(decisions(read_games(example_text("kurkku"))[0].game))
    assert total > 4
    fragment_url = f"{replay}/analysis?game=1&step=2"
    assert status_of(web.get(fragment_url).text) == "none"

    started = web.post(fragment_url, headers=HX)
    assert status_of(started.text) == "running"
    pool.let(3)
    wait_for("three decisions judged", lambda: (r := row_of(web, key)) is not None and r.done == 3)
    progress = web.get(fragment_url)
    assert progress.status_code == 200 and progress.headers["cache-control"] == "no-store"
    html = progress.text
    assert f"Analysing: 3 of {total} decisions judged." in html
    assert f'<progress max="{total}" value="3"' in html
    assert f'hx-get="{fragment_url.replace("&", "&amp;")}" hx-trigger="every 1s"' in html
    assert "<table" not in html and "hx-swap-oob" not in html and "<html" not in html
    # the whole page shows the same, and asks for the fragment as well
    assert f"Analysing: 3 of {total} decisions judged." in web.get(f"{replay}?game=1&step=2").text
    # in the reader's language
    web.cookies.set("lang", "da")
    assert f"Analyserer: 3 af {total} beslutninger vurderet." in web.get(fragment_url).text

    pool.let(total)
    wait_for("the analysis to be done", lambda: (r := row_of(web, key)) is not None and r.status == "done")
    done = web.get(fragment_url).text
    assert status_of(done) == "done" and "hx-trigger" not in done
    assert "Den stærke bot vurderede" in done and "Alle beslutninger" in done
    assert 'id="step-verdict" hx-swap-oob="true"' in done  # the step view's line comes along
    web.cookies.set("lang", "fi")
    assert "Kaikki päätökset" in web.get(fragment_url).text


# ------------------------------------------------------------------ live games: refused


def test_a_game_being_played_is_refused_and_nothing_is_started_stored_or_shown(client: TestClient) -> None:
    slug, _token = create_room(client, name="Anna", seats=3, bots=2, target="21")
    room = client.app.state.rooms.get(slug)
    client.portal.call(functools.partial(room.start, 0))  # type: ignore[union-attr]
    assert not room.state.game.over
    hidden = hidden_cards(room, None) | {c for h in room.state.game.hands for c in h}
    assert hidden
    for method, headers in (("POST", HX), ("GET", HX), ("POST", {"origin": "http://testserver"})):
        for url in (f"/r/{slug}/analysis", f"/r/{slug}/analysis?game=1&step=3"):
            response = client.request(method, url, headers=headers)
            assert response.status_code == 403, (method, url, response.status_code)
            assert "still being played" in response.text
            assert not set(CODE.findall(response.text.split("<main", 1)[-1])) & hidden
            assert "data-card" not in response.text and "hx-trigger" not in response.text
            if "hx-request" in headers:
                assert response.text.lstrip().startswith("<section")  # the section alone, for htmx
    refused = client.post(f"/r/{slug}/analysis", headers={**HX, "cookie": "lang=is"})
    assert refused.status_code == 403 and "Enn er verið að spila þetta spil." in refused.text
    assert analyses_of(client.app).running() == []
    with session_scope(client.app.state.engine) as session:
        assert store.count_active(session, quiet_since=datetime(2000, 1, 1, tzinfo=UTC)) == 0
        assert store.get_analysis(session, game_key=f"room:{room.state.id}:1") is None
    assert client.post("/r/no-such-room/analysis", headers=HX).status_code == 404


# ------------------------------------------------------------------ per visitor


def test_a_visitor_runs_one_analysis_at_a_time_and_a_few_per_hour(gated: tuple[TestClient, GatedPool]) -> None:
    web, pool = gated
    files = {p: opened(web, p) for p in ("gurka-night", "kurkku", "vidivellir", "gurka-is")}
    totals = {p: len(decisions(read_games(example_text(p))[0].game)) for p in files}

    def start(preset: str, lang: str = "en") -> Any:
        web.cookies.set("lang", lang)
        return web.post(f"{files[preset]}/analysis?game=1&step=0", headers=HX)

    def finish(preset: str) -> None:
        key = "file:" + files[preset].rsplit("/", 1)[-1] + ":1"
        pool.let(totals[preset])
        wait_for(f"{preset} analysed", lambda: (r := row_of(web, key)) is not None and r.status == "done")

    web.cookies.clear()
    assert status_of(start("gurka-night").text) == "running"
    assert web.cookies.get("gurka_visitor")
    busy = start("kurkku")
    assert busy.status_code == 429 and "still running: one at a time" in busy.text
    assert "én ad gangen" in start("kurkku", "da").text
    assert status_of(busy.text) == "none"
    finish("gurka-night")

    assert status_of(start("kurkku").text) == "running"
    finish("kurkku")
    full = start("vidivellir", "fi")  # two per hour for this visitor (the test's setting)
    assert full.status_code == 429 and int(full.headers["retry-after"]) > 3000
    assert "Olet aloittanut viimeisen tunnin aikana 2 analyysia" in full.text
    assert start("vidivellir").text.count("You have started 2 analyses in the last hour") == 1

    web.cookies.clear()  # another visitor on the same address: three per hour from it
    assert status_of(start("vidivellir").text) == "running"
    finish("vidivellir")
    web.cookies.clear()
    by_address = start("gurka-is", "is")
    assert by_address.status_code == 429 and "Þú hefur byrjað 3 greiningar" in by_address.text

    # what is stored costs nothing: shown to anyone, however many they started
    again = start("gurka-night")
    assert again.status_code == 200 and status_of(again.text) == "done"


def test_the_analysis_page_parts_are_translated_and_refusals_are_pages_without_htmx(
        gated: tuple[TestClient, GatedPool]) -> None:
    web, _pool = gated
    replay = opened(web, "rassi")
    web.cookies.set("lang", "is")
    page = web.get(replay)
    assert "Greining" in page.text and ">Greina<" in page.text
    web.post(f"{replay}/analysis?game=1&step=0", headers=HX)
    other = opened(web, "kurkku")
    plain = web.post(f"{other}/analysis?game=1&step=0", headers={"origin": "http://testserver"}, follow_redirects=False)
    assert plain.status_code == 429 and "<html" in plain.text and 'href="/replay"' not in plain.text
    assert f'href="{other}?game=1&amp;step=0"' in plain.text
