"""The club's news for web push, read from the database now and then (`collect`): a Gurka Night's
first round is open (to the players seated in it), a player's next round is ready, the night's
result is in; the date poll opened, closes tomorrow (to whoever has not answered), and its
result. Each message is claimed once in the database by its key, so it goes out once, from one
process, whatever restarts; news older than a couple of days is never sent.

It reads only (the night's rooms, its players, the poll) and changes nothing in the club.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

from sqlalchemy import Engine
from sqlmodel import Session

from app.push import messages
from app.push.messages import Message
from app.push.sender import Outgoing
from app.store import date_polls as poll_store
from app.store import members as member_store
from app.store import night_replay
from app.store import nights as night_store
from app.store import push as store
from app.store.db import row_id, session_scope
from app.web.club.online import current_rooms
from app.web.club.poll_view import poll_view

RECENT = timedelta(days=2)


def collect(engine: Engine, today: date | None = None) -> list[Outgoing]:
    """The messages not sent yet, claimed (blocking: runs in a thread)."""
    today = today or date.today()
    found: list[Outgoing] = []
    with session_scope(engine) as session:
        for key, member_ids, message, topic in _news(session, today):
            if not member_ids or not store.claim(session, key=key):
                continue
            rows = store.for_members(session, member_ids=sorted(member_ids), topic=topic)
            found += [Outgoing.to(row, message) for row in rows]
    return found


def _news(session: Session, today: date) -> list[tuple[str, set[int], Message, str]]:
    news: list[tuple[str, set[int], Message, str]] = []
    for row in night_store.list_nights(session):
        if row.date < today - RECENT:
            break  # newest first: the rest is old
        ids = {p["name"]: p["member_id"] for p in row.players if p.get("member_id")}
        if row.status == "done" and row.winner:
            night_id = row_id(row)
            news.append((f"night:{night_id}:done", set(ids.values()), messages.night_result(night_id, row.winner),
                         "night"))
        elif row.status == "open" and row.mode == "online":
            news += _rounds(session, row, ids)
    members = member_store.list_public(session, active_only=True)
    by_name = {m.name: m.id for m in members if m.id is not None}
    for poll in poll_store.list_polls(session):
        if poll.answer_by < today - RECENT or poll.id is None:
            continue
        view = poll_view(poll, poll_store.list_votes(session, poll_id=poll.id), members, today)
        voters = {i for n, i in by_name.items() if n != poll.proposed_by}
        if datetime.now(UTC) - _aware(poll.created_at) < RECENT and not view["closed"]:
            news.append((f"poll:{poll.id}:open", voters,
                         messages.poll_opened(poll.night_id, poll.proposed_by, poll.option_a, poll.option_b,
                                              poll.answer_by), "dates"))
        if poll.answer_by == today + timedelta(days=1) and not view["closed"]:
            missing = {by_name[n] for n in view["missing"] if n in by_name}
            news.append((f"poll:{poll.id}:closing", missing,
                         messages.poll_closes_tomorrow(poll.night_id, poll.option_a, poll.option_b), "dates"))
        if view["closed"] and view["chosen"] is not None:
            news.append((f"poll:{poll.id}:result", set(by_name.values()),
                         messages.poll_result(poll.night_id, view["chosen"]), "dates"))
    return news


def _rounds(session: Session, row: night_store.Night, ids: dict[str, int]) -> list[tuple[str, set[int], Message, str]]:
    night_id = row_id(row)
    loaded = night_replay.load(session, night_id=night_id)
    if loaded is None:
        return []
    _row, _results, night = loaded
    news: list[tuple[str, set[int], Message, str]] = []
    for key, entry in current_rooms(row, night).items():
        players = {ids[p] for p in entry.get("players", []) if p in ids}
        table = key.rsplit("-", 1)[-1] if not key.startswith("playoff-") else ""
        first = key.startswith("base-1-")
        message = (messages.night_first_round(night_id, table) if first
                   else messages.night_next_round(night_id, table or "playoff"))
        news.append((f"night:{night_id}:{key}:{entry.get('slug')}", players, message, "night"))
    return news


def _aware(moment: datetime) -> datetime:
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)
