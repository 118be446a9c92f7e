"""The strong bot and the easy one: legal in every preset and option, blind to hidden cards,
deterministic for a seed; the worlds it imagines agree with everything its view proves."""

from __future__ import annotations

import random
from typing import Any

import pytest

from app.rules import PRESETS, Game, new_game
from app.rules.bots import Bot, EasyBot, HeuristicBot, RandomBot, StrongBot, make_bot, move_for_view
from app.rules.cards import PICTURE_RANKS, card_table
from app.rules.outlook import outlook
from app.rules.search import Budget, search
from app.rules.worlds import knowledge, sample_world
from tests.rules.seat_only import SeatOnly, alternative

# small budgets: these tests are about what the bot may know and do, not how well it plays
FAST = Budget(worlds=4, candidates=6, min_worlds=2)

CASES: list[tuple[str, int, dict[str, Any]]] = [(name, 3, {}) for name in sorted(PRESETS)] + [
    ("gurka-night", 4, {"eight_led_lowest": False, "beat_equal": True}),
    ("gurka-is", 3, {"exchange": True}),
    ("gurka-is", 4, {"soft_discard": True}),
    ("gurka-is", 3, {"black_sevens": True, "exchange": True, "soft_discard": True}),
    ("gurka-is", 5, {"deal_schedule": "zigzag", "soft_discard": True}),
    ("vidivellir", 4, {"decks": 2}),
    ("vidivellir", 4, {"play_on": True}),
    ("vidivellir", 3, {"exchange": False, "must_beat": True}),
    ("kurkku", 3, {"must_beat": False}),
    ("rassi", 4, {}),
]


def rest_of_deck(game: Game, *hands: list[str]) -> list[str]:
    deck = list(card_table(game.ruleset).deck)
    for card in (c for h in hands for c in h):
        deck.remove(card)
    return deck


# ---------------------------------------------------------------- legal, everywhere


@pytest.mark.parametrize(("preset", "players", "options"), CASES)
def test_strong_and_easy_bots_play_only_legal_actions(preset: str, players: int, options: dict[str, Any]) -> None:
    checked = {"strong": 0, "easy": 0}
    for seed in range(2):
        game = new_game(preset, players=players, seed=seed, **options)
        kinds = ["strong", "easy", "heuristic", "random", "strong"][:players]
        kinds = kinds[seed:] + kinds[:seed]
        bots: list[Bot] = [StrongBot(seed * 10 + s, FAST) if k == "strong" else make_bot(k, seed * 10 + s)
                           for s, k in enumerate(kinds)]
        while not game.over and len(game.deal_log) < 2:
            if game.to_act is None:
                game.deal()
                continue
            seat = game.to_act
            legal = {a.text for a in game.legal_actions()}
            action = bots[seat].choose(SeatOnly(game))
            assert action.text in legal, (kinds[seat], action, sorted(legal)[:10])
            game.apply(action)
            if kinds[seat] in checked and len(legal) > 1:
                checked[kinds[seat]] += 1
    assert checked["strong"] > 0 and checked["easy"] > 0, checked


@pytest.mark.parametrize("kind", ["random", "easy", "heuristic", "strong"])
def test_a_move_from_the_view_alone_is_legal_and_repeatable(kind: str) -> None:
    for preset in sorted(PRESETS):
        game = new_game(preset, players=3, seed=11)
        game.deal()
        view = game.view(game.to_act)
        first = move_for_view(kind, game.ruleset, view, 5, FAST)
        assert first in view["legal"]
        assert move_for_view(kind, game.ruleset, view, 5, FAST) == first
    with pytest.raises(ValueError, match="Unknown bot"):
        move_for_view("clever", game.ruleset, view, 5)


def test_the_strong_bot_is_deterministic_for_a_seed() -> None:
    game = new_game("gurka-night", players=3, seed=21)
    game.deal()
    bot = HeuristicBot(0)
    game.apply(bot.choose(game))
    while len(game.legal_actions()) < 3:
        game.apply(bot.choose(game))
    view = game.view(game.to_act)
    budget = Budget(worlds=16)
    a = search(game.ruleset, view, seed=8, budget=budget)
    b = search(game.ruleset, view, seed=8, budget=budget)
    assert (a.action, a.worlds, a.values) == (b.action, b.worlds, b.values)
    assert a.worlds > 0 and len(a.values) > 1
    assert a.heuristic is not None and a.heuristic.text in a.values  # the fallback is weighed too
    games = []
    for _ in range(2):  # two whole games of one strong bot among heuristic bots: the same game
        bots: list[Bot] = [StrongBot(3, FAST), HeuristicBot(1), HeuristicBot(2)]
        played = new_game("kurkku", players=3, seed=4)
        while not played.over:
            if played.to_act is None:
                played.deal()
            else:
                played.apply(bots[played.to_act].choose(played))
        games.append(played.to_json())
    assert games[0] == games[1]


# ---------------------------------------------------------------- what it may know


HIDDEN_CASES: list[tuple[str, dict[str, Any]]] = [(name, {}) for name in sorted(PRESETS)] + [
    ("vidivellir", {"exchange": False}),
    ("rassi", {"rassi": False}),
    ("gurka-is", {"soft_discard": True}),
]


@pytest.mark.parametrize(("preset", "options"), HIDDEN_CASES)
def test_the_strong_bot_never_sees_a_hidden_card(preset: str, options: dict[str, Any]) -> None:
    """Other hands and the stock swapped for others that look the same from the seat: the same
    seed gives the same choice, after the same thinking (every candidate's value)."""
    rng = random.Random(3)
    compared = 0
    for seed in range(40):
        game = new_game(preset, players=3, seed=seed, **options)
        game.deal()
        walker = RandomBot(seed)
        for _ in range(rng.randrange(0, 10)):
            if game.to_act is None:
                break
            game.apply(walker.choose(game))
        me = game.to_act
        if me is None or len(game.legal_actions()) < 2:
            continue
        expected = StrongBot(5, FAST).choose(SeatOnly(game))
        thought = search(game.ruleset, game.view(me), 5, FAST)
        for _ in range(3):
            alt = alternative(game, me, rng)
            if alt is None:
                continue
            assert StrongBot(5, FAST).choose(SeatOnly(alt)) == expected
            again = search(alt.ruleset, alt.view(me), 5, FAST)
            assert (again.action, again.values) == (thought.action, thought.values)
            compared += 1
    assert compared >= 10, compared


@pytest.mark.parametrize(("preset", "players", "options"), CASES)
def test_every_world_looks_to_the_seat_exactly_as_its_game(preset: str, players: int,
                                                          options: dict[str, Any]) -> None:
    """At every decision of a few deals, the imagined worlds give the seat the very same view
    (its hand, the public moves, its legal actions); the real hidden hands are among those the
    seat's knowledge allows (what it proves is true); and the worlds do differ."""
    rng = random.Random(1)
    decisions = differ = 0
    game = new_game(preset, players=players, seed=7, **options)
    bots: list[Bot] = [(HeuristicBot if s % 2 else RandomBot)(s) for s in range(players)]
    while not game.over and len(game.deal_log) < 2:
        if game.to_act is None:
            game.deal()
            continue
        me = game.to_act
        if len(game.legal_actions()) > 1 and rng.random() < 0.5:
            view = game.view(me)
            know = knowledge(game.ruleset, view)
            height = card_table(game.ruleset).height
            for pile in know.piles:
                if pile.kind == "hand":
                    assert pile.seat is not None
                    assert all(pile.allows(c, height[c]) for c in game.hands[pile.seat]), pile
            hidden = [sorted(c for s in range(players) if s != me for c in game.hands[s])]
            for _ in range(2):
                world = sample_world(know, rng)
                assert world is not None
                seen = world.view(me)
                assert seen["last_deal"] is None  # a world has no past deals: all else is equal
                seen["last_deal"] = view["last_deal"]
                assert seen == view
                hidden.append(sorted(c for s in range(players) if s != me for c in world.hands[s]))
            differ += len({tuple(h) for h in hidden}) > 1
            decisions += 1
        game.apply(bots[me].choose(game))
    assert decisions >= 3 and differ >= 1, (decisions, differ)


def worlds_of(game: Game, count: int = 30) -> list[Game]:
    me = game.to_act
    assert me is not None
    know = knowledge(game.ruleset, game.view(me))
    rng = random.Random(2)
    worlds = [sample_world(know, rng) for _ in range(count)]
    assert all(w is not None for w in worlds)
    return [w for w in worlds if w is not None]


def test_a_follower_who_discarded_holds_nothing_lower() -> None:
    hands = [["3C", "4C", "9C", "TC", "JC", "QC", "KC"],
             ["2D", "KS", "AS", "QD", "JD", "TD", "9D"],
             ["5D", "6D", "7D", "8D", "9H", "TH", "JH"]]
    game = new_game("gurka-night", players=3, dealer=0)
    game.deal(hands=hands, stock=rest_of_deck(game, *hands))
    game.apply("play AS")  # seat 1 leads
    game.apply("play 5D")  # seat 2 cannot beat: its lowest
    height = card_table(game.ruleset).height
    lows = [min(height[c] for c in w.hands[2]) for w in worlds_of(game)]
    assert min(lows) >= 5
    assert len(set(lows)) > 1  # and the rest of its hand is still unknown


def test_under_must_beat_a_discard_proves_nothing_beats() -> None:
    hands = [["3C", "4C", "9C", "TC", "JC", "AC"],
             ["2D", "QS", "AS", "KD", "JD", "TD"],
             ["5D", "6D", "7D", "8D", "9H", "TH"]]
    game = new_game("kurkku", players=3, dealer=0)
    game.deal(hands=hands, stock=rest_of_deck(game, *hands))
    game.apply("play QS")
    game.apply("play 5D")  # seat 2 could not beat the queen (equal would beat)
    height = card_table(game.ruleset).height
    for world in worlds_of(game):
        assert all(5 <= height[c] < height["QS"] for c in world.hands[2]), world.hands[2]


def test_an_eight_led_makes_every_follower_show_its_lowest() -> None:
    hands = [["3C", "4C", "9C", "TC", "JC", "QC", "KC"],
             ["8D", "KS", "AS", "QD", "JD", "TD", "9D"],
             ["6D", "7D", "7S", "8S", "9H", "TH", "JH"]]
    game = new_game("gurka-night", players=3, dealer=0)
    game.deal(hands=hands, stock=rest_of_deck(game, *hands))
    game.apply("play 8D")
    game.apply("play 6D")
    height = card_table(game.ruleset).height
    assert all(min(height[c] for c in w.hands[2]) >= 6 for w in worlds_of(game))


def test_a_set_discard_is_the_lowest_cards() -> None:
    hands = [["2C", "3C", "9C", "TC", "JC", "QC", "KC"],
             ["8D", "8H", "AS", "QD", "JD", "TD", "9D"],
             ["4D", "6D", "7D", "5S", "9H", "TH", "JH"]]
    game = new_game("vidivellir", players=3, dealer=0, exchange=False)
    game.deal(hands=hands, stock=rest_of_deck(game, *hands))
    game.apply("play 8D 8H")
    game.apply("play 4D 5S")  # seat 2: its two lowest cards
    height = card_table(game.ruleset).height
    assert all(min(height[c] for c in w.hands[2]) >= 5 for w in worlds_of(game))


def test_rassi_free_round_tells_who_was_dealt_no_picture() -> None:
    hands = [["2C", "JC", "9C", "TC", "QC", "KC"],  # seat 0 (this bot): pictures
             ["2D", "3D", "4D", "5D", "6D", "7D"],  # seat 1: none, asked in the free round
             ["8D", "JD", "AS", "QD", "9H", "TH"]]  # seat 2: pictures, not asked
    game = new_game("rassi", players=3, dealer=0)
    game.deal(hands=hands, stock=rest_of_deck(game, *hands))
    assert game.phase == "rassi_free" and game.to_act == 1
    game.apply("pass")  # free round: seat 1 only
    game.apply("pass")  # double round: seat 1, then 2, then 0
    game.apply("pass")
    assert game.to_act == 0 and game.phase == "rassi_double"
    for world in worlds_of(game):
        assert not any(c[0] in PICTURE_RANKS for c in world.hands[1])
        assert any(c[0] in PICTURE_RANKS for c in world.hands[2])
    game2 = new_game("rassi", players=3, dealer=0)
    game2.deal(hands=hands, stock=rest_of_deck(game2, *hands))
    game2.apply("free")  # seat 1 takes free cards: the hand it put down had no picture
    game2.apply("pass")  # double round: seat 1
    game2.apply("pass")  # seat 2
    for world in worlds_of(game2):
        assert not any(c[0] in PICTURE_RANKS for c in world.gave[1])
        assert len(world.gave[1]) == 6 and world.hands[1] != hands[1]


# ---------------------------------------------------------------- the game, not just the deal


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_more_points_never_look_better_for_a_seat(preset: str) -> None:
    look = outlook(PRESETS[preset], 3)
    for base in ([0, 0, 0], [5, 12, 3], [14, 2, 9]):
        for extra in (2, 7, 11):
            before = look.places(base, [])
            worse = list(base)
            worse[0] += extra
            after = look.places(worse, [])
            assert after[0] >= before[0], (base, extra, before, after)
            assert 0.0 <= min(after) and max(after) <= 1.0
            assert abs(sum(after) - 1.5) < 1e-9  # places 0, 1/2 and 1 shared out


def test_the_easy_bot_slips_but_stays_legal() -> None:
    game = new_game("gurka-night", players=3, seed=2)
    game.deal()
    easy, heuristic = EasyBot(4), HeuristicBot(4)
    differ = 0
    for _ in range(60):
        if game.to_act is None:
            if game.over:
                break
            game.deal()
            continue
        legal = game.legal_actions()
        mine, sensible = easy.choose(game), heuristic.choose(game)
        assert mine in legal
        differ += mine != sensible
        game.apply(sensible)
    assert differ >= 3  # it does make its mistakes


def test_the_time_budget_is_kept_and_a_world_cut_short_is_not_counted() -> None:
    game = new_game("vidivellir", players=3, seed=5, exchange=False)
    game.deal()
    view = game.view(game.to_act)
    ticks = iter(range(10**6))

    def clock() -> float:  # every look at the clock takes a tenth of a second
        return next(ticks) / 10

    timed = search(game.ruleset, view, 1, Budget(worlds=500, seconds=2.0), clock=clock)
    looks = next(ticks)
    assert 1 <= timed.worlds < 20 and looks <= 2.0 * 10 + 2  # no look past the time
    # what it weighed is what the same worlds give without a clock: complete worlds only
    untimed = search(game.ruleset, view, 1, Budget(worlds=timed.worlds))
    assert untimed.values == timed.values and untimed.action == timed.action
