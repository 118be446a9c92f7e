"""Table phones and the board served by two app processes on one Postgres: two phones at one
table, each sending to a different process at the same moment, give one result and a conflict;
the board served by the other process shows the result at its next poll."""

from __future__ import annotations

import re
import threading
from contextlib import ExitStack
from pathlib import Path

import httpx
import pytest

from app.secret_key import new_secret
from app.store import results as result_store
from app.store.db import make_engine, session_scope, upgrade
from tests.support.app_process import app_process
from tests.support.club_nights import club_in_store

from .helpers import NINE, csrf_of, setup_form

pytestmark = pytest.mark.postgres
PASSWORD = "old-and-wise-1"


def test_two_processes_one_result_and_the_other_process_board_follows(postgres_url: str, tmp_path: Path) -> None:
    upgrade(postgres_url)
    engine = make_engine(postgres_url)
    with session_scope(engine) as session:
        ids = club_in_store(session, elder_password=PASSWORD)
    secret = new_secret()
    with ExitStack() as stack:
        one = stack.enter_context(app_process(postgres_url, tmp_path / "one.log", SECRET_KEY=secret))
        two = stack.enter_context(app_process(postgres_url, tmp_path / "two.log", SECRET_KEY=secret))
        elder = stack.enter_context(httpx.Client(base_url=one, timeout=20))
        login = elder.get("/club/login")
        assert elder.post("/club/login", data={"csrf": csrf_of(login.text), "name": "Elsa", "password": PASSWORD},
                          follow_redirects=False).status_code == 303
        new = elder.get("/club/nights/new")
        made = elder.post("/club/nights/new", follow_redirects=False,
                          data={"csrf": csrf_of(new.text), **setup_form(ids, NINE)})  # type: ignore[arg-type]
        assert made.status_code == 303, made.text
        night_id = int(made.headers["location"].rsplit("/", 1)[1])
        link = re.search(rf"/club/nights/{night_id}/table/mellan/[\w-]+", elder.get(made.headers["location"]).text)
        assert link

        tv = stack.enter_context(httpx.Client(base_url=two, timeout=20))
        board = tv.get(f"/club/nights/{night_id}/board")
        stamp = re.search(r'board/fresh\?v=([\w-]+)"', board.text)
        assert board.status_code == 200 and stamp
        assert "recorded" not in board.text.split('class="board-tables"')[1].split("</ul>")[0]

        phones = [stack.enter_context(httpx.Client(base_url=base, timeout=20)) for base in (one, two)]
        forms = [p.get(link.group(0)).text for p in phones]
        chairs = re.findall(r'name="first_out" value="([^"]+)"', forms[0])
        assert len(chairs) == 3
        entries = [re.search(r'name="entry" value="([^"]+)"', f).group(1) for f in forms]  # type: ignore[union-attr]
        start = threading.Barrier(2)
        said: list[httpx.Response | None] = [None, None]

        def send(i: int) -> None:
            data = {"entry": entries[i], "phase": "base", "round": "1",
                    "first_out": chairs[i], "second_out": chairs[(i + 1) % 3]}
            start.wait()
            said[i] = phones[i].post(link.group(0) + "/results", data=data, headers={"Accept": "application/json"})

        threads = [threading.Thread(target=send, args=(i,)) for i in (0, 1)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(30)
        outcomes = sorted((r.status_code, r.json()["outcome"]) for r in said if r is not None)
        assert outcomes == [(200, "saved"), (409, "conflict")], [r.text for r in said if r]
        with session_scope(engine) as session:
            rows = result_store.list_results(session, night_id=night_id)
        assert [(r.table, r.source) for r in rows] == [("mellan", "phone")]

        fresh = tv.get(f"/club/nights/{night_id}/board/fresh?v={stamp.group(1)}")
        assert fresh.status_code == 200
        tables = fresh.text.split('class="board-tables"')[1].split("</ul>")[0]
        assert tables.count("recorded") == 1 and "t-mellan done" in tables
    engine.dispose()
