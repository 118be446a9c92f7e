"""Finished games analysed by the strong bot (`app.rules.analysis`), once per game, in the bot pool.

`Analyses.start(key, game, visitor)` asks for the analysis of a finished game (`key` says which
game it is: a room's game or a game of an opened history file). The game's row in
`app.store.analyses` decides who runs it: the first request inserts it, every later one (in any
process) reads it, so two clicks, two visitors or two processes start one run. The run judges
one decision at a time in the bot pool's workers (`BotPool.job`: never on the event loop, and a
room's bot goes first), writes its progress into the row as it goes and its judgement at the end.
Runs take turns (`at_once` per process); a waiting run keeps its row fresh so that nobody takes
it over. A run whose process died goes quiet (`quiet` seconds without a word) and is started
again by the next request, as a failed one is.

What crosses into a worker is a decision: the seat's view then (its own hand, the public
moves) and the move played, never the game. The web layer refuses games whose cards are still
secret before it asks (`app.web.table.analysis`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import Engine
from sqlalchemy.exc import IntegrityError

from app.bot_pool import BotPool, PoolStopped
from app.rules.analysis import Decision, Judged, judge
from app.rules.ruleset import Ruleset
from app.store import analyses as store
from app.store.db import session_scope, utc_now

log = logging.getLogger(__name__)

WORLDS = 48  # worlds per decision, as bench/analysis_bench.py measures
SECONDS = 0.25  # and no new world after this (a room's bot waits behind one decision at most)
SEED = 1
FORMAT = 1  # of the stored result


@dataclass(frozen=True)
class State:
    """A game's analysis as a page shows it: `status` waiting, running, done or failed (`None`:
    never asked for), decisions judged of `total`, and once done the judgement."""

    status: str | None
    done: int = 0
    total: int = 0
    judged: tuple[Judged, ...] = ()

    @property
    def active(self) -> bool:
        return self.status in store.ACTIVE


NOTHING = State(None)


def judged_of(result: dict[str, Any] | None) -> tuple[Judged, ...]:
    """The stored judgement (candidates' values are not kept)."""
    if not result:
        return ()
    return tuple(Judged(int(j["step"]), int(j["seat"]), int(j["deal_no"]), str(j["played"]), str(j["best"]),
                        float(j["cost"]), j.get("mark")) for j in result.get("judged", []))


def result_of(judged: list[Judged], worlds: int) -> dict[str, Any]:
    return {"format": FORMAT, "worlds": worlds,
            "judged": [{"step": j.step, "seat": j.seat, "deal_no": j.deal_no, "played": j.played, "best": j.best,
                        "cost": j.cost, "mark": j.mark} for j in judged]}


class Analyses:
    """See the module docstring. One per app (`app.web.table.analysis.analyses_of`)."""

    def __init__(self, db: Engine, pool: BotPool, *, at_once: int = 1, worlds: int = WORLDS,
                 seconds: float | None = SECONDS, quiet: float = 90.0, beat_every: float = 0.5) -> None:
        self.db = db
        self.pool = pool
        self.worlds, self.seconds = worlds, seconds
        self.quiet = quiet  # seconds without a word from a run: its process is gone
        self.beat_every = beat_every
        self._turns = asyncio.Semaphore(at_once)
        self._tasks: dict[str, asyncio.Task[None]] = {}
        self._starting: dict[str, tuple[asyncio.Lock, int]] = {}  # a game's requests to start, one at a time
        self._stopped = False

    @contextlib.asynccontextmanager
    async def starting(self, key: str) -> AsyncIterator[None]:
        """Requests to start the same game's analysis, one after the other in this process: the
        second finds the first one's run (and is not refused for the visitor's limits meanwhile).
        Across processes the row decides (`claim`)."""
        lock, users = self._starting.get(key, (asyncio.Lock(), 0))
        self._starting[key] = (lock, users + 1)
        try:
            async with lock:
                yield
        finally:
            lock, users = self._starting[key]
            if users == 1:
                del self._starting[key]
            else:
                self._starting[key] = (lock, users - 1)

    # ------------------------------------------------------------------ asking (blocking: threads)

    def quiet_since(self) -> datetime:
        return utc_now() - timedelta(seconds=self.quiet)

    def state(self, key: str) -> State:
        """The game's analysis now (blocking: a database read)."""
        with session_scope(self.db) as session:
            row = store.get_analysis(session, game_key=key)
            if row is None:
                return NOTHING
            status = row.status
            if status in store.ACTIVE and _aware(row.updated_at) < self.quiet_since():
                status = store.FAILED  # its process is gone: the next request starts it again
            return State(status, row.done, row.total, judged_of(row.result) if status == store.DONE else ())

    def running_for(self, visitor: str) -> list[str]:
        """The games whose analysis `visitor` started and that are still on (blocking)."""
        with session_scope(self.db) as session:
            return store.active_for_visitor(session, visitor=visitor, quiet_since=self.quiet_since())

    def active(self) -> int:
        """Runs waiting or running in every process (blocking)."""
        with session_scope(self.db) as session:
            return store.count_active(session, quiet_since=self.quiet_since())

    def claim(self, key: str, visitor: str | None, total: int) -> bool:
        """True when this request is the one to run the game's analysis (blocking)."""
        try:
            with session_scope(self.db) as session:
                store.add_analysis(session, game_key=key, visitor=visitor, total=total)
            return True
        except IntegrityError:
            pass
        with session_scope(self.db) as session:
            return store.take_over(session, game_key=key, visitor=visitor, total=total, quiet_since=self.quiet_since())

    # ------------------------------------------------------------------ running (on the loop)

    def run(self, key: str, ruleset: Ruleset, decisions: list[Decision]) -> None:
        """Run a claimed analysis (its row is this process's now) as a task of the loop."""
        if self._stopped:
            return
        task = asyncio.get_running_loop().create_task(self._run(key, ruleset, decisions), name=f"analysis {key}")
        self._tasks[key] = task
        task.add_done_callback(lambda done: self._tasks.pop(key, None) if self._tasks.get(key) is done else None)

    def running(self) -> list[str]:
        """The games this process is analysing or about to (for tests and operators)."""
        return sorted(self._tasks)

    async def wait(self, key: str) -> None:
        """Until this process's run of `key` is over (tests)."""
        task = self._tasks.get(key)
        if task is not None:
            await asyncio.gather(task, return_exceptions=True)

    async def stop(self) -> None:
        """Stop every run (their rows go quiet: the next request after a restart starts them anew)."""
        self._stopped = True
        tasks = list(self._tasks.values())
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    async def _run(self, key: str, ruleset: Ruleset, decisions: list[Decision]) -> None:
        # the row is touched all along (waiting for a turn, or a decision waiting for the bots),
        # so that no other request takes a live run for a dead one
        fresh = asyncio.get_running_loop().create_task(self._keep_fresh(key), name=f"analysis {key} lives")
        try:
            await self._take_turn(key)
            try:
                await self._judge_all(key, ruleset, decisions)
            finally:
                self._turns.release()
        except (asyncio.CancelledError, PoolStopped):
            log.info("the analysis of %s stopped with the app; it starts again when asked", key)
        except Exception:
            log.exception("the analysis of %s failed", key)
            await asyncio.to_thread(self._write, store.fail, game_key=key)
        finally:
            fresh.cancel()
            await asyncio.gather(fresh, return_exceptions=True)

    async def _take_turn(self, key: str) -> None:
        """Wait for this process's turn to run (saying so when another run has it)."""
        if self._turns.locked():
            await asyncio.to_thread(self._write, store.beat, game_key=key, status=store.WAITING, done=0)
        await self._turns.acquire()

    async def _keep_fresh(self, key: str) -> None:
        while True:
            await asyncio.sleep(max(0.5, self.quiet / 3))
            await asyncio.to_thread(self._write, store.touch, game_key=key)

    async def _judge_all(self, key: str, ruleset: Ruleset, decisions: list[Decision]) -> None:
        await asyncio.to_thread(self._write, store.beat, game_key=key, status=store.RUNNING, done=0)
        judged: list[Judged] = []
        said = time.monotonic()
        for i, decision in enumerate(decisions):
            one = await self.pool.job(judge, ruleset, decision, SEED, self.worlds, self.seconds)
            if one is not None:
                judged.append(one)
            if time.monotonic() - said >= self.beat_every and i + 1 < len(decisions):
                await asyncio.to_thread(self._write, store.beat, game_key=key, status=store.RUNNING, done=i + 1)
                said = time.monotonic()
        await asyncio.to_thread(self._write, store.finish, game_key=key, result=result_of(judged, self.worlds))

    def _write(self, change: Any, **values: Any) -> None:
        with session_scope(self.db) as session:
            change(session, **values)


def _aware(at: datetime) -> datetime:
    """A stored time as UTC (SQLite gives it back without its zone)."""
    return at.replace(tzinfo=UTC) if at.tzinfo is None else at
