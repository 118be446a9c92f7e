"""Rules throughput: random-legal games per preset on one core, complete deals per second.

    python bench/rules_bench.py [--preset NAME] [--players N] [--seconds S]

The random player lives here (random.Random choice over legal_actions); bots are not used.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from app.rules import PRESETS, new_game


def run(preset: str, players: int, seconds: float) -> tuple[int, int, int, float]:
    """Play random games until ``seconds`` have passed: (deals, games, actions, elapsed)."""
    rng = random.Random(1)
    choice = rng.choice
    deals = games = actions = 0
    start = time.perf_counter()
    deadline = start + seconds
    seed = 0
    while time.perf_counter() < deadline:
        seed += 1
        game = new_game(preset, players=players, seed=seed)
        while not game.over:
            game.deal()
            while game.to_act is not None:
                game.apply(choice(game.legal_actions()))
                actions += 1
            deals += 1
        games += 1
    return deals, games, actions, time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--preset", choices=sorted(PRESETS), help="one preset (default: all)")
    parser.add_argument("--players", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=3.0)
    args = parser.parse_args()
    presets = [args.preset] if args.preset else list(PRESETS)
    print(f"{'preset':<12} {'players':>7} {'deals/s':>9} {'actions/s':>10} {'games':>6}")
    for preset in presets:
        deals, games, actions, elapsed = run(preset, args.players, args.seconds)
        print(f"{preset:<12} {args.players:>7} {deals / elapsed:>9.0f} "
              f"{actions / elapsed:>10.0f} {games:>6}")


if __name__ == "__main__":
    main()
