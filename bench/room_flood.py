"""A flood of new rooms: how many get made, and does it slow down a game nobody flooded?

    python bench/room_flood.py                      # SQLite in a temporary directory
    python bench/room_flood.py --database-url postgresql+psycopg://postgres@127.0.0.1:5432/test
    python bench/room_flood.py --addresses 200      # the flood from 200 addresses, not one
    python bench/room_flood.py --no-limits          # the room limits lifted: what creating costs alone
    python bench/room_flood.py --home               # GET / as fast as answered: any page view's cost
    python bench/room_flood.py --json

Starts the app as `bench/ws_load.py` does (uvicorn, websockets-sansio, bots at once; X-Forwarded-
For is trusted from loopback, so each simulated visitor has its own address) on its own database:
a temporary SQLite file, or a fresh database on the given Postgres server, dropped after. In it,
one unrelated room: a host and two bots. The host plays a move whenever it may, at most one per
`--pace` seconds, and each move's round trip is timed (sent -> the table at the next version
pushed back). In each of `--rounds` rounds, first `--quiet` seconds with nothing else going on,
then `--seconds` seconds while `--workers` clients in another process (so their work is not the
measuring client's) POST /rooms as fast as they are answered: 7 seats with 6 bots each, the
issue's rows per room, all from one address or spread over `--addresses`. The phases take turns
so that a machine whose speed drifts (other work on it) weighs on both alike. Prints the moves' p50/p99/max in both phases, the rooms
made and refused, and the rows stored (rooms, seats, events).

Issue 24 measured 1,482 rooms a minute from one visitor and the unrelated room's move p99 going
from 5.9 to 65.5 ms. Loopback only; every phase is bounded; the server is stopped at the end.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import sys
import tempfile
import time
import uuid
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import httpx
from websockets.asyncio.client import ClientConnection, connect

sys.path.insert(0, str(Path(__file__).resolve().parent))  # the other bench scripts
sys.path.insert(1, str(Path(__file__).resolve().parent.parent))  # the app, for its settings' defaults
from ws_load import COOKIE, FreshDatabases, loopback_only, offered, parse, pct, start_app

from app.settings import Settings

NO_LIMITS = {"NEW_ROOMS_PER_ADDRESS": "1000000", "NEW_ROOMS_TOTAL": "1000000"}
DEFAULT_LIMITS = {name.upper(): str(Settings.model_fields[name].default)
                  for name in ("new_rooms_per_address", "new_rooms_total")}
FLOOD_FORM = {"preset": "gurka-night", "seats": "7", "bots": "6", "turn_seconds": "0"}


@dataclass
class Phase:
    label: str
    moves: int
    p50: float
    p99: float
    worst: float
    made: int = 0
    pages: int = 0
    refused: int = 0
    other: int = 0
    seconds: float = 0.0

    def describe(self) -> str:
        rooms = (f"; rooms made {self.made} ({self.made / self.seconds * 60:,.0f}/min), refused {self.refused}"
                 f"{f', pages {self.pages}' if self.pages else ''}"
                 f"{f', other answers {self.other}' if self.other else ''}") if self.seconds else ""
        return (f"{self.label}: {self.moves} moves, p50 {self.p50:.1f} ms, p99 {self.p99:.1f} ms, "
                f"max {self.worst:.1f} ms{rooms}")


# ---------------------------------------------------------------------------- the measured room


class Player:
    """The unrelated room's host on its websocket: plays whenever it may, timing each move."""

    def __init__(self, ws: ClientConnection) -> None:
        self.ws = ws
        self.version, self.content = -1, ""

    async def next_table(self, timeout: float = 20.0) -> None:
        deadline = time.monotonic() + timeout
        while True:
            frame = parse(await asyncio.wait_for(self.ws.recv(), max(0.1, deadline - time.monotonic())))
            if frame.get("kind") == "table" and int(frame["version"]) > self.version:
                self.version, self.content = int(frame["version"]), str(frame["content"])
                return

    async def play(self, seconds: float, pace: float) -> list[float]:
        """Moves for `seconds`: the round trip of each, in ms."""
        took: list[float] = []
        ends = time.monotonic() + seconds
        while time.monotonic() < ends:
            actions, rematch = offered(self.content)
            if actions:
                sent = time.perf_counter()
                await self.ws.send(json.dumps({"do": "act", "action": actions[len(took) % len(actions)],
                                               "v": self.version, "aid": uuid.uuid4().hex}))
                await self.next_table()
                took.append((time.perf_counter() - sent) * 1000)
                await asyncio.sleep(pace)
            elif rematch:
                await self.ws.send(json.dumps({"do": "rematch", "v": self.version}))
                await self.next_table()
            else:
                await self.next_table()  # the bots move
        return took


async def measured_room(base: str) -> tuple[str, str]:
    """A room of a host and two bots, its game started: (slug, the host's seat cookie)."""
    async with httpx.AsyncClient(base_url=base, timeout=20, headers={"X-Forwarded-For": "10.99.0.1"}) as http:
        made = await http.post("/rooms", data={"name": "Host", "preset": "gurka-night", "seats": "3", "bots": "2",
                                               "turn_seconds": "0"})
        if made.status_code != 303:
            raise SystemExit(f"the measured room was not made: {made.status_code}")
        slug = made.headers["location"].rsplit("/", 1)[-1]
        return slug, f"{COOKIE.format(slug=slug)}={made.cookies[COOKIE.format(slug=slug)]}"


def open_player(base: str, slug: str, cookie: str) -> Any:
    return connect(f"{base.replace('http://', 'ws://', 1)}/r/{slug}/ws", additional_headers={"Cookie": cookie},
                   compression=None, max_size=None, ping_interval=None, open_timeout=20)


# ---------------------------------------------------------------------------- the flood


def flood(url: str, seconds: float, workers: int, addresses: int, home: bool = False) -> dict[int, int]:
    """`workers` clients POST /rooms for `seconds`, as fast as they are answered, from one address
    (10.66.0.1) or spread over `addresses`; with `home` they GET / instead (what a flood of any
    page view costs). Runs in a process of its own. {status: count}."""
    statuses: dict[int, int] = {}

    async def one(i: int) -> None:
        async with httpx.AsyncClient(base_url=url, timeout=30) as client:
            n, ends = 0, time.monotonic() + seconds
            while time.monotonic() < ends:
                n += 1
                k = (i * 7919 + n) % addresses
                client.headers["X-Forwarded-For"] = f"10.66.{k // 250}.{k % 250 + 1}"
                answer = (await client.get("/") if home
                          else await client.post("/rooms", data={"name": f"Flood{i}x{n}", **FLOOD_FORM}))
                statuses[answer.status_code] = statuses.get(answer.status_code, 0) + 1

    async def all_of_them() -> None:
        await asyncio.gather(*(one(i) for i in range(workers)))

    asyncio.run(all_of_them())
    return statuses


async def moves_during_flood(base: str, player: Player, args: argparse.Namespace) -> tuple[list[float], dict[int, int]]:
    loop = asyncio.get_running_loop()
    with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as pool:
        await loop.run_in_executor(pool, int, "0")  # the process is up before the clock starts
        flooding = loop.run_in_executor(pool, flood, base, args.seconds, args.workers, args.addresses, args.home)
        took = await player.play(args.seconds, args.pace)
        return took, await flooding


def phase(label: str, took: list[float], statuses: dict[int, int] | None = None, seconds: float = 0.0) -> Phase:
    result = Phase(label, len(took), pct(took, 50), pct(took, 99), max(took, default=float("nan")))
    if statuses is not None:
        result.made = statuses.get(303, 0)
        result.pages = statuses.get(200, 0)
        result.refused = statuses.get(429, 0)
        result.other = sum(n for status, n in statuses.items() if status not in (200, 303, 429))
        result.seconds = seconds
    return result


def stored_rows(database_url: str) -> dict[str, int]:
    from sqlalchemy import create_engine, text

    engine = create_engine(database_url)
    try:
        with engine.connect() as conn:
            return {table: int(conn.execute(text(f"SELECT count(*) FROM {table}")).scalar_one())
                    for table in ("rooms", "room_seats", "room_events")}
    finally:
        engine.dispose()


async def run(args: argparse.Namespace, database_url: str, workdir: Path) -> dict[str, Any]:
    # the next deal at once, and the measuring player may send more than a person would: more moves;
    # ws_load's server lifts the room limits (its rooms all come from 127.0.0.1): back to the defaults
    env = {"DEAL_PAUSE": "0", "WS_PLAYER_MESSAGES": "100000", **(NO_LIMITS if args.no_limits else DEFAULT_LIMITS)}
    server = start_app(workdir, database_url, tag="flood", env_extra=env)
    try:
        slug, cookie = await measured_room(server.url)
        async with open_player(server.url, slug, cookie) as ws:
            player = Player(ws)
            await player.next_table()
            await ws.send(json.dumps({"do": "start", "v": player.version}))
            await player.next_table()
            await player.play(1.0, args.pace)  # warm up
            calm: list[float] = []
            took: list[float] = []
            statuses: dict[int, int] = {}
            for _ in range(args.rounds):  # taking turns: a machine whose speed drifts drifts for both
                calm += await player.play(args.quiet, args.pace)
                during, answers = await moves_during_flood(server.url, player, args)
                took += during
                for status, n in answers.items():
                    statuses[status] = statuses.get(status, 0) + n
            quiet = phase("quiet", calm)
            who = "one address" if args.addresses == 1 else f"{args.addresses} addresses"
            flooded = phase(f"{'GET / flood' if args.home else 'flood'} from {who}", took, statuses,
                            args.seconds * args.rounds)
    finally:
        server.stop()
    return {"quiet": asdict(quiet), "flood": asdict(flooded), "rows": stored_rows(database_url),
            "limits": "lifted" if args.no_limits else "default", "lines": [quiet.describe(), flooded.describe()]}


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database-url", help="a Postgres server: a fresh database is made on it and dropped after")
    parser.add_argument("--quiet", type=float, default=5.0, help="seconds of moves without a flood, per round")
    parser.add_argument("--seconds", type=float, default=5.0, help="seconds of moves during the flood, per round")
    parser.add_argument("--rounds", type=int, default=4, help="rounds of a quiet phase and a flooded one")
    parser.add_argument("--workers", type=int, default=8, help="clients flooding at once")
    parser.add_argument("--addresses", type=int, default=1, help="addresses the flood comes from")
    parser.add_argument("--pace", type=float, default=0.05, help="seconds between two of the host's moves")
    parser.add_argument("--no-limits", action="store_true", help="lift the room creation limits")
    parser.add_argument("--home", action="store_true", help="flood GET / instead: what any page view costs")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    return parser.parse_args(argv)


def main() -> None:
    args = parse_args()
    if args.database_url:
        loopback_only(args.database_url)
    fresh = FreshDatabases(args.database_url) if args.database_url else None
    with tempfile.TemporaryDirectory(prefix="gurka-flood-") as tmp:
        database_url = fresh.create() if fresh else f"sqlite:///{Path(tmp) / 'flood.db'}"
        try:
            figures = asyncio.run(run(args, database_url, Path(tmp)))
        finally:
            if fresh:
                fresh.drop_all()
    if args.json:
        print(json.dumps(figures, indent=2))
        return
    engine = "Postgres" if args.database_url else "SQLite"
    print(f"Room flood on {engine}, creation limits {figures['limits']}:")
    for line in figures["lines"]:
        print(f"  {line}")
    rows = figures["rows"]
    print(f"  stored after: {rows['rooms']:,} rooms, {rows['room_seats']:,} seats, {rows['room_events']:,} events")


if __name__ == "__main__":
    main()
