"""How strong each bot level is: one bot of a level alone at a table of another level's bots.

    python bench/bot_strength.py [--games 60] [--players 3] [--preset NAME ...]
                                 [--match strong:heuristic ...] [--processes 2]
                                 [--worlds 96] [--seconds 0.3]

For every match ``A:B`` (default: strong:heuristic, heuristic:easy, easy:random) and every
preset, whole games are played with one A bot among B bots, A's seat and the first dealer
rotating game by game, every deal seeded (game i of a preset uses seed i). For A it prints
the mean place (0 = won, 1 = last; 0.5 is a fair share), the win share and the wall-clock
time of its decisions that had a choice (median and p99), with the p99 of the CPU time they
took (on a busy machine the wall clock also counts the waits for a core). Games run in
``--processes`` worker processes, each game on one core.

The strong bot thinks with the budget the rooms give it (``app.bot_pool.DEFAULT_BUDGET``,
or ``--worlds`` and ``--seconds``): with
the time limit on, its moves depend on the machine's speed and load, so two runs differ a
little. ``--seconds 0`` turns the limit off (then a run is reproducible).

Aims (issue 26): strong alone among heuristic bots at most 0.40 mean place over the five
presets and no preset above 0.50; heuristic beats easy and easy beats random (below 0.50);
a strong decision's p99 at most 500 ms.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from app.bot_pool import DEFAULT_BUDGET, warm_up
from app.rules import PRESETS, new_game
from app.rules.bots import Bot, StrongBot, make_bot
from app.rules.search import Budget

MATCHES = ("strong:heuristic", "heuristic:easy", "easy:random")


@dataclass(frozen=True)
class GameResult:
    place: float  # of the lone bot: 0 won … 1 last
    won: bool
    times: tuple[float, ...]  # its decisions with a choice: wall-clock seconds
    cpu: tuple[float, ...]  # and the CPU seconds its process spent on them


def play(preset: str, players: int, lone: str, others: str, index: int, worlds: int,
         seconds: float) -> GameResult:
    """Game ``index`` of ``preset``: the lone bot in seat index % players."""
    seat = index % players
    budget = Budget(worlds=worlds, seconds=seconds or None)

    def bot(kind: str, s: int) -> Bot:
        if kind == "strong":
            return StrongBot(index * 31 + s, budget)
        return make_bot(kind, index * 31 + s)

    bots = [bot(lone if s == seat else others, s) for s in range(players)]
    game = new_game(preset, players=players, seed=index, dealer=(index // players) % players)
    times: list[float] = []
    cpu: list[float] = []
    while not game.over:
        if game.to_act is None:
            game.deal()
            continue
        actor = game.to_act
        if actor == seat and len(game.legal_actions()) > 1:
            start, used = time.perf_counter(), time.process_time()
            action = bots[actor].choose(game)
            times.append(time.perf_counter() - start)
            cpu.append(time.process_time() - used)
        else:
            action = bots[actor].choose(game)
        game.apply(action)
    ranking = list(game.ranking or [])
    place = ranking.index(seat) / (players - 1)
    return GameResult(place, ranking[0] == seat, tuple(times), tuple(cpu))


def _task(args: tuple[str, int, str, str, int, int, float]) -> tuple[str, str, str, GameResult]:
    preset, players, lone, others, index, worlds, seconds = args
    return preset, lone, others, play(preset, players, lone, others, index, worlds, seconds)


def percentile(xs: list[float], q: float) -> float:
    if not xs:
        return 0.0
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=60, help="games per preset and match")
    parser.add_argument("--players", type=int, default=3)
    parser.add_argument("--preset", action="append", choices=sorted(PRESETS), help="default: all five")
    parser.add_argument("--match", action="append", help=f"LONE:OTHERS (default: {', '.join(MATCHES)})")
    parser.add_argument("--processes", type=int, default=2)
    parser.add_argument("--worlds", type=int, default=DEFAULT_BUDGET.worlds,
                        help="strong bot: worlds per decision (default: the rooms' budget)")
    parser.add_argument("--seconds", type=float, default=DEFAULT_BUDGET.seconds,
                        help="strong bot: time limit per decision, 0 for none (default: the rooms' budget)")
    args = parser.parse_args()
    presets = args.preset or list(PRESETS)
    matches = [tuple(m.split(":")) for m in (args.match or MATCHES)]
    tasks = [(p, args.players, lone, others, i, args.worlds, args.seconds)
             for lone, others in matches for p in presets for i in range(args.games)]
    results: dict[tuple[str, str, str], list[GameResult]] = {}
    start = time.perf_counter()
    print(f"{len(tasks)} games, {args.players} players, {args.processes} processes, strong budget "
          f"{args.worlds} worlds / {args.seconds or 'no'} s", flush=True)
    with ProcessPoolExecutor(max_workers=args.processes, initializer=warm_up) as pool:  # as the rooms' pool
        for preset, lone, others, result in pool.map(_task, tasks, chunksize=1):
            results.setdefault((lone, others, preset), []).append(result)
    elapsed = time.perf_counter() - start
    print(f"\n{'lone':<10} {'among':<10} {'preset':<12} {'games':>5} {'place':>6} {'wins':>6} "
          f"{'median':>8} {'p99':>8} {'cpu p99':>8}")
    summary: dict[tuple[str, str], list[float]] = {}
    for lone, others in matches:
        every: list[GameResult] = []
        for p in presets:
            rs = results.get((lone, others, p), [])
            every.extend(rs)
            _row(lone, others, p, rs)
            summary.setdefault((lone, others), []).append(statistics.mean(r.place for r in rs))
        _row(lone, others, "all", every)
    print(f"\ntime: {elapsed:.0f} s ({elapsed / 60:.1f} min) for {len(tasks)} games")
    for (lone, others), places in summary.items():
        mean = statistics.mean(places)
        print(f"{lone} among {others}: mean place over presets {mean:.3f}, worst preset {max(places):.3f}")


def _row(lone: str, others: str, preset: str, rs: list[GameResult]) -> None:
    if not rs:
        return
    times = [t for r in rs for t in r.times]
    cpu = [t for r in rs for t in r.cpu]
    place = statistics.mean(r.place for r in rs)
    wins = sum(r.won for r in rs) / len(rs)
    print(f"{lone:<10} {others:<10} {preset:<12} {len(rs):>5} {place:>6.3f} {wins:>6.3f} "
          f"{_ms(percentile(times, 0.5))} {_ms(percentile(times, 0.99))} {_ms(percentile(cpu, 0.99))}",
          flush=True)


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:>6.1f}ms" if seconds < 0.01 else f"{seconds * 1000:>6.0f}ms"


if __name__ == "__main__":
    main()
