"""Per-seat views: everything a seat may see and nothing else (ARCHITECTURE.md "Rooms",
ENGINE_API.md "view"). Other seats' hands, the stock, the seed and the log never appear."""

from __future__ import annotations

from typing import Any, Protocol

from app.rules.actions import Action
from app.rules.ruleset import Ruleset
from app.rules.scoring import DealResult
from app.rules.tricks import Trick, play_one


class Game(Protocol):
    """The public surface of `app.rules.game.Game` that a view reads (the game builds its views
    with this module, so this module does not import it back)."""

    @property
    def ruleset(self) -> Ruleset: ...
    @property
    def players(self) -> int: ...
    @property
    def phase(self) -> str: ...
    @property
    def deal_no(self) -> int: ...
    @property
    def hand_size(self) -> int: ...
    @property
    def dealer(self) -> int: ...
    @property
    def forehand(self) -> int: ...
    @property
    def to_act(self) -> int | None: ...
    @property
    def hands(self) -> list[list[str]]: ...
    @property
    def stock(self) -> list[str]: ...
    @property
    def trick(self) -> Trick | None: ...
    @property
    def last_trick(self) -> Trick | None: ...
    @property
    def scores(self) -> list[int]: ...
    @property
    def penalty_cards(self) -> list[list[str]]: ...
    @property
    def agurk(self) -> list[int]: ...
    @property
    def out(self) -> list[int]: ...
    @property
    def active(self) -> list[int]: ...
    @property
    def exchange_limit(self) -> int | None: ...
    @property
    def exchanges(self) -> list[tuple[int, int]]: ...
    @property
    def rassi_taken(self) -> dict[str, list[int]]: ...
    @property
    def multipliers(self) -> list[int]: ...
    @property
    def last_deal(self) -> DealResult | None: ...
    @property
    def over(self) -> bool: ...
    @property
    def ranking(self) -> list[int] | None: ...
    @property
    def log(self) -> list[dict[str, Any]]: ...
    @property
    def deal_start(self) -> int: ...
    @property
    def gave(self) -> list[list[str]]: ...

    def legal_actions(self) -> list[Action]: ...

    def check(self, action: Action | str, seat: int | None = None) -> str | None: ...


def build_view(game: Game, seat: int | None) -> dict[str, Any]:
    """JSON-serialisable view for ``seat`` (None: a spectator, who sees no hand)."""
    own = seat_view(game, seat)
    r = game.ruleset
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
        "hand": own["hand"],
        "hand_counts": [len(h) for h in game.hands],
        "moves": public_moves(game),
        "trick": game.trick.as_dict() if game.trick is not None else None,
        "last_trick": game.last_trick.as_dict() if game.last_trick is not None else None,
        "scores": list(game.scores),
        "penalty_cards": [list(p) for p in game.penalty_cards],
        "agurk": list(game.agurk),
        "out": list(game.out),
        "active": game.active,
        "legal": own["legal"],
        "why_not": own["why_not"],
        "gave": own["gave"],
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


def public_moves(game: Game) -> list[dict[str, Any]]:
    """The moves of the deal in progress (or just finished), in order, as the table saw them:
    ``{"seat": s, "action": "play 8H"}``; an exchange shows how many cards went face down,
    not which: ``{"seat": s, "action": "exchange", "count": 2}``."""
    moves: list[dict[str, Any]] = []
    for entry in game.log[game.deal_start:]:
        text = entry["action"]
        if text.startswith("exchange"):
            moves.append({"seat": entry["seat"], "action": "exchange", "count": text.count(" ")})
        else:
            moves.append({"seat": entry["seat"], "action": text})
    return moves


def seat_view(game: Game, seat: int | None) -> dict[str, Any]:
    """What of ``build_view(game, seat)`` is the seat's own (the rest is the same for every
    viewer): its seat, its hand, its legal actions, why each other card cannot be played and
    the cards it put face down this deal (exchange, Rassi), in the order it gave them."""
    if seat is not None and not 0 <= seat < game.players:
        raise ValueError(f"seat: 0 to {game.players - 1}, not {seat}")
    own_turn = seat is not None and seat == game.to_act
    hand = list(game.hands[seat]) if seat is not None else []
    legal = [a.text for a in game.legal_actions()] if own_turn else []
    why_not: dict[str, str] = {}
    if own_turn and game.phase == "play":
        allowed = set(legal)
        for card in dict.fromkeys(hand):
            single = play_one(card)
            if single.text not in allowed:
                why_not[card] = game.check(single) or ""
    gave = list(game.gave[seat]) if seat is not None else []
    return {"seat": seat, "hand": hand, "legal": legal, "why_not": why_not, "gave": gave}
