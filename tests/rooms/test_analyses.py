"""The analyses' runner (app/rooms/analyses.py) on its own: a run that waits (for its turn, or for
the bots to let its next decision go) keeps its row, so no other process starts the game again;
a run whose process is gone goes quiet and the next request starts it afresh; runs take turns."""

from __future__ import annotations

import asyncio
from pathlib import Path

from app.rooms.analyses import Analyses
from app.rules.analysis import decisions
from app.rules.history import read_games
from app.rules.history_examples import example_text
from app.store.db import make_engine, upgrade
from tests.web.table.test_analysis_page import GatedPool


async def test_a_waiting_run_keeps_its_game_and_a_dead_one_is_started_again(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'a.db'}"
    upgrade(url)
    engine = make_engine(url)
    game = read_games(example_text("kurkku"))[0].game
    listed = decisions(game)
    first_pool, other_pool = GatedPool(), GatedPool()
    first = Analyses(engine, first_pool, worlds=2, seconds=None, quiet=1.5)  # type: ignore[arg-type]
    other = Analyses(engine, other_pool, worlds=2, seconds=None, quiet=1.5)  # type: ignore[arg-type]
    try:
        assert first.claim("file:k:1", "v1", len(listed))
        first.run("file:k:1", game.ruleset, listed)
        # a second game waits for its turn in this process
        assert first.claim("file:k:2", "v1", len(listed))
        first.run("file:k:2", game.ruleset, listed)
        await asyncio.sleep(2.5)  # longer than `quiet`: nothing let go, yet both are alive
        assert first.state("file:k:1").status == "running" and first_pool.asked == [listed[0].step]
        assert first.state("file:k:2").status == "waiting"
        assert not other.claim("file:k:1", "v2", len(listed)) and not other.claim("file:k:2", "v2", len(listed))
        assert first.running_for("v1") == ["file:k:1", "file:k:2"] and first.active() == 2

        await first.stop()  # its process is gone: the rows go quiet
        first_pool.let(1000)
        await asyncio.sleep(1.7)
        assert first.state("file:k:1").status == "failed" and first.running_for("v1") == []
        assert other.claim("file:k:1", "v2", len(listed))  # started again, by one request only
        assert not first.claim("file:k:1", "v3", len(listed))
        other.run("file:k:1", game.ruleset, listed)
        other_pool.let(len(listed))
        await other.wait("file:k:1")
        done = other.state("file:k:1")
        assert done.status == "done" and done.done == done.total == len(listed)
        assert [j.step for j in done.judged] == [d.step for d in listed]
    finally:
        first_pool.let(1000)
        other_pool.let(1000)
        await first.stop()
        await other.stop()
        engine.dispose()
