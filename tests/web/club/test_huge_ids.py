"""Issue 24: a whole-number id past what the database holds (`/club/nights/18446744073709551616`)
answered 500 with a traceback (SQLite OverflowError, Postgres NumericValueOutOfRange; the id
columns are INTEGER, so on Postgres anything past 2**31 - 1 already fails). Every
route with a whole-number path part, found from the app itself (so a new one is covered too),
answers 404 for such a number on SQLite and on Postgres, with nothing in the log; the largest id
the database holds still reaches the route and gets its ordinary answer."""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from app.main import create_app
from app.web.shared.ids import MAX_ID, out_of_range
from tests.conftest import make_settings
from tests.web.club.helpers import become_elder, token

TOO_BIG = [str(2**64), str(2**63), str(MAX_ID + 1), "9" * 30, "0" + str(2**64), str(-(2**64))]
PARAM = re.compile(r"{(\w+)}")
FILLED = {"key": "base-1-vinder", "chair": "0"}  # the other path parts, as a real link has them


@pytest.fixture
def elder(database_url: str) -> Iterator[TestClient]:
    with TestClient(create_app(make_settings(database_url))) as client:
        become_elder(client)
        yield client


def int_routes(client: TestClient) -> list[tuple[str, str, list[str]]]:
    """(method, path, its whole-number parameters) for every route the app has."""
    found = []
    for path, ops in client.app.openapi()["paths"].items():  # type: ignore[attr-defined]
        for method, op in ops.items():
            ints = [p["name"] for p in op.get("parameters", [])
                    if p["in"] == "path" and p["schema"].get("type") == "integer"]
            if ints:
                found.append((method.upper(), path, ints))
    return found


def link(path: str, values: dict[str, str]) -> str:
    return PARAM.sub(lambda m: values.get(m.group(1), FILLED.get(m.group(1), "1")), path)


def test_the_bound_is_the_databases() -> None:
    for fits in (str(MAX_ID), "0", "007", "-1", str(-MAX_ID)):
        assert not out_of_range(fits), fits
    for bad in TOO_BIG:
        assert out_of_range(bad), bad
    for no_number in ("²", "1e3", "abc", "", "9" * 5000):  # the route's own 400 says so
        assert not out_of_range(no_number), no_number[:10]


def test_every_whole_number_in_a_link_past_the_databases_range_is_a_404(
    elder: TestClient, caplog: pytest.LogCaptureFixture
) -> None:
    routes = int_routes(elder)
    paths = {path for _, path, _ in routes}
    for wanted in ("/club/nights/{night_id}", "/club/nights/{night_id}/live", "/club/nights/{night_id}/fresh",
                   "/club/nights/{night_id}/results/{result_id}/correct", "/club/members/{member_id}",
                   "/club/beer/{debt_id}/settle"):
        assert wanted in paths, wanted  # the links are among those found
    csrf = token(elder, "/club/members")
    caplog.set_level(logging.INFO)
    answers = []
    for method, path, ints in routes:
        for name in ints:
            for huge in TOO_BIG:
                url = link(path, {name: huge})
                # a valid CSRF token: were the number not refused first, the route itself would run
                response = elder.request(method, url, data={"csrf": csrf} if method == "POST" else None,
                                         follow_redirects=False)
                answers.append((method, url, response.status_code))
                assert response.status_code == 404, (method, url, response.status_code, response.text[:300])
                assert "That link leads nowhere" in response.text
        # the largest id the database holds reaches the route: whatever it answers, never a 500
        url = link(path, dict.fromkeys(ints, str(MAX_ID)))
        response = elder.request(method, url, data={"csrf": csrf} if method == "POST" else None,
                                 follow_redirects=False)
        assert response.status_code < 500, (method, url, response.status_code)
    assert len(answers) >= 16 * len(TOO_BIG)
    problems = [r for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info]
    assert not problems, [r.getMessage() for r in problems]


def test_a_huge_id_in_a_form_field_gets_the_forms_own_message(elder: TestClient) -> None:
    csrf = token(elder, "/club/beer")
    answer = elder.post("/club/beer", data={"csrf": csrf, "member": str(2**64), "reason": "late", "crates": "1",
                                            "night": str(2**64)})
    assert answer.status_code == 422 and "Choose who owes the crate." in answer.text
