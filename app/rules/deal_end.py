"""The end of a deal (RULES.md §3): who takes which penalty card for how many points, who has
gone agurk, who goes out, whether the game is over, and the next deal's dealer."""

from __future__ import annotations

from app.rules import scoring
from app.rules.cards import is_joker
from app.rules.scoring import DealResult
from app.rules.state import GameState


def end_deal(game: GameState) -> None:
    r = game.ruleset
    n = game.players
    table = game._table
    final: dict[int, str] = {}
    trick = game.trick
    if r.deal_end == "final_trick" and trick is not None and trick.final:
        for seat, played_cards, _ in trick.plays:
            final[seat] = played_cards[0]
        losers = [trick.winner]
    else:
        for seat in game._active:
            final[seat] = game.hands[seat][0]
            game.played.append(game.hands[seat][0])
        losers = scoring.losers_by_show(final, table.final_height, game.forehand, n)
    cards = [final[s] for s in losers]
    mults = [game.multipliers[s] for s in losers]
    points = [table.final_points(c) * m for c, m in zip(cards, mults)]
    cleared: list[int] = []
    for seat, card, pts in zip(losers, cards, points):
        game.scores[seat] += pts
        game.penalty_cards[seat].append(card)
        if r.exact_clear and game.scores[seat] == r.target:
            game.scores[seat] = 0
            game.penalty_cards[seat] = []
            cleared.append(seat)
    agurk = [s for s in scoring.order_from(0, list(final), n) if is_joker(final[s])]
    for seat in agurk:
        game.agurk[seat] += 1
    going = [s for s in game._active if scoring.is_out(game.scores[s], r)]
    start = game.forehand
    going.sort(key=lambda s: (-game.scores[s], (s - start) % n))
    game.out.extend(going)
    game._out_set.update(going)
    game._active = [s for s in range(n) if s not in game._out_set]
    result = DealResult(
        deal_no=game.deal_no, dealer=game.dealer, losers=tuple(losers), cards=tuple(cards),
        points=tuple(points), multipliers=tuple(mults), agurk=tuple(agurk),
        final_cards=tuple(final.get(s) for s in range(n)), cleared=tuple(cleared),
        went_out=tuple(going),
    )
    game.deal_log.append(result)
    game.hands = [[] for _ in range(n)]
    game.trick = None
    game.to_act = None
    game._legal = None
    if scoring.game_is_over(r, going, game.out, n):
        game.over = True
        game.phase = "over"
        game.ranking = scoring.ranking_when_over(r, game.scores, game.out, n)
        return
    game.phase = "waiting"
    game.dealer = scoring.next_dealer(r, game.dealer, tuple(losers), game._out_set, n)
    game.forehand = scoring.next_active(game.dealer, game._out_set, n)
