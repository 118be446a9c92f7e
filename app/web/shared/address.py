"""The client's address: the one key every per-address limit uses (elder logins, personal links,
rejoin codes, websocket caps).

Behind a proxy the peer is the proxy, so the address must come from X-Forwarded-For, and only
from the proxy's own entry: a client can write anything into the header it sends, and a proxy
such as nginx appends the address it saw to whatever came in. uvicorn resolves this before the
app runs (`gurka serve` passes `FORWARDED_ALLOW_IPS`): it believes the header only when the peer
is one of those proxies, and then takes the rightmost address that is not a proxy, never the
client's own claim further left. So the app reads the address from the connection alone, and
nothing here looks at a header.
"""

from __future__ import annotations

from starlette.requests import HTTPConnection

UNKNOWN = "unknown"


def client_address(conn: HTTPConnection) -> str:
    """The address of the client behind `conn` (a request or a websocket)."""
    return conn.client.host if conn.client and conn.client.host else UNKNOWN
