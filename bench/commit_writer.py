"""The commit writer alone: jobs/s and process CPU per job, on SQLite or Postgres.

    python bench/commit_writer.py                       # SQLite in a temporary file
    python bench/commit_writer.py --database-url postgresql+psycopg://postgres@127.0.0.1:5432/x

`--rooms` rooms each push `--jobs` jobs of one move event through one real CommitWriter, one
after the other per room (a room waits for its acknowledgement before its next job, as a live
room does), all rooms at once: the writer groups whatever waits in its queue, as under load.
Every 20th job also changes the room's seats and status (a join, a game starting).

It prints jobs/s, the process CPU time per job (event loop and writer thread together) and the
average group size. The database must be empty or disposable: the schema is upgraded and rooms
are added to it (a Postgres database is not cleaned up).
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
import time
from pathlib import Path

from app.rooms.commits import CommitWriter
from app.store import rooms as store
from app.store.db import make_engine, session_scope, upgrade
from app.store.room_writes import CommitJob

SEATS = [
    {"seat": 0, "name": "Anna", "token_hash": "a" * 64, "is_bot": False, "bot_controlled": False,
     "code_hash": None},
    {"seat": 1, "name": "Egon (bot)", "token_hash": None, "is_bot": True, "bot_controlled": False,
     "code_hash": None},
]


def make_rooms(url: str, count: int) -> list[int]:
    engine = make_engine(url)
    ids = []
    with session_scope(engine) as session:
        for i in range(count):
            room = store.create_room(session, slug=f"bench-{time.time_ns()}-{i}", preset="gurka-night",
                                     options={}, seats=3)
            assert room.id is not None
            ids.append(room.id)
    engine.dispose()
    return ids


def job(room_id: int, version: int) -> CommitJob:
    event = (version % 3, "play", {"seat": version % 3, "card": "hearts-10", "trick": version // 3,
                                   "at": 1733050000.125})
    if version % 20 == 19:
        return CommitJob(room_id, version, [event], seats=SEATS, status="playing")
    return CommitJob(room_id, version, [event])


async def push(url: str, room_ids: list[int], jobs_per_room: int) -> tuple[float, float, CommitWriter]:
    engine = make_engine(url)
    writer = CommitWriter(engine)

    async def room_loop(room_id: int) -> None:
        version = 0
        for _ in range(jobs_per_room):
            version = await writer.commit(job(room_id, version))

    await writer.commit(job(room_ids[0], 0))  # warm up: thread, connection, statement caches
    room_ids = room_ids[1:]
    wall, cpu = time.perf_counter(), time.process_time()
    await asyncio.gather(*(room_loop(r) for r in room_ids))
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    writer.stop()
    engine.dispose()
    return wall, cpu, writer


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--database-url", help="default: SQLite in a temporary file")
    parser.add_argument("--rooms", type=int, default=100, help="rooms pushing at once (default 100)")
    parser.add_argument("--jobs", type=int, default=100, help="jobs per room (default 100)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        url = args.database_url or f"sqlite:///{Path(tmp) / 'bench.db'}"
        upgrade(url)
        room_ids = make_rooms(url, args.rooms + 1)
        wall, cpu, writer = asyncio.run(push(url, room_ids, args.jobs))
    jobs = args.rooms * args.jobs
    committed = writer.committed - 1
    assert committed == jobs, (committed, jobs)
    print(f"{url.split(':')[0]}: {jobs} jobs in {wall:.2f} s: {jobs / wall:,.0f} jobs/s, "
          f"{cpu / jobs * 1e6:.0f} us CPU per job, {jobs / (writer.transactions - 1):.1f} jobs per transaction")


if __name__ == "__main__":
    main()
