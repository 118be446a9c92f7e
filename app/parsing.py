"""Strict parsing of everything a client sends: whole numbers and JSON frames.

`str.isdigit()` says yes to `"²"` and `int()` then raises; `int()` also takes `"١٢"`, `"1_000"`
and thousands of digits (raising beyond 4,300).
Here a number is at most a few ASCII digits with an optional minus sign, and anything else is
`None`, so a caller turns it into a clear message instead of a traceback. JSON is checked for
size and nesting depth *before* `json.loads` (which recurses and can raise RecursionError).

Stdlib only: the rooms and the web layer both use it.
"""

from __future__ import annotations

import json
import re
from typing import Any

from app.rules.text import Text

MAX_DIGITS = 9
_INT = re.compile(r"-?[0-9]+", re.ASCII)


def strict_int(raw: object, *, lo: int | None = None, hi: int | None = None,
               max_digits: int = MAX_DIGITS) -> int | None:
    """`raw` as an int when it is an int (not a bool) or a short string of ASCII digits with an
    optional leading minus, within [lo, hi]; otherwise None. Surrounding spaces are allowed."""
    if isinstance(raw, bool):
        return None
    if isinstance(raw, int):
        value = raw
    elif isinstance(raw, str):
        text = raw.strip()
        if len(text) > max_digits + 1 or not _INT.fullmatch(text):
            return None
        digits = text.lstrip("-")
        if len(digits) > max_digits:
            return None
        value = int(text)
    else:
        return None
    if lo is not None and value < lo:
        return None
    if hi is not None and value > hi:
        return None
    return value


class BadFrame(ValueError):
    """A client frame refused before it reached the room; the text is for the sender."""


def nesting_depth(text: str) -> int:
    """The deepest nesting of `[`/`{` in JSON text, ignoring brackets inside strings."""
    depth = deepest = 0
    in_string = escaped = False
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif ch in "]}":
            depth -= 1
    return deepest


def parse_json_object(text: str | bytes, *, max_bytes: int, max_depth: int) -> dict[str, Any]:
    """A JSON object from a client, or BadFrame with a plain reason."""
    if len(text) > max_bytes:
        raise BadFrame(Text("That message is too large (%(size)s bytes; the limit is %(limit)s).", size=len(text),
                            limit=max_bytes))
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError:
            raise BadFrame(Text("That message was not valid UTF-8 text; nothing was changed.")) from None
    if nesting_depth(text) > max_depth:
        raise BadFrame(Text("That message is nested too deeply (the limit is %(n)s levels).", n=max_depth))
    try:
        msg = json.loads(text)
    except (ValueError, RecursionError):
        raise BadFrame(Text("That message was not valid JSON; nothing was changed.")) from None
    if not isinstance(msg, dict):
        raise BadFrame(Text("That message was not understood (expected a JSON object)."))
    return msg
