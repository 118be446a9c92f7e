"""Each viewer's table says "you" to the right one: the seats, the trick and the deal's result
show every viewer the same game, and only the viewer's own words and buttons differ (each kind
of viewer's fragments are rendered for it: app/web/table/publisher.py)."""

from __future__ import annotations

import random
import re
from typing import Any

from fastapi.testclient import TestClient

from app.i18n import _, use_language
from bench.table_wire import parse
from tests.web.table.test_room_protocol import start, three_players
from tests.web.table.viewers import visible_as
from tests.web.table.wsutil import settle

MARKS = re.compile("[\x01-\x04]")


class Viewer:
    """A connection as the publisher sees it: a seat and a language."""

    def __init__(self, seat: int | None, lang: str) -> None:
        self.seat, self.lang = seat, lang
        self.shown: tuple[int, int | None] | None = None


def table(room: Any, seat: int | None, lang: str = "en") -> str:
    """The whole table as `seat`'s page shows it (what is for other viewers left out)."""
    (_conn, frame), = room.manager.audience.tables.table_frames(room, [Viewer(seat, lang)])
    return visible_as(str(parse(frame)["content"]))


def own_rows(html: str) -> list[str]:
    """The rows that read "you" (as the page shows the table)."""
    return [m.group(1) for m in re.finditer(r'<li class="seat[^"]*"[^>]* data-seat="(\d+)"', html)
            if 'class="tag you"' in html[m.end():html.find("</li>", m.end())]]


def play(players: list[Any], room: Any, rng: random.Random) -> None:
    seat = room.state.game.to_act
    before = room.state.version
    players[seat].send(do="act", action=rng.choice(room.state.game.view(seat)["legal"]), v=before, aid=f"a{before}")
    settle(players[0].client)
    assert room.state.version > before


def test_each_viewer_sees_only_its_own_seat_as_its_own(web: TestClient) -> None:
    _slug, room, players = three_players(web, target="12")
    start(players, room)
    rng = random.Random(4)
    tricks_told = 0
    for _step in range(40):
        if room.state.game.over:
            break
        tables = {seat: table(room, seat) for seat in (0, 1, 2, None)}
        for seat, html in tables.items():
            assert not MARKS.search(html), "no viewer mark is left in a page"
            assert own_rows(html) == ([] if seat is None else [str(seat)])
            assert html.count('class="tag you"') == (0 if seat is None else 1)
        last = room.state.game.view(None).get("last_trick")
        trick = room.state.game.view(None).get("trick") or {}
        if last and last.get("winner") is not None and not trick.get("plays"):
            winner = last["winner"]
            name = ["Anna", "Bo", "Cai"][winner]
            for seat, html in tables.items():
                if seat == winner:
                    assert "You took the trick." in html and f"{name} took the trick." not in html
                else:
                    assert f"{name} took the trick." in html and "You took the trick." not in html
            tricks_told += 1
        play(players, room, rng)
    assert tricks_told > 0, "the game got past a trick"


def test_only_seated_players_are_offered_to_let_a_bot_play_for_one_who_is_away(web: TestClient) -> None:
    _slug, room, players = three_players(web, target="12")
    start(players, room)
    players[2].close()  # Cai goes away (bots may take over at once in tests)
    settle(web)
    assert room.can_hand_to_bot(2)
    for seat, offered in ((0, True), (1, True), (None, False)):
        html = table(room, seat)
        assert ('data-key="hand-to-bot-2"' in html) is offered, seat
        assert 'data-key="hand-to-bot-0"' not in html and 'data-key="hand-to-bot-1"' not in html


def test_only_the_host_may_remove_a_player_who_left_the_lobby(web: TestClient) -> None:
    _slug, room, players = three_players(web, target="12")
    players[2].close()
    settle(web)
    assert room.state.status == "lobby" and 2 not in room.present()
    assert 'data-key="remove-2"' in table(room, 0)  # Anna is the host
    for seat in (1, None):
        assert 'data-key="remove-2"' not in table(room, seat)


def test_shared_parts_in_another_language_keep_the_viewer_words(web: TestClient) -> None:
    _slug, room, players = three_players(web, target="12")
    start(players, room)
    da = table(room, 1, "da")
    en = table(room, 1)
    assert own_rows(da) == own_rows(en) == ["1"]
    assert not MARKS.search(da)
    with use_language("da"):
        you = _("you")
    assert you != "you" and f'class="tag you">{you}<' in da
