"""A table of a duplicate round that is over while the round is on at another table: its game's
analysis is refused (every table plays the same cards: its hands would tell the others theirs),
nothing is started or stored, not one card is shown; once the round is over, it may be analysed."""

from __future__ import annotations

from typing import Any

from app.store import analyses as store
from app.store.db import session_scope
from app.web.table.analysis_view import analyses_of
from tests.support.club_nights import (
    bots_finish_first_round,
    bots_finish_table,
    card_codes,
    duplicate_night,
    first_round_slugs,
)

HX = {"hx-request": "true", "origin": "http://testserver"}


def test_a_finished_table_of_a_running_duplicate_round_is_not_analysed(client: Any) -> None:
    night_id = duplicate_night(client, turn_seconds="0")
    slugs = first_round_slugs(client, night_id)
    manager = client.app.state.rooms
    bots_finish_table(client, night_id, "vinder", slugs["vinder"])
    finished = manager.get(slugs["vinder"])
    assert finished.state.game.over and not manager.get(slugs["mellan"]).state.game.over

    for method in ("POST", "GET"):
        for headers in (HX, {"origin": "http://testserver"}):
            refused = client.request(method, f"/r/{slugs['vinder']}/analysis?game=1&step=2", headers=headers)
            assert refused.status_code == 403 and "once the round is over at every table" in refused.text
            assert card_codes(refused.text) == [] and "data-card" not in refused.text
    assert analyses_of(client.app).running() == []
    with session_scope(client.app.state.engine) as session:
        assert store.get_analysis(session, game_key=f"room:{finished.state.id}:1") is None

    # the round over at every table: the button is offered
    bots_finish_first_round(client, night_id, [slugs["mellan"], slugs["taber"]], within=60)
    page = client.get(f"/r/{slugs['vinder']}/replay")
    assert page.status_code == 200 and 'id="analyse"' in page.text
