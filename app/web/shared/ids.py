"""Whole-number ids in links: one bound, checked once for every route.

A route that declares a path parameter as `int` (`/club/nights/{night_id}`) is given any whole
number, and a number past what the database stores made SQLite raise OverflowError (past
2**63 - 1) and Postgres NumericValueOutOfRange (past 2**31 - 1: the id columns are INTEGER, 32
bits there): a 500 with a traceback. `ids_in_range` runs before every route (`app.web.install` makes it a
dependency of the whole app) and answers 404 when a path parameter its endpoint declares as
`int` is not plain ASCII digits within 0..MAX_ID: such a link leads nowhere. Routes need no
change of their own, and a new route is covered the day it is written.

Form fields that name an id are parsed with `app.parsing.strict_int` (a few digits at most),
so they never reach the database out of range either.
"""

from __future__ import annotations

import functools
import typing
from collections.abc import Callable
from typing import Any

from fastapi import HTTPException
from starlette.requests import HTTPConnection

from app.i18n import N_

MAX_ID = 2**31 - 1  # every id column is INTEGER: 32 bits on Postgres, the smaller of the two
_MAX_DIGITS = len(str(MAX_ID))


def id_fits(raw: str) -> bool:
    """`raw` is a whole number the database can hold as an id (leading zeros allowed)."""
    return (raw.isascii() and raw.isdigit() and len(raw.lstrip("0")) <= _MAX_DIGITS
            and int(raw) <= MAX_ID)


@functools.cache
def int_path_params(endpoint: Callable[..., Any]) -> tuple[str, ...]:
    """The names of `endpoint`'s parameters declared as `int` (the path's ids and numbers)."""
    try:
        hints = typing.get_type_hints(endpoint)
    except Exception:  # noqa: BLE001 -- an endpoint whose hints do not resolve declares no ids here
        return ()
    return tuple(name for name, hint in hints.items() if hint is int)


def ids_in_range(connection: HTTPConnection) -> None:
    """404 for a link whose whole-number path part is not one (`/club/nights/18446744073709551616`)."""
    endpoint = connection.scope.get("endpoint")
    if endpoint is None:
        return
    for name in int_path_params(endpoint):
        raw = connection.path_params.get(name)
        if isinstance(raw, str) and not id_fits(raw):
            raise HTTPException(status_code=404, detail=N_("That link leads nowhere: check the number in it."))
