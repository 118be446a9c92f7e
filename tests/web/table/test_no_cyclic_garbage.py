"""A push leaves no reference cycles behind. Garbage in cycles is freed only by the cyclic
collector, and with thousands of sockets and live games a collection walks a large heap: a
module of template macros made per push (a cycle each) made the collector run every fraction of
a second, for up to 100 ms each time, and that was the p99 of every room (bench/ws_load.py,
1,000 rooms at 300 actions/s: 169-380 ms on Postgres, 4 ms without it)."""

from __future__ import annotations

import gc
import random
from collections import Counter
from collections.abc import Callable

from fastapi.testclient import TestClient

from tests.web.table.test_room_protocol import start, three_players
from tests.web.table.wsutil import settle


def cycles_after(step: Callable[[], int]) -> tuple[int, list[object]]:
    """Run `step`, then collect: what it returned, and what the cyclic collector found (kept
    for a look instead of freed)."""
    gc.collect()  # what was garbage before the step is freed
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        result = step()
        gc.collect()
        return result, list(gc.garbage)
    finally:
        gc.set_debug(0)
        gc.garbage.clear()


def test_pushing_tables_for_a_whole_deal_leaves_no_cycles(web: TestClient) -> None:
    _slug, room, players = three_players(web, target="21")
    start(players, room)
    rng = random.Random(8)

    def play(moves: int) -> int:
        played = 0
        while played < moves and not room.state.game.over and room.state.game.to_act is not None:
            seat = room.state.game.to_act
            before = room.state.version
            players[seat].send(do="act", action=rng.choice(room.state.game.view(seat)["legal"]), v=before, aid=f"a{before}")
            for p in players:
                while p.version <= before:
                    p.recv()
            played += 1
        settle(web)
        return played

    play(5)  # the setting up (pages, joins, the first tables) is over
    renders = web.app.state.publisher.drawn  # type: ignore[attr-defined]
    moves, saved_garbage = cycles_after(lambda: play(30))
    kinds = Counter(f"{type(o).__module__}.{type(o).__name__}" for o in saved_garbage)
    assert moves >= 20 and web.app.state.publisher.drawn >= renders + moves  # type: ignore[attr-defined]
    assert len(saved_garbage) < moves, f"{len(saved_garbage)} objects in cycles after {moves} moves: {kinds.most_common(8)}"
