"""Websocket load: N rooms of three bot-like clients against a real server, then the bare floor.

    python bench/ws_load.py                                  # starts its own app server (SQLite)
    python bench/ws_load.py http://127.0.0.1:8000 --pid PID  # a server you started
    python bench/ws_load.py --rooms 1000 --rate 300 --duration 20   # the issue's aim
    python bench/ws_load.py --processes 2 --database-url postgresql+psycopg://postgres@127.0.0.1/x
    python bench/ws_load.py --compare --database-url postgresql+psycopg://postgres@127.0.0.1/x

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

- bytes per action: every frame byte sent to every socket of the room (three seats and
  `--spectators` watchers), per accepted action.

`--processes N` starts N app processes on one database (Postgres: `--database-url`) and spreads
the rooms over them by room, as nginx would (a room's sockets all go to the process that
created it); actions/s, CPU and memory are the totals of all processes.

`--compare` runs, in one invocation and in this order: the app on SQLite, the bare fan-out,
the app on Postgres (one process) and on Postgres with two processes (each Postgres target on
a fresh database created beside `--database-url`'s and dropped after), and prints the ratios
issue 11 names: app CPU/action against the bare fan-out's, Postgres actions/s as a share of
SQLite's, and CPU per action with two processes against one.

Then it runs bench/fanout_server.py (no rules, no rendering, same framing, a fixed frame of
1,500 bytes per seat per action; `--floor-like-app`: of the app's average frame size) through
the same harness in the same run and prints the ratios.

The client's own garbage collector is off from the warm-up to the end of the measured window:
its passes over 3,000 sockets' objects (100-230 ms) would show as the server's latency.

Only loopback addresses; every phase is bounded in count and time, and servers the bench
started are stopped at the end.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import html
import ipaddress
import json
import os
import random
import re
import resource
import secrets
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
sys.path.insert(0, str(ROOT))
from bench.table_wire import Stale, apply, parse

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
    """(actions this seat's page offers: its move's `data-legal`, whether it offers a rematch)."""
    actions: list[str] = []
    for raw in DATA_LEGAL.findall(content):
        actions.extend(str(a) for a in json.loads(html.unescape(raw)))
    return actions, '"do":"rematch"' in content


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


def start_app(workdir: Path, database_url: str | None = None, tag: str = "app",
              env_extra: dict[str, str] | None = None) -> Server:
    """The app on a free port, serving once /healthz answers. `env_extra`: settings on top."""
    port = free_port()
    env = dict(os.environ)
    env.update(
        {
            "DATABASE_URL": database_url or f"sqlite:///{workdir / 'bench.db'}",
            "BOT_DELAY": "0",
            "SECRET_KEY": secrets.token_urlsafe(32),
            "PYTHONUNBUFFERED": "1",
            # every simulated player comes from 127.0.0.1: lift the per-address caps
            "WS_PER_ADDRESS": "100000",
            "WS_CONNECTS_PER_ADDRESS": "100000",
            "NEW_ROOMS_PER_ADDRESS": "100000",
            "NEW_ROOMS_TOTAL": "100000",
            **(env_extra or {}),
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
    server = Server(argv, env, f"http://127.0.0.1:{port}", workdir / f"{tag}.log")
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
    seat_frame_bytes: int = 0  # what the seats' sockets got (not the spectators')
    seat_bytes_by_kind: dict[str, int] = field(default_factory=dict)  # the same, by the frames' kind
    table_frames: int = 0
    fragment_frames: int = 0  # pushes of only the fragments that changed (those at the same version: presence)
    syncs: int = 0  # changes that did not start from the version a seat showed: it asked for the whole table
    closed_early: int = 0
    measuring: bool = False


@dataclass
class Room:
    slug: str
    tokens: list[str]
    base: str = ""  # the server (process) this room lives on
    seats: list[Seat] = field(default_factory=list)
    watchers: list[Seat] = field(default_factory=list)
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

    async def connect(self) -> None:
        ws_base = self.room.base.replace("http://", "ws://", 1)
        watcher = self.index >= len(self.room.tokens)  # a spectator: no seat cookie
        headers = {} if watcher else {"Cookie": f"{COOKIE.format(slug=self.room.slug)}={self.room.tokens[self.index]}"}
        if watcher and self.run.spectator_langs:  # spectators reading other languages, in turn
            langs = self.run.spectator_langs
            headers["Accept-Language"] = langs[(self.index - len(self.room.tokens)) % len(langs)]
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
                frame = parse(message)
                stats.frames += 1
                stats.frame_bytes += len(message)
                kind = frame.get("kind")
                if self.index < len(self.room.tokens):
                    stats.seat_frame_bytes += len(message)
                    stats.seat_bytes_by_kind[kind] = stats.seat_bytes_by_kind.get(kind, 0) + len(message)
                if kind == "notice":
                    if frame.get("level") == "error":
                        stats.refused += 1
                    continue
                if kind in ("fragments", "private"):  # as the page does: apply them, or ask for the whole table
                    stats.fragment_frames += 1
                    try:
                        content = apply(self.content, frame)
                    except Stale:
                        if kind == "fragments":
                            stats.syncs += 1
                            await self.ws.send(json.dumps({"do": "sync", "v": self.version}))
                        continue
                    if kind == "private":  # the seat's own move: it may act now
                        self.content = content
                        if self.index < len(self.room.tokens):
                            await self.maybe_act()
                        continue
                elif kind == "table":
                    stats.table_frames += 1
                    content = frame["content"]
                else:
                    continue
                version = int(frame["version"])
                if version < self.version or (version == self.version and kind == "table"):
                    continue
                self.content = content
                if version == self.version:
                    continue  # (presence: the same version)
                self.version = version
                self.changed.set()
                if self.index >= len(self.room.tokens):
                    continue  # a spectator only reads
                self.note_update(version)
                # a seat's move comes in its private frame, after the shared one (which leaves
                # the move it had): act on a whole table or a private frame, and on a shared
                # frame only to ask for a rematch
                await self.maybe_act(rematch_only=kind == "fragments")
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

    async def maybe_act(self, *, rematch_only: bool = False) -> None:
        """Act if this seat's page offers something at a version it has not acted on yet."""
        run = self.run
        if not run.playing or run.stopping or self.version <= self.acted_at:
            return
        actions, rematch = offered(self.content)
        if rematch_only:
            actions = []
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
    def __init__(self, name: str, rate: float, spectator_langs: tuple[str, ...] = ()) -> None:
        self.name = name
        self.spectator_langs = spectator_langs
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
            return Room(slug, tokens, base)

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


@dataclass
class Target:
    """The processes of one target (several for a scale-out run) and their pids (None: unknown)."""

    name: str
    bases: list[str]
    pids: list[int | None]


def total(values: list[float | int | None]) -> float | None:
    return None if any(v is None for v in values) else float(sum(v for v in values if v is not None))


async def drive(
    target_servers: Target,
    *,
    rooms: int,
    rate: float,
    duration: float,
    warmup: float,
    target: int | None,
    bare: bool,
    spectators: int = 0,
    spectator_langs: tuple[str, ...] = (),
) -> dict:
    name, bases, pids = target_servers.name, target_servers.bases, target_servers.pids
    run = Run(name, rate, spectator_langs)
    setup_deadline = time.monotonic() + 120 + rooms * 0.2
    rss0 = total([rss_kb(pid) for pid in pids])
    t = time.monotonic()
    if bare:
        run.rooms = [Room(f"bare{i}", ["0", "1", "2"], bases[0]) for i in range(rooms)]
    else:
        # spread by room over the processes, as nginx would (every socket of a room to one)
        shares = [rooms // len(bases) + (1 if i < rooms % len(bases) else 0) for i in range(len(bases))]
        made = await asyncio.gather(
            *(create_app_rooms(base, n, target, setup_deadline) for base, n in zip(bases, shares) if n)
        )
        run.rooms = [room for part in made for room in part]
    created_s = time.monotonic() - t
    rss_rooms = total([rss_kb(pid) for pid in pids])

    for room in run.rooms:
        room.seats = [Seat(room, i, run) for i in range(3)]
        room.watchers = [Seat(room, 3 + i, run) for i in range(spectators)]
    seats = [s for room in run.rooms for s in room.seats]
    sockets = seats + [w for room in run.rooms for w in room.watchers]
    t = time.monotonic()
    await gather_limited([s.connect() for s in sockets], 64, setup_deadline)
    connect_s = time.monotonic() - t
    readers = [asyncio.ensure_future(s.reader()) for s in sockets]
    # Everybody has their first table before the games start.
    await gather_limited([_wait(s, lambda s: s.version >= 0) for s in sockets], 1000, setup_deadline)
    await asyncio.sleep(0.5)
    rss_conn = total([rss_kb(pid) for pid in pids])

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
    # The load client's own garbage collections (3,000 sockets' objects: 100-230 ms each on a
    # 2-core machine) would show as the server's latency: none while it plays and measures.
    gc.collect()
    gc.disable()
    await asyncio.sleep(warmup)
    stats = run.stats
    stats.measuring = True
    sent0, done0, t0 = stats.sent, stats.completed, time.monotonic()
    bytes0, frames0, seat_bytes0 = stats.frame_bytes, stats.frames, stats.seat_frame_bytes
    kinds0 = dict(stats.seat_bytes_by_kind)
    cpu0 = total([cpu_seconds(pid) for pid in pids])
    own0 = time.process_time()
    await asyncio.sleep(duration)
    elapsed = time.monotonic() - t0
    done = stats.completed - done0
    sent = stats.sent - sent0
    cpu1 = total([cpu_seconds(pid) for pid in pids])
    measured_bytes, measured_frames = stats.frame_bytes - bytes0, stats.frames - frames0
    own = (time.process_time() - own0) / elapsed
    stats.measuring = False
    gc.enable()
    rss_end = total([rss_kb(pid) for pid in pids])
    run.stopping = True
    await gather_limited(
        [s.ws.close() for s in sockets if s.ws is not None], 256, time.monotonic() + 60
    )
    await asyncio.wait(readers, timeout=10)

    conns = len(sockets)
    lat = stats.latencies
    server_cpu = None if cpu0 is None or cpu1 is None else (cpu1 - cpu0) / elapsed
    actions_per_s = done / elapsed
    return {
        "name": name,
        "processes": len(bases),
        "rooms": rooms,
        "connections": conns,
        "spectators_per_room": spectators,
        "setup_s": round(created_s, 1),
        "connect_s": round(connect_s, 1),
        "start_s": round(start_s, 1),
        "sent_per_s": sent / elapsed,
        "actions_per_s": actions_per_s,
        "p50_ms": pct(lat, 50),
        "p99_ms": pct(lat, 99),
        "max_ms": max(lat) if lat else float("nan"),
        "samples": len(lat),
        "refused": stats.refused,
        "closed_early": stats.closed_early,
        "frame_bytes": measured_bytes // max(1, measured_frames),
        "bytes_per_action": measured_bytes / max(1, done),
        "seat_bytes_per_action": (stats.seat_frame_bytes - seat_bytes0) / max(1, done) / 3,
        "seat_bytes_per_action_by_kind": {
            kind: (n - kinds0.get(kind, 0)) / max(1, done) / 3 for kind, n in stats.seat_bytes_by_kind.items()
        },
        "fragment_frames": stats.fragment_frames,
        "table_frames": stats.table_frames,
        "syncs": stats.syncs,
        "kb_per_conn_sockets": None
        if rss_conn is None or rss_rooms is None
        else (rss_conn - rss_rooms) / conns,
        "kb_per_conn_all": None if rss_end is None or rss0 is None else (rss_end - rss0) / conns,
        "rss_mb": None if rss_end is None else rss_end / 1024,
        "bench_cpu": own,
        "server_cpu": server_cpu,
        "cpu_ms_per_action": None if server_cpu is None or not done else server_cpu * 1000 / actions_per_s,
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
        f"{'target':<16}{'procs':>6}{'conns':>7}{'act/s':>9}{'p50 ms':>9}{'p99 ms':>9}{'max ms':>9}"
        f"{'refused':>9}{'KB/conn':>9}{'KB/conn*':>10}{'RSS MB':>8}{'srv CPU':>9}{'CPU ms/act':>11}"
        f"{'bench CPU':>10}{'frame B':>9}{'B/act':>9}{'B/seat/act':>11}"
    )
    for r in results:
        print(
            f"{r['name']:<16}{r['processes']:>6}{r['connections']:>7}{r['actions_per_s']:>9.1f}{r['p50_ms']:>9.1f}"
            f"{r['p99_ms']:>9.1f}{r['max_ms']:>9.1f}{r['refused']:>9}{f(r['kb_per_conn_sockets'], '.1f'):>9}"
            f"{f(r['kb_per_conn_all'], '.1f'):>10}{f(r['rss_mb'], '.0f'):>8}{f(r['server_cpu'], '.0%'):>9}"
            f"{f(r['cpu_ms_per_action'], '.3f'):>11}{r['bench_cpu']:>10.0%}{r['frame_bytes']:>9}{r['bytes_per_action']:>9.0f}"
            f"{r['seat_bytes_per_action']:>11.0f}"
        )
    print(
        "KB/conn: RSS after connecting minus after creating the rooms, per connection;"
        " KB/conn*: end of play minus idle server (rooms, games and sockets), per connection;"
        " CPU ms/act: server CPU (all its processes) per accepted action; B/act: frame bytes to"
        " all sockets of a room per action; B/seat/act: frame bytes to one seat's socket per action."
    )
    for r in results:
        kinds = r.get("seat_bytes_per_action_by_kind") or {}
        if kinds:
            print(f"{r['name']}: B/seat/act by frame kind: "
                  + ", ".join(f"{k} {v:.0f}" for k, v in sorted(kinds.items(), key=lambda kv: -kv[1])))
    if len(results) >= 2:
        app, bare = results[0], results[1]
        print(
            f"ratio app/bare: actions/s {app['actions_per_s'] / max(bare['actions_per_s'], 1e-9):.2f}, "
            f"p50 {app['p50_ms'] / max(bare['p50_ms'], 1e-9):.1f}x, p99 {app['p99_ms'] / max(bare['p99_ms'], 1e-9):.1f}x"
            + (
                f", KB/conn {app['kb_per_conn_sockets'] / max(bare['kb_per_conn_sockets'], 1e-9):.1f}x"
                if app["kb_per_conn_sockets"] and bare["kb_per_conn_sockets"]
                else ""
            )
            + (
                f", CPU ms/action {app['cpu_ms_per_action']:.3f} vs {bare['cpu_ms_per_action']:.3f}"
                f" = {app['cpu_ms_per_action'] / bare['cpu_ms_per_action']:.1f}x"
                if app["cpu_ms_per_action"] and bare["cpu_ms_per_action"]
                else ""
            )
        )
    app = results[0]
    if rate:
        ok_rate = app["actions_per_s"] >= 0.95 * rate
        ok_p99 = app["p99_ms"] < 50  # issue 11: at 1,000 rooms and 300 actions/s, p99 under 50 ms
        ok_mem = app["kb_per_conn_sockets"] is not None and app["kb_per_conn_sockets"] < 100
        print(
            f"aim ({app['connections']} connections, {rate:g} actions/s): "
            f"rate {'ok' if ok_rate else 'MISSED'}, p99<50ms {'ok' if ok_p99 else 'MISSED'}, "
            f"<100KB/conn {'ok' if ok_mem else 'MISSED'}"
        )


def compare_ratios(results: list[dict]) -> dict[str, float | None]:
    """The ratios issue 11 names, from one --compare run: [sqlite, bare, postgres x1, postgres x2]."""
    sqlite, bare, pg1, pg2 = results

    def ratio(a: float | None, b: float | None) -> float | None:
        return None if a is None or not b else a / b

    return {
        "app_cpu_ms_per_action": sqlite["cpu_ms_per_action"],
        "bare_cpu_ms_per_action": bare["cpu_ms_per_action"],
        "app_vs_bare_cpu_per_action": ratio(sqlite["cpu_ms_per_action"], bare["cpu_ms_per_action"]),
        "postgres_share_of_sqlite_actions_per_s": ratio(pg1["actions_per_s"], sqlite["actions_per_s"]),
        "cpu_per_action_2_vs_1_processes": ratio(pg2["cpu_ms_per_action"], pg1["cpu_ms_per_action"]),
        "load_average_1min": os.getloadavg()[0],
    }


def show_ratios(ratios: dict[str, float | None]) -> None:
    def f(value: float | None, spec: str) -> str:
        return "n/a" if value is None else format(value, spec)

    print()
    print(
        f"app server CPU per action {f(ratios['app_cpu_ms_per_action'], '.3f')} ms, bare fan-out"
        f" {f(ratios['bare_cpu_ms_per_action'], '.3f')} ms: {f(ratios['app_vs_bare_cpu_per_action'], '.1f')}x"
        " (aim: at most 4x)"
    )
    print(
        f"Postgres actions/s as a share of SQLite's: {f(ratios['postgres_share_of_sqlite_actions_per_s'], '.0%')}"
        " (aim: at least 80%)"
    )
    print(
        f"CPU per action, 2 processes on one Postgres vs 1: {f(ratios['cpu_per_action_2_vs_1_processes'], '.2f')}x"
        " (aim: at most 1.2x)"
    )
    print(f"load average (1 min) at the end: {f(ratios['load_average_1min'], '.2f')} on {os.cpu_count()} cores")


FLOOR_BYTES = 1500  # the bare fan-out's frame: what each seat gets per action


def floor_bytes(args: argparse.Namespace, app: dict) -> int:
    """The bare fan-out's frame size: fixed, or the app's average (`--floor-like-app`)."""
    return int(app["frame_bytes"]) if args.floor_like_app else FLOOR_BYTES


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
    parser.add_argument(
        "--processes", type=int, default=1,
        help="app processes on the one database (more than one needs Postgres); rooms are spread by room",
    )
    parser.add_argument(
        "--spectators", type=int, default=0, help="spectator sockets per room, besides the three seats"
    )
    parser.add_argument(
        "--spectator-langs", default="",
        help="the spectators' languages in turn, comma-separated (default: the server's, English); "
        "issue 36's measure: --spectators 6 --spectator-langs da,fi,is",
    )
    parser.add_argument(
        "--compare", action="store_true",
        help="SQLite, bare fan-out, Postgres x1 and Postgres x2 in one run, and their ratios "
        "(needs --database-url of a Postgres server; fresh databases are created beside it)",
    )
    parser.add_argument("--no-fanout", action="store_true", help="skip the bare fan-out comparison")
    parser.add_argument(
        "--floor-like-app", action="store_true",
        help=f"pad the bare fan-out's frames to the app's average frame size (default: a fixed {FLOOR_BYTES:,} "
        "bytes per seat per action, so that a smaller app frame does not make the floor cheaper)",
    )
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
    if not 1 <= args.processes <= 16:
        raise SystemExit("--processes must be 1..16")
    if not 0 <= args.spectators <= 20:
        raise SystemExit("--spectators must be 0..20")
    postgres = bool(args.database_url) and args.database_url.startswith("postgresql")
    if (args.processes > 1 or args.compare) and not postgres:
        raise SystemExit("--processes above 1 and --compare need --database-url postgresql+psycopg://…")
    if args.url and (args.processes > 1 or args.compare):
        raise SystemExit("--processes and --compare start their own servers: give no url")
    return args


class FreshDatabases:
    """Empty Postgres databases beside the given one (same server), dropped at the end."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.names: list[str] = []

    def _admin_dsn(self) -> str:
        from sqlalchemy.engine import make_url

        return make_url(self.url).set(drivername="postgresql").render_as_string(hide_password=False)

    def create(self) -> str:
        import psycopg
        from sqlalchemy.engine import make_url

        name = f"gurka_bench_{uuid.uuid4().hex[:10]}"
        with psycopg.connect(self._admin_dsn(), autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        self.names.append(name)
        return make_url(self.url).set(database=name).render_as_string(hide_password=False)

    def drop_all(self) -> None:
        import psycopg

        with psycopg.connect(self._admin_dsn(), autocommit=True) as conn:
            for name in self.names:
                conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        self.names.clear()


async def main(args: argparse.Namespace) -> None:
    sockets_per_room = 3 + args.spectators
    raise_fd_limit(args.rooms * sockets_per_room * 2 + 256)
    load = {"rooms": args.rooms, "rate": args.rate, "duration": args.duration, "warmup": args.warmup,
                "spectators": args.spectators,
                "spectator_langs": tuple(x for x in args.spectator_langs.split(",") if x)}
    fresh = FreshDatabases(args.database_url) if args.compare else None
    with tempfile.TemporaryDirectory(prefix="gurka-bench-") as tmp:
        workdir = Path(tmp)
        started: list[Server] = []

        async def app_target(name: str, processes: int, database_url: str | None) -> dict:
            if processes > 1 or args.compare:
                from app.store.db import upgrade  # one schema before several processes start

                if database_url:
                    upgrade(database_url)
            servers = [start_app(workdir, database_url, tag=f"{name}-{i}".replace(" ", "-"))
                       for i in range(processes)]
            started.extend(servers)
            try:
                return await drive(
                    Target(name, [s.url for s in servers], [s.pid for s in servers]),
                    target=args.target, bare=False, **load,
                )
            finally:
                for server in servers:
                    server.stop()

        async def bare_target(frame_bytes: int) -> dict:
            fan = start_fanout(workdir, frame_bytes)
            started.append(fan)
            try:
                return await drive(Target("bare fan-out", [fan.url], [fan.pid]), target=None, bare=True, **load)
            finally:
                fan.stop()

        try:
            if args.compare:
                assert fresh is not None
                results = [await app_target("app sqlite", 1, None)]
                results.append(await bare_target(floor_bytes(args, results[0])))
                results.append(await app_target("app postgres", 1, fresh.create()))
                results.append(await app_target("app postgres x2", 2, fresh.create()))
            else:
                if args.url:
                    results = [await drive(Target("gurka app", [args.url.rstrip("/")], [args.pid]),
                                           target=args.target, bare=False, **load)]
                else:
                    results = [await app_target("gurka app", args.processes, args.database_url)]
                if not args.no_fanout:
                    results.append(await bare_target(floor_bytes(args, results[0])))
        finally:
            for server in started:
                server.stop()
            if fresh is not None:
                fresh.drop_all()
    show(results, args.rate)
    ratios = compare_ratios(results) if args.compare else None
    if ratios is not None:
        show_ratios(ratios)
    if args.json:
        print(json.dumps(results, indent=1, default=float))
        if ratios is not None:
            print(json.dumps(ratios, indent=1, default=float))


if __name__ == "__main__":
    arguments = parse_args()  # refuses anything but loopback before any connection
    try:
        asyncio.run(asyncio.wait_for(main(arguments), 3600))
    except KeyboardInterrupt:
        pass
