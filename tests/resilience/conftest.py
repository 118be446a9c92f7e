"""Real server processes and a small websocket protocol client for the resilience tests.

`start_server(database_url)` runs `python -m uvicorn app.main:create_app --factory` on a free
loopback port, exactly as production does (websockets-sansio, compression off), and waits
for /healthz. The returned `ServerProcess` can be killed (`kill -9`), terminated (SIGTERM)
and started again on the same port and database. Every process a test started is killed at
teardown.

`SeatClient` speaks the room protocol over a real websocket (the `websockets` package): it
keeps reading in the background, remembers the latest table, and lets a test wait for a
condition instead of sleeping.
"""

from __future__ import annotations

import asyncio
import html
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from app.secret_key import new_secret
from app.web.shared.security import seat_cookie_name
from bench.table_wire import Stale, apply, parse
from tests.support.app_process import free_port

ROOT = Path(__file__).resolve().parents[2]
LOG_CONFIG = (
    Path(__file__).resolve().parent / "server_logging.json"
)  # app loggers into the server log

HX_VALS = re.compile(r"hx-vals='([^']*)'")
DATA_LEGAL = re.compile(r"data-legal='([^']*)'")
DATA_CODE = re.compile(r'data-code="([^"]+)"')
DATA_CARD = re.compile(r'data-card="([^"]+)"')
TURN = re.compile(r'<section id="table"[^>]* data-to-act="(\d+)"')  # the seat whose turn it is
ME = re.compile(r'<section id="table"[^>]* data-me="(\d+)"')  # the page's own seat
SEQ = re.compile(r'<section id="table"[^>]* data-seq="(\d+)"')  # the table's seq
SCORE = re.compile(r'<b>(-?\d+)</b><span class="sr-only"> penalty points')


# one key for every process of the run, as every process of one deployment shares one
SECRET_KEY = new_secret()


# ---------------------------------------------------------------------------- server processes


class ServerProcess:
    """One real uvicorn process serving the app on 127.0.0.1:<port>."""

    def __init__(
        self,
        database_url: str,
        *,
        port: int | None = None,
        log_path: Path,
        env: dict[str, str] | None = None,
    ) -> None:
        self.database_url = database_url
        self.port = port or free_port()
        self.log_path = log_path
        self.extra_env = dict(env or {})
        self.proc: subprocess.Popen[bytes] | None = None
        self.starts = 0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}"

    @property
    def pid(self) -> int:
        assert self.proc is not None
        return self.proc.pid

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def start(self, *, wait: bool = True, timeout: float = 30.0) -> ServerProcess:
        assert not self.alive(), "already running"
        env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST", "COV_"))}
        env.update(
            {
                "DATABASE_URL": self.database_url,
                "BOT_DELAY": "0",
                "SECRET_KEY": SECRET_KEY,
                "SEAT_TAKEOVER_SECONDS": "60",
                "DEAL_PAUSE": "0",
                "PYTHONUNBUFFERED": "1",
                # these seats play at machine speed, all from 127.0.0.1: a person's limits
                # (100 messages per 20 s, 30 new sockets per 10 s) would close them
                "WS_PLAYER_MESSAGES": "1000000",
                "WS_CONNECTS_PER_ADDRESS": "1000000",
                # ... and every room is made from there too (10 per address per 10 minutes)
                "NEW_ROOMS_PER_ADDRESS": "1000000",
                "NEW_ROOMS_TOTAL": "1000000",
            }
        )
        env.update(self.extra_env)
        self.starts += 1
        log = self.log_path.open("ab")
        log.write(f"\n===== start #{self.starts} on port {self.port} =====\n".encode())
        log.flush()
        self.proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "uvicorn",
                "app.main:create_app",
                "--factory",
                "--host",
                "127.0.0.1",
                "--port",
                str(self.port),
                "--ws",
                "websockets-sansio",
                "--ws-per-message-deflate",
                "false",
                "--timeout-graceful-shutdown",
                "10",
                "--no-access-log",
                "--log-config",
                str(LOG_CONFIG),
            ],
            cwd=ROOT,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        log.close()
        if wait:
            self.wait_ready(timeout)
        return self

    def wait_ready(self, timeout: float = 30.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if not self.alive():
                raise RuntimeError(
                    f"server exited with {self.proc and self.proc.returncode}:\n{self.log_tail()}"
                )
            try:
                if httpx.get(f"{self.url}/healthz", timeout=1.0).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.05)
        raise TimeoutError(f"server not ready after {timeout} s:\n{self.log_tail()}")

    def kill(self) -> None:
        """`kill -9`: no shutdown code runs, nothing is flushed."""
        if self.alive():
            assert self.proc is not None
            os.kill(self.proc.pid, signal.SIGKILL)
            self.proc.wait(10)

    def terminate(self, timeout: float = 20.0) -> int:
        """SIGTERM and wait for the process to exit; returns its exit code."""
        assert self.proc is not None
        if self.alive():
            self.proc.send_signal(signal.SIGTERM)
        return self.proc.wait(timeout)

    def restart(self, **kwargs: Any) -> ServerProcess:
        self.kill()
        return self.start(**kwargs)

    def log_text(self) -> str:
        try:
            return self.log_path.read_text(errors="replace")
        except OSError:
            return ""

    def log_tail(self, lines: int = 60) -> str:
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return "(no log)"

    def rss_kb(self) -> int:
        for line in Path(f"/proc/{self.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
        return 0


@pytest.fixture
def start_server(tmp_path: Path) -> Iterator[Callable[..., ServerProcess]]:
    """Factory: `start_server(database_url, port=None, env=None, wait=True)`; all killed at the end."""
    started: list[ServerProcess] = []

    def start(
        database_url: str,
        *,
        port: int | None = None,
        env: dict[str, str] | None = None,
        wait: bool = True,
    ) -> ServerProcess:
        server = ServerProcess(
            database_url, port=port, env=env, log_path=tmp_path / f"server-{len(started)}.log"
        )
        started.append(server)
        return server.start(wait=wait)

    yield start
    for server in started:
        server.kill()
        # pytest shows a fixture's output for a failing test only: the servers' side of it
        print(f"----- {server.log_path.name} -----\n{server.log_tail()}")


@pytest.fixture
def sqlite_file_url(tmp_path: Path) -> str:
    """A SQLite file shared by every server process of a test (survives their restarts)."""
    return f"sqlite:///{tmp_path / 'gurka.db'}"


# ---------------------------------------------------------------------------- HTTP: rooms and seats


def _token(response: httpx.Response, slug: str) -> str:
    token = response.cookies.get(seat_cookie_name(slug))
    if not token:
        match = re.search(
            rf"{seat_cookie_name(slug)}=([^;]+)", response.headers.get("set-cookie", "")
        )
        assert match, response.headers
        token = match.group(1)
    return token


async def create_room(
    base_url: str,
    *,
    name: str = "Anna",
    preset: str = "gurka-night",
    seats: int = 3,
    bots: int = 0,
    **options: Any,
) -> tuple[str, str]:
    """POST /rooms like the home page's form; returns (slug, host token)."""
    data = {"name": name, "preset": preset, "seats": str(seats), "bots": str(bots)}
    data.update({f"opt_{k}": str(v) for k, v in options.items()})
    async with httpx.AsyncClient(base_url=base_url, timeout=15) as http:
        response = await http.post("/rooms", data=data)
    assert response.status_code == 303, response.text[:500]
    slug = response.headers["location"].rsplit("/", 1)[-1]
    return slug, _token(response, slug)


async def join_room(base_url: str, slug: str, name: str) -> str:
    """POST /r/<slug>/join; returns the new seat's token."""
    async with httpx.AsyncClient(base_url=base_url, timeout=15) as http:
        response = await http.post(f"/r/{slug}/join", data={"name": name})
    assert response.status_code == 303, response.text[:500]
    return _token(response, slug)


# ---------------------------------------------------------------------------- the websocket client


def offered_actions(content: str) -> list[str]:
    """Every action the page offers this seat: its move's `data-legal` (the card buttons, the
    selection, the exchange's and rassi's buttons act on it)."""
    actions: list[str] = []
    for raw in DATA_LEGAL.findall(content):
        actions.extend(str(a) for a in json.loads(html.unescape(raw)))
    return sorted(set(actions))


def offered_requests(content: str) -> list[dict[str, Any]]:
    return [json.loads(html.unescape(raw)) for raw in HX_VALS.findall(content)]


def fingerprint(content: str, version: int) -> dict[str, Any]:
    """What must survive a restart, read from a seat's table: not presence, which may differ."""
    return {
        "version": version,
        "hand": sorted(DATA_CODE.findall(content)),
        "cards": sorted(DATA_CARD.findall(content)),
        "turn": [int(seat) for seat in TURN.findall(content)],
        "scores": SCORE.findall(content),
        "offered": offered_actions(content),
        "over": "Game over" in content,
    }


class SeatClient:
    """One seat's (or a spectator's) websocket, read continuously in the background."""

    def __init__(self, base_url: str, slug: str, token: str | None, name: str = "") -> None:
        self.base_url = base_url
        self.slug = slug
        self.token = token
        self.name = name
        self.frames: list[dict[str, Any]] = []
        self.table: dict[str, Any] | None = None
        self.tables: list[dict[str, Any]] = []  # every whole table it showed, in order
        # the seq of the table its own move was last shown for (a whole table, or its private frame)
        self.own_seq = -1
        self.close_code: int | None = None
        self.ws: ClientConnection | None = None
        self._reader: asyncio.Task[None] | None = None
        self._changed = asyncio.Event()

    @property
    def ws_url(self) -> str:
        return self.base_url.replace("http://", "ws://", 1) + f"/r/{self.slug}/ws"

    async def connect(
        self, base_url: str | None = None, *, timeout: float = 10.0, first_table: bool = True
    ) -> SeatClient:
        if base_url is not None:
            self.base_url = base_url
        headers = {"Cookie": f"{seat_cookie_name(self.slug)}={self.token}"} if self.token else {}
        self.close_code = None
        self.ws = await connect(
            self.ws_url,
            additional_headers=headers,
            compression=None,
            open_timeout=timeout,
            max_size=None,
            ping_interval=None,
        )
        self._reader = asyncio.get_running_loop().create_task(self._read(self.ws))
        if first_table:  # the server pushes the full table on every (re)connect
            seen = len(self.frames)
            await self.wait_for(
                lambda c: any(f.get("kind") in ("table", "fragments") for f in c.frames[seen:]),
                timeout,
                "the first table",
            )
        return self

    async def _read(self, ws: ClientConnection) -> None:
        try:
            async for message in ws:
                frame = parse(message)
                self.frames.append(frame)
                if frame.get("kind") == "table":
                    self.table = frame
                    self.tables.append(frame)
                    self.own_seq = int(frame["seq"])
                elif frame.get("kind") in ("fragments", "private") and self.table is not None:
                    try:  # as the page does: the changes, or a sync when they start elsewhere
                        self.table = {"kind": "table", "version": frame.get("version", self.table["version"]),
                                      "content": apply(str(self.table["content"]), frame)}
                        if frame["kind"] == "private":
                            self.own_seq = int(frame["seq"])
                        if frame["kind"] == "private" and self.tables:
                            self.tables[-1] = self.table  # (the seat's own part of the same table)
                        else:
                            self.tables.append(self.table)
                    except Stale:
                        if frame["kind"] == "fragments":
                            await ws.send(json.dumps({"do": "sync"}))
                self._changed.set()
        except ConnectionClosed:
            pass
        finally:
            rcvd = ws.protocol.close_rcvd
            self.close_code = rcvd.code if rcvd is not None else 1006
            self._changed.set()

    async def wait_for(
        self,
        predicate: Callable[[SeatClient], bool],
        timeout: float = 15.0,
        what: str = "a condition",
    ) -> None:
        async def wait() -> None:
            while not predicate(self):
                self._changed.clear()
                await self._changed.wait()

        try:
            await asyncio.wait_for(wait(), timeout)
        except TimeoutError:
            raise AssertionError(
                f"{self.name or 'client'}: timed out waiting for {what} "
                f"(version {self.version}, close code {self.close_code})"
            ) from None

    async def wait_version(self, above: int, timeout: float = 15.0) -> None:
        await self.wait_for(lambda c: c.version > above, timeout, f"a table above version {above}")

    async def wait_closed(self, timeout: float = 15.0) -> int:
        await self.wait_for(lambda c: c.close_code is not None, timeout, "the socket to close")
        assert self.close_code is not None
        return self.close_code

    async def send(self, **message: Any) -> None:
        assert self.ws is not None
        await self.ws.send(json.dumps(message))

    async def act(self, action: str, *, v: int | None = None, aid: str | None = None) -> str:
        aid = aid or uuid.uuid4().hex
        await self.send(do="act", action=action, v=self.version if v is None else v, aid=aid)
        return aid

    async def close(self) -> None:
        if self.ws is not None:
            await self.ws.close()
        if self._reader is not None:
            await asyncio.gather(self._reader, return_exceptions=True)

    @property
    def version(self) -> int:
        return int(self.table["version"]) if self.table else -1

    @property
    def content(self) -> str:
        return str(self.table["content"]) if self.table else ""

    def offered_actions(self) -> list[str]:
        return offered_actions(self.content)

    @property
    def fresh(self) -> bool:
        """Its own move came for the table it shows (a seat that moved and is to act again shows
        its last move until its private frame comes)."""
        seq = SEQ.findall(self.content)
        return bool(seq) and self.own_seq == int(seq[0])

    @property
    def my_turn(self) -> bool:
        """The table says it is this page's seat's turn (`data-to-act` is its `data-me`): its own
        move, which comes right after the table's change, is then the one it shows."""
        me = ME.search(self.content)
        turn = TURN.findall(self.content)
        return bool(me and turn and me.group(1) == turn[0])

    def fingerprint(self) -> dict[str, Any]:
        return fingerprint(self.content, self.version)

    @property
    def over(self) -> bool:
        return "Game over" in self.content

    def notices(self) -> list[str]:
        return [str(f.get("message")) for f in self.frames if f.get("kind") == "notice"]


# ---------------------------------------------------------------------------- playing


async def seat_three(base_url: str, **options: Any) -> tuple[str, list[SeatClient]]:
    """A room with Anna (host), Bo and Cai seated; three SeatClients, not yet connected."""
    slug, t0 = await create_room(base_url, name="Anna", seats=3, **options)
    t1 = await join_room(base_url, slug, "Bo")
    t2 = await join_room(base_url, slug, "Cai")
    return slug, [
        SeatClient(base_url, slug, t, n) for t, n in ((t0, "Anna"), (t1, "Bo"), (t2, "Cai"))
    ]


async def all_at(clients: list[SeatClient], version: int, timeout: float = 15.0) -> None:
    await asyncio.gather(
        *(
            c.wait_for(lambda c: c.version >= version, timeout, f"version {version}")
            for c in clients
        )
    )


async def start_game(clients: list[SeatClient]) -> None:
    host = clients[0]
    before = max(c.version for c in clients)
    await all_at(clients, before)
    await host.send(do="start", v=before)
    await asyncio.gather(*(c.wait_version(before) for c in clients))


def settled(clients: list[SeatClient], *, own: bool = True) -> bool:
    """Each seat's page shows its own move for the table it shows: only the seat whose turn it is
    (the section's data-to-act; clients in seat order) offers actions, and (`own`) that seat's
    own move came for the table it shows (a seat that moved and leads again still shows its last
    move until its private frame comes)."""
    turn = TURN.findall(clients[0].content)
    acting = [i for i, c in enumerate(clients) if c.offered_actions()]
    if not turn:
        return not acting
    mover = clients[int(turn[0])] if int(turn[0]) < len(clients) else None
    return acting == [int(turn[0])] and (not own or (mover is not None and mover.fresh))


async def settle(clients: list[SeatClient], timeout: float = 15.0, own_within: float = 2.0) -> None:
    """Wait until each page shows its own move for the table it shows (`settled`); a table change
    that brings the seat to act no move of its own (someone came or went) leaves its move as it
    was: after `own_within` seconds that is taken as settled too."""
    loop = asyncio.get_running_loop()
    deadline, own_until = loop.time() + timeout, loop.time() + own_within
    while not settled(clients, own=loop.time() < own_until) and loop.time() < deadline:
        await asyncio.sleep(0.01)


def actor(clients: list[SeatClient]) -> SeatClient | None:
    """The one client whose page offers actions now (None between games)."""
    acting = [c for c in clients if c.offered_actions()]
    assert len(acting) <= 1, [c.name for c in acting]
    return acting[0] if acting else None


async def play_step(clients: list[SeatClient], rng: Any, timeout: float = 15.0) -> int:
    """The seat to act plays one offered action; returns the version everybody then has."""
    top = max(c.version for c in clients)
    await all_at(clients, top, timeout)
    # a seat's own move comes in its private frame right after the table's shared change: for that
    # moment the one who just moved may still show its last move, and the next one not yet its own
    await settle(clients, timeout)
    who = actor(clients)
    assert who is not None, "nobody may act"
    action = rng.choice(who.offered_actions())
    await who.act(action, v=top)
    await asyncio.gather(*(c.wait_version(top, timeout) for c in clients))
    return max(c.version for c in clients)


async def play_to_end(clients: list[SeatClient], rng: Any, max_steps: int = 2000) -> int:
    steps = 0
    while not all(c.over for c in clients):
        await play_step(clients, rng)
        steps += 1
        assert steps < max_steps
    return steps


async def autoplay(client: SeatClient, rng: Any, stop: asyncio.Event) -> int:
    """Play like a bot: whenever this seat's page offers actions at a new version, act at once.

    Returns the number of actions sent; ends when `stop` is set or the socket closes.
    """
    sent = 0
    acted_at = -1
    while not stop.is_set() and client.close_code is None:
        offered = client.offered_actions()
        if offered and client.version > acted_at and client.my_turn and client.fresh:
            acted_at = client.version
            try:
                await client.act(rng.choice(offered), v=acted_at)
            except ConnectionClosed:
                break
            sent += 1
            continue
        client._changed.clear()
        waiter = asyncio.ensure_future(client._changed.wait())
        stopper = asyncio.ensure_future(stop.wait())
        await asyncio.wait({waiter, stopper}, return_when=asyncio.FIRST_COMPLETED)
        waiter.cancel()
        stopper.cancel()
    return sent


def raw_websocket(
    port: int, path: str, *, cookie: str | None = None, rcvbuf: int = 4096
) -> socket.socket:
    """A websocket that completes the handshake and then never reads: a phone in a tunnel.

    The receive buffer is kept small, as on a congested mobile link, so the server feels the
    backlog quickly.
    """
    import base64

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
    sock.settimeout(10)
    sock.connect(("127.0.0.1", port))
    key = base64.b64encode(os.urandom(16)).decode()
    lines = [
        f"GET {path} HTTP/1.1",
        f"Host: 127.0.0.1:{port}",
        "Upgrade: websocket",
        "Connection: Upgrade",
        f"Sec-WebSocket-Key: {key}",
        "Sec-WebSocket-Version: 13",
    ]
    if cookie:
        lines.append(f"Cookie: {cookie}")
    sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode())
    head = b""
    while b"\r\n\r\n" not in head:
        chunk = sock.recv(1)  # byte by byte: leave every frame after the headers unread
        if not chunk:
            raise ConnectionError("closed during the handshake")
        head += chunk
    assert head.startswith(b"HTTP/1.1 101"), head
    return sock
