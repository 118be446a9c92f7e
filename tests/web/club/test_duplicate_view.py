"""A table's game read deal by deal for the comparison (`duplicate_view.deals_of`): a game
played from known decks by bots, each deal's hands by place from forhånd, who took which
penalty card for how many points, who went out or got an agurk, and the final trick, checked
against the game's own deal log."""

from __future__ import annotations

import random

from app.rooms import engine
from app.rooms.replay import build_stories
from app.rules import bots
from app.web.club.duplicate_view import deals_of

PLAYERS = ["Ann", "Bo", "Cy"]


def played_game(seed: int) -> tuple[list[tuple[int | None, str, dict[str, object], None]], list[list[str]]]:
    """A room's event log of one `gurka-night` game dealt from fixed decks, bots at every seat."""
    rng = random.Random(seed)
    decks = [engine.shuffled_deck("gurka-night", 3, rng) for _ in range(40)]
    game = engine.make_game("gurka-night", 3, 1, {})
    players = [bots.BOTS["heuristic"](seed * 10 + s) for s in range(3)]
    events: list[tuple[int | None, str, dict[str, object], None]] = [
        (0, "start", {"players": PLAYERS, "dealer": 1}, None)]
    while not game.over:
        if game.to_act is None:
            events.append((None, "deal", engine.deal(game, rng, decks[game.deal_no]), None))
            continue
        seat = game.to_act
        action = str(players[seat].choose(game))
        engine.apply(game, action, seat)
        events.append((seat, "act", {"action": action}, None))
    return events, decks


def test_each_deal_of_a_game_reads_as_the_game_logged_it() -> None:
    tricks = 0
    for seed in (1, 2, 3):
        events, decks = played_game(seed)
        story = build_stories("gurka-night", {}, events)[-1]
        deals = deals_of(story, "vinder", PLAYERS)
        log = story.game.deal_log
        assert [d.deal_no for d in deals] == [r.deal_no for r in log] and len(deals) >= 2
        for deal, result in zip(deals, log, strict=True):
            size = len(deal.hands[0].hand)
            for p, fate in enumerate(deal.hands):  # the deck's p-th hand, as dealt
                assert sorted(fate.hand) == sorted(decks[deal.deal_no - 1][p * size:(p + 1) * size])
            took = {PLAYERS[s]: [] for s in range(3)}
            for seat, card, points in zip(result.losers, result.cards, result.points, strict=True):
                took[PLAYERS[seat]].append((card, points))
            for fate in deal.hands:
                assert list(fate.penalty) == [c for c, _ in took[fate.player]]
                assert fate.points == sum(p for _, p in took[fate.player])
                assert fate.went_out == (PLAYERS.index(fate.player) in result.went_out)
                assert fate.agurk == (PLAYERS.index(fate.player) in result.agurk)
            out_before = {s for r in log if r.deal_no < deal.deal_no for s in r.went_out}
            assert len(deal.hands) == 3 - len(out_before) and deal.short == bool(out_before)
            if deal.deciding_trick:  # the final trick: each player still in played to it once
                tricks += 1
                assert len({p.player for p in deal.deciding_trick}) == len(deal.deciding_trick) == len(deal.hands)
    assert tricks > 0
