"""Idle spectators: what sockets that never read cost the server, and whether it gets it back.

    python bench/idle_spectators.py                    # 300 spectators, 30 pushes
    python bench/idle_spectators.py --spectators 1000 --pushes 60 --json

Starts the app (uvicorn as in production: websockets-sansio, compression off; SQLite in a
temporary directory), opens one room (the host plus two bots) and keeps one honest reader on
it: the host's websocket, read continuously, which plays whatever its table offers so the room
keeps pushing. Then it connects N spectators over raw sockets that finish the handshake and
never read a byte (a small receive buffer, like a phone in a tunnel), and reads the server's
resident memory (VmRSS in /proc/PID/status) and its open sockets (/proc/PID/fd):

- before: the idle room with its honest reader;
- with them: all N connected;
- after pushes: the room made `--pushes` moves while they sat there (each move is a table
  pushed to every socket; a reader that does not keep up must be dropped, not buffered);
- after: every spectator has closed its socket and the server has closed its side
  (with `--rounds N`, the whole round N times: the memory is reused, not grown).

It prints KB per connection ((with them - before) / N, and the peak / N) and how much of the
added memory came back. The aims (issue 11): under 100 KB per connection, and memory returned
when the sockets go. The honest reader must keep getting every push throughout.
Loopback only; every wait is bounded; the server it started is stopped at the end.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import html
import json
import os
import resource
import secrets
import socket
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

import httpx
from websockets.asyncio.client import ClientConnection, connect

sys.path.insert(0, str(Path(__file__).resolve().parent))  # the other bench scripts
from ws_load import HX_VALS, Server, offered, parse, rss_kb, start_app

# ---------------------------------------------------------------------------- the server


def open_sockets(pid: int) -> int:
    count = 0
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        try:
            if os.readlink(fd).startswith("socket:"):
                count += 1
        except OSError:
            continue
    return count


def start_server(workdir: Path) -> Server:
    """The app on its own SQLite file, with the caps lifted: every spectator comes from
    127.0.0.1 and sits in one room."""
    return start_app(workdir, tag="idle", env_extra={
        "DEAL_PAUSE": "0",
        "SECRET_KEY": secrets.token_urlsafe(32),
        "WS_PER_ROOM": "100000",
        "WS_PLAYER_MESSAGES": "1000000",
    })


# ---------------------------------------------------------------------------- the clients


def silent_spectator(port: int, path: str) -> socket.socket:
    """A websocket that completes the handshake and then never reads."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.settimeout(10)
    sock.connect(("127.0.0.1", port))
    key = base64.b64encode(os.urandom(16)).decode()
    request = (f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
               f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n")
    sock.sendall(request.encode())
    head = b""
    while b"\r\n\r\n" not in head:
        chunk = sock.recv(1)  # byte by byte: every frame after the headers stays unread
        if not chunk:
            raise ConnectionError("closed during the handshake")
        head += chunk
    if not head.startswith(b"HTTP/1.1 101"):
        raise ConnectionError(head.decode(errors="replace").splitlines()[0])
    return sock


class HonestReader:
    """The host's websocket: read continuously; act whenever the table offers an action."""

    def __init__(self, ws: ClientConnection) -> None:
        self.ws = ws
        self.version = -1
        self.content = ""
        self.tables = 0
        self.changed = asyncio.Event()
        self.task = asyncio.get_running_loop().create_task(self._read())

    async def _read(self) -> None:
        async for message in self.ws:
            frame = parse(message)
            if frame.get("kind") == "table":
                self.version, self.content = int(frame["version"]), str(frame["content"])
                self.tables += 1
                self.changed.set()

    async def wait_for(self, predicate: Any, timeout: float, what: str) -> None:
        deadline = time.monotonic() + timeout
        while not predicate():
            left = deadline - time.monotonic()
            if left <= 0:
                raise SystemExit(f"the honest reader timed out waiting for {what} (version {self.version})")
            self.changed.clear()
            try:
                await asyncio.wait_for(self.changed.wait(), left)
            except TimeoutError:
                continue

    async def push(self, timeout: float = 15.0) -> None:
        """Make the room move once (a start, an action, or a rematch) and see the new table."""
        await self.wait_for(lambda: self.version >= 0, timeout, "a table")
        seen = self.version
        actions, _rematch = offered(self.content)
        requests = {str(v.get("do")) for raw in HX_VALS.findall(self.content)
                    if isinstance(v := json.loads(html.unescape(raw)), dict)}
        if actions:
            message: dict[str, Any] = {"do": "act", "action": actions[0], "v": seen, "aid": uuid.uuid4().hex}
        elif "start" in requests:
            message = {"do": "start", "v": seen}
        elif "next_deal" in requests:
            message = {"do": "next_deal", "v": seen}
        elif "rematch" in requests:
            message = {"do": "rematch", "v": seen}
        else:
            message = {}  # the bots are to move: their moves are pushed too
        if message:
            await self.ws.send(json.dumps(message))
        await self.wait_for(lambda: self.version > seen, timeout, f"a table above version {seen}")


# ---------------------------------------------------------------------------- the run


async def settle(pid: int, seconds: float = 1.5) -> int:
    """RSS once it stops moving (or after `seconds`)."""
    last = rss_kb(pid) or 0
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        await asyncio.sleep(0.25)
        now = rss_kb(pid) or 0
        if abs(now - last) < 64:
            return now
        last = now
    return rss_kb(pid) or 0


async def run(args: argparse.Namespace) -> dict[str, Any]:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, max(soft, args.spectators * 2 + 256)), hard))
    with tempfile.TemporaryDirectory(prefix="idle-spectators-") as tmp:
        server = start_server(Path(tmp))
        try:
            return await measure(server.pid, int(server.url.rsplit(":", 1)[1]), args)
        finally:
            server.stop()


async def measure(pid: int, port: int, args: argparse.Namespace) -> dict[str, Any]:
    base = f"http://127.0.0.1:{port}"
    async with httpx.AsyncClient(base_url=base, timeout=15) as http:
        response = await http.post("/rooms", data={"name": "Anna", "preset": "gurka-night", "seats": "3",
                                                   "bots": "2", "turn_seconds": "0"})
    if response.status_code != 303:
        raise SystemExit(f"POST /rooms answered {response.status_code}")
    slug = response.headers["location"].rsplit("/", 1)[-1]
    cookie = response.headers["set-cookie"].split(";", 1)[0]
    ws = await connect(f"ws://127.0.0.1:{port}/r/{slug}/ws", additional_headers={"Cookie": cookie},
                       compression=None, max_size=None, ping_interval=None)
    honest = HonestReader(ws)
    for _ in range(3):  # start the game and warm up every code path a push takes
        await honest.push()
    sockets_before = open_sockets(pid)
    before = await settle(pid)

    rounds = [await one_round(pid, port, slug, honest, args, sockets_before) for _ in range(args.rounds)]
    await ws.close()
    honest.task.cancel()

    first = rounds[0]
    n = args.spectators
    added = first["with"] - before
    top = max(first["peak"], first["after_pushes"])
    grown = top - before
    return {
        "spectators": n,
        "pushes": args.pushes,
        "rss_before_kb": before,
        "rss_with_kb": first["with"],
        "rss_after_pushes_kb": first["after_pushes"],
        "rss_peak_kb": first["peak"],
        "rss_after_kb": first["after"],
        "rss_after_each_round_kb": [r["after"] for r in rounds],
        "kb_per_connection": round(added / n, 1),
        "kb_per_connection_peak": round(grown / n, 1),
        "returned_kb": top - first["after"],
        "returned_share": round((top - first["after"]) / grown, 2) if grown > 0 else 1.0,
        "left_over_kb": first["after"] - before,
        "sockets": {"before": sockets_before, "with": first["sockets_with"],
                    "after_pushes": first["sockets_after_pushes"], "after": first["sockets_after"]},
        "honest_tables_during_pushes": first["honest_tables"],
        "ms_per_push": first["ms_per_push"],
    }


async def one_round(pid: int, port: int, slug: str, honest: HonestReader, args: argparse.Namespace,
                    sockets_before: int) -> dict[str, Any]:
    """Connect the silent spectators, push while they sit there, let them go; the figures."""
    spectators = []
    for _ in range(args.spectators):
        spectators.append(await asyncio.to_thread(silent_spectator, port, f"/r/{slug}/ws"))
    await honest.push()
    with_them = await settle(pid)
    sockets_with = open_sockets(pid)

    tables_before_pushes = honest.tables
    peak = with_them
    pushed_at = time.perf_counter()
    for _ in range(args.pushes):
        await honest.push()
        peak = max(peak, rss_kb(pid) or 0)
    push_ms = (time.perf_counter() - pushed_at) * 1000 / max(1, args.pushes)
    after_pushes = await settle(pid)
    sockets_after_pushes = open_sockets(pid)

    for sock in spectators:
        sock.close()
    deadline = time.monotonic() + 30
    while open_sockets(pid) > sockets_before and time.monotonic() < deadline:
        await asyncio.sleep(0.1)
    await honest.push()  # the room still moves, and its reader still reads
    await asyncio.sleep(2.0)  # the server trims its heap a moment after a burst of closed sockets
    after = await settle(pid, 3.0)
    return {"with": with_them, "peak": peak, "after_pushes": after_pushes, "after": after,
            "sockets_with": sockets_with, "sockets_after_pushes": sockets_after_pushes,
            "sockets_after": open_sockets(pid), "honest_tables": honest.tables - tables_before_pushes,
            "ms_per_push": round(push_ms, 1)}


def show(result: dict[str, Any]) -> None:
    n, s = result["spectators"], result["sockets"]
    print(f"{n} never-reading spectators in one room, {result['pushes']} pushes while they sat there")
    print(f"  server RSS before        {result['rss_before_kb'] / 1024:8.1f} MB   sockets {s['before']}")
    print(f"  with them                {result['rss_with_kb'] / 1024:8.1f} MB   sockets {s['with']}")
    print(f"  after the pushes         {result['rss_after_pushes_kb'] / 1024:8.1f} MB   sockets {s['after_pushes']}"
          f"   (peak {result['rss_peak_kb'] / 1024:.1f} MB)")
    print(f"  after they all went      {result['rss_after_kb'] / 1024:8.1f} MB   sockets {s['after']}")
    print(f"  per connection           {result['kb_per_connection']:8.1f} KB connected, "
          f"{result['kb_per_connection_peak']:.1f} KB at the peak (aim: under 100)")
    print(f"  returned                 {result['returned_kb'] / 1024:8.1f} MB "
          f"({result['returned_share']:.0%} of what they took); left over {result['left_over_kb'] / 1024:.1f} MB")
    if len(result["rss_after_each_round_kb"]) > 1:
        rounds = ", ".join(f"{kb / 1024:.1f}" for kb in result["rss_after_each_round_kb"])
        print(f"  after each round         {rounds} MB (memory reused, not grown)")
    print(f"  honest reader            {result['honest_tables_during_pushes']} tables during "
          f"{result['pushes']} pushes, {result['ms_per_push']:.1f} ms per push")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--spectators", type=int, default=300, help="never-reading sockets (default 300)")
    parser.add_argument("--pushes", type=int, default=30, help="moves made while they are connected (default 30)")
    parser.add_argument("--rounds", type=int, default=1, help="connect, push, leave this many times (default 1)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args()
    if not 1 <= args.spectators <= 20_000 or not 0 <= args.pushes <= 10_000 or not 1 <= args.rounds <= 20:
        raise SystemExit("--spectators 1..20000, --pushes 0..10000, --rounds 1..20")
    result = asyncio.run(run(args))
    print(json.dumps(result, indent=2) if args.json else "", end="\n" if args.json else "")
    if not args.json:
        show(result)


if __name__ == "__main__":
    main()
