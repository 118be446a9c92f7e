"""Issue 37 item 7: a NUL or control character in a link never reaches the database. On
Postgres `GET /club/players/%00` answered 500; `/r/AAAA%00/replay` answered 404 but logged two
tracebacks. Every route's text path parameters, found from the app itself (so a new route is
covered too), answer 404 for a control character, and a room's slug not shaped like one, on SQLite
and on Postgres, with nothing in the log; well-shaped links still work."""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator
from urllib.parse import quote

import pytest
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from app.main import create_app
from app.web.shared.path_params import SLUGS, has_control, text_in_shape
from bench.table_wire import parse
from tests.conftest import make_settings
from tests.web.club.helpers import add_members, become_elder, token
from tests.web.table.wsutil import create_room

PARAM = re.compile(r"{(\w+)(?::\w+)?}")
FILLED = {"key": "base-1-vinder", "chair": "0", "night_id": "1", "table": "vinder", "stage": "base",
          "number": "1", "secret": "abc", "slug": "AAAA", "preset": "gurka-night", "code": "da"}
CONTROL = ["\x00", "AAAA\x00", "a\nb", "\x7f", "tab\there", "\x85"]
NOT_A_SLUG = ["a b", "x" * 65, "ä", "a.b", "AAAA'"]


@pytest.fixture
def elder(database_url: str) -> Iterator[TestClient]:
    with TestClient(create_app(make_settings(database_url))) as client:
        become_elder(client)
        yield client


def text_routes(client: TestClient) -> list[tuple[str, str, list[str]]]:
    """(method, path, its text parameters) for every route the app has, and the table's websocket
    (which the schema leaves out)."""
    found = [("WS", "/r/{slug}/ws", ["slug"])]
    for path, ops in client.app.openapi()["paths"].items():  # type: ignore[attr-defined]
        for method, op in ops.items():
            texts = [p["name"] for p in op.get("parameters", [])
                     if p["in"] == "path" and p["schema"].get("type") == "string"]
            if texts:
                found.append((method.upper(), path, texts))
    return found


def link(path: str, values: dict[str, str]) -> str:
    return PARAM.sub(lambda m: quote(values.get(m.group(1), FILLED.get(m.group(1), "1")), safe=""), path)


def test_the_shapes() -> None:
    assert has_control("a\x00") and has_control("\x1b[2J") and has_control("\x9b") and not has_control("Åsa Lee")
    for good in ("AAAA", "x" * 64, "gurka-night", "a_b-C9"):
        assert text_in_shape("slug", good), good
    for bad in NOT_A_SLUG + CONTROL + [""]:
        assert not text_in_shape("slug", bad), bad
    assert text_in_shape("name", "Åsa Lee") and text_in_shape("name", "O'Neil (the elder)")
    assert not text_in_shape("name", "Åsa\x00") and not text_in_shape("secret", "a\nb")
    assert text_in_shape("secret", "x" * 500)  # the route's own refusal (a table phone's) judges it
    assert SLUGS == {"slug"}


def test_a_control_character_or_a_misshapen_part_in_any_link_is_a_quiet_404(
    elder: TestClient, caplog: pytest.LogCaptureFixture
) -> None:
    routes = text_routes(elder)
    wanted = {("GET", "/club/players/{name}"), ("GET", "/r/{slug}/replay"), ("GET", "/r/{slug}"),
              ("WS", "/r/{slug}/ws"), ("POST", "/r/{slug}/join")}
    assert wanted <= {(m, p) for m, p, _ in routes}
    csrf = token(elder, "/club/members")
    caplog.set_level(logging.INFO)
    tried = 0
    for method, path, names in routes:
        for name in names:
            for bad in CONTROL + (NOT_A_SLUG if name in SLUGS else []):
                url = link(path, {name: bad})
                tried += 1
                if method == "WS":
                    with pytest.raises(WebSocketDisconnect) as closed, elder.websocket_connect(url):
                        pass
                    assert closed.value.code == 1008, url
                    continue
                response = elder.request(method, url, data={"csrf": csrf} if method == "POST" else None,
                                         follow_redirects=False)
                assert response.status_code == 404, (method, url, response.status_code, response.text[:300])
                assert "That link leads nowhere" in response.text
    assert tried >= 60
    problems = [r for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info]
    assert not problems, [r.getMessage()[:200] for r in problems]


def test_well_shaped_links_still_reach_their_pages(elder: TestClient) -> None:
    add_members(elder, ["Åsa Lee"])
    assert elder.get("/club/players/" + quote("Åsa Lee")).status_code == 200
    assert elder.get("/club/players/Nobody").status_code == 404
    assert "No such player" in elder.get("/club/players/Nobody").text
    assert elder.get("/rules/gurka-night").status_code == 200
    slug, _token = create_room(elder)
    assert text_in_shape("slug", slug)
    assert "Anna" in elder.get(f"/r/{slug}").text
    with elder.websocket_connect(f"/r/{slug}/ws") as ws:
        assert parse(ws.receive_text())["kind"] == "table"
