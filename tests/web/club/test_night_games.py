"""Gurka Night links every table game of the night to its replay, from the night page and from
the player pages."""

from __future__ import annotations

import time
from urllib.parse import quote

from fastapi.testclient import TestClient

from app.main import create_app
from tests.conftest import make_settings
from tests.support.club_nights import night_row, online_night

from .helpers import bots_play


def test_the_night_page_and_a_player_page_link_each_table_game_to_its_replay(sqlite_url: str) -> None:
    with TestClient(create_app(make_settings(sqlite_url))) as client:
        night_id = online_night(client)
        url = f"/club/nights/{night_id}"
        first = dict(night_row(client, night_id).state["rooms"])
        assert len(first) == 3, "the first round opens three tables"
        for entry in first.values():  # nobody came: bots play the first round
            bots_play(client, entry["slug"])
        manager = client.app.state.rooms
        started = time.monotonic()
        while not all(manager.get(e["slug"]).state.status == "over" for e in first.values()):
            assert time.monotonic() - started < 60, "the first round did not finish"
            time.sleep(0.05)

        page = client.get(url).text
        for entry in first.values():
            assert f'href="/r/{entry["slug"]}/replay"' in page
            replay = client.get(f"/r/{entry['slug']}/replay")
            assert replay.status_code == 200 and "Final: 1. " in replay.text and "data-card" in replay.text

        # a player page lists that player's games (once the night is done); here: the links'
        # source, every game of one player, straight from the night's rooms
        from app.web.club.night_games import night_games

        player = next(iter(first.values()))["players"][0]
        games = night_games(night_row(client, night_id).state, player)
        assert [g["replay_url"] for g in games] == [
            f"/r/{e['slug']}/replay" for e in night_row(client, night_id).state["rooms"].values()
            if player in e["players"]
        ]
        assert client.get(f"/club/players/{quote(player)}").status_code == 200
