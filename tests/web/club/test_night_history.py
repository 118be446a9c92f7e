"""A Gurka Night's tables' games as one history file: a table of a duplicate round gives no file
(alone or in the night's) until the round is over at every table; then every table's game is
in the night's file, each read back strictly and equal to its room's game."""

from __future__ import annotations

import time
from typing import Any

from app.rules.history import read_games
from tests.web.club.helpers import bots_play, core
from tests.web.club.test_duplicate_night import _codes, duplicate_night, night_row

TABLES = ("vinder", "mellan", "taber")


def test_a_nights_file_waits_for_the_duplicate_round_then_holds_every_table(client: Any) -> None:
    night_id = duplicate_night(client, turn_seconds="0")
    rooms = night_row(client, night_id).state["rooms"]
    slugs = {t: rooms[f"base-1-{t}"]["slug"] for t in TABLES}
    manager = client.app.state.rooms
    page = client.get(f"/club/nights/{night_id}")
    assert f'href="/club/nights/{night_id}/history.txt"' in page.text

    bots_play(client, slugs["vinder"])
    deadline = time.monotonic() + 30
    while "vinder" in core(client, night_id).pending_tables:
        assert time.monotonic() < deadline, "the bots' table was not recorded"
        time.sleep(0.02)
    assert manager.get(slugs["vinder"]).state.game.over and not manager.get(slugs["mellan"]).state.game.over

    # the finished table's game is held back while its round is on elsewhere
    refused = client.get(f"/r/{slugs['vinder']}/history.txt")
    assert refused.status_code == 403 and "once the round is over at every table" in refused.text
    assert _codes(refused.text) == []
    night_file = client.get(f"/club/nights/{night_id}/history.txt")
    assert night_file.status_code == 200
    assert night_file.text.startswith("; Gurka Night ") and "0 finished table games" in night_file.text
    assert "left out: base-1-vinder, base-1-mellan, base-1-taber" in night_file.text
    assert _codes(night_file.text.replace("X1", "").replace("X2", "")) == []
    assert "hand " not in night_file.text

    bots_play(client, slugs["mellan"])
    bots_play(client, slugs["taber"])
    deadline = time.monotonic() + 60
    while core(client, night_id).current.number == 1:
        assert time.monotonic() < deadline, "the round did not end"
        time.sleep(0.02)
    night_file = client.get(f"/club/nights/{night_id}/history.txt")
    assert night_file.status_code == 200
    assert night_file.headers["content-disposition"].startswith('attachment; filename="gurka-night-')
    games = read_games(night_file.text)
    by_table = {g.tags["Table"]: g for g in games if g.tags.get("Round") == "1"}
    assert set(by_table) == set(TABLES)
    for table, slug in slugs.items():
        room, read = manager.get(slug), by_table[table]
        assert read.game.scores == room.state.game.scores and read.game.ranking == room.state.game.ranking
        assert sorted(read.names) == sorted(rooms[f"base-1-{table}"]["players"])
        assert read.tags["Link"].endswith(f"/r/{slug}")
        alone = client.get(f"/r/{slug}/history.txt")
        assert alone.status_code == 200 and read_games(alone.text)[0].game.log == read.game.log
