"""The bot pool: searches run in worker processes off the event loop, the heuristic move is
the fallback when the pool is busy or a search is late, only the seat's knowledge crosses
into a worker, and the pool starts and stops cleanly in a real uvicorn server."""

from __future__ import annotations

import asyncio
import json
import os
import pickle
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from app.bot_pool import BotPool, BotRequest, default_workers
from app.rules import new_game
from app.rules.bots import HeuristicBot, move_for_view
from app.rules.game import Game
from app.rules.search import Budget
from tests.support.app_process import free_port

ROOT = Path(__file__).resolve().parents[1]
CARD = re.compile(r"\b(?:[2-9TJQKA][CDHS]|X[12])\b")
# a search that takes seconds (without a time limit: its answer is reproducible here)
LONG = Budget(worlds=100, seconds=None)


def game_with_a_choice(preset: str = "gurka-night", seed: int = 4) -> Game:
    """A game a few moves into its first deal, the seat to act having a real choice."""
    game = new_game(preset, players=3, seed=seed)
    game.deal()
    bot = HeuristicBot(1)
    while len(game.legal_actions()) < 3 or not game.view(None)["moves"]:
        game.apply(bot.choose(game))
    return game


def request_for(game: Game, kind: str = "strong", seed: int = 9) -> BotRequest:
    seat = game.to_act
    assert seat is not None
    return BotRequest.for_seat(game, seat, kind, seed)


def hidden_from(game: Game, seat: int) -> set[str]:
    """Every card ``seat`` may not know: the other hands, the stock, others' face-down cards."""
    hidden = set(game.stock)
    for other in range(game.players):
        if other != seat:
            hidden.update(game.hands[other])
            hidden.update(game.gave[other])
    return hidden


@pytest.mark.parametrize("preset", ["gurka-night", "vidivellir", "rassi"])
def test_a_request_carries_only_what_the_seat_knows(preset: str) -> None:
    game = game_with_a_choice(preset)
    seat = game.to_act
    assert seat is not None
    request = request_for(game)
    assert request.ruleset == game.ruleset  # the rules (which name the top cards), and:
    text = json.dumps(request.view)
    assert set(CARD.findall(text)) & hidden_from(game, seat) == set()
    assert set(game.hands[seat]) <= set(CARD.findall(text))  # its own hand it does know
    shipped = pickle.loads(pickle.dumps(request))  # what a worker gets
    assert shipped == request and not isinstance(shipped.view, Game)
    with pytest.raises(ValueError, match="not the seat to act"):
        BotRequest.for_seat(game, (seat + 1) % 3, "strong", 1)
    with pytest.raises(ValueError, match="Unknown bot"):
        BotRequest.for_seat(game, seat, "clever", 1)


def test_the_pool_is_sized_for_the_machine() -> None:
    assert default_workers() == max(1, len(os.sched_getaffinity(0)) - 1)
    assert BotPool().workers == default_workers()


async def test_a_search_runs_in_a_worker_and_never_blocks_the_loop() -> None:
    game = game_with_a_choice()
    request = request_for(game)
    async with BotPool(workers=1, budget=LONG, grace=600.0, warm=False) as pool:
        ticks = 0
        decision = asyncio.create_task(pool.decide(request))
        while not decision.done():  # the loop keeps turning while the worker thinks
            ticks += 1
            await asyncio.sleep(0.001)
        move = decision.result()
        assert pool.busy == 0
    assert move.by == "search"
    # the worker's answer is the search's own (a pure function of the view and the seed)
    assert move.action == move_for_view("strong", game.ruleset, request.view, 9, LONG)
    assert move.action in request.view["legal"]
    assert ticks >= 20, ticks  # a search on the loop would have let it turn once or twice


async def test_the_pool_falls_back_to_the_heuristic_move_when_busy() -> None:
    game = game_with_a_choice()
    request = request_for(game)
    heuristic = move_for_view("heuristic", game.ruleset, request.view, 9)
    async with BotPool(workers=1, budget=LONG, grace=600.0, warm=False) as pool:
        first = asyncio.create_task(pool.decide(request))
        while pool.busy == 0:  # the first search is on its way to the only worker
            await asyncio.sleep(0)
        second = await pool.decide(request)
        assert second.by == "busy" and second.action == heuristic
        assert not first.done()  # the busy answer did not wait for the search
        assert (await first).by == "search"
        assert pool.stats.fallbacks == {"busy": 1} and pool.stats.searches == 1


async def test_a_busy_pools_fallback_comes_at_the_searchs_pace() -> None:
    """Many strong bots at once: the ones the pool has no worker for get the heuristic move, but
    no sooner than a search would have answered (rooms of strong bots never play at the
    heuristic bot's speed)."""
    game = game_with_a_choice()
    request = request_for(game)
    waited: list[float] = []

    async def sleep(seconds: float) -> None:
        waited.append(seconds)

    async with BotPool(workers=1, budget=Budget(worlds=10**6, seconds=0.2), grace=600.0, warm=False) as pool:
        first = asyncio.create_task(pool.decide(request))
        while pool.busy == 0:
            await asyncio.sleep(0)
        second = await pool.decide(request, delay=0.0, sleep=sleep)
        assert second.by == "busy" and waited == [0.2]
        third = await pool.decide(request, delay=0.8, sleep=sleep)  # a longer delay is kept
        assert third.by == "busy" and waited == [0.2, 0.8]
        assert (await first).by == "search"


async def test_a_late_search_gives_the_heuristic_move_and_the_delay_overlaps_the_thinking() -> None:
    game = game_with_a_choice()
    request = request_for(game)
    heuristic = move_for_view("heuristic", game.ruleset, request.view, 9)
    waited: list[float] = []

    async def sleep(seconds: float) -> None:  # a room's clock: records the delay asked for
        waited.append(seconds)

    # a search that cannot be over in time: no time at all is given to it
    async with BotPool(workers=1, budget=Budget(worlds=10**6, seconds=None), grace=0.0, warm=False) as pool:
        move = await pool.decide(request, delay=0.8, sleep=sleep)
        assert (move.by, move.action) == ("late", heuristic)
        assert waited == [0.8]  # the delay was waited once, while the worker thought
        cheap = await pool.decide(request_for(game, kind="easy"), delay=0.5, sleep=sleep)
        assert cheap.by == "here" and cheap.action in request.view["legal"]
        assert waited == [0.8, 0.5]


async def test_a_job_runs_in_a_worker_after_the_bots_search_and_never_makes_a_bot_busy() -> None:
    """Other work (a game's analysis, one decision at a time) runs in the workers too, off the
    loop, but only once no bot is searching, and a bot asking meanwhile is not refused as busy."""
    from app.bot_pool import PoolStopped
    from app.rules.analysis import decisions, judge

    game = game_with_a_choice()
    request = request_for(game)
    played = new_game("kurkku", players=3, seed=5, dealer=0)
    bot = HeuristicBot(2)
    while not played.over:
        played.deal() if played.to_act is None else played.apply(bot.choose(played))
    decision = decisions(played)[0]
    async with BotPool(workers=1, budget=LONG, grace=600.0, warm=False) as pool:
        search = asyncio.create_task(pool.decide(request))
        while pool.busy == 0:
            await asyncio.sleep(0)
        job = asyncio.create_task(pool.job(judge, played.ruleset, decision, 1, 400))
        await asyncio.sleep(0.05)
        assert not job.done() and pool.busy == 1  # waiting for the search, not counted as one
        judged = await job
        assert search.done() and (await search).by == "search"  # the search went first
        assert judged == judge(played.ruleset, decision, 1, 400)  # the worker's answer is the judgement
        ticks = 0
        job = asyncio.create_task(pool.job(judge, played.ruleset, decision, 1, 400))
        bot_move = await pool.decide(request_for(game, kind="strong"))  # asked while the job runs
        assert bot_move.by == "search"
        while not job.done():
            ticks += 1
            await asyncio.sleep(0.001)
        assert job.result() == judged and ticks >= 5
    with pytest.raises(PoolStopped):
        await pool.job(judge, played.ruleset, decision, 1, 4)


async def test_a_stopped_pool_answers_with_the_fallback_and_leaves_no_process() -> None:
    game = game_with_a_choice()
    request = request_for(game)
    pool = BotPool(workers=1, budget=LONG, grace=0.0, warm=False)
    await pool.start()
    pids = pool.pids()
    assert len(pids) == 1 and pids[0] != os.getpid()
    running = asyncio.create_task(pool.decide(request))
    while pool.busy == 0:
        await asyncio.sleep(0)
    await pool.stop()  # the running search is ended, not waited for
    assert (await running).by in ("failed", "late")
    assert not _alive(pids[0])
    after = await pool.decide(request)
    assert after.by == "stopped" and after.action in request.view["legal"]


async def test_a_dead_worker_costs_one_fallback_and_the_pool_starts_afresh() -> None:
    game = game_with_a_choice()
    request = request_for(game)
    async with BotPool(workers=1, budget=LONG, grace=600.0, warm=False) as pool:
        (first,) = pool.pids()
        running = asyncio.create_task(pool.decide(request))
        while pool.busy == 0:
            await asyncio.sleep(0)
        os.kill(first, signal.SIGKILL)  # as the kernel's out-of-memory killer would
        move = await running
        assert move.by == "failed" and move.action in request.view["legal"]
        again = await pool.decide(request)
        assert again.by == "search"
        assert pool.pids() and first not in pool.pids()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    with open(f"/proc/{pid}/stat", encoding="ascii") as stat:  # a zombie has exited
        return stat.read().split()[2] != "Z"


# ---------------------------------------------------------------- in a real uvicorn server

SERVER_APP = '''
from contextlib import asynccontextmanager
from fastapi import FastAPI
from app.bot_pool import BotPool, BotRequest
from app.rules import new_game
from app.rules.search import Budget

pool = BotPool(workers=1, budget=Budget(worlds=8, seconds=None), grace=600.0)


@asynccontextmanager
async def lifespan(app):
    async with pool:
        yield


app = FastAPI(lifespan=lifespan)


@app.get("/move")
async def move():
    game = new_game("kurkku", players=3, seed=3)
    game.deal()
    found = await pool.decide(BotRequest.for_seat(game, game.to_act, "strong", 1))
    return {"action": found.action, "by": found.by, "pids": pool.pids(), "legal": game.view(game.to_act)["legal"]}
'''


@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM])
def test_the_pool_starts_and_stops_with_a_uvicorn_server(tmp_path: Path, stop: signal.Signals) -> None:
    (tmp_path / "pool_server.py").write_text(SERVER_APP, encoding="utf-8")
    port = free_port()
    env = {**os.environ, "PYTHONPATH": f"{tmp_path}{os.pathsep}{ROOT}", "PYTHONUNBUFFERED": "1"}
    log = tmp_path / "server.log"
    with log.open("wb") as out:
        server = subprocess.Popen(
            [sys.executable, "-m", "uvicorn", "pool_server:app", "--host", "127.0.0.1", "--port", str(port)],
            cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT,
            start_new_session=True,  # a terminal's Ctrl+C reaches the whole group: so does ours
        )
    try:
        answer = _get_when_up(f"http://127.0.0.1:{port}/move", server, log)
        assert answer["by"] == "search" and answer["action"] in answer["legal"]
        (worker,) = answer["pids"]
        assert _parent_of(worker) == server.pid
        os.killpg(server.pid, stop)  # as Ctrl+C (the workers get it too) or a service stop
        code = server.wait(30)
    finally:
        if server.poll() is None:
            server.kill()
    text = log.read_text(encoding="utf-8")
    assert code in (0, -stop), text
    assert "Application shutdown complete" in text, text
    assert "Traceback" not in text and "KeyboardInterrupt" not in text, text
    assert not _alive(worker)


def _get_when_up(url: str, server: subprocess.Popen[bytes], log: Path) -> dict[str, object]:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise AssertionError(f"server exited: {log.read_text(encoding='utf-8')}")
        try:
            response = httpx.get(url, timeout=30)
            if response.status_code == 200:
                return dict(response.json())
        except httpx.HTTPError:
            pass
        time.sleep(0.05)
    raise AssertionError(f"server not up: {log.read_text(encoding='utf-8')}")


def _parent_of(pid: int) -> int:
    with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
        return int(stat.read().rsplit(")", 1)[1].split()[1])
