"""Issue 37 item 11: no HTML in Python. The refusal of a form sent from another site and the 500
page were HTML written in Python (English only, without the site's look); they are the error
template in the reader's language now, with a line of plain text as the last resort only when
the template cannot be rendered (logged once, not per request)."""

from __future__ import annotations

import ast
import logging
import re
from collections.abc import Iterator
from pathlib import Path

import jinja2
import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from app.main import create_app
from app.web.shared import errors
from tests.conftest import make_settings

APP = Path(__file__).resolve().parents[3] / "app"
TAG = re.compile(r"<(!doctype|html|head|body|title|h[1-6]|p|div|span|section|a|li|ul|ol|form|button|table)\b[^>]*>",
                 re.IGNORECASE)
STYLESHEET = '<link rel="stylesheet" href="/static/css/app.css">'


def boom() -> None:
    raise RuntimeError("a bug")


@pytest.fixture
def app(sqlite_url: str) -> FastAPI:
    made = create_app(make_settings(sqlite_url))
    made.add_api_route("/boom", boom)
    return made


@pytest.fixture
def client(app: FastAPI) -> Iterator[TestClient]:
    with TestClient(app, raise_server_exceptions=False) as c:
        yield c


def break_error_template(app: FastAPI) -> None:
    env = app.state.templates.env
    env.loader = jinja2.DictLoader({"shared/error.html": "{% extends 'no/such/base.html' %}"})
    env.cache.clear()


def test_the_500_page_is_the_error_template_in_the_readers_language(client: TestClient) -> None:
    answer = client.get("/boom", headers={"accept-language": "da"})
    assert answer.status_code == 500
    assert answer.headers["content-type"].startswith("text/html")
    assert STYLESHEET in answer.text and '<html lang="da">' in answer.text
    assert "Noget gik galt" in answer.text and "a bug" not in answer.text and "Traceback" not in answer.text


def test_a_form_from_another_site_gets_the_error_template_in_the_readers_language(client: TestClient) -> None:
    answer = client.post("/rooms", data={"name": "Eve", "preset": "gurka-night", "seats": "3"},
                         headers={"origin": "https://evil.example", "accept-language": "fi"}, follow_redirects=False)
    assert answer.status_code == 403 and "set-cookie" not in answer.headers
    assert STYLESHEET in answer.text and '<html lang="fi">' in answer.text
    assert "toiselta sivustolta" in answer.text
    assert "frame-ancestors" in answer.headers["content-security-policy"]


def test_plain_text_is_the_last_resort_and_is_logged_once(
    app: FastAPI, client: TestClient, caplog: pytest.LogCaptureFixture
) -> None:
    break_error_template(app)
    errors._failed_kinds.clear()
    caplog.set_level(logging.ERROR, logger="gurka.errors")
    for _ in range(3):
        answer = client.get("/boom")
        assert answer.status_code == 500 and answer.headers["content-type"].startswith("text/plain")
        assert answer.text == "Something went wrong: The server could not answer this request. Nothing was changed; try again."
        refused = client.post("/rooms", data={"name": "Eve"}, headers={"origin": "https://evil.example"})
        assert refused.status_code == 403 and refused.headers["content-type"].startswith("text/plain")
        assert "another site" in refused.text
    said = [r for r in caplog.records if r.name == "gurka.errors"]
    assert len(said) == 1 and "could not be rendered" in said[0].getMessage()
    errors._failed_kinds.clear()


def html_in_strings(path: Path) -> list[str]:
    """String literals of a module (its docstrings left out) that hold an HTML tag."""
    tree = ast.parse(path.read_text())
    docstrings = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                docstrings.add(id(first.value))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and id(node) not in docstrings:
            text = node.value.decode("latin-1") if isinstance(node.value, bytes) else node.value
            if isinstance(text, str) and TAG.search(text):
                found.append(text[:80])
    return found


def test_no_module_of_the_app_writes_html() -> None:
    offenders = {str(p.relative_to(APP)): html_in_strings(p) for p in APP.rglob("*.py")}
    assert {k: v for k, v in offenders.items() if v} == {}
