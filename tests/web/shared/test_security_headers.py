"""Issue 10: security headers, no state-changing request from another site, the websocket
Origin compared by scheme, host and port, and no inline script in any template."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from tests.web.table.wsutil import Player, create_room

TEMPLATES = Path(__file__).resolve().parents[3] / "templates"


@pytest.mark.parametrize("path", ["/", "/club", "/club/hall-of-fame", "/rules/"])
def test_pages_carry_the_security_headers(web: TestClient, path: str) -> None:
    headers = web.get(path).headers
    csp = headers["content-security-policy"]
    assert "script-src 'self'" in csp and "unsafe-inline" not in csp.split("script-src")[1].split(";")[0]
    assert "frame-ancestors 'none'" in csp
    assert headers["x-frame-options"] == "DENY"
    assert headers["referrer-policy"] == "same-origin"
    assert headers["x-content-type-options"] == "nosniff"


def test_the_room_page_and_errors_carry_them_too(web: TestClient) -> None:
    slug, _ = create_room(web)
    assert "frame-ancestors" in web.get(f"/r/{slug}").headers["content-security-policy"]
    assert web.get("/r/nope").headers["x-frame-options"] == "DENY"


def test_no_template_has_an_inline_script_or_event_handler() -> None:
    for path in TEMPLATES.rglob("*.html"):
        text = path.read_text()
        for tag in re.findall(r"<script\b[^>]*>", text):
            assert "src=" in tag, (path, tag)
        assert not re.search(r"\son[a-z]+\s*=", text), path
        assert "hx-on" not in text and "javascript:" not in text, path


@pytest.mark.parametrize("headers", [
    {"origin": "https://evil.example"},
    {"origin": "null"},
    {"sec-fetch-site": "cross-site"},
    {"origin": "https://testserver"},  # same host, other scheme
    {"origin": "http://testserver:8080"},  # same host, other port
])
def test_cross_site_posts_are_refused_and_set_no_cookie(web: TestClient, headers: dict[str, str]) -> None:
    response = web.post("/rooms", data={"name": "Anna", "preset": "gurka-night", "seats": "3"},
                        headers=headers, follow_redirects=False)
    assert response.status_code == 403
    assert "another site" in response.text
    assert "set-cookie" not in response.headers
    assert web.app.state.rooms.rooms == {}
    slug, _ = create_room(web)
    response = web.post(f"/r/{slug}/join", data={"name": "Eve"}, headers=headers, follow_redirects=False)
    assert response.status_code == 403 and "set-cookie" not in response.headers
    assert [s.name for s in web.app.state.rooms.get(slug).state.seats.values()] == ["Anna"]


def test_same_origin_posts_go_through(web: TestClient) -> None:
    response = web.post("/rooms", data={"name": "Anna", "preset": "gurka-night", "seats": "3"},
                        headers={"origin": "http://testserver", "sec-fetch-site": "same-origin"},
                        follow_redirects=False)
    assert response.status_code == 303


@pytest.mark.parametrize("origin", ["https://testserver", "http://testserver:81", "http://evil.example",
                                    "null", "ws://testserver.evil.example"])
def test_the_websocket_origin_must_match_scheme_host_and_port(web: TestClient, origin: str) -> None:
    slug, token = create_room(web)
    with pytest.raises(WebSocketDisconnect) as closed:
        p = Player(web, slug, token).connect(headers={"origin": origin})
        p.recv()
    assert closed.value.code == 1008
    ok = Player(web, slug, token).connect(headers={"origin": "http://testserver:80"})
    assert ok.recv_table()["kind"] == "table"
    ok.close()
