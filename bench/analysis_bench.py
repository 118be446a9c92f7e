"""The strong bot's analysis (app/rules/analysis.py), per preset: the time to analyse one whole
game (three players, heuristic bots, a seeded deal), and how stable the marks are: the same
game analysed twice with different random worlds, the share of decisions given the same mark.

    python bench/analysis_bench.py [--presets gurka-night,kurkku] [--worlds 48] [--seed 1]

One process, one core: the figures are for a single analysis running alone.
"""

from __future__ import annotations

import argparse
import random
import time

from app.rules import PRESETS, Game, new_game
from app.rules.analysis import analyse, summarise
from app.rules.bots import HeuristicBot
from app.rules.simulate import play_out


def game_of(preset: str, seed: int) -> Game:
    rng = random.Random(seed)
    return play_out(new_game(preset, players=3, seed=seed, dealer=0),
                    [HeuristicBot(rng.randrange(2**30)) for _ in range(3)])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--presets", default=",".join(PRESETS))
    parser.add_argument("--worlds", type=int, default=48)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    print(f"{'preset':12} {'decisions':>9} {'run 1 s':>8} {'run 2 s':>8} {'marks 1':>8} {'marks 2':>8} {'same mark':>9}")
    for preset in args.presets.split(","):
        game = game_of(preset, args.seed)
        t0 = time.perf_counter()
        first = analyse(game, seed=1, worlds=args.worlds)
        t1 = time.perf_counter()
        second = analyse(game, seed=2, worlds=args.worlds)
        t2 = time.perf_counter()
        same = sum(1 for a, b in zip(first, second, strict=True) if a.mark == b.mark)
        marks = [sum(1 for j in run if j.mark) for run in (first, second)]
        print(f"{preset:12} {len(first):9d} {t1 - t0:8.1f} {t2 - t1:8.1f} {marks[0]:8d} {marks[1]:8d} "
              f"{100 * same / max(1, len(first)):8.1f}%")
        for s in summarise(first, 3):
            print(f"    seat {s.seat}: {s.decisions} decisions, {s.lost:.1f} place points lost, "
                  f"accuracy {s.accuracy:.0f}% ({s.inaccuracies}/{s.mistakes}/{s.blunders})")


if __name__ == "__main__":
    main()
