"""Play whole games between bots and print the outcomes.

    python -m app.rules.simulate --preset vidivellir --players 4 --games 1000
    python -m app.rules.simulate --preset rassi --players 3 --bots heuristic,random,random --seed 7

Deals are seeded (game i uses seed ``seed * 1_000_003 + i``), so a run is reproducible. The
line-up given by ``--bots`` (default: one heuristic bot, the rest random) is rotated one seat
per game, so every bot sits in every seat equally often.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from app.rules import PRESETS, Game, new_game
from app.rules.bots import BOTS, Bot

__all__ = ["Outcome", "Summary", "main", "play_game", "play_out", "simulate"]


@dataclass(frozen=True)
class Outcome:
    """One finished game."""

    winner: int
    ranking: tuple[int, ...]
    deals: int
    kinds: tuple[str, ...]  # bot kind per seat
    shared: bool = False  # another seat ended on the winner's score (the engine's tie-break)
    best: tuple[int, ...] = ()  # every seat on the winner's score (the winner alone if none)


@dataclass
class Summary:
    """Totals over a run."""

    preset: str
    players: int
    lineup: tuple[str, ...]
    games: int = 0
    deals: int = 0
    seat_wins: list[int] = field(default_factory=list)
    kind_wins: dict[str, int] = field(default_factory=dict)
    kind_games: dict[str, int] = field(default_factory=dict)  # bot-games played per kind
    kind_rank_sum: dict[str, int] = field(default_factory=dict)
    shared: int = 0  # games whose best score was shared
    kind_split_wins: dict[str, float] = field(default_factory=dict)  # ties for best split
    seconds: float = 0.0

    def add(self, outcome: Outcome) -> None:
        self.games += 1
        self.deals += outcome.deals
        self.shared += outcome.shared
        for seat in outcome.best or (outcome.winner,):
            kind = outcome.kinds[seat]
            share = 1 / len(outcome.best or (outcome.winner,))
            self.kind_split_wins[kind] = self.kind_split_wins.get(kind, 0.0) + share
        if not self.seat_wins:
            self.seat_wins = [0] * self.players
        self.seat_wins[outcome.winner] += 1
        winner_kind = outcome.kinds[outcome.winner]
        self.kind_wins[winner_kind] = self.kind_wins.get(winner_kind, 0) + 1
        for place, seat in enumerate(outcome.ranking, start=1):
            kind = outcome.kinds[seat]
            self.kind_games[kind] = self.kind_games.get(kind, 0) + 1
            self.kind_rank_sum[kind] = self.kind_rank_sum.get(kind, 0) + place

    def win_rate(self, kind: str) -> float:
        """Wins per game of one bot of this kind (compare with 1 / players)."""
        n = self.kind_games.get(kind, 0)
        return self.kind_wins.get(kind, 0) / n if n else 0.0

    def split_win_rate(self, kind: str) -> float:
        """Like ``win_rate`` but a game whose best score is shared counts 1/k for each."""
        n = self.kind_games.get(kind, 0)
        return self.kind_split_wins.get(kind, 0.0) / n if n else 0.0

    def average_rank(self, kind: str) -> float:
        n = self.kind_games.get(kind, 0)
        return self.kind_rank_sum.get(kind, 0) / n if n else 0.0

    def report(self) -> str:
        fair = 1 / self.players
        lines = [
            (
                f"preset {self.preset}, {self.players} players, "
                f"line-up {','.join(self.lineup)} (rotated one seat per game)"
            ),
            f"games played: {self.games}",  # not shown
            f"average deals per game: {self.deals / max(1, self.games):.2f}",  # not shown
            "wins per seat: "  # not shown
            + ", ".join(
                f"seat {s}: {w}" for s, w in enumerate(self.seat_wins or [0] * self.players)
            ),
        ]
        if self.shared:
            lines.append(
                f"games whose best score was shared: {self.shared} "
                "(the winner is the engine's ranking's first)"
            )
        for kind in sorted(self.kind_games):
            bots = self.kind_games[kind] / max(1, self.games)
            lines.append(
                f"{kind:>10}: {self.kind_wins.get(kind, 0)} wins for {bots:g} bot(s), "
                f"win rate per bot {self.win_rate(kind):.3f} "
                f"(ties for best split: {self.split_win_rate(kind):.3f}; fair share {fair:.3f}), "
                f"average rank {self.average_rank(kind):.2f}"
            )
        if self.lineup.count("heuristic") == 1 and set(self.lineup) == {"heuristic", "random"}:
            rate = self.win_rate("heuristic")
            split = self.split_win_rate("heuristic")
            lines.append(
                f"heuristic vs random: win rate {rate:.3f} vs fair share {fair:.3f} "
                f"({rate / fair:.2f}x); ties for best split: {split:.3f}"  # not shown
            )
        if self.seconds:
            lines.append(f"time: {self.seconds:.1f} s ({self.deals / self.seconds:.0f} deals/s)")
        return "\n".join(lines)


def play_out(game: Game, bots: Sequence[Bot]) -> Game:
    """Play `game` to its end, ``bots[s]`` choosing in seat ``s`` (the deals as the game's seed gives them)."""
    while not game.over:
        if game.to_act is None:
            game.deal()
        else:
            game.apply(bots[game.to_act].choose(game))
    return game


def play_game(
    preset: str,
    bots: Sequence[Bot],
    seed: int,
    dealer: int = 0,
    max_steps: int = 1_000_000,
) -> Outcome:
    """Play one whole game, ``bots[s]`` sitting in seat ``s``."""
    game = new_game(preset, players=len(bots), seed=seed, dealer=dealer)
    steps = 0
    while not game.over:
        seat = game.to_act
        if seat is None:
            game.deal()
        else:
            game.apply(bots[seat].choose(game))
        steps += 1
        if steps > max_steps:
            raise RuntimeError(f"game with seed {seed} did not end after {max_steps} steps")
    ranking = tuple(game.ranking or ())
    scores = list(game.scores)
    winner = ranking[0]
    best = tuple(s for s in ranking if scores[s] == scores[winner])
    return Outcome(
        winner=winner,
        ranking=ranking,
        deals=len(game.deal_log),
        kinds=tuple(b.kind for b in bots),
        shared=len(best) > 1,
        best=best,
    )


def simulate(
    preset: str,
    players: int,
    games: int,
    lineup: Sequence[str] | None = None,
    seed: int = 0,
) -> Summary:
    """Play ``games`` games; the line-up rotates one seat per game."""
    if lineup is None:
        lineup = ["heuristic"] + ["random"] * (players - 1)
    lineup = list(lineup)
    if len(lineup) != players:
        raise ValueError(f"--bots names {len(lineup)} bots for {players} players")
    for kind in lineup:
        if kind not in BOTS:
            raise ValueError(f"Unknown bot {kind!r}: choose from {', '.join(sorted(BOTS))}")
    summary = Summary(preset=preset, players=players, lineup=tuple(lineup))
    start = time.perf_counter()
    for i in range(games):
        game_seed = seed * 1_000_003 + i
        shift = i % players
        kinds = lineup[-shift:] + lineup[:-shift] if shift else lineup
        bots = [BOTS[k](game_seed * 31 + s) for s, k in enumerate(kinds)]
        summary.add(play_game(preset, bots, game_seed, dealer=(i // players) % players))
    summary.seconds = time.perf_counter() - start
    return summary


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m app.rules.simulate", description="Play whole games between bots."
    )
    parser.add_argument("--preset", default="vidivellir", choices=sorted(PRESETS))
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument(
        "--bots",
        default=None,
        help="comma-separated bot per seat (default: heuristic then random); "
        f"kinds: {', '.join(sorted(BOTS))}",
    )
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    lineup = [b.strip() for b in args.bots.split(",")] if args.bots else None
    try:
        summary = simulate(args.preset, args.players, args.games, lineup, args.seed)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(summary.report())
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
