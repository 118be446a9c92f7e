"""The turn timer through the real websocket protocol, on a fake clock (no test waits real
seconds): expiry plays the bot's move and says so, two timeouts in a row hand the seat to a bot
until its player acts, a move that arrives first wins, the deadline survives a restart, and two
processes racing the same deadline make exactly one move."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.main import create_app
from app.rooms.clock import FakeClock
from app.store import rooms as store
from app.store.db import session_scope
from tests.conftest import make_settings
from tests.support.waiting import wait_until
from tests.web.table.wsutil import (
    Player,
    advance,
    catch_up,
    close_all,
    create_room,
    settle,
    three_seated,
)


def make_client(db_url: str, clock: FakeClock) -> TestClient:
    return TestClient(create_app(make_settings(db_url), clock=clock))


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def timed(db_url: str, clock: FakeClock) -> Iterator[TestClient]:
    with make_client(db_url, clock) as client:
        try:
            yield client
        finally:
            close_all()


def seated(client: TestClient, turn_seconds: str = "10") -> tuple[Any, list[Player]]:
    room, players = three_seated(client, turn_seconds)
    players[0].send(do="start", v=room.state.version)
    # the start taken (not "after 50 ms": a busy machine may take longer)
    wait_until(lambda: (settle(client), room.state.status == "playing")[-1], what="the game started",
               seen=lambda: (room.state.status, room.state.version))
    catch_up(players, room)
    return room, players


def timeout_events(db: Any, room_id: int) -> list[store.RoomEvent]:
    with session_scope(db) as session:
        return [e for e in store.list_events(session, room_id=room_id)
                if e.kind == "act" and e.payload.get("timeout")]


def test_the_form_checks_the_turn_timer(timed: TestClient) -> None:
    for bad in ("5", "601", "-3", "soon"):
        response = timed.post("/rooms", data={"name": "Anna", "preset": "gurka-night", "seats": "3",
                                              "turn_seconds": bad})
        assert response.status_code == 400 and "Seconds per move" in response.text, bad
    assert 'name="turn_seconds"' in timed.get("/").text and 'value="60"' in timed.get("/").text
    slug, _token = create_room(timed, turn_seconds="0")
    assert timed.app.state.rooms.get(slug).state.turn_seconds == 0  # type: ignore[attr-defined]


def test_time_runs_out_a_bot_moves_once_then_keeps_the_seat_after_two(
    timed: TestClient, clock: FakeClock
) -> None:
    room, players = seated(timed)
    slow = room.state.game.to_act
    name = room.state.seats[slow].name
    for p in players:  # everybody sees the countdown on the seat to act
        assert 'data-turn-left="10"' in p.table["content"] and 'class="tag clock"' in p.visible
    version = room.state.version
    advance(timed, clock, 9.5)
    assert room.state.version == version  # not yet
    advance(timed, clock, 1.0)
    assert room.state.version > version
    catch_up(players, room)
    assert "Time: a bot played" in players[0].visible and f"for {name}." in players[0].visible
    assert not room.state.seats[slow].bot_controlled  # one timeout: the seat stays human
    assert len(timeout_events(room.manager.db, room.state.id)) == 1

    # a move that arrives before the deadline wins: no timeout for it
    rng = random.Random(5)
    mover = room.state.game.to_act
    assert mover != slow
    advance(timed, clock, 9.0)
    before = room.state.version
    players[mover].send(do="act", action=rng.choice(players[mover].offered_actions()), v=room.state.version)
    settle(timed)
    assert room.state.version > before
    advance(timed, clock, 2.0)  # the old deadline passes: nothing fires for it
    assert len(timeout_events(room.manager.db, room.state.id)) == 1

    # the others play; the slow seat times out again: the bot keeps it now
    pushed = len(players[0].frames)
    while not room.state.seats[slow].bot_controlled:
        assert room.state.status == "playing"
        catch_up(players, room)
        seat = room.state.game.to_act
        if seat == slow:
            advance(timed, clock, 11.0)
            continue
        actor = players[seat]
        actor.send(do="act", action=rng.choice(actor.offered_actions()), v=room.state.version)
        settle(timed)
    settle(timed)
    catch_up(players, room)
    # the table said so (until that seat's bot moves: then it is old news, and a bot that took
    # the trick moves at once)
    said = f"A bot plays for {name} until they act again."
    assert any(said in str(f.get("content", "")) for f in players[0].frames[pushed:])
    assert [e.seat for e in timeout_events(room.manager.db, room.state.id)].count(slow) == 2
    # the player is back and acts: the seat is theirs again
    players[slow].send(do="act", action="play 2C", v=room.state.version)
    settle(timed)
    assert not room.state.seats[slow].bot_controlled


def test_a_pending_deadline_survives_a_restart(db_url: str) -> None:
    first_clock = FakeClock()
    with make_client(db_url, first_clock) as first:
        room, players = seated(first)
        slug, version, seat = room.state.slug, room.state.version, room.state.game.to_act
        for p in players:
            p.close()
    # a new server: nobody connects, yet the stored deadline is kept
    second_clock = FakeClock()
    with make_client(db_url, second_clock) as second:
        again = second.app.state.rooms.get(slug)  # type: ignore[attr-defined]
        assert again.state.version == version and again.turn_deadline() is not None
        advance(second, second_clock, 4.0)
        assert again.state.version == version
        advance(second, second_clock, 7.0)
        assert again.state.version > version
        events = timeout_events(again.manager.db, again.state.id)
        assert [e.seat for e in events] == [seat] and events[0].seq == version + 1


@pytest.mark.parametrize("engine", ["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def test_two_processes_racing_one_deadline_make_exactly_one_move(
    engine: str, tmp_path: Any, request: pytest.FixtureRequest, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level("INFO", logger="gurka.rooms")
    url = f"sqlite:///{tmp_path / 'race.db'}" if engine == "sqlite" else request.getfixturevalue("postgres_url")
    clocks = [FakeClock(), FakeClock()]
    with make_client(url, clocks[0]) as one, make_client(url, clocks[1]) as two:
        room, _players = seated(one)  # (their sockets are closed with the rest)
        version = room.state.version
        other = two.app.state.rooms.get(room.state.slug)  # type: ignore[attr-defined]
        assert other is not None and other.state.version == version and other.turn_deadline() is not None
        watcher = Player(two, room.state.slug, None).connect()  # someone follows the room through two
        try:  # an assert that fails must not leave a socket open: the client's exit would wait for it
            watcher.recv_table()
            # both processes have the deadline armed: their timers asleep on their clocks
            wait_until(lambda: (settle(one), settle(two), clocks[0].sleeping and clocks[1].sleeping)[-1],
                       what="both timers asleep until the deadline",
                       seen=lambda: (clocks[0].sleeping, clocks[1].sleeping, other.timers.task))
            # Both processes reach the deadline at the same moment: each clock is moved past its
            # own room's deadline. (Moving both 11 s assumed the second process's deadline, which
            # it takes from the stored start's wall-clock time, came less than 1 s after its fake
            # clock was made: on a busy machine the set-up takes longer, and it never fired.)
            for client, clock, live in ((one, clocks[0], room), (two, clocks[1], other)):
                deadline = live.turn_deadline()
                assert deadline is not None
                client.portal.call(clock.advance, deadline - clock.now() + 1.0)  # type: ignore[union-attr]
            # both tried: one move is stored, and both rooms stand at its version (the loser
            # reloaded after its refused commit, or followed the doorbell)
            wait_until(lambda: (settle(one), settle(two), room.state.version == other.state.version == version + 1)[-1],
                       what="both processes at the one timed-out move",
                       seen=lambda: (room.state.version, other.state.version, caplog.text[-400:]))
            events = timeout_events(room.manager.db, room.state.id)
            assert len(events) == 1 and events[0].seq == version + 1
            if engine == "sqlite":  # no doorbell between the two: the loser's commit was refused
                assert "another process moved first" in caplog.text
            with session_scope(room.manager.db) as session:
                stored = store.get_room_by_id(session, room_id=room.state.id)
                assert stored is not None and stored.version == room.state.version
        finally:
            close_all()


def test_the_time_note_is_news_until_that_seat_moves_again_or_the_next_deal(db_url: str) -> None:
    """"Time: a bot played 8♦ for X" stays while the others move, and goes when X's seat moves
    again or when the next deal is dealt (it once stayed for three more deals)."""
    clock = FakeClock()
    with TestClient(create_app(make_settings(db_url, deal_pause=2.0), clock=clock)) as client:
        try:
            room, players = seated(client)
            slow = room.state.game.to_act
            rng = random.Random(7)

            def note_shown() -> bool:
                catch_up(players, room)
                return all("Time: a bot" in p.visible for p in players)

            def move(seat: int) -> None:
                before = room.state.version
                legal = [str(a) for a in room.state.game.legal_actions()]  # (a set to select, too)
                players[seat].send(do="act", action=rng.choice(legal), v=room.state.version)
                settle(client)
                assert room.state.version > before

            advance(client, clock, 11.0)  # the slow seat's time runs out: a bot plays its card
            assert note_shown()
            while room.state.game.to_act != slow:  # the others move: still news
                move(room.state.game.to_act)
                assert note_shown()
            move(slow)  # the seat moves again: no longer news
            assert not note_shown() and room.state.time_note is None

            # the seat's time runs out on its last card of the deal; the others finish the deal
            while not (room.state.game.to_act == slow and room.state.game.view(None)["hand_counts"][slow] == 1):
                move(room.state.game.to_act)
            deal = room.state.game.deal_no
            advance(client, clock, 11.0)
            assert note_shown()
            while room.state.game.phase != "waiting":
                assert room.state.game.to_act != slow
                move(room.state.game.to_act)
                assert note_shown()  # the deal's last cards are on the table, the note with them
            advance(client, clock, 2.5)  # the pause is over: the next deal is dealt
            assert room.state.game.deal_no == deal + 1
            assert not note_shown() and room.state.time_note is None
        finally:
            close_all()


def test_what_makes_a_time_note_old_news() -> None:
    """The one rule, shared by the process that made the move and the ones that follow the room
    from its events (`apply_above`)."""
    from app.rooms.changes import old_news

    timed_out = (1, "act", {"action": "play 8D", "timeout": True})
    assert not old_news(1, [timed_out])  # the move the note is about
    assert not old_news(1, [(2, "act", {"action": "play 9D"}), (None, "takeover", {"seat": 1})])
    assert old_news(1, [(1, "act", {"action": "play 9D"})])  # the seat moved again (player or bot)
    assert old_news(1, [(2, "act", {"action": "play 9D"}), (None, "deal", {"hands": [], "stock": []})])
