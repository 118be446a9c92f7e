"""Helpers for the club page tests: CSRF tokens, an elder session, whole nights."""

from __future__ import annotations

import functools
import itertools
import re
from datetime import date
from typing import Any

from app.club import Night, RoundResult
from app.store import members as member_store
from app.store import night_replay
from app.store import nights as night_store
from app.store import results as result_store
from app.store.db import session_scope

NINE = ["Ann", "Bo", "Cy", "Di", "Ed", "Fi", "Gu", "Hal", "Ida"]
PASSWORD = "gurka-elder-1"


def csrf_of(html: str) -> str:
    found = re.search(r'name="csrf" value="([^"]+)"', html)
    assert found, "the page has no CSRF token"
    return found.group(1)


def token(client: Any, path: str = "/club") -> str:
    return csrf_of(client.get(path).text)


def become_elder(client: Any, name: str = "Elsa") -> None:
    page = client.get("/club/setup")
    response = client.post(
        "/club/setup",
        data={"csrf": csrf_of(page.text), "name": name, "password": PASSWORD, "password2": PASSWORD},
        follow_redirects=False,
    )
    assert response.status_code == 303, response.text


def add_members(client: Any, names: list[str]) -> dict[str, int]:
    csrf = token(client, "/club/members")
    for name in names:
        assert client.post("/club/members", data={"csrf": csrf, "name": name}).status_code == 200
    return member_ids(client)


def member_ids(client: Any) -> dict[str, int]:
    with session_scope(client.app.state.engine) as session:
        return {m.name: m.id for m in member_store.list_members(session)}  # type: ignore[misc]


def setup_form(ids: dict[str, int], players: list[str], *, day: str = "", host: str = "Ann",
               tables: dict[str, str] | None = None, stand_ins: dict[str, str] | None = None,
               new: dict[int, str] | None = None) -> dict[str, str]:
    data = {"date": day or date.today().isoformat(), "host": host, "mode": "hand"}
    for i, name in enumerate(players):
        data[f"player_{i}"] = str(ids[name]) if name in ids else ""
        data[f"new_{i}"] = (new or {}).get(i, "")
        data[f"for_{i}"] = str(ids[(stand_ins or {})[name]]) if name in (stand_ins or {}) else ""
        data[f"table_{i}"] = (tables or {}).get(name, "auto")
    return data


def create_night(client: Any, data: dict[str, str]) -> int:
    data = {"csrf": token(client, "/club/nights/new"), **data}
    response = client.post("/club/nights/new", data=data, follow_redirects=False)
    assert response.status_code == 303, response.text
    return int(response.headers["location"].rsplit("/", 1)[1])


def core(client: Any, night_id: int) -> Night:
    with session_scope(client.app.state.engine) as session:
        loaded = night_replay.load(session, night_id=night_id)
        assert loaded is not None
        return loaded[2]


def by_chair_form(chairs: list[str], *, shift: int = 0, bar_rov: bool = False,
                  agurker: dict[int, int] | None = None) -> dict[str, str]:
    """Chair (0+shift) out first, (1+shift) second, (2+shift) wins."""
    order = [chairs[(i + shift) % 3] for i in range(3)]
    data = {"first_out": order[0], "second_out": order[1], "winner": order[2]}
    if bar_rov:
        data["bar_rov"] = "yes"
    for i, n in (agurker or {}).items():
        data[f"agurk_{i}"] = str(n)
    return data


def play_by_hand(client: Any, night_id: int, *, shift_of=lambda stage, rnd, table: 0) -> Night:
    """Record a whole night through the forms (playoffs in standings order)."""
    csrf = token(client, f"/club/nights/{night_id}")
    for _ in range(200):
        night = core(client, night_id)
        if night.phase == "done":
            return night
        if night.phase == "playoff":
            group = night.playoffs[0]
            data = {"csrf": csrf, "group": "0", **{f"place_{i}": p for i, p in enumerate(group)}}
            response = client.post(f"/club/nights/{night_id}/playoff", data=data, follow_redirects=False)
            assert response.status_code == 303, response.text
            continue
        table = night.pending_tables[0]
        chairs = night.tables[table]
        shift = shift_of(night.stage, night.current.number, table)
        data = {
            "csrf": csrf, "table": table, "phase": night.stage, "round": str(night.current.number),
            **by_chair_form(chairs, shift=shift, bar_rov=(night.current.number % 5 == 0),
                            agurker={0: 1} if night.current.number % 7 == 0 else None),
        }
        response = client.post(f"/club/nights/{night_id}/results", data=data, follow_redirects=False)
        assert response.status_code == 303, response.text
    raise AssertionError("the night did not finish")


def finished_night_in_store(engine: Any, *, ids: dict[str, int], players: list[str], day: date,
                            seed: int, start: dict[str, str] | None = None, host: str = "Ann",
                            stand_ins: dict[str, str] | None = None) -> int:
    """A whole night straight into the store (fast), results rotating by seed."""
    stand_ins = stand_ins or {}
    rows = [
        {"name": p, "member_id": ids[p], "for_id": ids.get(stand_ins.get(p, "")),
         "for_name": stand_ins.get(p)}
        for p in players
    ]
    night = Night.new(players, start, seed=seed)
    with session_scope(engine) as session:
        row = night_store.create_night(session, day=day, host=host, seed=seed, players=rows, start=start or {})
        playoffs = 0
        for step in itertools.count():
            if night.phase == "done":
                break
            if night.phase == "playoff":
                order, stage = night.playoffs[0], night.stage
                night.record_playoff(order)
                playoffs += 1
                result_store.add_result(session, night_id=row.id, phase="playoff", round_no=playoffs,
                                 table=stage, result={"order": order}, recorded_by="test")
                continue
            table = night.pending_tables[0]
            chairs = night.tables[table]
            k = (seed + step) % 3
            result = RoundResult(out=[chairs[k], chairs[(k + 1) % 3]], winner=chairs[(k + 2) % 3],
                                 took_cards=set(chairs))
            stage, number = night.stage, night.current.number
            night.record(table, result)
            result_store.add_result(session, night_id=row.id, phase=stage, round_no=number, table=table,
                             result=result.to_dict(), recorded_by="test")
        night_replay.save_state(session, row, night)
        return row.id  # type: ignore[return-value]


def personal_link(client: Any, name: str) -> str:
    """An elder makes `name`'s personal link; returns its path (/club/me/...)."""
    member_id = member_ids(client)[name]
    response = client.post(f"/club/members/{member_id}/link", data={"csrf": token(client, "/club/members")})
    assert response.status_code == 200, response.text
    found = re.search(r'class="copy-link"[^>]*>https?://[^/<]+(/club/me/[^<]+)</textarea>', response.text)
    assert found, "the page shows no personal link"
    return found.group(1)


def remember_member(client: Any, name: str) -> None:
    """This client's device remembers `name` (the elder sends the link, the member opens it)."""
    response = client.get(personal_link(client, name))
    assert response.status_code == 200 and f"knows you as <strong>{name}</strong>" in response.text


def bots_play(client: Any, slug: str) -> None:
    """Nobody comes to this table: every seat of its room goes to a bot (as any seated player
    could do for an absent one; the grace time is skipped, the test says nobody comes)."""
    room = client.app.state.rooms.get(slug)
    assert room is not None and room.state.status == "playing", "no such room playing"
    for seat in sorted(room.state.seats):
        if not room.state.seats[seat].botted:
            client.portal.call(functools.partial(room.hand_to_bot, room.state.host, seat, grace=False))


def switch_bots(client: Any, night_id: int, on: bool) -> None:
    """An elder turns the night's bots for the absent on or off (back to the night page)."""
    url = f"/club/nights/{night_id}"
    response = client.post(f"{url}/bots", data={"csrf": token(client, url), "on": "yes" if on else "no"},
                           follow_redirects=False)
    assert response.status_code == 303 and response.headers["location"] == f"{url}#live", response.text
