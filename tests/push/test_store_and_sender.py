"""The subscription store on SQLite and Postgres, and the sender against the tests' push service:
404/410 deletes the subscription, 5xx is tried again, a full queue drops (and counts) rather than
grows, a message is claimed once whatever the number of processes."""

from __future__ import annotations

import asyncio
from datetime import date

from sqlalchemy import Engine
from sqlmodel import select

from app.push import messages
from app.push.sender import Outgoing, PushSender
from app.store import members as member_store
from app.store import push as store
from app.store.db import session_scope
from bench.push_service import PushService


def subscribe(engine: Engine, service: PushService, name: str, *, member_id: int | None = None,
              lang: str = "en") -> store.PushSubscription:
    _browser, sub = service.device(name)
    with session_scope(engine) as session:
        return store.save_subscription(session, device_hash=f"hash-{name}", endpoint=sub["endpoint"],
                                       p256dh=sub["keys"]["p256dh"], auth=sub["keys"]["auth"], lang=lang,
                                       member_id=member_id)


def test_the_store_keeps_a_device_its_seats_and_its_choices(engine: Engine, push_service: PushService) -> None:
    with session_scope(engine) as session:
        ann = member_store.add_member(session, name="Ann")
    row = subscribe(engine, push_service, "phone", member_id=ann.id)
    again = subscribe(engine, push_service, "phone")  # renewed: the same row, the member kept
    assert again.id == row.id and again.member_id == ann.id
    with session_scope(engine) as session:
        store.link_seat(session, subscription_id=row.id, room_id=7, token_hash="t" * 64)  # type: ignore[arg-type]
        store.link_seat(session, subscription_id=row.id, room_id=7, token_hash="t" * 64)  # type: ignore[arg-type]
        assert [r.id for r in store.for_seat(session, room_id=7, token_hash="t" * 64, topic="turn")] == [row.id]
        assert store.for_seat(session, room_id=7, token_hash="u" * 64, topic="turn") == []
        assert [r.id for r in store.for_members(session, member_ids=[ann.id], topic="dates")] == [row.id]  # type: ignore[list-item]
        store.set_topics(session, device_hash="hash-phone", topics={"turn"}, lang="fi", member_id=None)
    with session_scope(engine) as session:
        assert store.for_members(session, member_ids=[ann.id], topic="dates") == []  # type: ignore[list-item]
        assert store.get_subscription(session, device_hash="hash-phone").lang == "fi"  # type: ignore[union-attr]
        assert store.claim(session, key="turn:7:12:0") is True
        assert store.claim(session, key="turn:7:12:0") is False  # the same session
    with session_scope(engine) as session:
        assert store.claim(session, key="turn:7:12:0") is False  # another one (another process)
        assert store.claim(session, key="turn:7:13:0") is True
        assert store.claim_many(session, keys=["turn:7:13:0", "turn:7:14:0", "turn:7:15:1"]) == {
            "turn:7:14:0", "turn:7:15:1"}
        assert store.claim_many(session, keys=["turn:7:14:0"]) == set()
        found = store.for_seats(session, seats=[(7, "t" * 64), (7, "u" * 64), (8, "t" * 64)], topic="turn")
        assert {k: [r.id for r in v] for k, v in found.items()} == {(7, "t" * 64): [row.id]}
        store.delete_subscription(session, subscription_id=row.id)  # type: ignore[arg-type]
    with session_scope(engine) as session:
        assert session.exec(select(store.PushSeat)).all() == []


async def test_the_sender_delivers_retries_and_forgets_gone_devices(engine: Engine, push_service: PushService,
                                                                      vapid_key: str) -> None:
    ok = subscribe(engine, push_service, "ok", lang="is")
    flaky = subscribe(engine, push_service, "flaky")
    gone = subscribe(engine, push_service, "gone")
    push_service.answers["flaky"] = [500, 503]
    push_service.answers["gone"] = [410]
    sender = PushSender(engine=engine, private_key=vapid_key, subject="mailto:test@example.org",
                        allow_loopback=True, backoff=(0.05,))
    sender.start()
    try:
        message = messages.poll_result(3, date(2027, 1, 8))
        assert sender.offer([Outgoing.to(r, message) for r in (ok, flaky, gone)]) == 3
        await asyncio.wait_for(sender.drained(), 15)
    finally:
        await sender.stop()
    got = {r.device: r.message for r in push_service.received}
    assert set(got) == {"ok", "flaky"}
    assert got["ok"]["title"] == "Dagsetning næsta kvölds er ákveðin"  # the device's language
    assert "8" in got["ok"]["body"] and got["ok"]["url"] == "/club/nights/3#next-night"
    assert sender.counts["sent"] == 2 and sender.counts["retried"] == 2 and sender.counts["gone"] == 1
    with session_scope(engine) as session:
        left = {r.device_hash for r in session.exec(select(store.PushSubscription)).all()}
    assert left == {"hash-ok", "hash-flaky"}  # 410: deleted


async def test_a_full_queue_drops_and_counts_instead_of_growing(engine: Engine, push_service: PushService,
                                                               vapid_key: str) -> None:
    row = subscribe(engine, push_service, "phone")
    sender = PushSender(engine=engine, private_key=vapid_key, subject="mailto:test@example.org",
                        allow_loopback=True, queue_size=5)  # not started: nothing leaves the queue
    message = messages.your_turn("abc")
    assert sender.offer([Outgoing.to(row, message)] * 8) == 5
    assert sender.counts["dropped"] == 3 and sender.queue.qsize() == 5
    sender.start()
    try:
        await asyncio.wait_for(sender.drained(), 15)
    finally:
        await sender.stop()
    assert len(push_service.received) == 5
