"""Strong bots playing flat out: do they slow down a room that has nothing to do with them?

    python bench/bot_latency.py                    # 50 rooms of strong bots, SQLite in a temporary directory
    python bench/bot_latency.py --rooms 50 --level strong --rounds 4 --quiet 5 --seconds 8
    python bench/bot_latency.py --json

Starts the app as `bench/ws_load.py` does (uvicorn, websockets-sansio, no bot delay) on its own
temporary SQLite file; its bot pool is the app's own (one worker process per core but one). In
it, one unrelated room: a host and two medium bots; the host plays a move whenever it may, at
most one per `--pace` seconds, and each move's round trip is timed (sent -> the table at the
next version pushed back). A second process makes `--rooms` practice rooms (POST /practice: a
player against three bots of `--level`) and, in the load phases, plays each room's player as
fast as the table allows, so the three bots of every room think all the time: flat out. Quiet
phases (the practice players idle, so their bots too) and load phases take turns, `--rounds`
times, so that a machine whose speed drifts weighs on both alike.

Prints the unrelated room's move p50/p99/max in both phases, and what the load did: the
practice rooms' table versions per second (their players' moves and their bots') and how long a
practice player waited for the three bots to answer (p50/p99). Issue 26 aims at an unrelated
room's move p99 under 50 ms with 50 strong-bot rooms playing. Loopback only; every phase is
bounded; the server and the load process are stopped at the end.
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
from dataclasses import asdict
from multiprocessing.queues import Queue
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))  # the other bench scripts
sys.path.insert(1, str(Path(__file__).resolve().parent.parent))  # the app
from room_flood import Player, measured_room, open_player, phase
from ws_load import COOKIE, offered, pct, start_app

# ---------------------------------------------------------------------------- the load (own process)


class Practiser(Player):
    """A practice room's player: moves at once whenever the table lets it (the bots think the
    rest of the time); counts the versions the room went through and how long each wait for the
    bots was."""

    async def flat_out(self, seconds: float) -> tuple[int, list[float]]:
        start_version, waits = self.version, []
        ends = time.monotonic() + seconds
        try:
            await self._flat_out(ends, waits)
        except TimeoutError:  # the phase ended while the bots were still thinking
            pass
        return self.version - start_version, waits

    async def _flat_out(self, ends: float, waits: list[float]) -> None:
        while time.monotonic() < ends:
            actions, rematch = offered(self.content)
            if actions:
                await self.ws.send(json.dumps({"do": "act", "action": actions[0], "v": self.version,
                                               "aid": uuid.uuid4().hex}))
                await self.next_table()
                asked = time.perf_counter()
                # the bots' turns: wait for the table to come back to us (or the deal to end)
                while time.monotonic() < ends and not any(offered(self.content)):
                    await self.next_table(timeout=max(0.1, ends - time.monotonic()))
                waits.append((time.perf_counter() - asked) * 1000)
            elif rematch:
                await self.ws.send(json.dumps({"do": "rematch", "v": self.version}))
                await self.next_table()
            else:
                await self.next_table(timeout=max(0.1, ends - time.monotonic()))


def load_process(url: str, rooms: int, level: str, commands: Queue[float | None], answers: Queue[Any]) -> None:
    asyncio.run(_load(url, rooms, level, commands, answers))


async def _load(url: str, rooms: int, level: str, commands: Queue[float | None], answers: Queue[Any]) -> None:
    async with httpx.AsyncClient(base_url=url, timeout=30, headers={"X-Forwarded-For": "10.77.0.1"}) as http:
        cookies = []
        for _ in range(rooms):
            made = await http.post("/practice", data={"level": level})
            if made.status_code != 303:
                answers.put(f"a practice room was not made: {made.status_code}")
                return
            slug = made.headers["location"].rsplit("/", 1)[-1]
            cookies.append((slug, f"{COOKIE.format(slug=slug)}={made.cookies[COOKIE.format(slug=slug)]}"))
            http.cookies.clear()
    sockets = [await open_player(url, slug, cookie).__aenter__() for slug, cookie in cookies]
    players = [Practiser(ws) for ws in sockets]
    await asyncio.gather(*(p.next_table() for p in players))
    answers.put("ready")
    try:
        while True:
            seconds = await asyncio.to_thread(commands.get)
            if seconds is None:
                break
            results = await asyncio.gather(*(p.flat_out(seconds) for p in players), return_exceptions=True)
            versions = sum(r[0] for r in results if isinstance(r, tuple))
            waits = [w for r in results if isinstance(r, tuple) for w in r[1]]
            failed = sum(1 for r in results if not isinstance(r, tuple))
            answers.put({"versions": versions, "waits": waits, "failed": failed})
    finally:
        for ws in sockets:
            await ws.close()


# ---------------------------------------------------------------------------- the measured room


async def run(args: argparse.Namespace, workdir: Path) -> dict[str, Any]:
    env = {"DEAL_PAUSE": "0", "WS_PLAYER_MESSAGES": "100000"}
    server = start_app(workdir, None, tag="bots", env_extra=env)
    context = multiprocessing.get_context("spawn")
    commands: Queue[float | None] = context.Queue()
    answers: Queue[Any] = context.Queue()
    load = context.Process(target=load_process, args=(server.url, args.rooms, args.level, commands, answers),
                           daemon=True)
    try:
        slug, cookie = await measured_room(server.url)
        async with open_player(server.url, slug, cookie) as ws:
            player = Player(ws)
            await player.next_table()
            await ws.send(json.dumps({"do": "start", "v": player.version}))
            await player.next_table()
            load.start()
            ready = await asyncio.to_thread(answers.get, True, 300)
            if ready != "ready":
                raise SystemExit(f"the load did not start: {ready}")
            await player.play(1.0, args.pace)  # warm up
            calm: list[float] = []
            busy: list[float] = []
            versions, waits, failed = 0, [], 0
            for _ in range(args.rounds):  # taking turns: a machine whose speed drifts drifts for both
                calm += await player.play(args.quiet, args.pace)
                commands.put(args.seconds)
                busy += await player.play(args.seconds, args.pace)
                done = await asyncio.to_thread(answers.get, True, args.seconds + 60)
                versions += done["versions"]
                waits += done["waits"]
                failed += done["failed"]
            commands.put(None)
            quiet = phase("quiet", calm)
            loaded = phase(f"{args.rooms} rooms of {args.level} bots flat out", busy)
    finally:
        if load.is_alive():
            commands.put(None)
            load.join(30)
            if load.is_alive():
                load.terminate()
        server.stop()
    seconds = args.seconds * args.rounds
    return {
        "quiet": asdict(quiet), "load": asdict(loaded),
        "practice_versions_per_second": versions / seconds if seconds else 0.0,
        "bots_answer_p50_ms": pct(waits, 50), "bots_answer_p99_ms": pct(waits, 99), "load_failures": failed,
        "lines": [quiet.describe(), loaded.describe(),
                  (f"the load: {versions / seconds:,.0f} table versions/s over {args.rooms} rooms; a practice "
                   f"player waited for three {args.level} bots p50 {pct(waits, 50):.0f} ms, "
                   f"p99 {pct(waits, 99):.0f} ms{f'; {failed} players failed' if failed else ''}")],
    }


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rooms", type=int, default=50, help="practice rooms playing flat out in the load phases")
    parser.add_argument("--level", default="strong", choices=("easy", "heuristic", "strong"),
                        help="the practice rooms' bots")
    parser.add_argument("--quiet", type=float, default=5.0, help="seconds of moves without the load, per round")
    parser.add_argument("--seconds", type=float, default=8.0, help="seconds of moves under the load, per round")
    parser.add_argument("--rounds", type=int, default=4, help="rounds of a quiet phase and a loaded one")
    parser.add_argument("--pace", type=float, default=0.05, help="seconds between two of the host's moves")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    return parser.parse_args(argv)


def main() -> None:
    args = parse_args()
    with tempfile.TemporaryDirectory(prefix="gurka-bots-") as tmp:
        figures = asyncio.run(run(args, Path(tmp)))
    if args.json:
        print(json.dumps(figures, indent=2))
        return
    print("An unrelated room's moves, with and without bots playing flat out (SQLite):")
    for line in figures["lines"]:
        print(f"  {line}")


if __name__ == "__main__":
    main()
