"""The garbage collection pacer: what lives frozen out of later collections on a clock, a full
sweep on its own clock that frees frozen cycles too, everything handed back when it stops."""

from __future__ import annotations

import asyncio
import gc
import weakref
from collections.abc import Iterator

import pytest

from app.gc_pacing import Pacer
from app.rooms.clock import FakeClock


class Node:
    def __init__(self) -> None:
        self.me = self  # a reference cycle: only the cyclic collector frees it


@pytest.fixture(autouse=True)
def thawed() -> Iterator[None]:
    gc.collect()
    gc.unfreeze()
    yield
    gc.unfreeze()


def test_a_step_freezes_what_lives_out_of_later_collections() -> None:
    pacer = Pacer(sweep_every=60, clock=FakeClock(start=0.0).now)
    kept = [Node() for _ in range(100)]
    old = Node()
    gone = weakref.ref(old)
    pacer.step()
    assert gc.get_freeze_count() >= len(kept)
    walked = {id(o) for o in gc.get_objects()}
    assert not any(id(node) in walked for node in kept)  # no generation holds them
    del old
    gc.collect()
    assert gone() is not None  # frozen: no ordinary collection walks it


def test_a_frozen_object_is_still_freed_by_reference_counting() -> None:
    pacer = Pacer(sweep_every=60, clock=FakeClock(start=0.0).now)
    held = [[n] for n in range(1000)]  # lists: tracked by the collector, freed by their last reference
    pacer.step()
    frozen = gc.get_freeze_count()
    del held
    assert gc.get_freeze_count() <= frozen - 1000


def test_a_sweep_frees_a_cycle_that_was_frozen_and_freezes_again() -> None:
    pacer = Pacer(sweep_every=60, clock=FakeClock(start=0.0).now)
    old = Node()
    gone = weakref.ref(old)
    pacer.step()
    del old
    assert pacer.sweep() >= 1
    assert gone() is None
    assert gc.get_freeze_count() > 0


def test_a_step_sweeps_when_a_sweep_is_due() -> None:
    clock = FakeClock(start=0.0)
    pacer = Pacer(sweep_every=60, clock=clock.now)
    old = Node()
    gone = weakref.ref(old)
    pacer.step()  # frozen
    del old
    clock.advance(59)
    pacer.step()
    assert gone() is not None
    clock.advance(1)
    pacer.step()
    assert gone() is None and pacer.last_sweep == 60


def test_the_pacer_hands_everything_back_when_it_stops() -> None:
    async def briefly() -> int:
        task = asyncio.create_task(Pacer(freeze_every=0.01).run())
        await asyncio.sleep(0.05)
        frozen = gc.get_freeze_count()
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        return frozen

    assert asyncio.run(briefly()) > 0
    assert gc.get_freeze_count() == 0
