"""A worker process that ends with its parent.

The app's worker pools (the bots' `app.bot_pool`, web push's `app.push.sender`) are
`ProcessPoolExecutor`s started with `spawn`: a worker waits for its next job on a pipe that it
holds both ends of, so when the server dies without stopping its pool (kill -9, the OOM killer,
or an exit before the pool's goodbye left the parent), the worker never hears that nobody is
left and waits forever, holding its memory. `exit_with_parent()`, called in a worker's
initializer, ends the worker as soon as its parent is gone. Stdlib only: the bots' workers
import the rules core and nothing else.
"""

from __future__ import annotations

import multiprocessing
import multiprocessing.connection
import os
import threading


def exit_with_parent() -> None:
    """In a worker process: end this process (exit code 0, at once) once its parent has ended."""
    parent = multiprocessing.parent_process()
    if parent is None:  # (not a worker: nothing to watch)
        return
    threading.Thread(target=_exit_after, args=(parent.sentinel,), name="parent-watch", daemon=True).start()


def _exit_after(sentinel: int) -> None:
    multiprocessing.connection.wait([sentinel])
    os._exit(0)
