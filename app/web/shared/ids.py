"""Whole-number ids in links: one bound, checked once for every route.

A route that declares a path parameter as `int` (`/club/nights/{night_id}`) is given any whole
number, and a number past what the database stores made SQLite raise OverflowError (past
2**63 - 1) and Postgres NumericValueOutOfRange (past 2**31 - 1: the id columns are INTEGER, 32
bits there): a 500 with a traceback. The edge check that runs before every route
(`app.web.shared.path_params`) answers 404 when a path parameter its endpoint declares as `int`
is a whole number beyond +-MAX_ID: such a link leads nowhere. Text that is no
number at all is still the route's own 400. Routes need no change of their own, and a new route
is covered the day it is written.

Form fields that name an id are parsed with `app.parsing.strict_int` (a few digits at most) or
compared as text, so they never reach the database out of range either.
"""

from __future__ import annotations

import functools
import typing
from collections.abc import Callable
from typing import Any

MAX_ID = 2**31 - 1  # every id column is INTEGER: 32 bits on Postgres, the smaller of the two


def out_of_range(raw: str) -> bool:
    """`raw` reads as a whole number (as the route's `int` would take it) that no id column can
    hold. Text that is no number at all is left to the route's own check (a 400 page)."""
    try:
        value = int(raw)
    except ValueError:
        return False
    return not -MAX_ID <= value <= MAX_ID


@functools.cache
def int_path_params(endpoint: Callable[..., Any]) -> tuple[str, ...]:
    """The names of `endpoint`'s parameters declared as `int` (the path's ids and numbers)."""
    try:
        hints = typing.get_type_hints(endpoint)
    except Exception:  # noqa: BLE001 -- an endpoint whose hints do not resolve declares no ids here
        return ()
    return tuple(name for name, hint in hints.items() if hint is int)
