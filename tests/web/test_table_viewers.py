"""The parts of a table rendered once for every viewer still say "you" to the right one: the
seats, the trick and the deal's result are shared, and only the viewer's own words and buttons
differ (app/web/table/viewer_marks.py)."""

from __future__ import annotations

import json
import random
import re
from typing import Any

import pytest
from fastapi.testclient import TestClient
from markupsafe import Markup

from app.i18n import _, use_language
from app.web.table.viewer_marks import Marked, mark, viewer
from tests.web.test_room_protocol import start, three_players
from tests.web.test_turn_timer import settle

MARKS = re.compile("[\x01-\x04]")


def table(room: Any, seat: int | None, lang: str = "en") -> str:
    return str(json.loads(room.table_frame(seat, lang))["content"])


def own_rows(html: str) -> list[str]:
    return re.findall(r'<li class="seat[^"]*\bme\b[^"]*" data-seat="(\d+)"', html)


def play(players: list[Any], room: Any, rng: random.Random) -> None:
    seat = room.game.to_act
    before = room.version
    players[seat].send(do="act", action=rng.choice(room.game.view(seat)["legal"]), v=before, aid=f"a{before}")
    settle(players[0].client)
    assert room.version > before


def test_each_viewer_sees_only_its_own_seat_as_its_own(web: TestClient) -> None:
    _slug, room, players = three_players(web, target="12")
    start(players, room)
    rng = random.Random(4)
    tricks_told = 0
    for _step in range(40):
        if room.game.over:
            break
        tables = {seat: table(room, seat) for seat in (0, 1, 2, None)}
        for seat, html in tables.items():
            assert not MARKS.search(html), "no viewer mark is left in a page"
            assert own_rows(html) == ([] if seat is None else [str(seat)])
            assert html.count('class="tag you"') == (0 if seat is None else 1)
        last = room.game.view(None).get("last_trick")
        trick = room.game.view(None).get("trick") or {}
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
    assert room.status == "lobby" and 2 not in room.present()
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


def test_a_mark_gives_each_kind_of_viewer_its_words_and_escapes_them() -> None:
    mark = viewer(1, me="yours", seated="<b>Bo</b>'s", watching="seen", host="host's")
    html = Marked(Markup("[") + mark + Markup("]"))
    assert html.for_viewer(1, host=0) == "[yours]"
    assert html.for_viewer(0, host=0) == "[host&#39;s]"
    assert html.for_viewer(2, host=0) == "[&lt;b&gt;Bo&lt;/b&gt;&#39;s]"
    assert html.for_viewer(None, host=0) == "[seen]"
    plain = Marked(viewer(3, me="mine", seated="theirs"))
    assert plain.for_viewer(None, host=3) == "theirs"  # watching and the host default to seated
    assert plain.for_viewer(1, host=1) == "theirs"
    assert Marked("no marks here").for_viewer(1, host=1) == "no marks here"


def test_a_part_escaped_for_json_piece_by_piece_is_the_whole_escaped() -> None:
    """A push joins pieces escaped once: the same string json.dumps makes of the whole."""
    mark = viewer(0, me='<b>"you"</b> ♥\\', seated="Dóra \\u0001 \\u0000 \\\\u0000 𝄞", watching="\n\t\\")
    two = viewer(2, me="ÿ", seated="\\", host="\"")
    part = Marked(Markup('<p class="x">\u00e9') + mark + Markup("\\ mid \x7f") + two + Markup("</p>\n"))
    for me, host in ((0, 2), (2, 2), (1, 2), (1, 1), (None, 0)):
        escaped = part.json_for_viewer(me, host)
        assert f'"{escaped}"' == json.dumps(str(part.for_viewer(me, host)))
        assert json.loads(f'"{escaped}"') == part.for_viewer(me, host)


def test_a_part_put_together_from_pieces_is_the_part_split_from_its_text() -> None:
    """Python draws parts from text and marks (`Marked.of`), templates write marks as text
    (`Marked(html)`): both make the same part, and a part of parts is their pieces joined."""
    one = mark(0, me='<b>"you"</b> ♥\\', seated="Dóra \\u0001 𝄞", watching="\n")
    two = mark(2, me="ÿ", seated="\\", host="\"")
    pieces = ['<p class="x">\u00e9', one, "\\ mid \x7f", two, "</p>\n"]
    built = Marked.of(*pieces)
    split = Marked(Markup(pieces[0]) + Markup(one.text) + Markup(pieces[2]) + Markup(two.text) + Markup(pieces[4]))
    assert built.html == split.html and built.items == split.items and built.json_items == split.json_items
    halves = Marked.joined([Marked.of(*pieces[:2]), Marked.of(*pieces[2:])])
    assert halves.html == built.html
    for me, host in ((0, 2), (2, 2), (1, 2), (None, 0)):
        assert halves.for_viewer(me, host) == built.for_viewer(me, host) == split.for_viewer(me, host)
        assert halves.json_for_viewer(me, host) == built.json_for_viewer(me, host)
        assert json.loads(f'"{built.json_for_viewer(me, host)}"') == built.for_viewer(me, host)
    with pytest.raises(TypeError):
        Marked.of(3)  # type: ignore[arg-type]
