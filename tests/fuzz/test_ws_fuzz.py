"""Random frames at a live table: every one is answered (a notice or the table), none raises,
none changes the game unless it is a legal move, and no frame shows a card the seat may not see."""

from __future__ import annotations

import json
import logging
from typing import Any

import pytest
from fastapi.testclient import TestClient
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.web.table.test_room_protocol import start
from tests.web.table.wsutil import Player, create_room, foreign_cards, hidden_cards, join, leaks

KEYS = ["do", "v", "action", "seat", "aid"]
DOS = ["act", "sync", "start", "add_bot", "remove", "hand_to_bot", "take_back", "rematch", "teleport"]
NUMBERISH = st.one_of(
    st.integers(), st.integers(min_value=-(10**40), max_value=10**40),
    st.sampled_from(["--1", "²", "١٢", "1_0", " 3 ", "1e9", "0x1", "", "-0", "9" * 4301]),
    st.floats(allow_nan=False), st.booleans(), st.none(),
)
JSON_VALUES = st.recursive(
    st.one_of(st.none(), st.booleans(), NUMBERISH, st.text(max_size=40)),
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=8), inner, max_size=4)),
    max_leaves=12,
)
MESSAGES = st.fixed_dictionaries(
    {}, optional={"do": st.one_of(st.sampled_from(DOS), JSON_VALUES), "v": st.one_of(NUMBERISH, JSON_VALUES),
                  "action": st.one_of(st.sampled_from(["pass", "play 7C", "exchange", "play X1 X1", "free"]),
                                      st.text(max_size=60), JSON_VALUES),
                  "seat": NUMBERISH, "aid": st.one_of(st.text(max_size=70), JSON_VALUES)},
).map(json.dumps)
RAW = st.one_of(
    st.text(max_size=200),
    st.integers(min_value=1, max_value=5000).map(lambda n: "[" * n),
    st.integers(min_value=1, max_value=3000).map(lambda n: '{"a":' * n),
    st.text(max_size=30).map(lambda t: '{"do":"sync","pad":"' + t * 400 + '"}'),
    st.binary(max_size=100),
)
FRAMES = st.one_of(MESSAGES, MESSAGES, RAW)


def _table_state(room: Any) -> str:
    return json.dumps([room.state.version, room.state.status, room.state.game.to_json()], sort_keys=True)


def test_random_frames_are_refused_cleanly_and_leak_nothing(
    fuzz_app: TestClient, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    slug, t0 = create_room(fuzz_app, name="Anna")
    tokens = [t0, join(fuzz_app, slug, "Bo"), join(fuzz_app, slug, "Cai")]
    players = [Player(fuzz_app, slug, t).connect() for t in tokens]
    for i, p in enumerate(players):
        p.drain(3 - i)
    room = fuzz_app.app.state.rooms.get(slug)
    start(players, room)
    spectator = Player(fuzz_app, slug, None).connect()
    spectator.recv_table()
    clients = [*players, spectator]
    counter = iter(range(10**9))

    @settings(settings.get_profile("fuzz"))
    @given(frame=FRAMES, who=st.integers(min_value=0, max_value=3))
    def one(frame: str | bytes, who: int) -> None:
        client = clients[who]
        seat = who if who < 3 else None
        before = _table_state(room)
        marker = f"probe-{next(counter)}"
        if isinstance(frame, bytes):
            client.ws.send_bytes(frame)
        else:
            client.ws.send_text(frame)
        client.send(do=marker)  # answered with "Unknown request 'probe-…'" once the frame is done
        for _ in range(10):
            got = client.recv()
            hidden = hidden_cards(room, seat)
            assert not leaks(got, hidden), (frame, leaks(got, hidden))
            if got["kind"] in ("table", "fragments", "private"):
                assert not foreign_cards(client.table, room.state.game.view(seat))
            if got["kind"] == "notice" and marker in got["message"]:
                client.recv_table()
                break
        else:
            raise AssertionError("the probe was never answered")
        if room.state.version == json.loads(before)[0]:  # refused (or a sync): nothing changed
            assert _table_state(room) == before, frame

    one()
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info]
    assert not errors, [r.getMessage() for r in errors][:3]
    assert len(room.connections) == 4  # every socket survived
    for c in clients:
        c.close()
