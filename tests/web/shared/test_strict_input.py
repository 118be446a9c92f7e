"""Issue 10: every number and JSON frame from a client is parsed strictly; refusals are clear
notices or 400/422 pages, never a traceback or a 500, and they change nothing."""

from __future__ import annotations

import json
import logging

import pytest
from fastapi.testclient import TestClient

from app.parsing import BadFrame, nesting_depth, parse_json_object, strict_int
from tests.support.club_nights import new_night
from tests.web.club.helpers import (
    add_members,
    become_elder,
    core,
    token,
)
from tests.web.table.test_room_protocol import start, three_players


@pytest.mark.parametrize("raw", ["--1", "²", "١٢", "1_000", "1" * 4301, "", " ", "1e3", "0x10", True, None, 1.5])
def test_strict_int_refuses_what_int_would_choke_on_or_misread(raw: object) -> None:
    assert strict_int(raw) is None


def test_strict_int_takes_plain_numbers_within_bounds() -> None:
    assert strict_int(" 42 ") == 42
    assert strict_int("-3") == -3
    assert strict_int(7, lo=0, hi=9) == 7
    assert strict_int("10", lo=0, hi=9) is None
    assert strict_int("-1", lo=0) is None


def test_json_depth_is_measured_outside_strings_and_bounded_before_parsing() -> None:
    assert nesting_depth('{"a": "[[[[[[", "b": [1, {"c": 2}]}') == 3
    with pytest.raises(BadFrame, match="nested too deeply"):
        parse_json_object("[" * 2000, max_bytes=8192, max_depth=4)
    with pytest.raises(BadFrame, match="too large"):
        parse_json_object("x" * 9000, max_bytes=8192, max_depth=4)
    assert parse_json_object('{"do": "sync"}', max_bytes=100, max_depth=4) == {"do": "sync"}


NASTY_FRAMES = [
    '{"do":"sync","v":"--1"}',
    '{"do":"sync","v":"²"}',
    '{"do":"act","action":"pass","v":"²"}',
    '{"do":"sync","v":"' + "1" * 4301 + '"}',
    '{"do":"sync","v":' + "1" * 4301 + "}",
    "[" * 2000,
    '{"do":"remove","seat":"²"}',
    '{"do":"hand_to_bot","seat":"' + "9" * 5000 + '"}',
]


def test_the_frames_that_raised_get_a_notice_and_the_socket_stays_open(
    web: TestClient, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    _slug, room, players = three_players(web)
    start(players, room)
    version, snapshot = room.state.version, json.dumps(room.state.game.to_json(), sort_keys=True)
    actor = players[room.state.game.to_act]
    for frame in NASTY_FRAMES:
        actor.ws.send_text(frame)
        first = actor.recv()
        # sync answers with the table; everything else with a notice (and the table)
        assert first["kind"] in ("notice", "table"), frame
        if first["kind"] == "notice":
            assert first["message"] and "Traceback" not in first["message"]
            actor.recv_table()
        else:  # a sync: the table, then the recent chat and the seat's chat form
            assert {actor.recv()["kind"] for _ in range(2)} == {"chat", "chatform"}, frame
    assert room.state.version == version
    assert json.dumps(room.state.game.to_json(), sort_keys=True) == snapshot
    # still open and still playing: a real move goes through
    actor.send(do="act", action=actor.offered_actions()[0], v=version, aid="after")
    assert actor.recv_table()["version"] > version
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info]
    assert not errors, [r.getMessage() for r in errors]
    for p in players:
        p.close()


@pytest.mark.parametrize("year", ["²", "9" * 5000, "--1", "١٩٩٩"])
def test_hall_of_fame_refuses_a_strange_year_with_a_400_page(client, year: str) -> None:
    response = client.get("/club/hall-of-fame", params={"year": year})
    assert response.status_code == 400
    assert "text/html" in response.headers["content-type"]
    assert "The year must be a year" in response.text
    assert client.get("/club/hall-of-fame", params={"year": "2025"}).status_code == 200


def test_beer_form_with_a_superscript_is_a_form_error(client) -> None:
    become_elder(client)
    ids = add_members(client, ["Bo"])
    csrf = token(client, "/club/beer")
    for crates, night in (("²", ""), ("1", "²"), ("9" * 5000, "")):
        response = client.post("/club/beer", data={"csrf": csrf, "member": str(ids["Bo"]),
                                                   "reason": "broke the date", "crates": crates,
                                                   "night": night})
        assert response.status_code in (200, 422), (crates, response.status_code)
        if crates != "1":
            assert "A debt is 1 to 10 crates." in response.text


def test_results_form_with_superscripts_is_a_form_error(client) -> None:
    night_id = new_night(client)
    night = core(client, night_id)
    table = night.pending_tables[0]
    chairs = night.tables[table]
    csrf = token(client, f"/club/nights/{night_id}")
    base = {"csrf": csrf, "table": table, "phase": night.stage, "round": str(night.current.number),
            "first_out": chairs[0], "second_out": chairs[1], "winner": chairs[2]}
    response = client.post(f"/club/nights/{night_id}/results", data={**base, "agurk_0": "²"})
    assert response.status_code == 422
    assert "must be a whole number" in response.text
    response = client.post(f"/club/nights/{night_id}/results", data={**base, "round": "²"})
    assert response.status_code == 422
    assert "already recorded or not open" in response.text
    response = client.post(f"/club/nights/{night_id}/playoff", data={"csrf": csrf, "group": "²"})
    assert response.status_code == 422
    assert core(client, night_id).round == night.round  # nothing was recorded


def test_a_bad_path_number_is_a_400_page_not_a_traceback(client) -> None:
    response = client.get("/club/nights/²")
    assert response.status_code == 400
    assert "text/html" in response.headers["content-type"]
