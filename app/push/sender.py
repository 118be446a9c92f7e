"""The sender: push messages go out from a bounded queue, in a process of their own, never on the
event loop, with retries.

- `offer` puts messages in the queue and never waits: a full queue drops what does not fit (and
  counts it), so a flood of events cannot grow memory or stall a room.
- A worker task takes what is queued (up to `BATCH` at a time) and hands it to the sender's
  process, which encrypts each message (aes128gcm, RFC 8291), signs it (VAPID, RFC 8292) and
  POSTs it with pywebpush, several at once on its own threads. A process, started with `spawn`
  as the bot pool's are, so that encryption and HTTP never take the server's GIL from its event
  loop: with threads in the app's process, a burst of 1,000 messages made an unrelated table's
  moves several times slower (bench/push_bench.py).
- The push service's answer decides: 2xx sent; 404 or 410 (the subscription is gone) deletes the
  subscription; 429, 5xx or no answer is tried again (`RETRIES` times, waiting longer each time);
  anything else is given up and logged. An endpoint that no longer resolves to a public address
  is deleted too (`endpoints.check_endpoint`, again before each POST).
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
from collections import Counter
from concurrent.futures import BrokenExecutor, Future, ProcessPoolExecutor, ThreadPoolExecutor
from dataclasses import dataclass, replace
from typing import Any

from sqlalchemy import Engine

from app.parent_watch import exit_with_parent
from app.push import endpoints
from app.push.keys import load_private_key
from app.push.messages import Message
from app.store import push as store
from app.store.db import session_scope

log = logging.getLogger("gurka.push")

RETRIES = 3
BACKOFF = (0.5, 2.0, 8.0)  # seconds before each retry
TTL = 6 * 3600  # a message the device cannot take within six hours is no longer news
GONE = (404, 410)
BATCH = 32  # messages handed to the process at once
POSTS_AT_ONCE = 8  # the process's threads


@dataclass(frozen=True, slots=True)
class Outgoing:
    """One message for one device."""

    subscription_id: int
    endpoint: str
    p256dh: str
    auth: str
    lang: str
    message: Message
    urgency: str = "normal"
    attempt: int = 0

    @classmethod
    def to(cls, row: store.PushSubscription, message: Message, *, urgency: str = "normal") -> Outgoing:
        assert row.id is not None
        return cls(row.id, row.endpoint, row.p256dh, row.auth, row.lang, message, urgency)


class PushSender:
    def __init__(self, *, engine: Engine, private_key: str, subject: str, allow_loopback: bool = False,
                 queue_size: int = 1000, workers: int = 2, backoff: tuple[float, ...] = BACKOFF,
                 timeout: float = 10.0) -> None:
        self.engine = engine
        load_private_key(private_key)  # ValueError now rather than at the first message
        self.config = (private_key, subject, allow_loopback, timeout)
        self.queue: asyncio.Queue[Outgoing] = asyncio.Queue(maxsize=queue_size)
        self.workers = workers
        self.backoff = backoff
        self.pool: ProcessPoolExecutor | None = None
        self.db = ThreadPoolExecutor(max_workers=1, thread_name_prefix="push-forget")
        self.counts: Counter[str] = Counter()  # sent, dropped, retried, gone, failed, refused
        self.tasks: list[asyncio.Task[None]] = []
        self.later: set[asyncio.Task[None]] = set()  # retries waiting for their time
        self.busy = 0
        self.warm: Future[bool] | None = None

    # ------------------------------------------------------------------ the queue
    def offer(self, items: list[Outgoing]) -> int:
        """Queue messages without waiting; returns how many fit (the rest are dropped and counted)."""
        taken = 0
        for item in items:
            try:
                self.queue.put_nowait(item)
            except asyncio.QueueFull:
                self.counts["dropped"] += 1
                continue
            taken += 1
        if len(items) > taken:
            log.warning("push queue full: %d message(s) dropped", len(items) - taken)
        return taken

    async def drained(self) -> None:
        """Wait until every queued message has been dealt with (tests, benches)."""
        while self.busy or self.later or not self.queue.empty():
            await asyncio.sleep(0.02)

    def start(self) -> None:
        self.tasks = [asyncio.create_task(self._work(), name=f"push-{i}") for i in range(self.workers)]
        self.warm = self._executor().submit(_ready)  # the process starts now, not with the first message

    async def stop(self) -> None:
        for task in [*self.tasks, *self.later]:
            task.cancel()
        await asyncio.gather(*self.tasks, *self.later, return_exceptions=True)
        if self.pool is not None:
            self.pool.shutdown(wait=False, cancel_futures=True)
        self.db.shutdown(wait=False, cancel_futures=True)

    def _executor(self) -> ProcessPoolExecutor:
        if self.pool is None:
            self.pool = ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn"),
                                            initializer=_init_process, initargs=self.config)
        return self.pool

    async def _work(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            batch = [await self.queue.get()]
            while len(batch) < BATCH and not self.queue.empty():
                batch.append(self.queue.get_nowait())
            self.busy += 1
            try:
                try:
                    outcomes = await loop.run_in_executor(self._executor(), _deliver_all, batch)
                except BrokenExecutor:
                    log.exception("the push process died: starting another")
                    self.pool = None
                    outcomes = ["retry"] * len(batch)
                for item, outcome in zip(batch, outcomes, strict=True):
                    await self._settle(item, outcome)
            except Exception:  # a bug must not stop the worker
                log.exception("push batch")
            finally:
                self.busy -= 1

    async def _settle(self, item: Outgoing, outcome: str) -> None:
        if outcome == "gone":
            await asyncio.get_running_loop().run_in_executor(self.db, self._forget, item.subscription_id)
        if outcome != "retry":
            self.counts[outcome] += 1
            return
        if item.attempt >= RETRIES:
            self.counts["failed"] += 1
            log.warning("push to subscription %s failed %d times: given up", item.subscription_id, RETRIES + 1)
            return
        self.counts["retried"] += 1
        wait = self.backoff[min(item.attempt, len(self.backoff) - 1)]
        task = asyncio.create_task(self._again(replace(item, attempt=item.attempt + 1), wait))
        self.later.add(task)
        task.add_done_callback(self.later.discard)

    async def _again(self, item: Outgoing, wait: float) -> None:
        await asyncio.sleep(wait)
        self.offer([item])

    def _forget(self, subscription_id: int) -> None:
        with session_scope(self.engine) as session:
            store.delete_subscription(session, subscription_id=subscription_id)
        log.info("push subscription %s is gone: deleted", subscription_id)


# ---------------------------------------------------------------------- in the sender's process
_PROCESS: dict[str, Any] = {}


def _init_process(private_key: str, subject: str, allow_loopback: bool, timeout: float) -> None:
    import threading

    from py_vapid import Vapid02

    _PROCESS.update(vapid=Vapid02.from_raw(private_key.encode()), subject=subject, allow_loopback=allow_loopback,
                    timeout=timeout, local=threading.local(),
                    threads=ThreadPoolExecutor(max_workers=POSTS_AT_ONCE, thread_name_prefix="post"))
    exit_with_parent()  # (a server that dies without stopping the pool leaves no worker behind)


def _ready() -> bool:
    return True


def _deliver_all(batch: list[Outgoing]) -> list[str]:
    """Send a batch, several at once; each one's outcome, in order."""
    return list(_PROCESS["threads"].map(_deliver, batch))


def _deliver(item: Outgoing) -> str:
    """POST one message: "sent", "gone" (to be deleted), "refused" (given up) or "retry"."""
    import requests
    from pywebpush import WebPushException, webpush

    try:
        endpoints.check_endpoint(item.endpoint, allow_loopback=_PROCESS["allow_loopback"])
    except endpoints.BadSubscription:
        return "gone"
    local = _PROCESS["local"]
    session = getattr(local, "session", None)
    if session is None:
        session = local.session = requests.Session()
    info = {"endpoint": item.endpoint, "keys": {"p256dh": item.p256dh, "auth": item.auth}}
    try:
        webpush(info, item.message.said(item.lang).decode(), vapid_private_key=_PROCESS["vapid"],
                vapid_claims={"sub": _PROCESS["subject"]}, ttl=TTL, timeout=_PROCESS["timeout"],
                headers={"Urgency": item.urgency, "Topic": item.message.tag[:32]}, requests_session=session)
    except WebPushException as exc:
        status = exc.response.status_code if exc.response is not None else 0
        if status in GONE:
            return "gone"
        if status == 429 or status >= 500 or status == 0:
            return "retry"
        log.warning("push service refused a message for subscription %s: %s", item.subscription_id, status)
        return "refused"
    except requests.RequestException:
        return "retry"
    return "sent"
