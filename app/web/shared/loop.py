"""Work on the event loop from a plain `def` handler.

FastAPI runs a `def` handler in a worker thread, so its database reads and template rendering
never stall the rooms. What the handler must do with live rooms (issue a seat token, wake the
night's rooms) belongs on the event loop, where every room change happens: `on_loop` runs that
coroutine there and waits for its result.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import Any, TypeVar, TypeVarTuple

import anyio.from_thread

T = TypeVar("T")
Ts = TypeVarTuple("Ts")


def on_loop(work: Callable[[*Ts], Coroutine[Any, Any, T]], *args: *Ts) -> T:
    """Run `work(*args)` on the event loop and return its result (from a handler's worker thread)."""
    return anyio.from_thread.run(work, *args)
