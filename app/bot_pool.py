"""Bot thinking off the event loop: a pool of worker processes for the strong bot's search.

A room asks ``await pool.decide(BotRequest.for_seat(game, seat, kind, seed), delay=...)``
and gets a `BotMove` (the action's notation, and how it was found). What crosses into a
worker is the seat's knowledge only: the ruleset, the seat's view (its own hand, the public
moves) and a seed; never the game, whose other hands and stock the worker must not see.

* **Processes**, so that a search never holds the server's GIL; started with ``spawn`` (a
  fork of a process running an event loop and threads is unsafe), a worker imports only
  the rules core, ignores Ctrl+C (the server stops it), runs at a lower priority than the
  server and prepares the presets' outlooks as it starts. Sized for the machine: one worker
  per core but one, at least one.
* **The bot's usual delay overlaps its thinking**: the search starts at once, the move is
  given when both the delay and the search are over.
* **Budget and fallbacks**: a search stops starting new worlds after ``budget.seconds``; if
  its answer is not back ``grace`` seconds after that, or every worker is already busy, or
  the worker fails, the move is the heuristic bot's (computed here, a millisecond's work).
  A busy pool's fallback comes no sooner than the search's time (``budget.seconds``): a crowd
  of strong bots moves at the pace the pool would give them, so rooms full of them can not
  play at the heuristic bot's speed and crowd the server's loop.
  Bots other than ``strong`` think here too: they are as cheap as the fallback.
* **Other work by pieces** (`job`): a long task that is not a bot's move (a finished game's
  analysis, `app.rooms.analyses`) runs in the same workers one piece at a time; a piece starts
  only while no bot is searching and is not counted as a search, so a room's bot waits behind
  one piece at most and is never refused as busy for it.
* ``start()`` (or the first decision) starts the workers, ``stop()`` ends them; use
  ``async with pool:`` in an app's lifespan.
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import os
import signal
import time
from collections.abc import Awaitable, Callable
from concurrent.futures import BrokenExecutor, Future, ProcessPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Self, TypeVar

from app.parent_watch import exit_with_parent
from app.rules import PRESETS, Ruleset
from app.rules.bots import BOTS, move_for_view
from app.rules.outlook import prepare
from app.rules.search import Budget

__all__ = ["DEFAULT_BUDGET", "BotMove", "BotPool", "BotRequest", "PoolStopped", "default_workers", "warm_up"]

T = TypeVar("T")

log = logging.getLogger(__name__)

# What a strong decision may take in a room: its p99 stays under half a second on one core.
DEFAULT_BUDGET = Budget(worlds=96, seconds=0.3)
WARM_TABLES = (2, 3, 4)  # table sizes whose outlooks a worker prepares as it starts


def default_workers() -> int:
    """One worker per core this process may use, but one core left for the server."""
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        cores = os.cpu_count() or 1
    return max(1, cores - 1)


@dataclass(frozen=True)
class BotRequest:
    """What a bot may know when it moves for ``view["seat"]``: the rules, that seat's view
    and a seed. Plain data, pickled into a worker process."""

    kind: str
    ruleset: Ruleset
    view: dict[str, Any]
    seed: int

    @classmethod
    def for_seat(cls, game: Any, seat: int, kind: str, seed: int) -> BotRequest:
        """The request for ``seat`` (which must be the seat to act) of a rules `Game`."""
        if kind not in BOTS:
            raise ValueError(f"Unknown bot {kind!r}: choose one of {', '.join(sorted(BOTS))}")
        if seat != game.to_act:
            raise ValueError(f"seat {seat} is not the seat to act ({game.to_act})")
        return cls(kind, game.ruleset, game.view(seat), seed)


@dataclass(frozen=True)
class BotMove:
    """A bot's move: ``action`` in notation; ``by`` says how it was found: ``"search"`` (a
    worker answered in time), ``"here"`` (a bot cheap enough to run here), or the heuristic
    fallback's reason: ``"busy"``, ``"late"``, ``"failed"``, ``"stopped"``."""

    action: str
    by: str
    seconds: float = 0.0  # from the request to the move (the delay included)


class PoolStopped(Exception):
    """The pool is stopped (the app is shutting down): a `job` was not run."""


@dataclass
class PoolStats:
    searches: int = 0
    fallbacks: dict[str, int] = field(default_factory=dict)


class BotPool:
    """See the module docstring."""

    def __init__(self, workers: int | None = None, budget: Budget = DEFAULT_BUDGET,
                 grace: float = 0.5, nice: int = 5, warm: bool = True) -> None:
        self.workers = workers or default_workers()
        self.budget = budget
        self.grace = grace
        self.nice = nice
        self.warm = warm
        self.stats = PoolStats()
        self._executor: ProcessPoolExecutor | None = None
        self._starting = asyncio.Lock()
        self._running: set[Future[str]] = set()  # searches sent to the current workers
        self._stopped = False

    # ------------------------------------------------------------------ lifetime

    async def start(self) -> None:
        """Start the worker processes (idempotent) and wait until each has started."""
        async with self._starting:
            if self._executor is not None or self._stopped:
                return
            context = multiprocessing.get_context("spawn")
            executor = ProcessPoolExecutor(self.workers, mp_context=context,
                                           initializer=_worker_started, initargs=(self.nice, self.warm))
            loop = asyncio.get_running_loop()
            await asyncio.gather(*(loop.run_in_executor(executor, os.getpid) for _ in range(self.workers)))
            self._executor = executor

    async def stop(self) -> None:
        """Stop the workers: waiting decisions get the fallback, a running search may finish
        within its budget (and ``grace``), then its worker is ended; returns when every worker
        process has exited."""
        self._stopped = True
        executor, self._executor = self._executor, None
        if executor is not None:
            patience = (self.budget.seconds or 0.0) + self.grace
            await asyncio.to_thread(_shut_down, executor, patience)

    def pids(self) -> list[int]:
        """The worker processes' ids (for tests and operators)."""
        return sorted(_processes(self._executor)) if self._executor is not None else []

    async def __aenter__(self) -> Self:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    @property
    def busy(self) -> int:
        """Searches running (or queued) in the workers now."""
        return len(self._running)

    # ------------------------------------------------------------------ deciding

    async def decide(self, request: BotRequest, delay: float = 0.0,
                     sleep: Callable[[float], Awaitable[Any]] = asyncio.sleep) -> BotMove:
        """The bot's move, never sooner than ``delay`` seconds (``sleep`` waits: a room's
        clock in tests); see the module docstring for where it is found."""
        start = time.perf_counter()
        if request.kind != "strong":
            await sleep(delay)
            return self._done(_move_here(request), "here", start)
        if self._stopped:
            await sleep(delay)
            return self._fallback(request, "stopped", start)
        if self._executor is None:
            await self.start()
        if len(self._running) >= self.workers:
            # a strong bot never moves sooner than its search would have: many strong bots at
            # once get the heuristic move at the search's pace, not the heuristic bot's
            await sleep(max(delay, self.budget.seconds or 0.0))
            return self._fallback(request, "busy", start)
        executor = self._executor
        if executor is None:  # stopped meanwhile
            await sleep(delay)
            return self._fallback(request, "stopped", start)
        try:
            future: Future[str] = executor.submit(move_for_view, request.kind, request.ruleset,
                                                  request.view, request.seed, self.budget)
        except RuntimeError:  # shut down meanwhile, or a worker died: start afresh next time
            self._forget(executor)
            await sleep(delay)
            return self._fallback(request, "failed", start)
        self._running.add(future)
        loop = asyncio.get_running_loop()
        future.add_done_callback(lambda done: _call_soon(loop, self._running.discard, done))
        answer = asyncio.wrap_future(future)
        await sleep(delay)
        limit = (self.budget.seconds or 0.0) + self.grace - (time.perf_counter() - start)
        try:
            action = await asyncio.wait_for(asyncio.shield(answer), max(0.0, limit))
        except TimeoutError:
            answer.cancel()  # the worker's answer, when it comes, is dropped
            return self._fallback(request, "late", start)
        except BrokenExecutor:
            log.warning("a bot worker died; the heuristic move is played, the pool restarts")
            self._forget(executor)
            return self._fallback(request, "failed", start)
        except Exception:
            log.exception("a bot search failed; the heuristic move is played")
            return self._fallback(request, "failed", start)
        self.stats.searches += 1
        return self._done(action, "search", start)

    # ------------------------------------------------------------------ other work

    async def job(self, fn: Callable[..., T], /, *args: Any, yield_every: float = 0.02) -> T:
        """``fn(*args)`` in a worker (``fn`` and its arguments picklable: the rules core's plain
        data), once no bot is searching (looked at every ``yield_every`` seconds). Raises
        `PoolStopped` if the pool is or gets stopped, and what ``fn`` raised."""
        while True:
            if self._stopped:
                raise PoolStopped
            if self._executor is None:
                await self.start()
            if not self._running:  # the rooms' bots go first
                break
            await asyncio.sleep(yield_every)
        executor = self._executor
        if executor is None:
            raise PoolStopped
        try:
            future: Future[T] = executor.submit(fn, *args)
        except RuntimeError as exc:  # shut down meanwhile, or a worker died
            self._forget(executor)
            raise PoolStopped from exc
        try:
            return await asyncio.wrap_future(future)
        except BrokenExecutor as exc:
            log.warning("a bot worker died during a job; the pool restarts")
            self._forget(executor)
            raise PoolStopped from exc

    def _forget(self, executor: ProcessPoolExecutor) -> None:
        """A broken pool is let go (its processes are gone); the next decision starts anew."""
        if self._executor is executor:
            self._executor = None
            self._running = set()
            executor.shutdown(wait=False, cancel_futures=True)

    def _fallback(self, request: BotRequest, why: str, start: float) -> BotMove:
        self.stats.fallbacks[why] = self.stats.fallbacks.get(why, 0) + 1
        action = move_for_view("heuristic", request.ruleset, request.view, request.seed)
        return self._done(action, why, start)

    @staticmethod
    def _done(action: str, by: str, start: float) -> BotMove:
        return BotMove(action, by, time.perf_counter() - start)


def _processes(executor: ProcessPoolExecutor) -> dict[int, Any]:
    # the executor's own table of its worker processes: it offers no public way to end them
    return dict(getattr(executor, "_processes", None) or {})


def _shut_down(executor: ProcessPoolExecutor, patience: float) -> None:
    """Cancel what waits, give running searches ``patience`` seconds, end what still runs."""
    processes = list(_processes(executor).values())
    executor.shutdown(wait=False, cancel_futures=True)
    deadline = time.monotonic() + patience
    for process in processes:
        process.join(max(0.0, deadline - time.monotonic()))
    for process in processes:
        if process.is_alive():
            process.terminate()
            process.join()
    executor.shutdown(wait=True)


def _call_soon(loop: asyncio.AbstractEventLoop, fn: Callable[[Future[str]], None],
               future: Future[str]) -> None:
    """Run ``fn(future)`` on the loop (a worker's answer arrives on the pool's own thread)."""
    try:
        loop.call_soon_threadsafe(fn, future)
    except RuntimeError:  # the loop is closed: nobody counts any more
        pass


def _move_here(request: BotRequest) -> str:
    return move_for_view(request.kind, request.ruleset, request.view, request.seed)


def _worker_started(nice: int, warm: bool) -> None:
    """In each worker: leave Ctrl+C to the server (which stops the pool), end with the server
    if it dies without stopping it, yield the CPU to it, and (``warm``) prepare the presets'
    outlooks (`warm_up`)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    exit_with_parent()
    if nice:
        try:
            os.nice(nice)
        except OSError:  # pragma: no cover - not allowed here
            pass
    if warm:
        warm_up()


def warm_up() -> None:
    """Prepare the five presets' outlooks at the usual table sizes (a second of work), so that
    no first decision spends its budget measuring what deals cost."""
    for ruleset in PRESETS.values():
        for players in WARM_TABLES:
            if ruleset.min_players <= players <= ruleset.max_players:
                prepare(ruleset, players)
