"""Bots: legal moves only, the heuristic bot beats random bots, no peeking at hidden cards."""

from __future__ import annotations

import random
from typing import Any

import pytest

from app.rules import PRESETS, new_game
from app.rules.actions import Action
from app.rules.bots import BOTS, Bot, EasyBot, HeuristicBot, RandomBot, StrongBot, make_bot
from app.rules.simulate import main as simulate_main
from app.rules.simulate import play_game, simulate
from tests.rules.seat_only import SeatOnly, alternative

PRESET_NAMES = sorted(PRESETS)


def _play_some(
    preset: str, players: int, seed: int, deals: int, options: dict[str, Any] | None = None
) -> int:
    """Mixed bots play ``deals`` deals through the SeatOnly wrapper; returns actions checked."""
    game = new_game(preset, players=players, seed=seed, **(options or {}))
    rng = random.Random(seed)
    bots: list[Bot] = [
        (HeuristicBot if rng.random() < 0.6 else RandomBot)(seed * 10 + s) for s in range(players)
    ]
    checked = 0
    while not game.over:
        if game.to_act is None:
            if len(game.deal_log) >= deals:
                break
            game.deal()
            continue
        legal = [str(a) for a in game.legal_actions()]
        action = bots[game.to_act].choose(SeatOnly(game))
        assert isinstance(action, Action)
        assert str(action) in legal, f"{type(bots[game.to_act]).__name__} chose {action}"
        game.apply(action)
        checked += 1
    return checked


PLAYER_COUNTS = [
    (name, n)
    for name in PRESET_NAMES
    for n in range(PRESETS[name].min_players, PRESETS[name].max_players + 1)
]


@pytest.mark.parametrize(("preset", "players"), PLAYER_COUNTS)
def test_bots_only_play_legal_actions(preset: str, players: int) -> None:
    checked = 0
    for seed in range(2):
        checked += _play_some(preset, players, seed=100 * players + seed, deals=2)
    assert checked > 0


@pytest.mark.parametrize(
    ("preset", "players", "options"),
    [
        ("gurka-is", 3, {"exchange": True}),
        ("gurka-is", 4, {"soft_discard": True}),
        ("gurka-is", 3, {"black_sevens": True, "exchange": True, "soft_discard": True}),
        ("gurka-is", 5, {"deal_schedule": "zigzag", "soft_discard": True}),
        ("vidivellir", 5, {"decks": 2}),
        ("vidivellir", 4, {"play_on": True}),
        ("kurkku", 3, {"must_beat": False}),
        ("gurka-night", 3, {"eight_led_lowest": False, "beat_equal": True}),
    ],
)
def test_bots_only_play_legal_actions_with_options(
    preset: str, players: int, options: dict[str, Any]
) -> None:
    for seed in range(2):
        assert _play_some(preset, players, seed=seed, deals=3, options=options) > 0


def test_registry_and_factory() -> None:
    assert set(BOTS) == {"random", "easy", "heuristic", "strong"}
    assert isinstance(make_bot("heuristic", 1), HeuristicBot)
    assert isinstance(make_bot("random", 1), RandomBot)
    assert isinstance(make_bot("easy", 1), EasyBot)
    assert isinstance(make_bot("strong", 1), StrongBot)
    with pytest.raises(ValueError, match="Unknown bot"):
        make_bot("clever")


def test_bots_are_deterministic_for_a_seed() -> None:
    def run() -> tuple[int, ...]:
        bots = [HeuristicBot(1), RandomBot(2), RandomBot(3)]
        return play_game("kurkku", bots, seed=42).ranking

    assert run() == run()


# ---------------------------------------------------------------- sensible play
def _rest(*hands: list[str], decks: int = 1) -> list[str]:
    """The cards of one deck not in the given hands (a stock for explicit deals)."""
    used = [c for h in hands for c in h]
    deck = [r + s for s in "CDHS" for r in "23456789TJQKA"] * decks
    for c in used:
        deck.remove(c)
    return deck


def _choice(game: Any) -> str:
    return str(HeuristicBot(0).choose(SeatOnly(game)))


def test_last_to_play_beats_with_the_cheapest_card_and_keeps_the_low_one() -> None:
    hands = [
        ["2C", "3C", "9H", "QS", "KS", "AS"],
        ["8D", "JD", "JH", "TD", "TH", "4D"],
        ["2D", "3D", "5D", "6D", "7D", "2H"],
    ]
    g = new_game("kurkku", players=3, dealer=0)
    g.deal(hands=hands, stock=_rest(*hands))
    g.apply("play 8D")  # forhånd (seat 1)
    g.apply("play 2D")  # seat 2 cannot beat
    assert g.to_act == 0
    assert _choice(g) == "play 9H"


def test_leader_keeps_its_lowest_card_and_leads_high() -> None:
    hands = [
        ["2D", "3D", "5D", "6D", "7D", "2H"],
        ["2C", "5C", "9H", "JS", "KC", "AH"],
        ["8D", "JD", "JH", "TD", "TH", "4D"],
    ]
    g = new_game("kurkku", players=3, dealer=0)
    g.deal(hands=hands, stock=_rest(*hands))
    assert g.to_act == 1
    assert _choice(g) == "play AH"


def test_rassi_keeps_the_ace_for_the_end() -> None:
    hands = [
        ["AC", "2D", "TD", "3C", "4C", "QC"],
        ["9S", "JD", "JH", "KD", "KH", "QD"],
        ["2S", "3S", "4S", "5S", "6S", "7S"],
    ]
    g = new_game("rassi", players=3, dealer=0)
    g.deal(hands=hands, stock=_rest(*hands))
    while g.phase != "play":
        g.apply("pass")
    g.apply("play 9S")
    g.apply("play 2S")
    assert g.to_act == 0
    # must beat: TD, QC or AC; the ace is worth 1 at the end, so it is the one to keep
    assert _choice(g) == "play TD"


def test_rassi_free_cards_with_a_poor_hand_only() -> None:
    poor = ["8C", "9C", "TC", "8D", "9D", "TD"]
    good = ["AC", "2C", "3C", "AD", "2D", "4H"]
    for hand, expected in ((poor, "free"), (good, "pass")):
        hands = [["QH", "QS", "KH", "KS", "JH", "JS"], hand, ["JC", "JD", "QC", "QD", "KC", "KD"]]
        g = new_game("rassi", players=3, dealer=0)
        g.deal(hands=hands, stock=_rest(*hands))
        assert g.phase == "rassi_free" and g.to_act == 1
        assert _choice(g) == expected


def test_vidivellir_exchanges_high_cards() -> None:
    hands = [
        ["2H", "3H", "4H", "5H", "6H", "8H", "9H"],
        ["2C", "3D", "KS", "AS", "7C", "4D", "5D"],
        ["2S", "3S", "4S", "5S", "6S", "8S", "9S"],
    ]
    g = new_game("vidivellir", players=3, dealer=0)
    g.deal(hands=hands, stock=_rest(*hands))
    assert g.phase == "exchange" and g.to_act == 1
    assert _choice(g) == "exchange KS AS 7C"


def test_vidivellir_lays_on_high_cards_and_kills_with_the_lowest_set() -> None:
    hands = [
        ["6S", "6D", "QH", "QD", "2S", "3S", "4S"],
        ["5C", "5D", "2H", "3H", "4H", "6H", "8H"],
        ["2C", "3C", "4C", "KD", "AD", "9S", "TS"],
    ]
    g = new_game("vidivellir", players=3, dealer=0)
    g.deal(hands=hands, stock=_rest(*hands))
    while g.phase == "exchange":
        g.apply("exchange")
    g.apply("play 5C 5D")
    assert _choice(g) == "play KD AD"  # no pair: lay on the two highest, keep 2♣
    g.apply("play KD AD")
    assert _choice(g) == "play 6D 6S"


def test_gurka_is_leads_multiples_to_shed() -> None:
    hands = [
        ["2H", "3H", "4H", "5H", "6H", "8H", "9H", "TH", "JH", "QH"],
        ["2C", "3D", "KD", "KH", "KS", "9C", "9D", "5S", "6S", "8S"],
        ["2S", "3S", "4S", "7S", "9S", "TS", "JS", "QS", "AS", "AH"],
    ]
    g = new_game("gurka-is", players=3, dealer=0)
    g.deal(hands=hands, stock=_rest(*hands))
    assert _choice(g) == "play KD KH KS"


# ---------------------------------------------------------------- strength
# One heuristic bot against random bots, 200 seeded games (seat rotated each game). Win rates
# measured with `python -m app.rules.simulate --games 1000` (fair share 1/3 and 1/4):
#   3 players: gurka-night .975, gurka-is .942, vidivellir .797, kurkku .695, rassi .789
#   4 players: gurka-night .967, gurka-is .899, vidivellir .631, kurkku .489, rassi .588
# Each threshold sits about four standard errors (about .035 at 200 games) or more below the
# measured rate and well above the fair share, so only a real weakening of the bot (or a
# change in the engine) trips it.
STRENGTH: dict[tuple[str, int], float] = {
    ("gurka-night", 3): 0.75,
    ("gurka-is", 3): 0.75,
    ("vidivellir", 3): 0.62,
    ("kurkku", 3): 0.52,
    ("rassi", 3): 0.58,
    ("gurka-night", 4): 0.70,
    ("gurka-is", 4): 0.70,
    ("vidivellir", 4): 0.45,
    ("kurkku", 4): 0.35,
    ("rassi", 4): 0.42,
}


@pytest.mark.parametrize(("preset", "players"), sorted(STRENGTH))
def test_heuristic_beats_random(preset: str, players: int) -> None:
    summary = simulate(preset, players=players, games=200, seed=2024)
    rate = summary.win_rate("heuristic")
    fair = 1 / players
    assert rate > STRENGTH[preset, players], (
        f"{preset}, {players} players: heuristic won {rate:.3f} of games (fair share {fair:.3f})"
    )
    assert summary.average_rank("heuristic") < summary.average_rank("random")


def test_simulate_command_prints_outcomes(capsys: pytest.CaptureFixture[str]) -> None:
    assert simulate_main(["--preset", "vidivellir", "--players", "4", "--games", "8"]) == 0
    out = capsys.readouterr().out
    assert "games played: 8" in out
    assert "heuristic vs random" in out
    assert "average deals per game" in out
    assert "ties for best split" in out
    argv = [
        "--preset",
        "kurkku",
        "--players",
        "3",
        "--games",
        "3",
        "--bots",
        "random,random,random",
        "--seed",
        "5",
    ]
    assert simulate_main(argv) == 0
    assert simulate_main(["--preset", "kurkku", "--players", "3", "--bots", "random"]) == 2


# ---------------------------------------------------------------- no peeking
HIDDEN_CASES: list[tuple[str, dict[str, Any]]] = [(name, {}) for name in PRESET_NAMES] + [
    ("vidivellir", {"exchange": False}),  # reach deep into the deal without exchanged cards
    ("rassi", {"rassi": False}),
    ("gurka-is", {"soft_discard": True}),
]


@pytest.mark.parametrize(("preset", "options"), HIDDEN_CASES)
def test_heuristic_bot_ignores_hidden_cards(preset: str, options: dict[str, Any]) -> None:
    """Permuting the other hands and the stock, with this seat's view unchanged, changes
    nothing in the heuristic bot's choice."""
    rng = random.Random(7)
    compared = 0
    for seed in range(80):
        game = new_game(preset, players=3, seed=seed, **options)
        game.deal()
        steps = rng.randrange(0, 12)
        walker = RandomBot(seed)
        for _ in range(steps):
            if game.to_act is None:
                break
            game.apply(walker.choose(game))
        me = game.to_act
        if me is None:
            continue
        expected = HeuristicBot(5).choose(game)
        for _ in range(4):
            alt = alternative(game, me, rng)
            if alt is None:
                continue
            assert HeuristicBot(5).choose(alt) == expected
            compared += 1
    assert compared >= 20, compared
