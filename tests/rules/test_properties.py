"""Random games of every preset and player count (Hypothesis): conservation of cards, only
legal actions applied, check() agrees with apply(), scores grow except an exact clear, games
end, views hide what they must, JSON round trip and replay reproduce the game."""

from __future__ import annotations

import json
import random
from collections import Counter

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.rules import PRESETS, Game, IllegalAction, new_game
from app.rules.cards import card_table

CASES = [(name, n) for name, r in PRESETS.items()
         for n in range(r.min_players, r.max_players + 1)]
CASES.append(("vidivellir-2decks", 4))
MAX_DEALS = 400


def make(case: str, players: int, seed: int) -> Game:
    if case == "vidivellir-2decks":
        return new_game("vidivellir", players=players, seed=seed, decks=2)
    return new_game(case, players=players, seed=seed)


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
    for seat in [None, *range(g.players)]:
        view = g.view(seat)
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
