"""The folded "Previous trick": its plays come from /r/<slug>/previous-trick when a page opens it,
so no push carries them; the section's `data-previous` names the trick they are."""

from __future__ import annotations

import random
import re
from typing import Any

from fastapi.testclient import TestClient

from bench.table_wire import section_attrs
from tests.web.table.test_table_fragments import Viewer, fresh

TRICK = re.compile(r'<div data-trick="([^"]+)">')
CARD = re.compile(r'data-card="([^"]+)"')


def play_until(web: TestClient, preset: str, tricks: int, names: tuple[str, ...] = ("Ann", "Bo", "Cai")) -> Any:
    """A room of `preset` played by random legal moves until `tricks` tricks are taken in its deal."""
    manager = web.app.state.rooms  # type: ignore[attr-defined]

    async def play() -> Any:
        room, _token = await manager.create_room(preset=preset, options={}, seats=3, host_name=names[0])
        for name in names[1:]:
            await room.join(name)
        await room.start(0, dealer=0)
        rng, taken, last = random.Random(7), 0, None
        while True:
            g = room.state.game
            view = g.view(None)
            if view.get("last_trick") not in (None, last):
                taken, last = taken + 1, view["last_trick"]
            if view["phase"] == "play" and last is not None and taken >= tricks:
                return room
            if g.to_act is None:
                await room.deal_next(room.state.version, by=0)
            else:
                await room.act(g.to_act, rng.choice([str(a) for a in g.legal_actions()]), room.state.version)

    return web.portal.call(play)  # type: ignore[attr-defined]


def test_the_previous_trick_is_the_trick_taken_last_and_the_table_names_it(web: TestClient) -> None:
    room = play_until(web, "gurka-night", 1)
    answer = web.get(f"/r/{room.state.slug}/previous-trick")
    assert answer.status_code == 200 and answer.headers["cache-control"] == "no-store"
    last = room.state.game.view(None)["last_trick"]
    played = [c for p in last["plays"] for c in p["cards"]]
    assert CARD.findall(answer.text) == played  # its cards, in the order played, and nothing else
    table = fresh(web, room, Viewer(None, "en", None))
    assert TRICK.findall(answer.text) == [section_attrs(table)["data-previous"]]
    assert 'class="lastplays"></div>' in table  # the table itself carries no play of it


def test_before_a_trick_is_taken_there_is_none_and_names_are_text(web: TestClient) -> None:
    manager = web.app.state.rooms  # type: ignore[attr-defined]

    async def lobby() -> Any:
        room, _token = await manager.create_room(preset="gurka-night", options={}, seats=3, host_name="Ann")
        return room

    room = web.portal.call(lobby)  # type: ignore[attr-defined]
    empty = web.get(f"/r/{room.state.slug}/previous-trick")
    assert empty.status_code == 200 and CARD.findall(empty.text) == []
    assert web.get("/r/no-such-room/previous-trick").status_code == 404

    room = play_until(web, "kurkku", 2, names=("<b>Ann</b>", 'Bo "B"', "Cai & Dóra"))
    text = web.get(f"/r/{room.state.slug}/previous-trick").text
    assert "<b>Ann</b>" not in text and "Cai & Dóra" not in text  # escaped by the template
    assert any(n in text for n in ("&lt;b&gt;Ann&lt;/b&gt;", "Bo &#34;B&#34;", "Cai &amp; Dóra"))


def test_the_previous_trick_is_said_in_the_readers_language(web: TestClient) -> None:
    room = play_until(web, "gurka-night", 1)
    english = web.get(f"/r/{room.state.slug}/previous-trick", headers={"accept-language": "en"}).text
    finnish = web.get(f"/r/{room.state.slug}/previous-trick", headers={"accept-language": "fi"}).text
    assert "took it" in english and "took it" not in finnish
    assert CARD.findall(english) == CARD.findall(finnish)
