"""Every path parameter checked once, at the edge, before any route runs.

A link's text parts went to the database as they came: `GET /club/players/%00` made Postgres
refuse the NUL byte (a 500), and `/r/AAAA%00/replay` was a 404 with two tracebacks in the log
(anyone could flood it). `path_params_in_shape` runs before every route (`app.web.install` makes
it a dependency of the whole app) and answers 404 (a websocket is closed with 1008) when

- a whole-number parameter is beyond what an id column holds (`app.web.shared.ids`);
- a room's slug (a parameter named in SLUGS) is not 1 to 64 of `A-Z a-z 0-9 _ -`;
- any other text parameter (a member's name, a secret, a preset, a table) holds a control
  character (NUL, a newline, DEL, ...). Its value is the route's to judge: a table phone's link
  with a wrong secret gets the phone's own refusal.

Such a link leads nowhere; nothing is logged but the access line. A new route is covered the
day it is written.
"""

from __future__ import annotations

import re
import unicodedata

from fastapi import HTTPException, WebSocketException, status
from starlette.requests import HTTPConnection

from app.i18n import N_
from app.web.shared.ids import int_path_params, out_of_range

SLUG = re.compile(r"[A-Za-z0-9_-]{1,64}")
SLUGS = frozenset({"slug"})  # a room's link (`/r/{slug}`)
NOWHERE = N_("That link leads nowhere: check the number in it.")
NO_SUCH_PAGE = N_("That link leads nowhere: check it and try again.")


def has_control(text: str) -> bool:
    """True when `text` holds a control character (Unicode category Cc: NUL, tab, DEL, C1...)."""
    return any(unicodedata.category(ch) == "Cc" for ch in text)


def text_in_shape(name: str, raw: str) -> bool:
    """A text parameter as a link of this app can hold it."""
    if name in SLUGS:
        return SLUG.fullmatch(raw) is not None
    return not has_control(raw)


def refuse(connection: HTTPConnection, message: str) -> None:
    if connection.scope["type"] == "websocket":
        raise WebSocketException(code=status.WS_1008_POLICY_VIOLATION)
    raise HTTPException(status_code=404, detail=message)


async def path_params_in_shape(connection: HTTPConnection) -> None:  # async: a plain def runs in a thread
    """404 for a link with a part no page of this app can be (`/r/AAAA%00/replay`)."""
    endpoint = connection.scope.get("endpoint")
    if endpoint is None:
        return
    ints = int_path_params(endpoint)
    for name, raw in connection.path_params.items():
        if not isinstance(raw, str):
            continue
        if name in ints:
            if out_of_range(raw):
                refuse(connection, NOWHERE)
        elif not text_in_shape(name, raw):
            refuse(connection, NO_SUCH_PAGE)
