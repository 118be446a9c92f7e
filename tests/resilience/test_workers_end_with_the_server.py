"""A server killed without stopping its worker pools (kill -9) leaves no worker process behind:
the bots' workers and web push's worker each end once their parent is gone (app.parent_watch).
Without it, a spawned worker waits for its next job forever, some 100 MB each, a set more after
every crash."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time

from tests.support.app_process import ROOT, without_pytest

# A parent that starts both pools as the app does, prints its workers' pids and waits to be killed
PARENT = textwrap.dedent("""
    import asyncio, sys
    from sqlmodel import create_engine
    from app.bot_pool import BotPool
    from app.push.keys import new_private_key
    from app.push.sender import PushSender, _ready

    async def main():
        bots = BotPool(2, warm=False)
        await bots.start()
        push = PushSender(engine=create_engine("sqlite://"), private_key=new_private_key(), subject="mailto:a@b.c")
        push._executor().submit(_ready).result(60)
        pids = [*bots.pids(), *push.pool._processes]
        print(" ".join(map(str, pids)), flush=True)
        await asyncio.sleep(600)

    asyncio.run(main())
""")


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    with open(f"/proc/{pid}/stat") as stat:  # (a zombie has ended; init reaps it)
        return stat.read().rsplit(")", 1)[1].split()[0] != "Z"


def test_the_workers_end_when_the_server_is_killed() -> None:
    parent = subprocess.Popen([sys.executable, "-c", PARENT], cwd=ROOT, env=without_pytest(),
                              stdout=subprocess.PIPE, text=True)
    try:
        assert parent.stdout is not None
        line = parent.stdout.readline()
        workers = [int(pid) for pid in line.split()]
        assert len(workers) == 3 and all(alive(pid) for pid in workers), line
    finally:
        parent.send_signal(signal.SIGKILL)
        parent.wait(10)
    deadline = time.monotonic() + 10
    while any(alive(pid) for pid in workers) and time.monotonic() < deadline:
        time.sleep(0.05)
    left = [pid for pid in workers if alive(pid)]
    for pid in left:  # (clean up after a failure)
        os.kill(pid, signal.SIGKILL)
    assert not left, f"workers left behind by a killed server: {left}"
