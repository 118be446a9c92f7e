"""Web push, measured (issue 39), in one app process with its real sender, against the tests' own
push service (bench/push_service.py) in a process of its own, which checks each message's
VAPID signature and decrypts it as a browser would.

1. **Your turn, end to end**: a table of three humans (none of their pages visible, each seat's
   device subscribed) plays `--turns` moves; for each new turn, the time from the moment the room
   announces it (the table's news) to the push service holding the decrypted message. With
   `PUSH_TURN_DELAY` 0 (here) that is the whole pipeline: the turn watch, the database look-up
   and claim in a thread, the queue, encryption and signing, the POST.
2. **1,000 devices do not slow an unrelated room**: `--devices` subscriptions, each for a seat
   whose turn becomes due at once (a burst of `--devices` "your turn" messages through the same
   pipeline), while another table plays on: that table's move time (the `act` call: check, group
   commit, publish) p50/p99 before the burst and during it, and how long the burst took to reach
   the push service.

    python bench/push_bench.py [--turns 300 --devices 1000] [--database-url postgresql+psycopg://…] [--json]

Figures on a loaded machine mean little: run it alone.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing as mp
import random
import secrets
import statistics
import sys
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from app.main import create_app
from app.push.keys import new_private_key, public_key
from app.push.turns import Turn
from app.rooms.news import News, NewsKind
from app.rooms.tokens import hash_token
from app.secret_key import new_secret
from app.settings import Settings
from app.store import push as store
from app.store.db import session_scope
from bench.fresh_database import fresh_database


def push_service_process(public: str, names: list[str], conn: Any, arrivals: Any) -> None:
    """The tests' push service, in its own process: subscriptions out, arrivals back."""
    sys.path.insert(0, str(ROOT))
    from bench.push_service import PushService

    service = PushService(public)
    subs = {name: service.device(name)[1] for name in names}
    original = service.take

    def take(path: str, headers: dict[str, str], body: bytes) -> int:
        status = original(path, headers, body)
        if status == 201:
            got = service.received[-1]
            arrivals.put((got.device, got.message["tag"], time.time()))
        else:
            arrivals.put(("refused", path, status))
        return status

    service.take = take  # type: ignore[method-assign]
    conn.send(subs)
    conn.recv()  # until the bench says stop
    service.close()


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


class TurnClock:
    """An audience around the app's: when each new turn was announced (time.time())."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.started: dict[tuple[int, int], float] = {}  # (room id, version) -> when
        self.last: dict[int, int | None] = {}

    def publish(self, room: Any, news: News, /) -> None:
        if news.kind == NewsKind.TABLE and room.state.game is not None:
            to_act = room.state.game.to_act
            if to_act is not None and to_act != self.last.get(room.state.id):
                self.started[(room.state.id, room.state.version)] = time.time()
            self.last[room.state.id] = to_act
        self.inner.publish(room, news)


async def table(manager: Any, names: tuple[str, str, str]) -> tuple[Any, list[str]]:
    room, host_token = await manager.create_room(preset="gurka-night", options={}, seats=3, host_name=names[0],
                                                 turn_seconds=0)
    tokens = [host_token]
    for name in names[1:]:
        _seat, token = await room.join(name)
        tokens.append(token)
    await room.start(0)
    return room, tokens


async def move(room: Any, rng: random.Random) -> float | None:
    """One move of whoever is to act (or the next deal); its duration in seconds."""
    game = room.state.game
    if game is None or game.over:
        return None
    if game.to_act is None:
        await room.deal_next(None, by=0)
        return None
    action = str(rng.choice(game.legal_actions()))
    began = time.perf_counter()
    await room.act(game.to_act, action, room.state.version)
    return time.perf_counter() - began


async def run(args: argparse.Namespace) -> dict[str, Any]:
    private = new_private_key()
    names = [f"seat{i}" for i in range(3)] + [f"dev{i}" for i in range(args.devices)]
    parent, child = mp.Pipe()
    arrivals: Any = mp.Queue()
    proc = mp.Process(target=push_service_process, args=(public_key(private), names, child, arrivals), daemon=True)
    proc.start()
    subs: dict[str, dict[str, Any]] = parent.recv()
    with tempfile.TemporaryDirectory(prefix="gurka-push-") as tmp, ExitStack() as stack:
        url = (stack.enter_context(fresh_database(args.database_url, "gurka_push_bench_")) if args.database_url
               else f"sqlite:///{tmp}/push.db")
        settings = Settings(database_url=url, secret_key=new_secret(), vapid_private_key=private,
                            push_allow_loopback=True, push_turn_delay=0, push_queue=max(5000, 2 * args.devices),
                            bot_delay=0, deal_pause=0, gc_pacing=False, push_club_every=3600)
        app = create_app(settings)
        async with app.router.lifespan_context(app):
            manager, service = app.state.rooms, app.state.push
            clock = manager.audience = TurnClock(manager.audience)
            engine = app.state.engine
            room, tokens = await table(manager, ("Ann", "Bo", "Cy"))
            other, _ = await table(manager, ("Di", "Ed", "Fi"))

            def subscribe(name: str, room_id: int, token_hash: str) -> None:
                sub = subs[name]
                with session_scope(engine) as session:
                    row = store.save_subscription(session, device_hash=name, endpoint=sub["endpoint"],
                                                  p256dh=sub["keys"]["p256dh"], auth=sub["keys"]["auth"], lang="en",
                                                  member_id=None)
                    store.link_seat(session, subscription_id=row.id, room_id=room_id, token_hash=token_hash)

            for i, token in enumerate(tokens):
                await asyncio.to_thread(subscribe, f"seat{i}", room.state.id, hash_token(token))
            fakes = [secrets.token_hex(32) for _ in range(args.devices)]

            def subscribe_all() -> None:
                for i, token_hash in enumerate(fakes):
                    subscribe(f"dev{i}", 1_000_000 + i, token_hash)

            await asyncio.to_thread(subscribe_all)

            # 1. your turn, end to end
            rng = random.Random(7)
            latencies: list[float] = []
            while len(latencies) < args.turns:
                before = set(clock.started)
                await move(room, rng)
                if room.state.game is None or room.state.game.over:
                    room, tokens = await table(manager, ("Ann", "Bo", "Cy"))
                    for i, token in enumerate(tokens):
                        await asyncio.to_thread(subscribe, f"seat{i}", room.state.id, hash_token(token))
                    continue
                new = [k for k in clock.started if k not in before and k[0] == room.state.id]
                if not new:
                    continue
                started = clock.started[new[-1]]
                got = await asyncio.to_thread(arrivals.get, True, 10)
                if got[0] == "refused":
                    raise SystemExit(f"the push service refused a message: {got}")
                latencies.append(got[2] - started)

            # 2. an unrelated room before and during a burst of `--devices` messages
            tables = [other]

            async def moves(n: int) -> list[float]:
                found: list[float] = []
                while len(found) < n:
                    if tables[0].state.game is None or tables[0].state.game.over:
                        tables[0] = (await table(manager, ("Di", "Ed", "Fi")))[0]  # a new game, unrelated too
                    took = await move(tables[0], rng)
                    if took is not None:
                        found.append(took)
                    await asyncio.sleep(0.002)  # a table's pace: a few hundred moves a second at most
                return found

            quiet = await moves(args.moves)
            burst_began = time.time()
            for i, token_hash in enumerate(fakes):
                service.watch.notify(Turn(1_000_000 + i, f"dev{i}", 0, token_hash, 1))
            during: list[float] = []
            received = 0
            while received < args.devices:
                during += await moves(10)
                while not arrivals.empty() and received < args.devices:
                    arrivals.get()
                    received += 1
                if time.time() - burst_began > 300:
                    break
            burst_took = time.time() - burst_began
            counts = dict(service.sender.counts)
    parent.send("stop")
    proc.join(10)
    return {
        "turns": len(latencies),
        "your_turn_ms": {"p50": round(1000 * pct(latencies, 0.5), 1), "p99": round(1000 * pct(latencies, 0.99), 1),
                         "mean": round(1000 * statistics.fmean(latencies), 1)},
        "devices": args.devices,
        "burst_seconds": round(burst_took, 2),
        "burst_per_second": round(received / burst_took, 1),
        "unrelated_move_ms_quiet": {"p50": round(1000 * pct(quiet, 0.5), 2), "p99": round(1000 * pct(quiet, 0.99), 2),
                                    "n": len(quiet)},
        "unrelated_move_ms_burst": {"p50": round(1000 * pct(during, 0.5), 2),
                                    "p99": round(1000 * pct(during, 0.99), 2), "n": len(during)},
        "sender": counts,
        "database": "postgres" if args.database_url else "sqlite",
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--turns", type=int, default=300)
    parser.add_argument("--devices", type=int, default=1000)
    parser.add_argument("--moves", type=int, default=300, help="the unrelated table's moves before the burst")
    parser.add_argument("--database-url", default="")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    result = asyncio.run(run(args))
    if args.json:
        print(json.dumps(result))
        return
    t, q, b = result["your_turn_ms"], result["unrelated_move_ms_quiet"], result["unrelated_move_ms_burst"]
    print(f"your turn -> push service: p50 {t['p50']} ms, p99 {t['p99']} ms over {result['turns']} turns "
          f"({result['database']})")
    print(f"{result['devices']} devices' messages in {result['burst_seconds']} s ({result['burst_per_second']}/s); "
          f"sender {result['sender']}")
    print(f"unrelated room's move: quiet p50 {q['p50']} ms p99 {q['p99']} ms (n={q['n']}); "
          f"during the burst p50 {b['p50']} ms p99 {b['p99']} ms (n={b['n']})")


if __name__ == "__main__":
    main()
