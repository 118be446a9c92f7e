"""Duplicate deals at an online Gurka Night: the same decks at the three tables of every round,
no deck shown to anyone before the round is over at every table, and then the comparison and
every player's duplicate score."""

from __future__ import annotations

import functools
import json
import re
import time
from typing import Any

import pytest
from starlette.websockets import WebSocketDisconnect

from app.rooms.replay import build_stories
from app.rules.cards import pretty_cards
from app.store import decks as deck_store
from app.store import rooms as room_store
from app.store.db import session_scope
from app.web.club import online as club_online
from app.web.club.duplicate_decks import DECKS_PER_ROUND
from app.web.shared.security import seat_cookie_name
from tests.conftest import make_settings
from tests.support.club_nights import (
    bots_finish_first_round,
    bots_finish_table,
    card_codes,
    duplicate_night,
    first_round_slugs,
    night_row,
)

from .helpers import NINE, bots_play, core, switch_bots

NIGHT_SECONDS = 300  # a bound against a stalled night, not a speed test
REPLAY_DEAL = re.compile(r'href="(/r/[^"]+/replay\?deal=(\d+))"')


def stored_decks(client: Any, night_id: int) -> dict[tuple[str, int], list[list[str]]]:
    with session_scope(client.app.state.engine) as session:
        return {(r.stage, r.round): r.decks for r in deck_store.list_decks(session, night_id=night_id)}


def room_events(client: Any, slug: str) -> tuple[Any, list[tuple[Any, str, dict[str, Any], Any]]]:
    with session_scope(client.app.state.engine) as session:
        room = room_store.get_room(session, slug=slug)
        assert room is not None and room.id is not None
        return room, [(e.seat, e.kind, dict(e.payload), e.at) for e in room_store.list_events(session, room_id=room.id)]


def check_dealt_from_decks(client: Any, slug: str, decks: list[list[str]]) -> int:
    """Every deal logged by the room is its deck, the p-th hand to the p-th seat from forhånd
    and the rest, in order, the stock (seats out: their hands under the stock). Returns the
    number of deals checked."""
    room, events = room_events(client, slug)
    create = next(p for _s, kind, p, _a in events if kind == "create")
    assert create.get("decks"), "the room was not told to deal the round's decks"
    deals = [p for _s, kind, p, _a in events if kind == "deal"]
    story = build_stories(room.preset, dict(room.options or {}), events)[-1]
    dealt_steps = [s for s in story.steps if s.action == "deal"]
    assert len(dealt_steps) == len(deals)
    for k, (payload, step) in enumerate(zip(deals, dealt_steps, strict=True), start=1):
        deck = decks[k - 1]
        n = len(payload["hands"])
        seats = [s for s in ((step.dealer + 1 + i) % n for i in range(n)) if payload["hands"][s]]
        size = len(payload["hands"][seats[0]])
        for p, seat in enumerate(seats):
            assert payload["hands"][seat] == deck[p * size:(p + 1) * size], (slug, k, p)
        assert payload["stock"] == deck[n * size:] + deck[len(seats) * size:n * size], (slug, k)
    return len(deals)


def test_a_whole_duplicate_night_with_bots_deals_the_same_decks_and_shows_every_comparison(database_url: str) -> None:
    """Bots at every seat through 16 base rounds and 6 finals; then for every round: the three
    rooms dealt deal k from the stored deck k, the comparison page shows every deal with a link
    into each table's replay at that deal, and every player's page shows their duplicate score."""
    from fastapi.testclient import TestClient

    from app.main import create_app

    with TestClient(create_app(make_settings(database_url))) as client:
        night_id = duplicate_night(client)
        url = f"/club/nights/{night_id}"
        csrf = None
        switch_bots(client, night_id, True)
        started = time.monotonic()
        while night_row(client, night_id).status != "done":
            assert time.monotonic() - started < NIGHT_SECONDS, "the night did not finish"
            night = core(client, night_id)
            if night.phase == "playoff" and all(len(g) > club_online.MAX_ONLINE_PLAYOFF for g in night.playoffs):
                from .helpers import token
                csrf = csrf or token(client, url)
                group = night.playoffs[0]
                data = {"csrf": csrf, "group": "0", **{f"place_{i}": p for i, p in enumerate(group)}}
                assert client.post(f"{url}/playoff", data=data, follow_redirects=False).status_code == 303
            time.sleep(0.1)
        night = core(client, night_id)
        row = night_row(client, night_id)
        decks = stored_decks(client, night_id)
        rounds = [(r.stage, r.number) for r in night.history()]
        assert len(rounds) == 22 and set(decks) == set(rounds)
        assert all(len(d) == DECKS_PER_ROUND and len(set(map(tuple, d))) == DECKS_PER_ROUND for d in decks.values())
        page = client.get(url).text
        assert page.count(f'href="{url}/duplicate/') == 22
        deals_checked = 0
        for rnd in night.history():
            slugs = {}
            for table in rnd.seating:
                entry = row.state["rooms"][club_online.room_key(rnd.stage, rnd.number, table)]
                deals_checked += check_dealt_from_decks(client, entry["slug"], decks[(rnd.stage, rnd.number)])
                slugs[table] = entry["slug"]
            compare = client.get(f"{url}/duplicate/{rnd.stage}/{rnd.number}")
            assert compare.status_code == 200
            for table, chairs in rnd.seating.items():
                for p in chairs:
                    assert p in compare.text
            links = REPLAY_DEAL.findall(compare.text)
            # every deal any table played has a link into that table's replay at that deal
            for table, slug in slugs.items():
                _room, events = room_events(client, slug)
                played = sum(1 for e in events if e[1] == "deal")
                assert sorted(int(k) for u, k in links if f"/r/{slug}/" in u) == list(range(1, played + 1))
        assert deals_checked > 22 * 3 * 2
        # a replay link opens that table's replay at the moment the deal it names is dealt
        for link, k in REPLAY_DEAL.findall(compare.text)[-4:]:
            replay = client.get(link)
            assert replay.status_code == 200
            assert f"<h2>Deal {k}</h2>" in replay.text and "The cards are dealt." in replay.text
            current = re.search(r'<a href="\?game=1&amp;step=\d+"[^>]*aria-current="step">(\d+)</a>', replay.text)
            assert current is not None and current.group(1) == k
        # every player's page shows the duplicate score with its picture
        for player in NINE:
            mine = client.get(f"/club/players/{player}").text
            assert 'id="duplicate"' in mine and 'class="dup-chart"' in mine
        print(f"\nduplicate night: {deals_checked} deals checked against their decks")


def _alike(card: str) -> str:
    return "X" if card.startswith("X") else card


def deck_runs(text: str, decks: list[list[str]], run: int = 3) -> list[list[str]]:
    """Runs of `run` cards of any deck, in the deck's order, found in the text's cards."""
    seen = card_codes(text)
    windows = {tuple(seen[i:i + run]) for i in range(len(seen) - run + 1)}
    return [list(deck[i:i + run]) for deck in decks for i in range(len(deck) - run + 1)
            if tuple(map(_alike, deck[i:i + run])) in windows]


def test_no_deck_reaches_any_client_before_the_round_is_over_at_every_table(client: Any) -> None:
    """One table of the round finishes (bots), the other two still play deal 1: its replay is
    refused, the comparison waits, no page or frame shows a card a seat may not see, and no run
    of any of the round's decks is on any page; once every table is over, all open."""
    from tests.web.table.wsutil import Player, visible_cards

    night_id = duplicate_night(client, turn_seconds="0")
    url = f"/club/nights/{night_id}"
    slugs = first_round_slugs(client, night_id)
    manager = client.app.state.rooms
    bots_finish_table(client, night_id, "vinder", slugs["vinder"])
    decks = stored_decks(client, night_id)[("base", 1)]
    run = decks[5][10:16]  # the scanner finds a run however it is written
    assert deck_runs(f'<i data-code="{run[0]}"></i>' + " ".join(run[1:]), decks, run=6) == [run]
    assert deck_runs(pretty_cards(run), decks, run=6) == [run]
    at = decks[5].index("X1")  # a joker is found too, whichever of the two it is
    start = min(max(0, at - 3), len(decks[5]) - 6)
    with_joker = decks[5][start:start + 6]
    assert deck_runs(pretty_cards(with_joker), decks, run=6) == [with_joker]
    assert manager.get(slugs["mellan"]).state.game.deal_no == 1 and manager.get(slugs["vinder"]).state.game.over

    refused = client.get(f"/r/{slugs['vinder']}/replay")
    assert refused.status_code == 403 and "once the round is over at every table" in refused.text
    assert client.get(f"/r/{slugs['vinder']}/replay?deal=1").status_code == 403
    waiting = client.get(f"{url}/duplicate/base/1")
    assert waiting.status_code == 403 and 'id="dup-waiting"' in waiting.text
    for text in (refused.text, waiting.text, client.get(url).text, client.get(f"{url}/live").text):
        assert card_codes(text) == []  # no card at all
    for slug in slugs.values():  # a watcher of any table of the round, the finished one too, is held back
        page = client.get(f"/r/{slug}")
        assert page.status_code == 403 and "opens to watchers once the round is over" in page.text
        assert card_codes(page.text) == [] and 'id="table"' not in page.text
        previous = client.get(f"/r/{slug}/previous-trick")
        assert previous.status_code == 403 and card_codes(previous.text) == []
        with (client.websocket_connect(f"/r/{slug}/ws", headers={"origin": "http://testserver"}) as watcher,
              pytest.raises(WebSocketDisconnect) as closed):
            watcher.receive_text()
        assert closed.value.code == 1008 and "duplicate round" in closed.value.reason

    # every seat still playing: its page and its frames show only what its view shows
    for table in ("mellan", "taber"):
        room = manager.get(slugs[table])
        for chair in range(3):
            tok = client.portal.call(functools.partial(room.issue_token, chair))
            page = client.get(f"/r/{room.state.slug}", headers={"cookie": f"{seat_cookie_name(room.state.slug)}={tok}"}).text
            view = room.state.game.view(chair)
            assert set(card_codes(page)) - {_alike(c) for c in visible_cards(view)} == set(), (table, chair)
            stock_and_later = [decks[0][3 * len(view["hand"]):]] + decks[1:]
            assert deck_runs(page, stock_and_later, run=6) == []
            seat = Player(client, room.state.slug, tok).connect()
            try:
                frame = seat.recv_table()
                assert set(card_codes(frame["content"])) - {_alike(c) for c in visible_cards(view)} == set(), (table, chair)
                assert deck_runs(json.dumps(frame, ensure_ascii=False), stock_and_later, run=6) == []
            finally:
                seat.close()
            client.cookies.clear()
    assert "deck" not in json.dumps(core(client, night_id).standings())

    # the round ends everywhere: the replays and the comparison open
    bots_finish_first_round(client, night_id, [slugs["mellan"], slugs["taber"]])
    assert client.get(f"/r/{slugs['vinder']}/replay").status_code == 200
    watched = client.get(f"/r/{slugs['mellan']}")
    assert watched.status_code == 200 and 'id="table"' in watched.text
    opened = client.get(f"{url}/duplicate/base/1")
    assert opened.status_code == 200 and 'id="deal-1"' in opened.text
    assert all(f"/r/{s}/replay?deal=1" in opened.text for s in slugs.values())


def test_a_table_goes_on_dealing_its_rounds_decks_after_a_restart(app_settings: Any) -> None:
    """The app stops while the round's tables wait at deal 1; after the restart (the rooms
    rebuilt from their logs, the decks read back before they deal), bots play the whole game
    and every deal is still the round's stored deck."""
    from fastapi.testclient import TestClient

    from app.main import create_app

    with TestClient(create_app(app_settings)) as client:
        night_id = duplicate_night(client, turn_seconds="0")
        slug = night_row(client, night_id).state["rooms"]["base-1-mellan"]["slug"]
        assert client.app.state.rooms.get(slug).state.game.deal_no == 1
    with TestClient(create_app(app_settings)) as client:
        room = client.app.state.rooms.get(slug)
        assert room.state.deck_key == f"night-{night_id}-base-1"
        bots_play(client, slug)
        deadline = time.monotonic() + 30
        while room.state.status != "over":
            assert time.monotonic() < deadline, "the bots did not finish the game"
            time.sleep(0.01)
        assert room.state.game.deal_no >= 2  # deals dealt by this process, after the restart
        assert check_dealt_from_decks(client, slug, stored_decks(client, night_id)[("base", 1)]) == room.state.game.deal_no
