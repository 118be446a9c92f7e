"""Absent seats on a fake clock: the "Let a bot play" button is pushed to everyone seated the
moment the takeover delay has passed (no refresh), anyone seated may press it, and the host
role passes to the next present player when the host leaves the waiting room."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from app.main import create_app
from app.rooms.clock import FakeClock
from tests.conftest import make_settings
from tests.web.table.wsutil import advance, catch_up, close_all, seen, settle, three_seated


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def slow_takeover(db_url: str, clock: FakeClock) -> Iterator[TestClient]:
    settings = make_settings(db_url, seat_takeover_seconds=60.0)
    with TestClient(create_app(settings, clock=clock)) as client:
        try:
            yield client
        finally:
            close_all()


def test_the_bot_button_is_pushed_when_the_delay_passes_and_a_non_host_presses_it(
    slow_takeover: TestClient, clock: FakeClock
) -> None:
    client = slow_takeover
    room, players = three_seated(client, "0")
    players[0].send(do="start", v=room.state.version)
    settle(client)
    catch_up(players, room)
    players[2].close()  # Cai's tab closes
    settle(client)
    for p in players[:2]:
        update = p.recv()  # presence: Cai is away, and only his row's change is sent
        assert update["kind"] == "fragments" and 'class="dot off" id="dot-2"' in update["content"]
        assert "Let a bot play for Cai" not in p.visible
    advance(client, clock, 59.0)
    assert not room.can_hand_to_bot(2)
    advance(client, clock, 2.0)
    for p in players[:2]:  # pushed by the server's timer, nobody refreshed
        frame = p.recv_table()
        assert "Let a bot play for Cai" in frame["content"]
    players[1].send(do="hand_to_bot", seat=2, v=room.state.version)  # Bo is not the host
    settle(client)
    assert room.state.seats[2].bot_controlled and room.state.host == 0


def test_the_host_role_passes_on_when_the_host_leaves_the_waiting_room(
    slow_takeover: TestClient, clock: FakeClock
) -> None:
    client = slow_takeover
    room, players = three_seated(client, "60")
    assert room.state.host == 0
    players[0].close()
    settle(client)
    for p in players[1:]:
        p.recv_table()
    advance(client, clock, 30.0)
    assert room.state.host == 0  # a refresh or a short absence keeps the role
    advance(client, clock, 31.0)
    assert room.state.host == 1
    catch_up(players[1:], room)
    assert seen(players[1]) == room.state.version
    assert '"do":"start"' in players[1].visible  # Bo may start the game now
    assert '"do":"start"' not in players[2].visible
    # the old host comes back: the role stays where it went
    players[0].connect()
    settle(client)
    assert room.state.host == 1
