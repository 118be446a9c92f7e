"""What a table push costs to render, in process: whole games played through the rooms' own
action path, every frame each seat and a spectator would be pushed, timed and fingerprinted.

    python bench/render_bench.py                 # microseconds of rendering per push
    python bench/render_bench.py --digest        # also a fingerprint of every frame
    python bench/render_bench.py --dump DIR      # every frame as a file (to diff two versions)
    python bench/render_bench.py --bytes         # where a seat's frame bytes go, per action

Seven games (all five presets, kurkku with exchange, three to five seats, names with markup,
backslashes and non-ASCII), deals from a seeded shuffle, the clock standing still (`--rounds`
plays them again with other names and deals, as many tables would): the frames are the same on
every run of the same code, so the fingerprint shows whether a change to the
rendering changed any byte a browser gets. A push is timed as the room renders it: every
connection's table (by default each seat in one of four languages, and a spectator): the first
frame of each connection the whole table, then the fragments that changed for it. `--games
gurka-night --lang en --no-spectator --rounds 20` is the push bench/ws_load.py makes: three seats reading English.

Not a test: it measures; the tests check what the frames say.
"""

from __future__ import annotations

import argparse
import cProfile
import hashlib
import pstats
import random
import re
import sys
import tempfile
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from app.main import create_app
from app.rooms.clock import FakeClock
from app.rooms.room import LiveRoom
from app.secret_key import new_secret
from app.settings import Settings

LANGS = ("da", "en", "fi", "is")


@dataclass(frozen=True)
class Game:
    preset: str
    names: tuple[str, ...]
    options: dict[str, Any]
    seed: int


GAMES = (
    Game("gurka-night", ("Anna", "Bo <b>", "Cai"), {}, 1),
    Game("gurka-is", ("Ásta", "Björn", "Dóra", "Eiður"), {}, 2),
    Game("vidivellir", ("Vé", "Ví\\u0001", "Vili"), {}, 3),
    Game("kurkku", ("Aino", "Eero", "Ilmari", "Oona", "Urho"), {}, 4),
    Game("kurkku", ("Aino", "Eero & co", "Ilmari"), {"exchange": True}, 5),
    Game("rassi", ("Rasmus", "Rikke", "Rune", "Ræv"), {}, 6),
    Game("gurka-night", ("Ann's", 'Bo "B"', "Cai", "Dag"), {"target": 12}, 7),
)


class Viewer:
    """A connection as the room sees it (a seat, None for a spectator, and a language) that
    keeps every frame it is offered."""

    def __init__(self, seat: int | None, lang: str, token_hash: str | None, frames: list[str]) -> None:
        self.seat, self.lang, self.token_hash, self.closed = seat, lang, token_hash, False
        self.frames = frames
        self.shown: tuple[int, int | None] | None = None  # (what the publisher keeps of a connection)

    def offer(self, frame: str, *, whole: bool = False, part: bool = False) -> bool:
        self.frames.append(frame)
        return True

    async def stop(self) -> None:
        self.closed = True


class Timed:
    """Times every push of the rooms (`LiveRoom.publish`) in CPU time of the thread that pushes (a
    busy machine takes the CPU away between pushes, not within this count), and profiles it if
    asked."""

    def __init__(self, profile: cProfile.Profile | None) -> None:
        self.times: list[float] = []
        self.profile = profile

    def install(self) -> None:
        publish = LiveRoom.publish
        timed = self

        def timed_publish(room: LiveRoom) -> None:
            t0 = time.thread_time()
            if timed.profile is not None:
                timed.profile.enable()
            try:
                publish(room)
            finally:
                if timed.profile is not None:
                    timed.profile.disable()
                timed.times.append(time.thread_time() - t0)

        LiveRoom.publish = timed_publish  # type: ignore[method-assign]


SEEN: list[int] = [0]  # pushes times the connections that saw them, over every room (for --bytes)


async def play(app: Any, spec: Game, rng: random.Random, frames: list[str], *, lang: str | None,
               spectator: bool, timer: Timed) -> None:
    from app.rooms.tokens import hash_token

    manager = app.state.rooms
    room, token = await manager.create_room(preset=spec.preset, options=spec.options, seats=len(spec.names),
                                            host_name=spec.names[0])
    tokens = [token]
    for name in spec.names[1:]:
        _seat, t = await room.join(name)
        tokens.append(t)
    room.state.rng = random.Random(spec.seed)  # the bench's setup: the same deals every run
    langs = (lang,) if lang else LANGS
    viewers = [Viewer(i, langs[i % len(langs)], hash_token(t), frames) for i, t in enumerate(tokens)]
    if spectator:
        viewers.append(Viewer(None, langs[0], None, frames))
    for v in viewers:
        v.seat = room.seat_of(v.token_hash) if v.token_hash else None
        v.frames = []  # each its own, in order (the room offers them in no fixed order of viewers)
        room.connections.add(v)  # type: ignore[arg-type]
    pushes_before = len(timer.times)
    await room.start(0, dealer=0)
    moves = 0
    while room.state.game is not None and not room.state.game.over and moves < 2000:
        g = room.state.game
        moves += 1
        if g.to_act is None:
            await room.deal_next(room.state.version, by=0)
            continue
        action = rng.choice([str(a) for a in g.legal_actions()])
        await room.act(g.to_act, action, room.state.version)
    room.connections.clear()
    SEEN[0] += (len(timer.times) - pushes_before) * len(viewers)
    for v in viewers:
        frames.extend(v.frames)


async def play_all(app: Any, args: argparse.Namespace, frames: list[str], timer: Timed) -> None:
    rng = random.Random(args.seed)
    for round_ in range(args.rounds):
        for spec in GAMES if args.games == "all" else [g for g in GAMES if g.preset == args.games][:1]:
            if round_:  # other players and other deals, as at the many tables of a server
                spec = replace(spec, names=tuple(f"{name} {round_}" for name in spec.names),
                               seed=spec.seed + 1000 * round_)
            await play(app, spec, rng, frames, lang=args.lang, spectator=not args.no_spectator, timer=timer)


def run(args: argparse.Namespace) -> None:
    from fastapi.testclient import TestClient

    from app.rooms import manager

    slugs = iter(range(10**9))
    manager.new_slug = lambda: f"room{next(slugs):08d}"  # type: ignore[assignment]  (links in the frames)
    profile = cProfile.Profile() if args.profile else None
    timer = Timed(profile)
    timer.install()
    runs: list[list[float]] = []
    for run in range(args.repeat):  # the same games again: each push's best time is its cost
        frames: list[str] = []
        slugs = iter(range(10**9))
        timer.times = []
        SEEN[0] = 0
        with tempfile.TemporaryDirectory(prefix="gurka-render-") as tmp:
            settings = Settings(database_url=f"sqlite:///{tmp}/render.db", bot_delay=0.0, secret_key=new_secret(),
                                deal_pause=2.0)
            app = create_app(settings, clock=FakeClock(start=1_800_000_000.0))
            with TestClient(app) as client:
                client.portal.call(play_all, app, args, frames, timer)
        runs.append(timer.times)
        if run == 0:
            first = frames
    frames = first
    best = [min(times) for times in zip(*runs, strict=True)]
    pushes = len(best)
    timed = sorted(best)
    mean = sum(timed) / len(timed)
    print(f"{pushes} pushes, {len(frames) / max(1, pushes):.1f} frames each: {mean * 1e6:.0f} us per push "
          f"(median {timed[len(timed) // 2] * 1e6:.0f} us; the best of {args.repeat} runs each), "
          f"{sum(map(len, frames)) // len(frames)} bytes per frame")
    if profile is not None:
        pstats.Stats(profile).sort_stats(args.sort).print_stats(args.profile)
    if args.digest or args.dump:
        digest = hashlib.sha256("\0".join(frames).encode()).hexdigest()
        print(f"frames: {len(frames)}, sha256 {digest}")
    if args.bytes:
        print_bytes(frames, SEEN[0])
    if args.dump:
        out = Path(args.dump)
        out.mkdir(parents=True, exist_ok=True)
        for i, frame in enumerate(frames):
            (out / f"{i:06d}.json").write_text(frame)


def print_bytes(frames: list[str], seen: int) -> None:
    """Where the bytes of the frames go, per connection and push (`seen`: the pushes times the
    connections that saw them): each frame's head line, and each piece by its id (numbers taken
    out: every play is `table-play-#`). A whole table (a connection's first frame) is counted apart."""
    from bench.table_wire import parse, pieces_of

    by: dict[str, int] = {}
    for message in frames:
        frame = parse(message)
        head = message.partition("\n")[0]
        if frame["kind"] == "table":
            by["(whole tables)"] = by.get("(whole tables)", 0) + len(message.encode())
            continue
        if "content" not in frame:
            by[f"({frame['kind']})"] = by.get(f"({frame['kind']})", 0) + len(message.encode())
            continue
        by[f"(head: {frame['kind']})"] = by.get(f"(head: {frame['kind']})", 0) + len(head.encode()) + 1
        rest = len(frame["content"].encode())
        for target, swap, html in pieces_of(frame["content"]):
            key = re.sub(r"^card-.*", "card-*", re.sub(r"[0-9]+", "#", target)) + ("" if swap in ("outerMorph", "outerHTML") else f" ({swap})")
            size = len(html.encode()) + {"beforeend": 0, "outerHTML": len(" hx-swap-oob")}.get(swap, len(f' hx-swap-oob="{swap}"'))
            by[key] = by.get(key, 0) + size
            rest -= size
        by["(list wrappers)"] = by.get("(list wrappers)", 0) + rest
    total = sum(v for k, v in by.items() if k != "(whole tables)")
    per = max(1, seen)
    print(f"bytes per connection and push ({len(frames)} frames, {seen} pushes seen): "
          f"{total / per:.0f} (whole tables apart: {by.get('(whole tables)', 0) / per:.0f})")
    for key, size in sorted(by.items(), key=lambda kv: -kv[1]):
        if key != "(whole tables)":
            print(f"  {size / per:7.1f}  {key}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=1, help="times the seven games are played (default 1)")
    parser.add_argument("--seed", type=int, default=11, help="the players' choices (default 11)")
    parser.add_argument("--games", default="all",
                        help="all (default), or one preset's first game (gurka-night: three seats, as ws_load)")
    parser.add_argument("--lang", help="every viewer in this language (default: the seats in da, en, fi, is)")
    parser.add_argument("--no-spectator", action="store_true", help="no spectator at the tables")
    parser.add_argument("--repeat", type=int, default=1,
                        help="play the same games this many times and count each push's best time (default 1)")
    parser.add_argument("--digest", action="store_true", help="print a fingerprint of every frame")
    parser.add_argument("--profile", type=int, default=0, metavar="N",
                        help="profile the rendering (cProfile: it doubles the time) and show the N costliest functions")
    parser.add_argument("--sort", default="tottime", help="the profile's order: tottime (default) or cumulative")
    parser.add_argument("--dump", help="write every frame to this folder")
    parser.add_argument("--bytes", action="store_true", help="where the frames' bytes go, per connection and push")
    run(parser.parse_args())


if __name__ == "__main__":
    main()
