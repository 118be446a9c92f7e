"""Websocket load: N rooms of three bot-like clients against a real server, then the bare floor.

    python bench/ws_load.py                                  # starts its own app server (SQLite)
    python bench/ws_load.py http://127.0.0.1:8000 --pid PID  # a server you started
    python bench/ws_load.py --rooms 1000 --rate 300 --duration 20   # the issue's aim

For each target it creates rooms (the app: through its own HTTP endpoints, POST /rooms and
/r/<slug>/join, seat cookies included), connects three real websockets per room (the
`websockets` client), starts the games and plays: every seat reads its pushed table, and when
the table offers it actions it sends one of them (paced by a global token bucket at --rate
actions/s; 0 = as fast as the server answers). It prints

- actions/s accepted,
- p50/p99 latency from an action sent to the *last* seat of the room receiving the update,
- memory per connection: server RSS delta / connections, from /proc/<pid>/status
  ("sockets": after connecting, minus after creating rooms; "all in": end of play minus the
  idle server, so rooms, games and sockets together).

Then it runs bench/fanout_server.py (no rules, no rendering, same framing, frames of the
app's average size) through the same harness in the same run and prints the ratios.

Only loopback addresses; every phase is bounded in count and time, and servers the bench
started are stopped at the end.
"""

from __future__ import annotations

import argparse
import asyncio
import html
import ipaddress
import json
import os
import random
import re
import resource
import signal
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

import httpx
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

ROOT = Path(__file__).resolve().parent.parent
HX_VALS = re.compile(r"hx-vals='([^']*)'")
DATA_LEGAL = re.compile(r"data-legal='([^']*)'")
COOKIE = "gurka_seat_{slug}"


# ---------------------------------------------------------------------------- helpers


def loopback_only(url: str) -> None:
    host = urlsplit(url).hostname or ""
    if host == "localhost":
        return
    try:
        if ipaddress.ip_address(host).is_loopback:
            return
    except ValueError:
        pass
    raise SystemExit(f"refusing {url!r}: this bench only talks to loopback addresses")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def rss_kb(pid: int | None) -> int | None:
    if not pid:
        return None
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except OSError:
        return None
    return None


def cpu_seconds(pid: int | None) -> float | None:
    if not pid:
        return None
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return None


def raise_fd_limit(need: int) -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = min(hard, max(soft, need))
    if want > soft:
        resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))
    if want < need:
        print(f"warning: only {want} file descriptors allowed, {need} wanted", file=sys.stderr)


def offered(content: str) -> tuple[list[str], bool]:
    """(actions this seat's page offers, whether it offers a rematch)."""
    if "hx-vals" not in content:
        return [], False
    actions: list[str] = []
    rematch = False
    for raw in HX_VALS.findall(content):
        vals = json.loads(html.unescape(raw))
        if vals.get("do") == "act" and vals.get("action"):
            actions.append(str(vals["action"]))
        elif vals.get("do") == "rematch":
            rematch = True
    for raw in DATA_LEGAL.findall(content):
        actions.extend(str(a) for a in json.loads(html.unescape(raw)))
    return actions, rematch


def pct(values: list[float], p: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


class Pacer:
    """A global token bucket: at most `rate` sends per second over all rooms (0: no limit)."""

    def __init__(self, rate: float) -> None:
        self.interval = 1.0 / rate if rate > 0 else 0.0
        self.next = time.monotonic()

    async def wait(self) -> None:
        if not self.interval:
            return
        now = time.monotonic()
        slot = max(now, self.next)
        self.next = slot + self.interval
        if slot > now:
            await asyncio.sleep(slot - now)


# ---------------------------------------------------------------------------- servers


class Server:
    """A server process the bench started (the app or the bare fan-out)."""

    def __init__(self, argv: list[str], env: dict[str, str], url: str, log: Path) -> None:
        self.url = url
        self.log = log
        with log.open("wb") as out:
            self.proc = subprocess.Popen(
                argv, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT
            )

    @property
    def pid(self) -> int:
        return self.proc.pid

    def wait_port(self, port: int, timeout: float = 60.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise SystemExit(f"server exited early:\n{self.log.read_text()[-3000:]}")
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", port)) == 0:
                    return
            time.sleep(0.05)
        raise SystemExit(f"server did not start in {timeout} s:\n{self.log.read_text()[-3000:]}")

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)


def start_app(workdir: Path, database_url: str | None = None) -> Server:
    port = free_port()
    env = dict(os.environ)
    env.update(
        {
            "DATABASE_URL": database_url or f"sqlite:///{workdir / 'bench.db'}",
            "BOT_DELAY": "0",
            "SECRET_KEY": "bench",
            "PYTHONUNBUFFERED": "1",
            # every simulated player comes from 127.0.0.1: lift the per-address caps
            "WS_PER_ADDRESS": "100000",
            "WS_CONNECTS_PER_ADDRESS": "100000",
        }
    )
    argv = [
        sys.executable,
        "-m",
        "uvicorn",
        "app.main:create_app",
        "--factory",
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--ws",
        "websockets-sansio",
        "--ws-per-message-deflate",
        "false",
        "--no-access-log",
        "--log-level",
        "warning",
        "--backlog",
        "4096",
    ]
    server = Server(argv, env, f"http://127.0.0.1:{port}", workdir / "app.log")
    server.wait_port(port)
    deadline = time.monotonic() + 30
    while (
        time.monotonic() < deadline
    ):  # the port opens before the lifespan has run: wait for /healthz
        try:
            if httpx.get(f"{server.url}/healthz", timeout=2).status_code == 200:
                break
        except httpx.HTTPError:
            time.sleep(0.05)
    return server


def start_fanout(workdir: Path, frame_bytes: int) -> Server:
    port = free_port()
    argv = [
        sys.executable,
        str(ROOT / "bench" / "fanout_server.py"),
        "--port",
        str(port),
        "--frame-bytes",
        str(frame_bytes),
    ]
    server = Server(argv, dict(os.environ), f"http://127.0.0.1:{port}", workdir / "fanout.log")
    server.wait_port(port)
    return server


# ---------------------------------------------------------------------------- the clients


@dataclass
class Stats:
    latencies: list[float] = field(default_factory=list)
    sent: int = 0
    completed: int = 0
    refused: int = 0
    frames: int = 0
    frame_bytes: int = 0
    closed_early: int = 0
    measuring: bool = False


@dataclass
class Room:
    slug: str
    tokens: list[str]
    seats: list[Seat] = field(default_factory=list)
    pending: dict[int, tuple[float, set[int]]] = field(
        default_factory=dict
    )  # seen version -> (t0, got)


class Seat:
    def __init__(self, room: Room, index: int, run: Run) -> None:
        self.room = room
        self.index = index
        self.run = run
        self.ws: ClientConnection | None = None
        self.version = -1
        self.content = ""
        self.acted_at = -1
        self.changed = asyncio.Event()

    async def connect(self, ws_base: str) -> None:
        headers = {"Cookie": f"{COOKIE.format(slug=self.room.slug)}={self.room.tokens[self.index]}"}
        self.ws = await connect(
            f"{ws_base}/r/{self.room.slug}/ws",
            additional_headers=headers,
            compression=None,
            open_timeout=30,
            max_size=None,
            ping_interval=None,
            close_timeout=2,
        )

    async def reader(self) -> None:
        assert self.ws is not None
        stats = self.run.stats
        try:
            async for message in self.ws:
                frame = json.loads(message)
                stats.frames += 1
                stats.frame_bytes += len(message)
                kind = frame.get("kind")
                if kind == "notice":
                    if frame.get("level") == "error":
                        stats.refused += 1
                    continue
                if kind != "table":
                    continue
                version = int(frame["version"])
                if version <= self.version:
                    continue
                self.version = version
                self.content = frame["content"]
                self.note_update(version)
                self.changed.set()
                await self.maybe_act()
        except ConnectionClosed:
            pass
        finally:
            if not self.run.stopping:
                stats.closed_early += 1
            self.changed.set()

    def note_update(self, version: int) -> None:
        now = time.monotonic()
        pending = self.room.pending
        for seen in [v for v in pending if v < version]:
            t0, got = pending[seen]
            got.add(self.index)
            if len(got) == len(self.room.seats):
                del pending[seen]
                self.run.stats.completed += 1
                if self.run.stats.measuring:
                    self.run.stats.latencies.append((now - t0) * 1000)

    async def maybe_act(self) -> None:
        """Act if this seat's page offers something at a version it has not acted on yet."""
        run = self.run
        if not run.playing or run.stopping or self.version <= self.acted_at:
            return
        actions, rematch = offered(self.content)
        if not actions and not (rematch and self.index == 0):
            return
        seen = self.version
        self.acted_at = seen
        await run.pacer.wait()
        if run.stopping or self.version != seen or self.ws is None:
            return
        if actions:
            message = {
                "do": "act",
                "action": random.choice(actions),
                "v": seen,
                "aid": uuid.uuid4().hex,
            }
        else:
            message = {"do": "rematch", "v": seen}
        self.room.pending.setdefault(seen, (time.monotonic(), set()))
        run.stats.sent += 1
        await self.ws.send(json.dumps(message))


class Run:
    def __init__(self, name: str, rate: float) -> None:
        self.name = name
        self.stats = Stats()
        self.pacer = Pacer(rate)
        self.stopping = False
        self.playing = False
        self.rooms: list[Room] = []


async def gather_limited(coros: list, limit: int, deadline: float) -> list:
    sem = asyncio.Semaphore(limit)

    async def one(coro):  # type: ignore[no-untyped-def]
        async with sem:
            return await asyncio.wait_for(coro, max(1.0, deadline - time.monotonic()))

    return await asyncio.gather(*(one(c) for c in coros))


async def create_app_rooms(base: str, n: int, target: int | None, deadline: float) -> list[Room]:
    transport = httpx.AsyncHTTPTransport(limits=httpx.Limits(max_connections=16))

    async def one(i: int) -> Room:
        # One client (own cookie jar) per room over one shared connection pool: each seat's
        # cookie must stay out of the next request.
        async with httpx.AsyncClient(
            base_url=base, timeout=30, transport=_Shared(transport), trust_env=False
        ) as http:
            data = {"name": f"Host{i}", "preset": "gurka-night", "seats": "3", "bots": "0"}
            if target:
                data["opt_target"] = str(target)
            r = await http.post("/rooms", data=data)
            if r.status_code != 303:
                raise SystemExit(f"creating a room failed: {r.status_code} {r.text[:300]}")
            slug = r.headers["location"].rsplit("/", 1)[-1]
            tokens = [r.cookies[COOKIE.format(slug=slug)]]
            for name in ("Bo", "Cai"):
                http.cookies.clear()
                j = await http.post(f"/r/{slug}/join", data={"name": f"{name}{i}"})
                if j.status_code != 303:
                    raise SystemExit(f"joining failed: {j.status_code} {j.text[:300]}")
                tokens.append(j.cookies[COOKIE.format(slug=slug)])
            return Room(slug, tokens)

    try:
        return await gather_limited([one(i) for i in range(n)], 16, deadline)
    finally:
        await transport.aclose()


class _Shared(httpx.AsyncBaseTransport):
    """Lends a pool to a short-lived client without letting the client close it."""

    def __init__(self, inner: httpx.AsyncHTTPTransport) -> None:
        self.inner = inner

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        return await self.inner.handle_async_request(request)

    async def aclose(self) -> None:
        pass


async def drive(
    name: str,
    base: str,
    pid: int | None,
    *,
    rooms: int,
    rate: float,
    duration: float,
    warmup: float,
    target: int | None,
    bare: bool,
) -> dict:
    run = Run(name, rate)
    ws_base = base.replace("http://", "ws://", 1)
    setup_deadline = time.monotonic() + 120 + rooms * 0.2
    rss0 = rss_kb(pid)
    t = time.monotonic()
    if bare:
        run.rooms = [Room(f"bare{i}", ["0", "1", "2"]) for i in range(rooms)]
    else:
        run.rooms = await create_app_rooms(base, rooms, target, setup_deadline)
    created_s = time.monotonic() - t
    rss_rooms = rss_kb(pid)

    for room in run.rooms:
        room.seats = [Seat(room, i, run) for i in range(3)]
    seats = [s for room in run.rooms for s in room.seats]
    t = time.monotonic()
    await gather_limited([s.connect(ws_base) for s in seats], 64, setup_deadline)
    connect_s = time.monotonic() - t
    readers = [asyncio.ensure_future(s.reader()) for s in seats]
    # Everybody has their first table before the games start.
    await gather_limited([_wait(s, lambda s: s.version >= 0) for s in seats], 1000, setup_deadline)
    await asyncio.sleep(0.5)
    rss_conn = rss_kb(pid)

    # Start every game (the host's "Start" button), not paced, not measured; from then on
    # every reader acts whenever its table offers it something.
    run.playing = True
    lobby = {id(s): s.version for s in seats}
    t = time.monotonic()
    for room in run.rooms:
        host = room.seats[0]
        assert host.ws is not None
        await host.ws.send(json.dumps({"do": "start", "v": host.version}))
    # Every game dealt (the burst of starts is not what we measure), then a warm-up.
    await gather_limited(
        [_wait(s, lambda s: s.version > lobby[id(s)]) for s in seats], 5000, setup_deadline + 60
    )
    start_s = time.monotonic() - t
    await asyncio.sleep(warmup)
    run.stats.measuring = True
    sent0, done0, cpu0, t0 = run.stats.sent, run.stats.completed, cpu_seconds(pid), time.monotonic()
    own0 = time.process_time()
    await asyncio.sleep(duration)
    elapsed = time.monotonic() - t0
    done = run.stats.completed - done0
    sent = run.stats.sent - sent0
    cpu1 = cpu_seconds(pid)
    own = (time.process_time() - own0) / elapsed
    run.stats.measuring = False
    rss_end = rss_kb(pid)
    run.stopping = True
    await gather_limited(
        [s.ws.close() for s in seats if s.ws is not None], 256, time.monotonic() + 60
    )
    await asyncio.wait(readers, timeout=10)

    conns = len(seats)
    lat = run.stats.latencies
    return {
        "name": name,
        "rooms": rooms,
        "connections": conns,
        "setup_s": round(created_s, 1),
        "connect_s": round(connect_s, 1),
        "start_s": round(start_s, 1),
        "sent_per_s": sent / elapsed,
        "actions_per_s": done / elapsed,
        "p50_ms": pct(lat, 50),
        "p99_ms": pct(lat, 99),
        "max_ms": max(lat) if lat else float("nan"),
        "samples": len(lat),
        "refused": run.stats.refused,
        "closed_early": run.stats.closed_early,
        "frame_bytes": run.stats.frame_bytes // max(1, run.stats.frames),
        "kb_per_conn_sockets": None
        if rss_conn is None or rss_rooms is None
        else (rss_conn - rss_rooms) / conns,
        "kb_per_conn_all": None if rss_end is None or rss0 is None else (rss_end - rss0) / conns,
        "rss_mb": None if rss_end is None else rss_end / 1024,
        "bench_cpu": own,
        "server_cpu": None if cpu0 is None or cpu1 is None else (cpu1 - cpu0) / elapsed,
    }


async def _wait(seat: Seat, predicate) -> None:  # type: ignore[no-untyped-def]
    while not predicate(seat):
        seat.changed.clear()
        await seat.changed.wait()


def show(results: list[dict], rate: float) -> None:
    def f(value: object, spec: str) -> str:
        return "n/a" if value is None else format(value, spec)

    print()
    print(
        f"{'target':<14}{'conns':>7}{'act/s':>9}{'p50 ms':>9}{'p99 ms':>9}{'max ms':>9}"
        f"{'refused':>9}{'KB/conn':>9}{'KB/conn*':>10}{'RSS MB':>8}{'srv CPU':>9}{'bench CPU':>10}{'frame B':>9}"
    )
    for r in results:
        print(
            f"{r['name']:<14}{r['connections']:>7}{r['actions_per_s']:>9.1f}{r['p50_ms']:>9.1f}"
            f"{r['p99_ms']:>9.1f}{r['max_ms']:>9.1f}{r['refused']:>9}{f(r['kb_per_conn_sockets'], '.1f'):>9}"
            f"{f(r['kb_per_conn_all'], '.1f'):>10}{f(r['rss_mb'], '.0f'):>8}{f(r['server_cpu'], '.0%'):>9}{r['bench_cpu']:>10.0%}"
            f"{r['frame_bytes']:>9}"
        )
    print(
        "KB/conn: RSS after connecting minus after creating the rooms, per connection;"
        " KB/conn*: end of play minus idle server (rooms, games and sockets), per connection."
    )
    if len(results) == 2:
        app, bare = results
        print(
            f"ratio app/bare: actions/s {app['actions_per_s'] / max(bare['actions_per_s'], 1e-9):.2f}, "
            f"p50 {app['p50_ms'] / max(bare['p50_ms'], 1e-9):.1f}x, p99 {app['p99_ms'] / max(bare['p99_ms'], 1e-9):.1f}x"
            + (
                f", KB/conn {app['kb_per_conn_sockets'] / max(bare['kb_per_conn_sockets'], 1e-9):.1f}x"
                if app["kb_per_conn_sockets"] and bare["kb_per_conn_sockets"]
                else ""
            )
        )
    app = results[0]
    if rate:
        ok_rate = app["actions_per_s"] >= 0.95 * rate
        ok_p99 = app["p99_ms"] < 100
        ok_mem = app["kb_per_conn_sockets"] is not None and app["kb_per_conn_sockets"] < 100
        print(
            f"aim ({app['connections']} connections, {rate:g} actions/s): "
            f"rate {'ok' if ok_rate else 'MISSED'}, p99<100ms {'ok' if ok_p99 else 'MISSED'}, "
            f"<100KB/conn {'ok' if ok_mem else 'MISSED'}"
        )


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description="Websocket load on the room protocol, vs a bare fan-out."
    )
    parser.add_argument("url", nargs="?", help="a running app (loopback only); default: start one")
    parser.add_argument("--pid", type=int, help="the running app's pid, for memory figures")
    parser.add_argument("--rooms", type=int, default=50, help="rooms of three seats (default 50)")
    parser.add_argument(
        "--rate", type=float, default=30, help="actions/s over all rooms; 0 = flat out (default 30)"
    )
    parser.add_argument("--duration", type=float, default=10, help="measured seconds (default 10)")
    parser.add_argument("--warmup", type=float, default=2, help="seconds of play before measuring")
    parser.add_argument(
        "--target", type=int, default=None, help="game target points (default: the preset's)"
    )
    parser.add_argument(
        "--database-url",
        help="database for the app the bench starts (default: a fresh SQLite file); "
        "a Postgres database should be empty",
    )
    parser.add_argument("--no-fanout", action="store_true", help="skip the bare fan-out comparison")
    parser.add_argument("--json", action="store_true", help="also print the figures as JSON")
    args = parser.parse_args()
    if args.url:
        loopback_only(args.url)
    if args.database_url and not args.database_url.startswith("sqlite"):
        loopback_only(args.database_url)
    if not 1 <= args.rooms <= 2000:
        raise SystemExit("--rooms must be 1..2000")
    if not 1 <= args.duration <= 300:
        raise SystemExit("--duration must be 1..300 s")
    return args


async def main(args: argparse.Namespace) -> None:
    raise_fd_limit(args.rooms * 3 * 2 + 256)
    with tempfile.TemporaryDirectory(prefix="gurka-bench-") as tmp:
        workdir = Path(tmp)
        started: list[Server] = []
        try:
            if args.url:
                base, pid = args.url.rstrip("/"), args.pid
            else:
                app = start_app(workdir, args.database_url)
                started.append(app)
                base, pid = app.url, app.pid
            results = [
                await drive(
                    "gurka app",
                    base,
                    pid,
                    rooms=args.rooms,
                    rate=args.rate,
                    duration=args.duration,
                    warmup=args.warmup,
                    target=args.target,
                    bare=False,
                )
            ]
            if not args.no_fanout:
                fan = start_fanout(workdir, results[0]["frame_bytes"])
                started.append(fan)
                results.append(
                    await drive(
                        "bare fan-out",
                        fan.url,
                        fan.pid,
                        rooms=args.rooms,
                        rate=args.rate,
                        duration=args.duration,
                        warmup=args.warmup,
                        target=None,
                        bare=True,
                    )
                )
        finally:
            for server in started:
                server.stop()
    show(results, args.rate)
    if args.json:
        print(json.dumps(results, indent=1, default=float))


if __name__ == "__main__":
    arguments = parse_args()  # refuses anything but loopback before any connection
    try:
        asyncio.run(asyncio.wait_for(main(arguments), 1800))
    except KeyboardInterrupt:
        pass
