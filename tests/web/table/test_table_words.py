"""Issue 24, item 14: the table's words say things one way. A player reads "you" for themselves in
a deal's result, never their own name ("Deal 5: you took A♣ 14 points. Out: Anna."); the
game-over list says who went out when, and why the places are as they are. (The house rules'
names: tests/i18n/test_table_languages.py.)"""

from __future__ import annotations

import random
import re
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.i18n import use_language
from app.i18n.jinja import install as install_languages
from app.web.shared.templating import make_templates
from app.web.state import TEMPLATES_DIR
from app.web.table.model import Piece
from app.web.table.places import final_rows
from app.web.table.render import Drawer, setup_templates
from tests.web.table.viewers import read_as
from tests.web.table.wsutil import Player, create_room

NAMES = ["Anna", "Bo", "Cai"]
LAST_DEAL = {"deal_no": 5, "losers": [0], "cards": ["AC"], "points": [14], "multipliers": [1], "agurk": [],
             "final_cards": [], "cleared": [], "went_out": [0, 2]}


def deal_result(view: dict[str, Any], me: int | None) -> str:
    """The table's piece with the last deal's result (the same for every viewer), as the viewer at
    seat `me` reads it."""
    templates = make_templates(TEMPLATES_DIR)
    install_languages(templates.env)
    setup_templates(templates)
    piece = Piece("result", (view["last_deal"], tuple(NAMES), view["target"]))
    return read_as(Drawer(templates).piece({"table-result": piece}, "table-result"),
                   data_me="" if me is None else str(me))


def words(said: str) -> str:
    return re.sub(r"\s+", " ", said).strip()


@pytest.mark.parametrize(("lang", "mine", "others"), [
    ("en", "Deal 5: you took A 14 points Out: you, Cai.", "Deal 5: Anna took A 14 points Out: Anna, Cai."),
    ("da", "Omgang 5: du fik A 14 point Ude: dig, Cai.", "Omgang 5: Anna fik A 14 point Ude: Anna, Cai."),
])
def test_a_deal_result_says_you_to_its_own_player(lang: str, mine: str, others: str) -> None:
    view = {"last_deal": LAST_DEAL, "over": False, "target": 21, "trick": None}
    with use_language(lang):
        own, other, watching = deal_result(view, 0), deal_result(view, 1), deal_result(view, None)
    assert words(own) == mine
    assert "Anna" not in own
    assert words(other) == others  # another player
    assert words(watching) == others
    with use_language(lang):
        third = deal_result(view, 2)
    assert words(third).endswith("Out: Anna, you." if lang == "en" else "Ude: Anna, dig.")


def rows(ranking: list[int], scores: list[int], out_in: dict[int, int], *, by_going_out: bool = True) -> list[Any]:
    view = {"ranking": ranking, "scores": scores, "out": list(out_in)}
    return [(r["name"], r["place"], r["out_deal"], r["shared"])
            for r in final_rows(view["ranking"], view["scores"], ["A", "B", "C", "D"], None, out_in, by_going_out)]


def test_the_final_list_follows_the_order_of_going_out() -> None:
    # D stayed in; C went out last (deal 10) with more points than B (deal 7) and A (deal 2)
    assert rows([3, 2, 1, 0], [21, 28, 24, 11], {0: 2, 1: 7, 2: 10}) == [
        ("D", 1, None, False), ("C", 2, 10, False), ("B", 3, 7, False), ("A", 4, 2, False)]
    # out in the same deal: the rules do not tell them apart, whatever their points
    assert rows([3, 2, 1, 0], [5, 30, 24, 11], {0: 2, 1: 7, 2: 7}) == [
        ("D", 1, None, False), ("C", 2, 7, True), ("B", 2, 7, True), ("A", 4, 2, False)]
    # equal points after different deals: places of their own
    assert rows([3, 2, 1, 0], [5, 24, 24, 11], {0: 2, 1: 7, 2: 9})[1:3] == [("C", 2, 9, False), ("B", 3, 7, False)]
    # a game that ends at the target goes by points: equal points share
    assert rows([0, 3, 1, 2], [10, 12, 30, 12], {2: 4}, by_going_out=False) == [
        ("A", 1, None, False), ("D", 2, None, True), ("B", 2, None, True), ("C", 4, 4, False)]


def test_the_game_over_panel_says_who_went_out_when_and_why(web: TestClient) -> None:
    slug, token = create_room(web, seats=3, bots=2, target=8)
    anna = Player(web, slug, token).connect()
    room = web.app.state.rooms.get(slug)  # type: ignore[attr-defined]
    anna.recv_table()
    anna.send(do="start", v=room.state.version)
    rng = random.Random(11)
    while room.state.status != "over":
        if room.state.status == "playing" and room.state.game.to_act == 0:
            anna.send(do="act", action=rng.choice([str(a) for a in room.state.game.legal_actions()]), v=room.state.version)
        anna.recv()
    while anna.table["version"] != room.state.version or "gameover" not in anna.visible:
        anna.recv()
    panel = anna.visible.split('class="panel gameover"', 1)[1]
    g = room.state.game
    out_in = {seat: d.deal_no for d in g.deal_log for seat in d.went_out}
    names = [room.state.seats[s].name.removesuffix(" (bot)") for s in g.ranking]
    items = re.findall(r"<li.*?</li>", panel, flags=re.DOTALL)
    assert len(items) == 3
    for seat, name, item in zip(g.ranking, names, items, strict=True):
        assert name in item
        if seat in out_in:
            assert f"out in deal {out_in[seat]}" in item
        else:
            assert "still in at the end" in item
    assert "Going out decides the places" in panel
    me = next(item for seat, item in zip(g.ranking, items, strict=True) if seat == 0)
    assert '<span class="tag you">you</span>' in me
    anna.close()
