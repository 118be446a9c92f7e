"""The fan-out hub never waits for a slow client. What a slow reader may cost: a newer whole table supersedes the tables (and changes of one) it
has not taken, a writer stuck on one frame for too long is dropped and lets go of its queue. The
hub never reads a frame: its sender says which frames are whole tables and which are parts."""

from __future__ import annotations

import asyncio
import gc
import json
import weakref

from app.web.table.hub import TOO_SLOW_REASON, Connection


def table(version: int) -> str:
    return json.dumps({"kind": "table", "version": version, "content": f"<div>v{version}</div>"})


def notice(text: str) -> str:
    return json.dumps({"kind": "notice", "message": text})


class Stuck:
    """A client socket that takes one frame and then never another."""

    def __init__(self) -> None:
        self.sent: list[str] = []
        self.closed: list[int] = []
        self.reasons: list[str] = []
        self.never = asyncio.Event()

    async def send(self, frame: str) -> None:
        self.sent.append(frame)
        await self.never.wait()

    async def close(self, code: int, reason: str = "") -> None:
        self.closed.append(code)
        self.reasons.append(reason)


async def test_a_newer_table_supersedes_the_tables_a_slow_reader_has_not_taken() -> None:
    client = Stuck()
    conn = Connection(client.send, client.close, token_hash=None, queue_size=4)
    conn.start()
    conn.offer(whole=True, frame=table(1))
    await asyncio.sleep(0)  # the writer takes v1 and gets stuck sending it
    for frame, whole in ((table(2), True), (notice("hello"), False), (table(3), True), (table(4), True)):
        assert conn.offer(frame, whole=whole)
    assert conn.pending() == [notice("hello"), table(4)]  # v2 and v3 were superseded, in order
    for i in range(50):  # a reader that is behind never holds more than the newest table
        assert conn.offer(whole=True, frame=table(5 + i))
    assert conn.pending() == [notice("hello"), table(54)] and not conn.closed
    assert client.sent == [table(1)]
    await conn.stop()
    assert not conn.queue


async def test_a_writer_stuck_on_one_frame_too_long_is_dropped_and_lets_go_of_its_queue() -> None:
    now = [100.0]
    client = Stuck()
    conn = Connection(client.send, client.close, token_hash=None, send_stall=5.0, clock=lambda: now[0])
    conn.start()
    conn.offer(whole=True, frame=table(1))
    await asyncio.sleep(0)
    assert conn.offer(notice("a")) and conn.offer(whole=True, frame=table(2))
    now[0] += 4.9
    assert conn.offer(whole=True, frame=table(3))  # still within the stall limit
    now[0] += 0.2
    assert conn.offer(whole=True, frame=table(4)) is False  # stuck over 5 s: dropped
    assert conn.closed and conn.gone.is_set() and not conn.queue
    await asyncio.sleep(0.01)
    assert client.closed == [1013]  # "try again later": a browser reconnects and gets the table
    assert client.reasons == [TOO_SLOW_REASON] and (conn.close_code, conn.close_reason) == (1013, TOO_SLOW_REASON)
    assert conn.offer(whole=True, frame=table(5)) is False


async def test_a_full_queue_of_other_frames_still_drops_the_reader() -> None:
    client = Stuck()
    conn = Connection(client.send, client.close, token_hash=None, queue_size=3)
    conn.start()
    conn.offer(notice("0"))
    await asyncio.sleep(0)
    assert all(conn.offer(notice(str(i))) for i in (1, 2, 3))
    assert conn.offer(notice("4")) is False and conn.closed and conn.gone.is_set()


async def test_a_connection_that_is_done_is_freed_at_once_without_the_garbage_collector() -> None:
    """No reference cycle keeps a dropped or stopped connection (and the socket objects it holds)
    alive until a full collection, which with the app's thresholds may be a long time away."""

    async def failing_close(code: int, reason: str = "") -> None:
        raise RuntimeError("the socket is gone")

    gc.disable()
    try:
        refs = []
        for ending in ("drop", "stop"):
            client = Stuck()
            conn = Connection(client.send, failing_close, token_hash=None)
            conn.start()
            conn.offer(whole=True, frame=table(1))
            await asyncio.sleep(0)  # stuck sending
            conn.offer(whole=True, frame=table(2))
            if ending == "drop":
                conn.drop(code=1013)
            else:
                await conn.stop()
            for _ in range(5):
                await asyncio.sleep(0)  # the writer's cancellation and the failed close run
            refs.append(weakref.ref(conn))
            del conn, client
        await asyncio.sleep(0.01)
        assert [r() for r in refs] == [None, None]
    finally:
        gc.enable()


def changes(start: int, version: int, content: str) -> str:
    return json.dumps({"kind": "fragments", "version": version, "from": start, "content": content, "swap": "none"})


async def test_a_table_supersedes_queued_tables_and_changes_and_changes_never_supersede() -> None:
    client = Stuck()
    conn = Connection(client.send, client.close, token_hash=None, queue_size=5)
    conn.start()
    conn.offer(whole=True, frame=table(1))
    await asyncio.sleep(0)  # the writer takes v1 and gets stuck sending it
    for frame, part in ((changes(1, 2, "a"), True), (notice("hello"), False), (changes(2, 3, "b"), True)):
        assert conn.offer(frame, part=part)
    assert conn.pending() == [changes(1, 2, "a"), notice("hello"), changes(2, 3, "b")]  # each builds on the last
    assert conn.offer(whole=True, frame=table(4))
    assert conn.pending() == [notice("hello"), table(4)]  # the whole table says it all
    assert conn.offer(part=True, frame=changes(4, 5, "c"))
    assert conn.pending() == [notice("hello"), table(4), changes(4, 5, "c")]


async def test_a_client_that_stops_reading_is_dropped_not_waited_for() -> None:
    stuck = asyncio.Event()
    closed: list[int] = []

    async def never_returns(frame: str) -> None:
        await stuck.wait()

    async def close(code: int, reason: str = "") -> None:
        closed.append(code)

    fast_frames: list[str] = []

    async def fast(frame: str) -> None:
        fast_frames.append(frame)

    slow = Connection(never_returns, close, token_hash=None, queue_size=4)
    quick = Connection(fast, close, token_hash=None, queue_size=4)
    slow.start(), quick.start()
    offered = []
    for i in range(10):
        offered.append(slow.offer(f"frame {i}"))
        quick.offer(f"frame {i}")
        await asyncio.sleep(0)  # the room moves on at once; nothing here awaits the socket
    assert offered[-1] is False and slow.closed
    await asyncio.sleep(0.01)
    assert closed == [1013]  # "try again later": htmx reconnects and gets the full table
    assert fast_frames == [f"frame {i}" for i in range(10)]
    await slow.stop(), await quick.stop()
