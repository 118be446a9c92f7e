"""A club page that waits on the database never delays a room: the handler's database work
runs in a worker thread, so the event loop keeps answering every room's websocket."""

from __future__ import annotations

import threading
import time
from typing import Any

from app.store import members as member_store
from tests.web.club.helpers import become_elder, csrf_of, member_ids
from tests.web.table.wsutil import Player, close_all, create_room

ROUND_TRIP_LIMIT = 0.2  # seconds


def _hold(monkeypatch: Any, name: str) -> tuple[threading.Event, threading.Event]:
    """Make `app.store.members.<name>` wait (in whatever thread calls it) until released."""
    entered, release = threading.Event(), threading.Event()
    real = getattr(member_store, name)

    def held(*args: Any, **kwargs: Any) -> Any:
        entered.set()
        assert release.wait(15), "never released"
        return real(*args, **kwargs)

    monkeypatch.setattr(member_store, name, held)
    return entered, release


def _next_table(player: Player) -> None:
    while player.recv()["kind"] != "table":  # a sync also sends the chat; skip to the table
        pass


def _round_trip(player: Player) -> float:
    started = time.perf_counter()
    player.send(do="sync", v=player.version)
    _next_table(player)
    return time.perf_counter() - started


def _seated(client: Any) -> Player:
    """A new room's host on its websocket, the table read."""
    slug, token = create_room(client)
    player = Player(client, slug, token).connect()
    _next_table(player)
    return player


def _round_trips_while_held(player: Player, held: tuple[threading.Event, threading.Event], request: Any,
                            what: str) -> tuple[list[int], list[float]]:
    """`request()` (a club page's status code) in a thread of its own, and while its database call
    is `held` (`_hold`), five round trips of the room's websocket: the statuses and the trips' seconds."""
    entered, release = held
    answers: list[int] = []
    thread = threading.Thread(target=lambda: answers.append(request()))
    thread.start()
    try:
        assert entered.wait(10), f"the {what} never reached its database call"
        trips = [_round_trip(player) for _ in range(5)]
        assert not answers, f"the {what} finished early: the test held nothing"
    finally:
        release.set()
        thread.join(15)
        close_all()
    return answers, trips


def test_a_room_answers_while_a_club_form_is_held_inside_its_database_call(client: Any, monkeypatch: Any) -> None:
    player = _seated(client)
    become_elder(client)
    ids = member_ids(client)
    csrf = csrf_of(client.get("/club/beer").text)
    held = _hold(monkeypatch, "list_members")  # add_debt reads the members
    answers, trips = _round_trips_while_held(player, held, lambda: client.post(
        "/club/beer", data={"csrf": csrf, "member": str(ids["Elsa"]), "reason": "held", "crates": "1"},
        follow_redirects=False).status_code, "form")
    assert answers == [303]
    assert max(trips) < ROUND_TRIP_LIMIT, trips


def test_a_room_answers_while_the_elder_login_waits_for_the_database(client: Any, monkeypatch: Any) -> None:
    player = _seated(client)
    become_elder(client)
    client.cookies.clear()
    csrf = csrf_of(client.get("/club/login").text)
    held = _hold(monkeypatch, "get_member_by_name")
    answers, trips = _round_trips_while_held(player, held, lambda: client.post(
        "/club/login", data={"csrf": csrf, "name": "Elsa", "password": "wrong-password"},
        follow_redirects=False).status_code, "login")
    assert answers == [401]
    assert max(trips) < ROUND_TRIP_LIMIT, trips


def test_a_room_answers_while_a_finished_game_is_analysed(client: Any) -> None:
    """Issue 38: "Analyse" judges a whole game with the strong bot's search, decision after
    decision, in the bot pool's worker processes: the event loop only hands the decisions over
    and writes the progress (in threads), so a room's websocket answers as fast meanwhile."""
    from app.rooms.analyses import Analyses
    from tests.web.table.test_analysis_page import HX, finished_room

    analyses = client.app.state.analyses = Analyses(client.app.state.engine, client.app.state.rooms.bot_pool,
                                                    worlds=96, seconds=None)
    analysed, room = finished_room(client, target="12")
    player = _seated(client)
    try:
        started = client.post(f"/r/{analysed}/analysis?game=1&step=0", headers=HX)
        assert started.status_code == 200 and analyses.running() == [f"room:{room.state.id}:1"]
        trips = [_round_trip(player) for _ in range(8)]
        assert analyses.running(), "the analysis was over before the round trips: the test measured nothing"
        progress = client.get(f"/r/{analysed}/analysis?game=1&step=0")
        assert progress.status_code == 200 and 'data-status="running"' in progress.text
    finally:
        close_all()
    assert max(trips) < ROUND_TRIP_LIMIT, trips
