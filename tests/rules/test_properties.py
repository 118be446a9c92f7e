"""Random games of every preset and player count (Hypothesis): conservation of cards, only
legal actions applied, check() agrees with apply(), scores grow except an exact clear, games
end, views hide what they must, JSON round trip and replay reproduce the game."""

from __future__ import annotations

import json
import random
from collections import Counter
from itertools import pairwise
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.rules import PRESETS, Game, IllegalAction, new_game
from app.rules.bots import HeuristicBot, RandomBot
from app.rules.cards import card_table

# Host options played by random games too: (preset, options) by case name.
VARIANTS: dict[str, tuple[str, dict[str, Any]]] = {
    "vidivellir-2decks": ("vidivellir", {"decks": 2}),
    "gurka-is-soft": ("gurka-is", {"soft_discard": True}),
    "gurka-is-zigzag": ("gurka-is", {"deal_schedule": "zigzag"}),
    "gurka-is-sevens": ("gurka-is", {"black_sevens": True, "soft_discard": True,
                                     "exchange": True, "deal_schedule": "zigzag"}),
}
CASES = [(name, n) for name, r in PRESETS.items()
         for n in range(r.min_players, r.max_players + 1)]
CASES += [("vidivellir-2decks", 4), ("gurka-is-soft", 3), ("gurka-is-soft", 5),
          ("gurka-is-zigzag", 2), ("gurka-is-zigzag", 4), ("gurka-is-sevens", 3)]
MAX_DEALS = 400


def make(case: str, players: int, seed: int) -> Game:
    preset, options = VARIANTS.get(case, (case, {}))
    return new_game(preset, players=players, seed=seed, **options)


def conserved(g: Game) -> bool:
    everything = Counter(c for h in g.hands for c in h)
    everything.update(g.played)
    everything.update(g.stock)
    everything.update(g.exchanged_away)
    if g.trick is not None:
        for _, cards, _ in g.trick.plays:
            everything.update(cards)
    return everything == Counter(card_table(g.ruleset).deck)


def strings(value: object) -> set[str]:
    return set(json.dumps(value).replace('"', " ").replace(",", " ").replace("[", " ")
               .replace("]", " ").replace(":", " ").replace("{", " ").replace("}", " ").split())


def hidden_cards_absent(g: Game) -> None:
    deck_counts = Counter(card_table(g.ruleset).deck)
    public = g.view(None)
    for seat in [None, *range(g.players)]:
        view = g.view(seat)
        # only the seat's own part differs from what a spectator sees (the table builds it so)
        assert view == {**public, **g.seat_view(seat)}, seat
        # earlier deals' public results (penalty piles, last deal) may name reshuffled cards
        current = {k: v for k, v in view.items() if k not in ("penalty_cards", "last_deal")}
        words = strings(current)
        hidden = set(g.stock)
        for other in range(g.players):
            if other != seat:
                hidden.update(g.hands[other])
        hidden = {c for c in hidden if deck_counts[c] == 1}
        leaked = hidden & words
        assert not leaked, f"view({seat}) shows {leaked}"


@settings(max_examples=len(CASES) * 2, deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(case=st.sampled_from(CASES), seed=st.integers(0, 10_000))
def test_random_games(case: tuple[str, int], seed: int) -> None:
    name, players = case
    g = make(name, players, seed)
    rng = random.Random(seed)
    deals = 0
    while not g.over:
        assert deals < MAX_DEALS, "game did not end"
        before_scores = list(g.scores)
        g.deal()
        deals += 1
        steps = 0
        while g.to_act is not None:
            assert conserved(g)
            legal = g.legal_actions()
            assert legal and len(set(map(str, legal))) == len(legal)
            if steps % 7 == 0:
                hidden_cards_absent(g)
            # a random illegal attempt is refused by check() and apply() alike, no change
            hand = g.hands[g.to_act]
            probe = "play " + rng.choice(list(card_table(g.ruleset).valid))
            message = g.check(probe)
            if message is not None:
                snapshot = (json.dumps(g.view(None)), len(g.log))
                try:
                    g.apply(probe)
                    raise AssertionError("apply accepted what check refused")
                except IllegalAction as exc:
                    assert str(exc) == message
                assert (json.dumps(g.view(None)), len(g.log)) == snapshot
            action = rng.choice(legal)
            assert g.check(str(action)) is None
            g.apply(str(action) if steps % 2 else action)
            steps += 1
            assert steps < 2000
            del hand
        result = g.last_deal
        assert result is not None
        for seat in range(players):
            if seat in result.cleared:
                assert g.scores[seat] == 0
            else:
                assert g.scores[seat] >= before_scores[seat]
        assert conserved(g)
    assert g.phase == "over" and g.ranking is not None
    assert sorted(g.ranking) == list(range(players))
    restored = Game.from_json(json.loads(json.dumps(g.to_json())))
    for seat in [None, *range(players)]:
        assert restored.view(seat) == g.view(seat)
    assert restored.scores == g.scores and restored.deal_log == g.deal_log


@settings(max_examples=15, deadline=None)
@given(case=st.sampled_from(CASES), seed=st.integers(0, 10_000), cut=st.integers(1, 300))
def test_replay_mid_game(case: tuple[str, int], seed: int, cut: int) -> None:
    """Restoring from JSON in the middle of a deal gives the same state and views."""
    name, players = case
    g = make(name, players, seed)
    rng = random.Random(seed)
    g.deal()
    for _ in range(cut):
        if g.over:
            break
        if g.to_act is None:
            g.deal()
            continue
        g.apply(rng.choice(g.legal_actions()))
    restored = Game.from_json(json.loads(json.dumps(g.to_json())))
    for seat in [None, *range(players)]:
        assert restored.view(seat) == g.view(seat)
    assert [str(a) for a in restored.legal_actions()] == [str(a) for a in g.legal_actions()]
    assert restored.hands == g.hands and restored.stock == g.stock


def follow_allowed_by_the_seed(hand: list[str], card: str, height: dict[str, int],
                               high: int, after_lowest: int | None, soft: bool) -> bool:
    """RULES.md §4.2/§4.4 for a one-card follow in gurka-is, written out on its own: beat
    (equal or higher), or play the lowest card, or (soft discard) when the play just before
    was its player's lowest card that did not beat and this player cannot beat, any card
    above that discard."""
    if height[card] >= high or height[card] == min(height[c] for c in hand):
        return True
    can_beat = max(height[c] for c in hand) >= high
    return soft and after_lowest is not None and not can_beat and height[card] > after_lowest


GURKA_IS_OPTIONS = [
    {"soft_discard": True},
    {"soft_discard": True, "black_sevens": True},
    {"deal_schedule": "zigzag"},
    {"deal_schedule": "zigzag", "soft_discard": True, "exchange": True},
    {"black_sevens": True, "deal_schedule": "zigzag", "hand_sizes": (9,)},
]


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(options=st.sampled_from(GURKA_IS_OPTIONS), players=st.integers(2, 5),
       seed=st.integers(0, 10_000))
def test_bots_play_gurka_is_options_by_the_seed(options: dict[str, Any], players: int,
                                                seed: int) -> None:
    """Heuristic and random bots play whole games with the seed-001 options: every follow is
    one the seed allows, black sevens score 21 each, and the zig-zag schedule goes down and
    up by one card (over again from the top after a 1)."""
    g = new_game("gurka-is", players=players, seed=seed, **options)
    r = g.ruleset
    height = card_table(r).height
    bots = [HeuristicBot(seed), RandomBot(seed)]
    start = max(r.hand_sizes)
    sizes: list[int] = []
    soft_plays = 0
    while not g.over:
        assert len(sizes) < MAX_DEALS
        g.deal()
        sizes.append(g.hand_size)
        after_lowest: int | None = None
        while g.to_act is not None:
            seat = g.to_act
            action = bots[(seat + len(sizes)) % 2].choose(g)
            assert action in g.legal_actions()
            trick = g.trick
            following = (g.phase == "play" and trick is not None and trick.pos > 0
                         and not trick.final)
            if g.phase == "play" and trick is not None and trick.pos == 0:
                after_lowest = None
            hand = list(g.hands[seat])
            if following:
                assert trick is not None
                card = action.cards[0]
                assert follow_allowed_by_the_seed(hand, card, height, trick.high,
                                                  after_lowest, r.soft_discard), (hand, card)
                lowest = height[card] == min(height[c] for c in hand)
                beats = height[card] >= trick.high
                soft_plays += not lowest and not beats
                after_lowest = height[card] if lowest and not beats else None
            g.apply(action)
        deal = g.last_deal
        assert deal is not None
        for card, points in zip(deal.cards, deal.points):
            if card in r.top_cards:
                assert points == 21
    assert soft_plays == 0 or r.soft_discard
    if r.deal_schedule == "zigzag":
        assert sizes[0] == start and all(1 <= n <= start for n in sizes)
        for a, b in pairwise(sizes):
            assert abs(a - b) == 1 or (a == 1 and b == start), sizes
