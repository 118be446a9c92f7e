"""Ratings from a hand-worked set of results (Weng & Lin's Plackett-Luce update, worked out below
by hand and checked against the library), in order, deterministic, with statistics per rule set."""

from __future__ import annotations

import math
import random
from datetime import UTC, datetime, timedelta

import pytest

from app.ratings.engine import MU, SIGMA, Result, ranked, rate

T0 = datetime(2026, 11, 14, 15, 30, tzinfo=UTC)
BETA = MU / 6
TAU = MU / 300  # OpenSkill's additive dynamics: sigma² + tau² before each update


def result(n: int, *places: str, ruleset: str = "gurka-night", **extra: object) -> Result:
    return Result(key=f"r{n:03d}", on=T0 + timedelta(minutes=n), ruleset=ruleset,
                  places=tuple((p, i + 1) for i, p in enumerate(places)), **extra)  # type: ignore[arg-type]


def test_one_table_round_from_fresh_ratings_by_hand() -> None:
    """Three fresh players (mu 25, sigma 25/3, beta 25/6, tau 25/300), places 1, 2, 3.

    s² = sigma² + tau² = 69.451; c = sqrt(3 (s² + beta²)) = sqrt(3 (69.451 + 17.361)) = 16.138.
    Every exp(mu/c) is the same e, so the sums over the players placed at or below each place
    are 3e, 2e and e:
    - winner: mu += s²/c (1 - 1/3)                 = 4.3035 × 2/3  = +2.869 -> 27.869
    - second: mu += s²/c ((0 - 1/3) + (1 - 1/2))   = 4.3035 × 1/6  = +0.717 -> 25.717
    - third:  mu += s²/c (-1/3 - 1/2 + (1 - 1))    = 4.3035 × -5/6 = -3.586 -> 21.414
    s² *= 1 - gamma s²/c² Σ p(1 - p), gamma = s/c = 0.5164:
    - winner: Σ = 1/3 · 2/3 = 2/9 -> sigma = 8.334 × sqrt(1 - 0.0306) = 8.205
    """
    table = rate([result(1, "Ann", "Bo", "Cy")])
    s2 = SIGMA**2 + TAU**2
    c = math.sqrt(3 * (s2 + BETA**2))
    step = s2 / c
    assert table["Ann"].mu == pytest.approx(MU + step * 2 / 3) == pytest.approx(27.869, abs=1e-3)
    assert table["Bo"].mu == pytest.approx(MU + step / 6) == pytest.approx(25.717, abs=1e-3)
    assert table["Cy"].mu == pytest.approx(MU - step * 5 / 6) == pytest.approx(21.414, abs=1e-3)
    gamma = math.sqrt(s2) / c
    assert table["Ann"].sigma == pytest.approx(math.sqrt(s2 * (1 - gamma * s2 / c**2 * 2 / 9)))
    assert table["Ann"].sigma == pytest.approx(8.205, abs=1e-3)
    assert table["Bo"].sigma == pytest.approx(8.058, abs=1e-3) and table["Cy"].sigma == table["Bo"].sigma
    assert [r.player for r in ranked(table)] == ["Ann", "Bo", "Cy"]
    assert table["Ann"].rating == pytest.approx(27.869 - 3 * 8.205, abs=1e-2)


def test_a_season_in_order_is_deterministic_and_the_order_matters() -> None:
    season = [result(1, "Ann", "Bo", "Cy"), result(2, "Dan", "Eve", "Fay"), result(3, "Ann", "Dan", "Bo"),
              result(4, "Cy", "Eve", "Ann"), result(5, "Fay", "Bo", "Eve", ruleset="kurkku")]
    first = rate(season)
    shuffled = season[:]
    random.Random(4).shuffle(shuffled)
    again = rate(shuffled)
    assert {p: (r.mu, r.sigma) for p, r in first.items()} == {p: (r.mu, r.sigma) for p, r in again.items()}
    # the same results in another order are another season: later results weigh as they come
    moved = [Result(r.key, T0 - timedelta(minutes=i) if r.key == "r004" else r.on, r.ruleset, r.places)
             for i, r in enumerate(season)]
    assert rate(moved)["Ann"].mu != first["Ann"].mu
    # uncertainty only shrinks; a member's history has one point per result
    ann = first["Ann"]
    assert [p.key for p in ann.history] == ["r001", "r003", "r004"]
    assert all(b.sigma < a.sigma for a, b in zip(ann.history, ann.history[1:]))
    assert ann.history[1].mu > ann.history[0].mu > MU and ann.history[2].mu < ann.history[1].mu


def test_statistics_per_rule_set() -> None:
    table = rate([
        result(1, "Ann", "Bo", "Cy", agurker={"Bo": 2}, bar_rov=frozenset({"Ann"})),
        result(2, "Bo", "Ann", "Cy", agurker={"Ann": 1}),
        result(3, "Ann", "Cy", ruleset="kurkku"),
    ])
    night = table["Ann"].stats["gurka-night"]
    assert (night.games, night.wins, night.mean_place, night.agurker, night.bar_rov) == (2, 1, 1.5, 1, 1)
    assert table["Bo"].stats["gurka-night"].agurker == 2 and table["Bo"].stats["gurka-night"].bar_rov == 0
    assert table["Cy"].stats["kurkku"].mean_place == 2.0 and table["Cy"].stats["gurka-night"].mean_place == 3.0


def test_ties_share_a_place_and_bad_results_are_refused() -> None:
    tied = rate([Result("t", T0, "kurkku", (("Ann", 1), ("Bo", 1), ("Cy", 3)))])
    assert tied["Ann"].mu == pytest.approx(tied["Bo"].mu) and tied["Ann"].mu > MU > tied["Cy"].mu
    with pytest.raises(ValueError, match="two or more different players"):
        rate([Result("x", T0, "kurkku", (("Ann", 1), ("Ann", 2)))])
