"""A Gurka Night's tables' games as one history file: a table of a duplicate round gives no file
(alone or in the night's) until the round is over at every table; then every table's game is
in the night's file, each read back strictly and equal to its room's game."""

from __future__ import annotations

from typing import Any

from app.rules.history import read_games
from tests.support.club_nights import (
    FIRST_ROUND_TABLES,
    bots_finish_first_round,
    bots_finish_table,
    card_codes,
    duplicate_night,
    first_round_slugs,
    rooms_of,
)


def test_a_nights_file_waits_for_the_duplicate_round_then_holds_every_table(client: Any) -> None:
    night_id = duplicate_night(client, turn_seconds="0")
    rooms = rooms_of(client, night_id)
    slugs = first_round_slugs(client, night_id)
    manager = client.app.state.rooms
    page = client.get(f"/club/nights/{night_id}")
    assert f'href="/club/nights/{night_id}/history.txt"' in page.text

    bots_finish_table(client, night_id, "vinder", slugs["vinder"])
    assert manager.get(slugs["vinder"]).state.game.over and not manager.get(slugs["mellan"]).state.game.over

    # the finished table's game is held back while its round is on elsewhere
    refused = client.get(f"/r/{slugs['vinder']}/history.txt")
    assert refused.status_code == 403 and "once the round is over at every table" in refused.text
    assert card_codes(refused.text) == []
    night_file = client.get(f"/club/nights/{night_id}/history.txt")
    assert night_file.status_code == 200
    assert night_file.text.startswith("; Gurka Night ") and "0 finished table games" in night_file.text
    assert "left out: base-1-vinder, base-1-mellan, base-1-taber" in night_file.text
    assert card_codes(night_file.text.replace("X1", "").replace("X2", "")) == []
    assert "hand " not in night_file.text

    bots_finish_first_round(client, night_id, [slugs["mellan"], slugs["taber"]], within=60)
    night_file = client.get(f"/club/nights/{night_id}/history.txt")
    assert night_file.status_code == 200
    assert night_file.headers["content-disposition"].startswith('attachment; filename="gurka-night-')
    games = read_games(night_file.text)
    by_table = {g.tags["Table"]: g for g in games if g.tags.get("Round") == "1"}
    assert set(by_table) == set(FIRST_ROUND_TABLES)
    for table, slug in slugs.items():
        room, read = manager.get(slug), by_table[table]
        assert read.game.scores == room.state.game.scores and read.game.ranking == room.state.game.ranking
        assert sorted(read.names) == sorted(rooms[f"base-1-{table}"]["players"])
        assert read.tags["Link"].endswith(f"/r/{slug}")
        alone = client.get(f"/r/{slug}/history.txt")
        assert alone.status_code == 200 and read_games(alone.text)[0].game.log == read.game.log
