"""Issue 37 item 9: the app takes the browsers' reports of Content-Security-Policy violations (the
policy names the endpoint both ways: `report-uri` and `report-to` with `Reporting-Endpoints`)
and logs each kind once: a page violating the policy on every poll, or anyone posting reports,
cannot flood the log. What a report says is cut short and cleaned before it is logged."""

from __future__ import annotations

import json
import logging

import pytest
from fastapi.testclient import TestClient

from app.web.shared.csp_reports import MAX_BYTES, Seen

OLD = {"csp-report": {"document-uri": "http://testserver/club/nights/1?secret=abc",
                      "violated-directive": "style-src-attr", "effective-directive": "style-src-attr",
                      "blocked-uri": "inline", "source-file": "http://testserver/static/vendor/htmx/htmx.min.js?v=1",
                      "line-number": 1}}
NEW = [{"type": "csp-violation", "url": "http://testserver/r/AAAA",
        "body": {"documentURL": "http://testserver/r/AAAA", "effectiveDirective": "script-src-elem",
                 "blockedURL": "https://evil.example/x.js?token=1", "sourceFile": "http://testserver/r/AAAA",
                 "lineNumber": 7}}]


def said(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == "gurka.csp"]


def test_every_page_names_the_report_endpoint(web: TestClient) -> None:
    headers = web.get("/").headers
    assert "report-uri /csp-report; report-to csp" in headers["content-security-policy"]
    assert headers["reporting-endpoints"] == 'csp="/csp-report"'


def test_each_kind_of_violation_is_logged_once(web: TestClient, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO)
    for _ in range(5):
        answer = web.post("/csp-report", content=json.dumps(OLD), headers={"content-type": "application/csp-report"})
        assert answer.status_code == 204 and answer.content == b""
        answer = web.post("/csp-report", content=json.dumps(NEW), headers={"content-type": "application/reports+json"})
        assert answer.status_code == 204
    lines = said(caplog)
    assert len(lines) == 2, lines
    assert lines[0] == ("Content-Security-Policy violation: style-src-attr blocked inline at "
                        "http://testserver/static/vendor/htmx/htmx.min.js:1 on http://testserver/club/nights/1 "
                        "(logged once per kind)")
    assert "script-src-elem blocked https://evil.example/x.js at http://testserver/r/AAAA:7" in lines[1]
    assert "secret=abc" not in "".join(lines) and "token=1" not in "".join(lines)  # no query is logged


def test_what_is_no_report_is_refused_plainly_and_logged_never(web: TestClient, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO)
    for junk in (b"not json", b"{}", b"[1, 2]", json.dumps([{"type": "deprecation", "body": {}}]).encode()):
        answer = web.post("/csp-report", content=junk)
        assert answer.status_code == 400 and "That is not a report." in answer.text
    assert web.post("/csp-report", content=b"[" + b" " * MAX_BYTES + b"]").status_code == 413
    sneaky = {"csp-report": {"effective-directive": "style-src\n2026-01-01 CRITICAL forged line", "blocked-uri": "inline"}}
    assert web.post("/csp-report", content=json.dumps(sneaky)).status_code == 204
    lines = said(caplog)
    assert len(lines) == 1 and "\n" not in lines[0] and "style-src?2026-01-01 CRITICAL forged line" in lines[0]
    problems = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert not problems


def test_the_kinds_remembered_are_bounded() -> None:
    seen = Seen(limit=3)
    assert [seen.first(("d", str(i), "")) for i in range(3)] == [True, True, True]
    assert seen.first(("d", "0", "")) is False
    assert seen.first(("d", "new", "")) is None  # said once: the memory is full
    assert seen.first(("d", "newer", "")) is False and len(seen.kinds) == 3
