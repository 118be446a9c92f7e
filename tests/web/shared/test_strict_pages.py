"""Issue 24, items 7 and 15: a Content-Security-Policy without 'unsafe-inline' (and so no
`style=""` anywhere: not in a template, not in a table page or push), club pages that no cache
keeps, and pages that load the minified vendored scripts. (The browser checks that no page
breaks the policy: tests/e2e/test_every_page_browser.py.)"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from app.web.shared.security import seat_cookie_name
from tests.web.table.wsutil import Player, create_room

ROOT = Path(__file__).resolve().parents[3]
STYLE_ATTRIBUTE = re.compile(r"""\sstyle\s*=\s*["']""", re.IGNORECASE)
SCRIPT_SRC = re.compile(r'<script\b[^>]*\bsrc="([^"]+)"')


def directives(csp: str) -> dict[str, list[str]]:
    parts = [d.split() for d in csp.split(";") if d.strip()]
    return {p[0]: p[1:] for p in parts}


@pytest.mark.parametrize("path", ["/", "/rules/", "/rules/gurka-night", "/club", "/club/hall-of-fame",
                                  "/r/no-such-room"])
def test_the_policy_allows_no_inline_style_or_script(web: TestClient, path: str) -> None:
    csp = directives(web.get(path).headers["content-security-policy"])
    assert csp["style-src"] == ["'self'"] and csp["script-src"] == ["'self'"]
    assert not any("unsafe" in value for values in csp.values() for value in values), csp


def test_no_template_or_module_writes_a_style_attribute_or_element() -> None:
    checked = 0
    for path in [*(ROOT / "templates").rglob("*.html"), *(ROOT / "app").rglob("*.py")]:
        text = path.read_text()
        checked += 1
        assert not STYLE_ATTRIBUTE.search(text), f"{path.relative_to(ROOT)} writes a style attribute"
        assert "<style" not in text, f"{path.relative_to(ROOT)} writes a <style> element"
    assert checked > 100


def test_a_table_in_play_and_its_pushes_carry_no_style_attribute(web: TestClient) -> None:
    """The score bars and the hand's fan, which used `style=""`: a meter and a CSS count now."""
    slug, token = create_room(web, bots=2)
    anna = Player(web, slug, token).connect()
    anna.recv_table()
    anna.send(do="start", v=anna.version)
    table = anna.recv_table()
    while "data-hand" not in table["content"]:
        table = anna.recv_table()
    assert '<meter class="bar" min="0" max="21" value="0" aria-hidden="true"></meter>' in table["content"]
    page = web.get(f"/r/{slug}", headers={"cookie": f"{seat_cookie_name(slug)}={token}"}).text
    assert "data-hand" in page and 'class="cardbtn' in page
    for html in (page, *(f.get("content", "") for f in anna.frames)):
        assert not STYLE_ATTRIBUTE.search(html), STYLE_ATTRIBUTE.search(html)
    anna.close()


@pytest.mark.parametrize("path", ["/club", "/club/hall-of-fame", "/club/login", "/club/corrections",
                                  "/club/beer", "/club/members", "/club/nights/new", "/club/nights/987654",
                                  "/club/players/Nobody"])
def test_club_pages_are_kept_by_no_cache(web: TestClient, path: str) -> None:
    """Per-viewer pages (an elder's forms, a member's own links): no-store, from one place, on
    every answer under /club (redirects to the login and 404s too)."""
    response = web.get(path, follow_redirects=False)
    assert response.headers["cache-control"] == "no-store", (path, response.status_code)
    assert response.headers["content-security-policy"]  # the other headers come along


def test_only_club_pages_get_the_clubs_cache_rule(web: TestClient) -> None:
    assert "cache-control" not in web.get("/").headers
    assert "cache-control" not in web.get("/rules/").headers
    assert "cache-control" not in web.get("/clubhouse").headers  # not a club page: only /club and /club/...
    slug, _ = create_room(web)
    assert web.get(f"/r/{slug}").headers["cache-control"] == "no-store"  # the room page's own


def test_pages_load_the_minified_vendored_scripts(web: TestClient) -> None:
    slug, _ = create_room(web)
    for path in ("/", f"/r/{slug}", "/club", "/rules/"):
        sources = SCRIPT_SRC.findall(web.get(path).text)
        vendored = [s for s in sources if s.startswith("/static/vendor/")]
        assert vendored == ["/static/vendor/htmx/htmx.min.js", "/static/vendor/htmx/ext/hx-ws.min.js"], (path, sources)
        for src in sources:
            assert web.get(src).status_code == 200, src


def test_htmx_adds_no_style_sheet_of_its_own(web: TestClient) -> None:
    """htmx 4 adopts a style sheet for its request indicators unless told not to; the pages use
    no indicator, so the config meta turns it off (the vendored build reads that key)."""
    assert '<meta name="htmx-config" content="includeIndicatorCSS:false, defaultSettleDelay:0">' in web.get("/").text
    htmx = (ROOT / "static" / "vendor" / "htmx" / "htmx.min.js").read_text()
    assert "includeIndicatorCSS" in htmx and 'meta[name="htmx-config"]' in htmx
    # and no settle delay: with one, a swap wrote the replaced element's CSSOM style onto the new
    # one as a style attribute, which the policy refuses (issue 37 item 9; the browser test is
    # tests/e2e/test_home_night_browser.py)
    assert "defaultSettleDelay" in htmx
