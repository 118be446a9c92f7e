"""Per-seat views: everything a seat may see and nothing else (ARCHITECTURE.md "Rooms",
ENGINE_API.md "view"). Other seats' hands, the stock, the seed and the log never appear."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from app.rules.tricks import play_one

if TYPE_CHECKING:  # pragma: no cover
    from app.rules.game import Game


def build_view(game: Game, seat: int | None) -> dict[str, Any]:
    """JSON-serialisable view for ``seat`` (None: a spectator, who sees no hand)."""
    if seat is not None and not 0 <= seat < game.players:
        raise ValueError(f"seat: 0 to {game.players - 1}, not {seat}")
    r = game.ruleset
    own_turn = seat is not None and seat == game.to_act
    hand = list(game.hands[seat]) if seat is not None else []
    legal = [a.text for a in game.legal_actions()] if own_turn else []
    why_not: dict[str, str] = {}
    if own_turn and game.phase == "play":
        allowed = set(legal)
        for card in dict.fromkeys(hand):
            text = play_one(card).text
            if text not in allowed:
                why_not[card] = game.check(text) or ""
    last_deal = game.last_deal
    return {
        "preset": r.name,
        "players": game.players,
        "seat": seat,
        "phase": game.phase,
        "deal_no": game.deal_no,
        "hand_size": game.hand_size,
        "dealer": game.dealer,
        "forehand": game.forehand,
        "to_act": game.to_act,
        "hand": hand,
        "hand_counts": [len(h) for h in game.hands],
        "trick": game.trick.as_dict() if game.trick is not None else None,
        "last_trick": game.last_trick.as_dict() if game.last_trick is not None else None,
        "scores": list(game.scores),
        "penalty_cards": [list(p) for p in game.penalty_cards],
        "agurk": list(game.agurk),
        "out": list(game.out),
        "active": game.active,
        "legal": legal,
        "why_not": why_not,
        "exchange": {
            "max": game.exchange_limit if game.phase == "exchange" else None,
            "done": [{"seat": s, "count": n} for s, n in game.exchanges],
        },
        "rassi": {kind: list(seats) for kind, seats in game.rassi_taken.items()},
        "multipliers": list(game.multipliers),
        "stock_count": len(game.stock),
        "last_deal": last_deal.as_dict() if last_deal is not None else None,
        "target": r.target,
        "over": game.over,
        "ranking": list(game.ranking) if game.ranking is not None else None,
    }
