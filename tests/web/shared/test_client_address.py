"""One answer to "who is the client" (issue 24, item 3): every per-address limit asks
`app.web.shared.address.client_address`, which reads the connection uvicorn resolved from the
trusted proxy's header; no module reads the peer or a forwarding header by itself."""

from __future__ import annotations

import re
from pathlib import Path

from starlette.requests import Request

from app.web.shared.address import UNKNOWN, client_address

APP = Path(__file__).resolve().parents[3] / "app"
OWN_READS = re.compile(r"""\.client\.host|\.client\b(?!_)|["']x-forwarded-for["']""", re.IGNORECASE)


def test_only_the_helper_reads_the_clients_address() -> None:
    readers = [f"{path.relative_to(APP)}:{n}" for path in APP.rglob("*.py")
               if path.name != "address.py"
               for n, line in enumerate(path.read_text().splitlines(), 1)
               if OWN_READS.search(line) and not line.lstrip().startswith("#")]
    assert readers == []


def test_the_address_is_the_connections_peer() -> None:
    def request(client: tuple[str, int] | None) -> Request:
        return Request({"type": "http", "method": "GET", "path": "/", "headers": [
            (b"x-forwarded-for", b"203.0.113.9")], "client": client})

    assert client_address(request(("198.51.100.7", 4711))) == "198.51.100.7"
    assert client_address(request(None)) == UNKNOWN
