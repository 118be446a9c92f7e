"""The strong bot's analysis: a scripted position where one card is clearly worse gets it marked
(a blunder), the best move costs nothing, a forced move is not judged, and a whole game's
decisions are each judged from the seat's own view."""

from __future__ import annotations

import json
import re

from app.rules import new_game
from app.rules.analysis import BLUNDER, analyse, evaluate, mark_of, summarise
from app.rules.game import Game
from tests.rules.test_history import played

# gurka-night, two cards each: seat 1 (forhånd) holds a joker and the 2 of clubs. Leading the joker
# wins the trick and leaves the 2 as the final card; leading the 2 keeps the joker to the end,
# the highest final card: 15 points for sure.
HANDS = [["5H", "9D"], ["X1", "2C"], ["7S", "KC"]]


def scripted():  # type: ignore[no-untyped-def]
    game = new_game("gurka-night", players=3, dealer=0, hand_sizes=(2,))
    used = {c for h in HANDS for c in h}
    from app.rules.cards import card_table

    stock = [c for c in card_table(game.ruleset).deck if c not in used]
    game.deal(hands=HANDS, stock=stock)
    assert game.to_act == 1
    return game


def test_keeping_the_joker_to_the_end_is_a_blunder() -> None:
    game = scripted()
    view = game.view(1)
    best, cost, values = evaluate(game.ruleset, view, "play 2C", seed=1, worlds=24)
    assert best == "play X1" and cost >= BLUNDER and mark_of(cost) == "blunder"
    assert set(values) == {"play X1", "play 2C"}
    best, cost, _ = evaluate(game.ruleset, view, "play X1", seed=1, worlds=24)
    assert best == "play X1" and cost == 0.0 and mark_of(cost) is None


def test_the_analysis_of_a_scripted_deal_marks_the_blunder_only() -> None:
    game = scripted()
    game.apply("play 2C")
    while game.to_act is not None:  # the rest of the deal: the first legal move each time
        game.apply(game.legal_actions()[0])
    assert game.deal_log[-1].losers == (1,) and game.deal_log[-1].cards == ("X1",)
    judged = analyse(game, seed=2, worlds=16)
    first = judged[0]
    assert (first.seat, first.played, first.best, first.mark) == (1, "play 2C", "play X1", "blunder")
    assert all(j.step > 0 for j in judged)  # the deal itself is no decision
    summary = summarise(judged, 3)
    assert summary[1].blunders == 1 and summary[1].lost >= BLUNDER and summary[1].accuracy < 100


def test_a_whole_game_is_judged_decision_by_decision() -> None:
    game = played("kurkku", 3, 5)
    judged = analyse(game, seed=1, worlds=6)
    decisions = [e for e in game.log if "seat" in e]
    assert 0 < len(judged) <= len(decisions)
    assert all(j.cost >= 0 and (j.mark is None) == (j.cost < 3.0) for j in judged)
    assert all(j.best in j.values and j.played in j.values for j in judged)
    summary = summarise(judged, 3)
    assert sum(s.decisions for s in summary) == len(judged)


def test_decisions_judged_one_by_one_equal_the_whole_analysis() -> None:
    """What a server's bot workers do (one decision at a time, plain data in and out, picklable)
    gives the same judgement as `analyse`, and a decision carries its seat's view only."""
    import pickle

    from app.rules.analysis import decisions, judge

    game = played("gurka-night", 3, 4)
    listed = decisions(game)
    assert listed and all(len(d.view["legal"]) > 1 for d in listed)
    replay = Game(game.ruleset, game.players, dealer=game.first_dealer)  # to know the hidden hands
    by_step = {d.step: d for d in listed}
    for step, entry in enumerate(game.log):
        if "deal" in entry:
            replay.deal(hands=entry["deal"]["hands"], stock=entry["deal"]["stock"])
            continue
        if step in by_step:
            d = by_step[step]
            hidden = {c for seat, hand in enumerate(replay.hands) if seat != d.seat for c in hand}
            hidden -= set(replay.hands[d.seat])  # (two decks: the same card may be in one's own hand)
            assert d.seat == entry["seat"] and d.view["seat"] == d.seat and hidden
            own = {k: d.view[k] for k in ("hand", "legal", "why_not", "trick", "gave", "exchange")}  # this deal's
            assert not hidden & set(re.findall(r"\b(?:[2-9TJQKA][CDHS]|X\d)\b", json.dumps(own)))
        replay.apply(entry["action"], seat=entry["seat"])
    one_by_one = [pickle.loads(pickle.dumps(judge(game.ruleset, pickle.loads(pickle.dumps(d)), 3, 6)))
                  for d in listed]
    whole = analyse(game, seed=3, worlds=6)
    assert [(j.step, j.best, j.cost, j.mark) for j in one_by_one if j is not None] == \
        [(j.step, j.best, j.cost, j.mark) for j in whole]


def test_a_time_limit_stops_sampling_but_plays_out_one_world_at_least() -> None:
    game = scripted()
    best, cost, values = evaluate(game.ruleset, game.view(1), "play 2C", seed=1, worlds=10_000, seconds=0.0)
    assert best == "play X1" and values and cost >= BLUNDER
