"""The garbage collection pacer: young objects collected once there are enough of them, what
survives frozen out of later walks, a full sweep on its clock that frees frozen cycles too."""

from __future__ import annotations

import asyncio
import gc
import weakref
from collections.abc import Iterator

import pytest

from app.gc_pacing import Pacer


class Node:
    def __init__(self) -> None:
        self.me = self  # a reference cycle: only the cyclic collector frees it


@pytest.fixture(autouse=True)
def thawed() -> Iterator[None]:
    gc.collect()
    gc.unfreeze()
    yield
    gc.unfreeze()


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_a_tick_below_the_limit_walks_nothing_and_freezes_nothing() -> None:
    pacer = Pacer(young_limit=10**9)
    frozen = gc.get_freeze_count()
    assert pacer.tick() is False
    assert gc.get_freeze_count() == frozen


def test_a_tick_frees_young_cycles_and_freezes_what_lives() -> None:
    pacer = Pacer(young_limit=1)
    gc.freeze()  # everything of the test run so far: only what is made below is young
    kept = [Node() for _ in range(100)]
    dropped = Node()
    gone = weakref.ref(dropped)
    del dropped
    frozen = gc.get_freeze_count()
    assert pacer.tick() is True
    assert gone() is None  # the cycle let go before the tick was collected
    assert gc.get_freeze_count() >= frozen + len(kept)  # the living moved out of later walks
    assert len(gc.get_objects(0)) < 100


def test_a_sweep_frees_a_cycle_that_was_frozen_and_freezes_again() -> None:
    pacer = Pacer(young_limit=1)
    old = Node()
    gone = weakref.ref(old)
    pacer.tick()
    del old
    gc.collect()
    assert gone() is not None  # frozen: no ordinary collection sees it
    assert pacer.sweep() >= 1
    assert gone() is None
    assert gc.get_freeze_count() > 0


def test_a_step_sweeps_when_a_sweep_is_due() -> None:
    clock = Clock()
    pacer = Pacer(young_limit=1, sweep_every=60, clock=clock)
    old = Node()
    gone = weakref.ref(old)
    pacer.step()  # a tick: frozen
    del old
    clock.now = 59
    pacer.step()
    assert gone() is not None
    clock.now = 60
    pacer.step()
    assert gone() is None and pacer.last_sweep == 60


def test_the_pacer_hands_everything_back_when_it_stops() -> None:
    async def briefly() -> int:
        task = asyncio.create_task(Pacer(young_every=0.01, young_limit=1).run())
        await asyncio.sleep(0.05)
        frozen = gc.get_freeze_count()
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        return frozen

    assert asyncio.run(briefly()) > 0
    assert gc.get_freeze_count() == 0
