"""Issue 24, item 13: what a table shows is still true. "Take my seat back" is offered while a
bot plays your seat in a game, not once the game is over. (The "Time: …" note:
tests/web/table/test_turn_timer.py; the used rejoin code on the old device:
tests/e2e/test_table_never_stuck_browser.py.)"""

from __future__ import annotations

import random

from fastapi.testclient import TestClient

from tests.web.table.wsutil import Player, create_room, join

TAKE_BACK = "Take my seat back"


def test_take_my_seat_back_is_offered_during_the_game_only(web: TestClient) -> None:
    slug, anna_token = create_room(web, seats=3, bots=1, target=8)
    bo_token = join(web, slug, "Bo")
    anna, bo = Player(web, slug, anna_token).connect(), Player(web, slug, bo_token).connect()
    room = web.app.state.rooms.get(slug)  # type: ignore[attr-defined]
    seat = next(s.seat for s in room.state.seats.values() if s.name == "Bo")
    anna.recv_table(), bo.recv_table()
    anna.send(do="start", v=room.state.version)
    while room.state.status != "playing":
        anna.recv()
    bo.close()  # Bo leaves; once he is shown away, Anna lets a bot play for him (no delay here)
    while f'class="dot off" id="dot-{seat}"' not in anna.recv().get("content", ""):
        pass
    anna.send(do="hand_to_bot", seat=seat, v=room.state.version)
    while not room.state.seats[seat].bot_controlled:
        assert anna.recv()["kind"] != "notice", anna.frames[-1]
    rng = random.Random(3)
    bo = Player(web, slug, bo_token).connect()  # back on the page: the bot still plays his seat
    assert TAKE_BACK in bo.recv_table()["content"]
    while room.state.status != "over":  # Anna plays on (Bo's bot too) to the game's end
        if room.state.game.to_act == 0:
            legal = [str(a) for a in room.state.game.legal_actions()]
            anna.send(do="act", action=rng.choice(legal), v=room.state.version)
        frame = anna.recv()
        if frame["kind"] == "notice":
            anna.recv()  # a stale move: the fresh table follows
    assert room.state.seats[seat].bot_controlled  # still the bot's seat...
    final = Player(web, slug, bo_token).connect().recv_table()["content"]
    assert 'class="panel gameover"' in final
    assert TAKE_BACK not in final  # ...but nothing to take back from it after the game
    anna.close()
    bo.close()
