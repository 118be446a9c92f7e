"""Cheaper pushes: what all seats share is rendered once, from public information only; a seat
coming or going is sent as a small presence frame; a page that missed a push converges."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from app.i18n import use_language
from app.main import create_app
from app.web.state import Tables, seat_table_context
from app.web.table import shared_parts
from app.web.table.look import look_of
from app.web.table.shared_parts import Drawn, look_key, render_shared
from tests.conftest import make_settings
from tests.web.test_room_protocol import play_one, start, three_players
from tests.web.test_turn_timer import settle
from tests.web.wsutil import CODE, Player, close_all, hidden_cards, leaks


@pytest.fixture
def slow_takeover(db_url: str) -> Iterator[TestClient]:
    """A seat that goes away is not offered to a bot for a minute (so presence is all that changes)."""
    with TestClient(create_app(make_settings(db_url, seat_takeover_seconds=60.0))) as client:
        try:
            yield client
        finally:
            close_all()


def test_the_shared_parts_show_no_hand_and_no_stock_card(web: TestClient) -> None:
    _slug, room, players = three_players(web, target="12")
    start(players, room)
    cache = web.app.state.shared_parts  # type: ignore[attr-defined]
    rng = random.Random(11)
    shown_cards = 0
    for _ in range(60):
        if room.game.over:
            break
        parts = cache.get(room, "en")
        html = parts.html()
        hidden = hidden_cards(room, None)  # every hand and the stock, less what is public
        assert hidden, "a game in play has hands and a stock to hide"
        assert not leaks({"content": html}, hidden), leaks({"content": html}, hidden)
        assert "data-hand" not in html
        assert len(parts.stats) == 3  # every seat's count and score is one of the shared parts
        shown_cards += len(CODE.findall(html))
        play_one(players, room, rng)
    assert shown_cards > 0, "the shared parts did show public cards (tricks, penalties)"


def test_the_shared_parts_are_rendered_once_per_version_for_every_seat(web: TestClient,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    _slug, room, players = three_players(web, target="12")
    start(players, room)
    spectator = Player(web, room.slug, None).connect()
    spectator.recv_table()
    cache = web.app.state.shared_parts  # type: ignore[attr-defined]
    before = cache.renders
    looked: list[object] = []

    def counted(r: object) -> object:
        looked.append(r)
        return look_key(r)  # type: ignore[arg-type]

    monkeypatch.setattr(shared_parts, "look_key", counted)
    play_one(players, room, random.Random(2))
    spectator.recv_table()
    assert cache.renders == before + 1  # three seats and a spectator: one rendering of the shared parts
    assert len(looked) == 1, "the room's look was worked out again for a seat of the same push"


def test_a_seat_coming_and_going_sends_the_others_only_the_presence_marks(slow_takeover: TestClient) -> None:
    _slug, room, players = three_players(slow_takeover, target="12")
    start(players, room)
    spectator = Player(slow_takeover, room.slug, None).connect()
    spectator.recv_table()
    version = room.version
    players[2].close()  # Cai's tab closes
    settle(slow_takeover)
    for p in (players[0], players[1], spectator):
        update = p.recv()
        assert update["kind"] == "presence", update
        assert update["version"] == version
        assert 'class="dot off" id="dot-2"' in update["content"] and 'class="dot on" id="dot-0"' in update["content"]
        assert "<section" not in update["content"] and "data-hand" not in update["content"]
        assert len(update["content"]) < 1200  # a whole table is several KB
    back = Player(slow_takeover, room.slug, players[2].token).connect()
    assert back.recv_table()["version"] == version  # the one who comes back gets its whole table
    assert "data-hand" in back.table["content"]
    for p in (players[0], players[1], spectator):
        update = p.recv()
        assert update["kind"] == "presence" and 'class="dot on" id="dot-2"' in update["content"]
    back.close()


def test_a_page_that_missed_pushes_converges_on_the_next_one_and_on_sync(web: TestClient) -> None:
    _slug, room, players = three_players(web, target="12")
    start(players, room)
    rng = random.Random(7)
    bo = players[1]
    missed = len(bo.frames)
    play_one(players, room, rng)
    del bo.frames[missed:]  # Bo's page lost that push (as if its swap never happened)
    assert bo.version < room.version
    # the next move (whoever makes it, Bo too: the server knows the legal plays) pushes the whole
    # table at the new version
    seat = room.game.to_act
    before = room.version
    players[seat].send(do="act", action=room.game.view(seat)["legal"][0], v=before, aid="next")
    for p in players:
        assert p.recv_table()["version"] > before
    fresh = json.loads(room.table_frame(1))["content"]
    assert bo.version == room.version and bo.table["content"] == fresh
    # a page that shows an old version (a presence frame told it so) asks for sync: the whole table
    bo.send(do="sync", v=bo.version - 2)
    synced = bo.recv_table()
    assert synced["version"] == room.version and synced["content"] == fresh


def test_the_parts_drawn_before_are_always_the_fresh_ones(web: TestClient) -> None:
    _slug, room, players = three_players(web, target="12")
    start(players, room)
    cache = web.app.state.shared_parts  # type: ignore[attr-defined]
    rng = random.Random(5)
    deals_seen: set[int] = set()
    for _ in range(2000):
        parts = cache.get(room, "en")
        fresh = render_shared(look_of(room), Drawn())  # nothing remembered
        assert parts.score_sheet == fresh.score_sheet
        assert {s: m.html for s, m in parts.stats.items()} == {s: m.html for s, m in fresh.stats.items()}
        for name, part in parts.board.items():  # split (or put together) as freshly drawn
            assert part.html == fresh.board[name].html, name
            for me in (0, 1, 2, None):
                assert part.json_for_viewer(me, 0) == fresh.board[name].json_for_viewer(me, 0), (name, me)
        for name in ("trick", "last_trick", "last_trick_small", "finals", "deal_result", "felt", "seat_list"):
            assert getattr(parts, name) == getattr(fresh, name), name
        finished = len(room.game.deal_log)
        assert (f"Score sheet ({finished} deal" in parts.score_sheet) == (finished > 0)
        deals_seen.add(finished)
        if room.game.over:
            break
        play_one(players, room, rng)
    assert len(deals_seen) >= 3, deals_seen  # checked before any deal finished, and after two


def test_a_push_carries_the_very_table_the_page_shows(web: TestClient) -> None:
    """A push is put together from pieces escaped for JSON once per look; decoded, it is the
    section the page renders, for every seat and a spectator, in the lobby, in play and after."""
    _slug, room, players = three_players(web, target="12")

    def same_everywhere() -> int:
        for lang in ("en", "da"):
            for seat in (0, 1, 2, None):
                with use_language(lang):
                    page = str(seat_table_context(web.app, room, seat)["table_html"])
                assert json.loads(room.table_frame(seat, lang))["content"] == page, (lang, seat)
        return 1

    checked = same_everywhere()  # the lobby
    start(players, room)
    rng = random.Random(4)
    while not room.game.over:
        checked += same_everywhere()
        play_one(players, room, rng)
    checked += same_everywhere()  # the ranking
    assert checked > 10 and 'data-mode="over"' in json.loads(room.table_frame(0))["content"]


def test_every_push_is_the_table_drawn_afresh(web: TestClient) -> None:
    """What a room remembers between pushes (shared parts, each seat's status bar and hand)
    never shows anything but what a table drawn from nothing shows."""
    _slug, room, players = three_players(web, target="12")
    start(players, room)
    tables = web.app.state.tables  # type: ignore[attr-defined]
    rng = random.Random(8)
    checked = 0
    while not room.game.over and checked < 400:
        fresh = Tables(tables.templates)  # nothing remembered
        fresh.panels = tables.panels
        for seat, p in enumerate(players):
            assert p.version == room.version
            with use_language("en"):
                drawn = fresh.context(room, seat, push=True)["table_json"]
            assert p.table["content"] == json.loads(f'"{drawn}"'), seat
            checked += 1
        play_one(players, room, rng)
    assert checked > 30
