"""After a burst of closed sockets the heap is trimmed once, off the event loop."""

from __future__ import annotations

import asyncio
import threading

from app.web.shared.memory import MemoryReturn


async def test_a_burst_of_closed_sockets_trims_the_heap_once_in_a_worker_thread() -> None:
    calls: list[tuple[int, bool]] = []

    def trim(pad: int) -> int:
        calls.append((pad, threading.current_thread() is threading.main_thread()))
        return 1

    memory = MemoryReturn(trim, closed_before_trim=16, settle=0.0, min_interval=60.0)
    for _ in range(15):
        memory.socket_closed()
    await asyncio.sleep(0.05)
    assert calls == []  # a few closed sockets are not worth a trim
    for _ in range(40):  # a burst
        memory.socket_closed()
    for _ in range(100):
        if calls:
            break
        await asyncio.sleep(0.01)
    await asyncio.sleep(0.05)
    assert calls == [(0, False)]  # once, and not on the event loop's thread
    for _ in range(40):  # the next burst waits for min_interval
        memory.socket_closed()
    await asyncio.sleep(0.05)
    assert len(calls) == 1
    await memory.stop()


async def test_without_a_trim_function_nothing_is_scheduled() -> None:
    memory = MemoryReturn(None)
    memory.trim = None
    for _ in range(100):
        memory.socket_closed()
    assert memory._pending is None
