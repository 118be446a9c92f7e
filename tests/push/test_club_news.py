"""The club's news for web push, on SQLite and Postgres: an online night's first round (to the
players seated in it, at their table), the night's result, the date poll opened (to the members
who answer) and closing tomorrow (to those who have not answered), and its result; each sent
once, however often the club is looked at; a device that chose otherwise hears nothing."""

from __future__ import annotations

from datetime import date, timedelta

from sqlalchemy import Engine

from app.club import Night
from app.push.sender import Outgoing
from app.store import date_polls as poll_store
from app.store import members as member_store
from app.store import night_replay
from app.store import nights as night_store
from app.store import push as store
from app.store.db import session_scope
from app.web.device.club_news import collect
from tests.web.club.helpers import NINE

TODAY = date(2027, 3, 10)


def devices(engine: Engine) -> dict[str, int]:
    """Nine members, each with one subscribed device; their ids."""
    ids: dict[str, int] = {}
    with session_scope(engine) as session:
        for name in NINE:
            member = member_store.add_member(session, name=name)
            assert member.id is not None
            ids[name] = member.id
            store.save_subscription(session, device_hash=f"hash-{name}", endpoint=f"https://push.example/{name}",
                                    p256dh="p", auth="a", lang="da" if name == "Ann" else "en", member_id=member.id)
    return ids


def told(items: list[Outgoing]) -> dict[str, list[str]]:
    """Which device got which message (its English title)."""
    found: dict[str, list[str]] = {}
    for item in items:
        found.setdefault(item.endpoint.rsplit("/", 1)[-1], []).append(item.message.title)
    return found


def test_an_online_nights_first_round_and_its_result(engine: Engine) -> None:
    ids = devices(engine)
    night = Night.new(NINE, None, seed=5)
    chairs = list(night.tables["vinder"])
    with session_scope(engine) as session:
        players = [{"name": p, "member_id": ids[p], "for_id": None, "for_name": None} for p in NINE]
        row = night_store.create_night(session, day=TODAY, host="Ann", seed=5, players=players, start={}, mode="online",
                                created_by="Ann")
        night_replay.save_state(session, row, night)
        fresh = night_store.get_night(session, night_id=row.id)  # type: ignore[arg-type]
        assert fresh is not None
        night_store.save_night_state(session, night_id=row.id,  # type: ignore[arg-type]
                              state={**fresh.state, "rooms": {"base-1-vinder": {"slug": "s1", "players": chairs,
                                                                                  "dealer": 0}}},
                              status="open", winner=None)
        night_id = row.id
    first = collect(engine, TODAY)
    assert told(first) == {p: ["Gurka Night has begun"] for p in chairs}  # the vinder table's three only
    said = next(i for i in first if i.endpoint.endswith("/" + chairs[0])).message.said("en").decode()
    assert "Vinderbord" in said and f"/club/nights/{night_id}" in said
    assert collect(engine, TODAY) == []  # once

    with session_scope(engine) as session:
        night_store.save_night_state(session, night_id=night_id, state={}, status="done", winner="Cy")  # type: ignore[arg-type]
        store.set_topics(session, device_hash="hash-Bo", topics={"turn", "dates"}, lang="en", member_id=None)
    result = told(collect(engine, TODAY))
    assert set(result) == set(NINE) - {"Bo"}  # Bo's device chose not to hear about nights
    assert all(titles == ["The night's result is in"] for titles in result.values())
    assert collect(engine, TODAY) == []


def test_the_date_poll_opened_closing_tomorrow_and_its_result(engine: Engine) -> None:
    ids = devices(engine)
    with session_scope(engine) as session:
        row = night_store.create_night(session, day=TODAY - timedelta(days=6), host="Ann", seed=1, players=[], start={})
        poll = poll_store.create_poll(session, night_id=row.id, poll=poll_store.DatePollCreate(  # type: ignore[arg-type]
            proposed_by="Cy", option_a=TODAY + timedelta(days=20), option_b=TODAY + timedelta(days=27),
            answer_by=TODAY + timedelta(days=1)))
        for name in NINE[:5]:
            if name != "Cy":
                poll_store.set_vote(session, poll_id=poll.id,  # type: ignore[arg-type]
                                    answer=poll_store.DateVoteCreate(member_id=ids[name], choice="a", late=False))
    found = told(collect(engine, TODAY))
    # opened: to everyone but the proposer; closing tomorrow: to those who have not answered
    assert set(found) == set(NINE) - {"Cy"}
    assert {p for p, titles in found.items() if "The date poll closes tomorrow" in titles} == set(NINE[5:])
    assert all("The next night: choose a date" in titles for titles in found.values())
    assert collect(engine, TODAY) == []
    with session_scope(engine) as session:
        for name in NINE[5:]:
            poll_store.set_vote(session, poll_id=poll.id,  # type: ignore[arg-type]
                                    answer=poll_store.DateVoteCreate(member_id=ids[name], choice="a", late=False))
    result = collect(engine, TODAY)
    assert told(result) == {p: ["The next night's date is set"] for p in NINE}
    danish = next(i for i in result if i.endpoint.endswith("/Ann")).message.said("da").decode()
    assert "Næste Gurka Night er" in danish
    assert collect(engine, TODAY) == []
