"""The room websocket protocol, end to end through TestClient: whole games, refusals, leaks."""

from __future__ import annotations

import json
import random

import pytest
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from tests.web.table.wsutil import Player, create_room, foreign_cards, hidden_cards, join, leaks


def three_players(web: TestClient, **options):
    slug, t0 = create_room(web, name="Anna", seats=3, **options)
    t1 = join(web, slug, "Bo")
    t2 = join(web, slug, "Cai")
    players = [Player(web, slug, t) for t in (t0, t1, t2)]
    for i, p in enumerate(players):
        p.connect()
    # every attach publishes presence to everybody already connected
    for i, p in enumerate(players):
        p.drain(3 - i)
    room = web.app.state.rooms.get(slug)
    return slug, room, players


def start(players, room):
    host = players[0]
    host.send(do="start", v=host.version)
    for p in players:
        p.recv_table()
    assert room.state.status == "playing"


def check_no_leaks(players, room):
    for seat, p in enumerate(players):
        hidden = hidden_cards(room, seat)
        frame = p.table
        assert not leaks(frame, hidden), (seat, leaks(frame, hidden))
        assert not foreign_cards(frame, room.state.game.view(seat)), (seat, foreign_cards(frame, room.state.game.view(seat)))


def play_one(players, room, rng):
    """The seat to act plays one of the actions its page offers; everybody gets the new table."""
    seat = room.state.game.to_act
    actor = players[seat]
    offered = actor.offered_actions()
    view = room.state.game.view(seat)
    assert sorted(offered) == sorted(view["legal"]), "the page offers exactly the legal plays"
    action = rng.choice(offered)
    before = room.state.version
    actor.send(do="act", action=action, v=actor.version, aid=f"a{before}")
    for p in players:
        frame = p.recv_table()
        assert frame["version"] > before
    check_no_leaks(players, room)


def test_three_seats_play_a_whole_game(web: TestClient) -> None:
    slug, room, players = three_players(web, target="12")
    start(players, room)
    check_no_leaks(players, room)
    rng = random.Random(5)
    moves = 0
    while not room.state.game.over:
        play_one(players, room, rng)
        moves += 1
        assert moves < 2000
    assert room.state.status == "over"
    for p in players:
        assert "Game over" in p.visible
        assert "Ready for a rematch" in p.visible
    ranking = room.state.game.view(None)["ranking"]
    assert sorted(ranking) == [0, 1, 2]
    # every frame any seat ever received was scanned at the time; spectators see no hands
    spectator = Player(web, slug, None).connect()
    frame = spectator.recv_table()
    assert "data-hand" not in frame["content"]
    spectator.close()  # a spectator coming and going changes nothing the players see: no push
    # a rematch for the same players starts when every one of them has said yes
    players[1].send(do="rematch", v=players[1].version, aid="rm")
    for p in players:
        while p.recv_table()["version"] < room.state.version:
            pass
    assert room.state.status == "over"
    assert "Ready: Bo." in players[0].visible
    assert "You are ready for a rematch. Waiting for Anna, Cai." in players[1].visible
    players[1].send(do="rematch", v=players[1].version, aid="rm2")
    assert "said yes already" in refused(players[1])
    for seat in (0, 2):
        players[seat].send(do="rematch", v=players[seat].version, aid=f"rm{seat}")
        for p in players:
            p.recv_table()
    assert room.state.status == "playing" and not room.state.game.over
    assert [room.state.seats[i].name for i in range(3)] == ["Anna", "Bo", "Cai"]
    for p in players:
        p.close()


def refused(player: Player) -> str:
    notice = player.recv()
    assert notice["kind"] == "notice", notice
    table = player.recv_table()
    assert table["version"] == notice["version"]
    return notice["message"]


def test_bad_messages_are_refused_and_change_nothing(web: TestClient) -> None:
    slug, room, players = three_players(web)
    start(players, room)
    seat = room.state.game.to_act
    actor, other = players[seat], players[(seat + 1) % 3]
    snapshot = json.dumps(room.state.game.to_json(), sort_keys=True)
    version = room.state.version

    def unchanged() -> None:
        assert room.state.version == version
        assert json.dumps(room.state.game.to_json(), sort_keys=True) == snapshot

    # stale version
    legal = actor.offered_actions()[0]
    actor.send(do="act", action=legal, v=version - 1, aid="s1")
    assert "table changed" in refused(actor)
    unchanged()
    # illegal: a card this seat does not hold, and acting out of turn (the engine's reasons)
    not_mine = next(c for c in hidden_cards(room, seat) if not c.startswith("X"))
    actor.send(do="act", action=f"play {not_mine}", v=version, aid="s2")
    message = refused(actor)
    assert message and "table changed" not in message
    unchanged()
    other_card = room.state.game.view((seat + 1) % 3)["hand"][0]
    other.send(do="act", action=f"play {other_card}", v=version, aid="s3")
    assert "not your turn" in refused(other).lower()
    unchanged()
    # junk JSON, a JSON non-object, an unknown request, an oversized frame, binary junk
    actor.ws.send_text("{not json")
    assert "not valid JSON" in refused(actor)
    actor.ws.send_text("[1, 2]")
    assert "not understood" in refused(actor)
    actor.send(do="teleport", v=version)
    assert "Unknown request" in refused(actor)
    actor.ws.send_text(json.dumps({"do": "act", "action": legal, "v": version, "pad": "x" * 20000}))
    assert "too large" in refused(actor)
    actor.ws.send_bytes(b"\xff\xfe\x00junk")
    assert refused(actor)
    actor.send(do="act", v=version)
    assert "did not name an action" in refused(actor)
    unchanged()
    # spectators cannot act
    spectator = Player(web, slug, None).connect()
    spectator.recv_table()
    spectator.send(do="act", action=legal, v=version, aid="x")
    assert "watching" in refused(spectator)
    unchanged()
    # the room still works: a real move goes through, a repeated one is refused
    actor.send(do="act", action=legal, v=version, aid="good")
    for p in players + [spectator]:
        p.recv_table()
    assert room.state.version > version
    actor.send(do="act", action=legal, v=version, aid="good")
    assert "already received" in refused(actor)
    spectator.close()
    for p in players:
        p.close()


def test_reconnect_restores_the_seat_and_the_table(web: TestClient) -> None:
    _slug, room, players = three_players(web)
    start(players, room)
    rng = random.Random(1)
    for _ in range(4):
        play_one(players, room, rng)
    before = players[1].visible
    hand = room.state.game.view(1)["hand"]
    players[1].close()
    players[0].drain(1), players[2].drain(1)  # presence: Bo went away
    assert 1 not in room.present()
    assert 'class="dot off"' in players[0].visible
    players[1].frames.clear()
    players[1].connect()
    frame = players[1].recv_table()
    players[0].drain(1), players[2].drain(1)
    assert frame["version"] == room.state.version
    for card in hand:
        assert f'data-card="{card}"' in frame["content"]
    assert before.count("data-card") == frame["content"].count("data-card")
    for p in players:
        p.close()


def test_a_player_who_is_not_the_host_hands_an_absent_seat_to_a_bot_and_it_is_taken_back(
    web: TestClient,
) -> None:
    slug, room, players = three_players(web)
    start(players, room)
    players[2].close()
    players[0].drain(1), players[1].drain(1)
    # the button is offered to everyone seated, not only the host
    assert "Let a bot play for" in players[1].visible
    watcher = Player(web, slug, None).connect()
    watcher.recv_table()
    watcher.send(do="hand_to_bot", seat=2, v=room.state.version)
    assert "Only the players at this table" in refused(watcher)
    assert not room.state.seats[2].bot_controlled
    watcher.close()
    assert room.state.host == 0
    players[1].send(do="hand_to_bot", seat=2, v=players[1].version)
    players[0].recv_table(), players[1].recv_table()
    assert room.state.seats[2].bot_controlled
    # play until the bot has moved for Cai at least once
    rng = random.Random(3)
    acted = len([e for e in room.state.game.log if e.get("seat") == 2])
    import time

    while len([e for e in room.state.game.log if e.get("seat") == 2]) == acted:
        for p in players[:2]:  # catch up with every move, the bot's included
            while p.version < room.state.version:
                p.recv_table()
        seat = room.state.game.to_act
        if seat == 2:
            time.sleep(0.02)
            continue
        actor = players[seat]
        actor.send(do="act", action=rng.choice(actor.offered_actions()), v=actor.version)
        for p in players[:2]:
            p.recv_table()
    players[2].frames.clear()
    players[2].connect()
    frame = players[2].recv_table()
    assert "Take my seat back" in frame["content"]
    for p in players[:2]:  # Cai is back (a push of the bot's last move may come first)
        while 'class="dot on" id="dot-2"' not in p.visible:
            p.recv()
    before = room.state.version
    players[2].send(do="take_back", v=players[2].version)
    for p in players:  # (Cai's own page may get the presence change first)
        while p.version <= before:
            p.recv()
    assert not room.state.seats[2].bot_controlled
    for p in players:
        p.close()


def test_origin_is_checked(web: TestClient) -> None:
    slug, token = create_room(web)
    with pytest.raises(WebSocketDisconnect) as info:
        Player(web, slug, token).connect(headers={"origin": "https://evil.example"})
    assert info.value.code == 1008
    ok = Player(web, slug, token).connect(headers={"origin": "http://testserver"})
    ok.recv_table()
    ok.close()


def test_bots_fill_seats_and_play(web: TestClient) -> None:
    slug, token = create_room(web, seats=3, bots=2, target="8")
    host = Player(web, slug, token).connect()
    host.recv_table()
    room = web.app.state.rooms.get(slug)
    host.send(do="start", v=host.version)
    rng = random.Random(7)
    import time

    deadline = time.time() + 20
    while True:
        assert time.time() < deadline
        frame = host.recv()
        if frame["kind"] not in ("table", "fragments", "private"):
            continue
        if "Game over" in host.visible:
            break
        offered = host.offered_actions()
        if host.version == room.state.version and offered:
            host.send(do="act", action=rng.choice(offered), v=host.version)
    assert room.state.status == "over"
    host.close()
