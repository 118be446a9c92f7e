"""The app's web push, wired into its life: the sender, the turn watch around the rooms' audience
and the club watch, started with the room manager and stopped with it.

Without a VAPID key (production with WEB_PUSH unset to false and no key: only `gurka serve`
refuses that; an app built by `create_app` for a test or a bench simply has no push) or with
WEB_PUSH=false, nothing here runs and the settings panel says web push is off.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Coroutine
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from fastapi import FastAPI

from app.push import messages
from app.push.keys import public_key
from app.push.sender import Outgoing, PushSender
from app.push.turns import Turn, TurnWatch, Visibility
from app.store import push as store
from app.store.db import session_scope
from app.web.device import club_news
from app.web.state import manager_of

log = logging.getLogger("gurka.push")
SENT_KEPT = timedelta(days=30)  # how long a sent message's key is kept (so it is not sent again)


@dataclass
class PushService:
    sender: PushSender
    visibility: Visibility
    watch: TurnWatch
    public_key: str
    tasks: set[asyncio.Task[None]] = field(default_factory=set)
    # the database work of push (look-ups, claims) in threads of its own: a burst of turns never
    # queues ahead of the rooms' commits and the pages' queries in the loop's default pool
    db: ThreadPoolExecutor = field(default_factory=lambda: ThreadPoolExecutor(max_workers=2, thread_name_prefix="push-db"))
    linked: set[tuple[str, int, str]] = field(default_factory=set)  # (device, room, seat) known linked
    due: list[Turn] = field(default_factory=list)  # turns to tell, waiting for the database
    telling: bool = False

    def spawn(self, coro: Coroutine[Any, Any, None]) -> None:
        task = asyncio.create_task(coro)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    async def in_db_thread(self, fn: Callable[..., Any], *args: Any) -> Any:
        return await asyncio.get_running_loop().run_in_executor(self.db, fn, *args)


def push_of(app: FastAPI) -> PushService | None:
    found: PushService | None = getattr(app.state, "push", None)
    return found


def start(app: FastAPI) -> None:
    """Start web push for `app` (before its room manager starts), or leave it off."""
    settings = app.state.settings
    app.state.push = None
    if not settings.web_push:
        return
    if not settings.vapid_private_key:
        log.warning("web push is off: VAPID_PRIVATE_KEY is not set (gurka vapid-keys makes one)")
        return
    engine = app.state.engine
    sender = PushSender(engine=engine, private_key=settings.vapid_private_key, subject=settings.vapid_subject,
                        allow_loopback=settings.push_allow_loopback, queue_size=settings.push_queue)
    sender.start()
    manager = manager_of(app)
    visibility = Visibility()

    def notify(turn: Turn) -> None:
        service.due.append(turn)
        if not service.telling:  # one task tells every turn due meanwhile, in one transaction
            service.telling = True
            service.spawn(_tell_turns(app, service))

    watch = TurnWatch(manager.audience, delay=settings.push_turn_delay, visibility=visibility, notify=notify)
    manager.audience = watch
    service = PushService(sender, visibility, watch, public_key(settings.vapid_private_key))
    app.state.push = service
    service.spawn(_club_loop(app, service, settings.push_club_every))


async def stop(app: FastAPI) -> None:
    service = push_of(app)
    if service is None:
        return
    service.watch.stop()
    for task in list(service.tasks):
        task.cancel()
    await asyncio.gather(*service.tasks, return_exceptions=True)
    await service.sender.stop()
    service.db.shutdown(wait=False, cancel_futures=True)


def _turn_items(app: FastAPI, turns: list[Turn]) -> list[Outgoing]:
    """The messages for these turns, each claimed first (runs in a thread). A turn whose seat has
    no device costs a read and no write; a turn another process claimed is not told again."""
    with session_scope(app.state.engine) as session:
        devices = store.for_seats(session, seats=[(t.room_id, t.token_hash) for t in turns], topic="turn")
        told = [t for t in turns if devices.get((t.room_id, t.token_hash))]
        keys = {f"turn:{t.room_id}:{t.since}:{t.seat}": t for t in told}
        mine = store.claim_many(session, keys=list(keys))
        return [Outgoing.to(row, messages.your_turn(turn.slug), urgency="high")
                for key, turn in keys.items() if key in mine
                for row in devices[(turn.room_id, turn.token_hash)]]


async def _tell_turns(app: FastAPI, service: PushService) -> None:
    try:
        while service.due:
            batch, service.due = service.due[:500], service.due[500:]
            try:
                items = await service.in_db_thread(_turn_items, app, batch)
            except Exception:
                log.exception("your-turn push for %d turn(s)", len(batch))
                continue
            service.sender.offer(items)
    finally:
        service.telling = False


async def _club_loop(app: FastAPI, service: PushService, every: float) -> None:
    """Look at the club now and then: rounds opened, nights done, date polls."""
    pruned = datetime.min.replace(tzinfo=UTC)
    while True:
        try:
            items = await service.in_db_thread(club_news.collect, app.state.engine)
            service.sender.offer(items)
            if datetime.now(UTC) - pruned > timedelta(hours=1):
                pruned = datetime.now(UTC)
                await service.in_db_thread(_prune, app)
        except Exception:
            log.exception("club push")
        await asyncio.sleep(every)


def _prune(app: FastAPI) -> None:
    with session_scope(app.state.engine) as session:
        store.prune_sent(session, before=datetime.now(UTC) - SENT_KEPT)
