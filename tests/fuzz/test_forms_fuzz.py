"""Random queries and form posts: never a 500, never a traceback, never a hidden card."""

from __future__ import annotations

import logging
from urllib.parse import quote

import pytest
from fastapi.testclient import TestClient
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.web.club.helpers import become_elder, csrf_of
from tests.web.table.test_room_protocol import start
from tests.web.table.wsutil import Player, create_room, hidden_cards, join, leaks

WEIRD = st.one_of(
    st.text(max_size=60),
    st.sampled_from(["²", "--1", "١٢", "9" * 5000, "0", "-1", "<script>", "' OR 1=1 --", "../../etc/passwd",
                     "Ａｎｎａ", "Bo\u200b", "Jose\u0301", "%00", "\x00"]),
    st.integers(min_value=-(10**30), max_value=10**30).map(str),
)
FIELDS = st.dictionaries(
    st.sampled_from(["name", "preset", "seats", "bots", "opt_target", "opt_jokers", "password", "next",
                     "crates", "member", "reason", "night", "year", "sort", "action"]),
    WEIRD, max_size=6,
)


def _no_traceback(caplog: pytest.LogCaptureFixture) -> None:
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info]
    assert not errors, [r.getMessage() for r in errors][:3]


def test_random_queries_and_forms_never_fail(fuzz_app: TestClient, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO)
    web = fuzz_app
    become_elder(web)
    csrf = csrf_of(web.get("/club/beer").text)
    cookies = dict(web.cookies)  # the elder's session
    slug, t0 = create_room(web, name="Anna")
    tokens = [t0, join(web, slug, "Bo"), join(web, slug, "Cai")]
    players = [Player(web, slug, t).connect() for t in tokens]
    for i, p in enumerate(players):
        p.drain(3 - i)
    room = web.app.state.rooms.get(slug)
    start(players, room)
    for p in players:
        p.close()

    @settings(settings.get_profile("fuzz"))
    @given(fields=FIELDS, value=WEIRD, which=st.integers(min_value=0, max_value=7))
    def one(fields: dict[str, str], value: str, which: int) -> None:
        web.cookies.clear()
        web.cookies.update(cookies)
        form = {"csrf": csrf, **fields}
        if which == 0:
            response = web.get("/club/hall-of-fame", params={"year": value, "sort": fields.get("sort", "")})
        elif which == 1:
            response = web.get("/new/options", params={"preset": value})
        elif which == 2:
            response = web.post("/rooms", data=fields, follow_redirects=False)
        elif which == 3:
            response = web.post(f"/r/{slug}/join", data=fields, follow_redirects=False)
        elif which == 4:
            response = web.post("/club/beer", data=form, follow_redirects=False)
        elif which == 5:
            response = web.post("/club/login", data=form, follow_redirects=False)
        elif which == 6:
            response = web.get(f"/club/players/{quote(value[:200], safe='')}", follow_redirects=False)
        else:
            web.cookies.clear()  # a stranger's view of the live table
            response = web.get(f"/r/{slug}", params={"sort": value})
            main = response.text.split("<main", 1)[1]  # the head's favicon data URI has "%3C"
            assert not leaks({"content": main}, hidden_cards(room, None))
        assert response.status_code < 500, (which, fields, value, response.status_code)
        assert "Traceback" not in response.text

    one()
    _no_traceback(caplog)
    assert room.state.status == "playing" and len(room.state.seats) == 3
