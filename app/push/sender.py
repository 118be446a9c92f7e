"""The sender: push messages go out from a bounded queue, in threads of their own, never on the
event loop, with retries.

- `offer` puts messages in the queue and never waits: a full queue drops what does not fit (and
  counts it), so a flood of events cannot grow memory or stall a room.
- A few workers take messages from the queue; each message is encrypted (aes128gcm, RFC 8291),
  signed (VAPID, RFC 8292) and POSTed by pywebpush in the sender's own thread pool (not the
  loop's default one, which the database uses).
- The push service's answer decides: 2xx sent; 404 or 410 (the subscription is gone) deletes the
  subscription; 429, 5xx or no answer is tried again (`RETRIES` times, waiting longer each time,
  on the loop's clock); anything else is given up and logged. An endpoint that no longer
  resolves to a public address is deleted too (`endpoints.check_endpoint`, again before each POST).
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import requests
from py_vapid import Vapid02
from pywebpush import WebPushException, webpush
from sqlalchemy import Engine

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

    @classmethod
    def to(cls, row: store.PushSubscription, message: Message, *, urgency: str = "normal") -> Outgoing:
        assert row.id is not None
        return cls(row.id, row.endpoint, row.p256dh, row.auth, row.lang, message, urgency)


class PushSender:
    def __init__(self, *, engine: Engine, private_key: str, subject: str, allow_loopback: bool = False,
                 queue_size: int = 1000, workers: int = 4, backoff: tuple[float, ...] = BACKOFF,
                 timeout: float = 10.0, sleep: Callable[[float], object] | None = None) -> None:
        self.engine = engine
        load_private_key(private_key)  # ValueError now rather than at the first message
        self.vapid = Vapid02.from_raw(private_key.encode())
        self.subject = subject
        self.allow_loopback = allow_loopback
        self.queue: asyncio.Queue[Outgoing] = asyncio.Queue(maxsize=queue_size)
        self.workers = workers
        self.backoff = backoff
        self.timeout = timeout
        self.pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="push")
        self.local = threading.local()
        self.counts: Counter[str] = Counter()  # sent, dropped, retried, gone, failed, refused
        self.tasks: list[asyncio.Task[None]] = []
        self.idle = asyncio.Event()
        self.idle.set()
        self.busy = 0

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
            self.idle.clear()
        if len(items) > taken:
            log.warning("push queue full: %d message(s) dropped", len(items) - taken)
        return taken

    async def drained(self) -> None:
        """Wait until every queued message has been dealt with (tests, benches)."""
        while self.busy or not self.queue.empty():
            self.idle.clear()
            await self.idle.wait()

    def start(self) -> None:
        self.tasks = [asyncio.create_task(self._work(), name=f"push-{i}") for i in range(self.workers)]

    async def stop(self) -> None:
        for task in self.tasks:
            task.cancel()
        await asyncio.gather(*self.tasks, return_exceptions=True)
        self.pool.shutdown(wait=False, cancel_futures=True)

    async def _work(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            item = await self.queue.get()
            self.busy += 1
            try:
                for attempt in range(RETRIES + 1):
                    outcome = await loop.run_in_executor(self.pool, self._deliver, item)
                    if outcome != "retry":
                        self.counts[outcome] += 1
                        break
                    if attempt == RETRIES:
                        self.counts["failed"] += 1
                        log.warning("push to subscription %s failed %d times: given up",
                                    item.subscription_id, RETRIES + 1)
                        break
                    self.counts["retried"] += 1
                    await asyncio.sleep(self.backoff[min(attempt, len(self.backoff) - 1)])
            except Exception:  # a bug must not stop the worker
                log.exception("push to subscription %s", item.subscription_id)
            finally:
                self.busy -= 1
                if not self.busy and self.queue.empty():
                    self.idle.set()

    # ------------------------------------------------------------------ one message (in a thread)
    def _session(self) -> requests.Session:
        session = getattr(self.local, "session", None)
        if session is None:
            session = self.local.session = requests.Session()
        return session

    def _deliver(self, item: Outgoing) -> str:
        """POST one message: "sent", "gone" (deleted), "refused" (given up) or "retry"."""
        try:
            endpoints.check_endpoint(item.endpoint, allow_loopback=self.allow_loopback)
        except endpoints.BadSubscription:
            self._forget(item.subscription_id)
            return "gone"
        info = {"endpoint": item.endpoint, "keys": {"p256dh": item.p256dh, "auth": item.auth}}
        try:
            webpush(info, item.message.said(item.lang).decode(), vapid_private_key=self.vapid,
                    vapid_claims={"sub": self.subject}, ttl=TTL, timeout=self.timeout,
                    headers={"Urgency": item.urgency, "Topic": item.message.tag[:32].replace("-", "_")},
                    requests_session=self._session())
        except WebPushException as exc:
            status = exc.response.status_code if exc.response is not None else 0
            if status in GONE:
                self._forget(item.subscription_id)
                return "gone"
            if status == 429 or status >= 500 or status == 0:
                return "retry"
            log.warning("push service refused a message for subscription %s: %s", item.subscription_id, status)
            return "refused"
        except requests.RequestException:
            return "retry"
        return "sent"

    def _forget(self, subscription_id: int) -> None:
        with session_scope(self.engine) as session:
            store.delete_subscription(session, subscription_id=subscription_id)
        log.info("push subscription %s is gone: deleted", subscription_id)
