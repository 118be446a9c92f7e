"""What the seat to act may do now, and why anything else is refused: every legal action of
the phase (tricks.py for the play), the legal action a caller meant (by its text), and the
refusal in words."""

from __future__ import annotations

from itertools import combinations

from app.rules import tricks
from app.rules.actions import Action, IllegalAction, parse_action
from app.rules.cards import pretty
from app.rules.exchange import KEEP, PASS, RASSI_ACTION, RASSI_ROUNDS, RASSI_WORDS
from app.rules.state import GameState
from app.rules.text import Text


def compute_legal(game: GameState) -> list[Action]:
    seat = game.to_act
    game._legal_by_text = None
    if seat is None:
        return []
    phase = game.phase
    hand = game.hands[seat]
    if phase == "play":
        trick = game.trick
        assert trick is not None
        if trick.pos == 0:
            return tricks.lead_options(hand, trick, game._table, game.ruleset)
        if trick.final:
            return [tricks.play_one(hand[0])]
        return tricks.follow_options(hand, trick, game._table, game.ruleset)
    if phase == "exchange":
        out = [KEEP]
        for k in range(1, (game.exchange_limit or 0) + 1):
            out.extend(Action("exchange", c) for c in dict.fromkeys(combinations(hand, k)))
        return out
    kind = RASSI_ROUNDS[game._rassi_round][1]
    return [RASSI_ACTION[kind], PASS]


def resolve(game: GameState, action: Action | str,
            seat: int | None) -> tuple[Action | None, str | None]:
    """Find the legal action meant, or say why there is none."""
    if game.over:
        return None, Text("The game is over")
    if game.phase == "waiting" or game.to_act is None:
        return None, Text("No deal in progress: deal first")
    if seat is not None and seat != game.to_act:
        return None, Text("It is not your turn: waiting for seat %(seat)s", seat=game.to_act)
    try:
        parsed = parse_action(action) if isinstance(action, str) else action
    except IllegalAction as exc:
        return None, exc.args[0] if exc.args and isinstance(exc.args[0], Text) else str(exc)
    for card in parsed.cards:
        if card not in game._table.valid:
            return None, Text("%(card)s is not a card of this game (rank 2-9 T J Q K A + "
                              "suit C D H S, jokers X1 X2)", card=repr(card))
    canonical = parsed if len(parsed.cards) < 2 else Action(parsed.kind, tuple(game._table.sort(parsed.cards)))
    if game.phase == "exchange" and game._legal is None:
        hand = game.hands[game.to_act]
        if (canonical.kind == "exchange" and len(canonical.cards) <= (game.exchange_limit or 0)
                and tricks.missing_card(canonical.cards, hand) is None):
            return canonical, None
        return None, _explain(game, canonical)
    if game._legal is None:
        game._legal = compute_legal(game)
    if game._legal_by_text is None:
        game._legal_by_text = {a.text: a for a in game._legal}
    found = game._legal_by_text.get(canonical.text)
    if found is not None:
        return found, None
    return None, _explain(game, canonical)


def _explain(game: GameState, action: Action) -> str:
    seat = game.to_act
    assert seat is not None
    hand = game.hands[seat]
    phase = game.phase
    if phase == "play":
        if action.kind != "play":
            return Text("Now is the play: play a card (play C)")
        if not action.cards:
            return Text("Say which card to play (play C)")
        missing = tricks.missing_card(action.cards, hand)
        if missing is not None:
            return Text("You don't hold %(card)s", card=pretty(missing))
        trick = game.trick
        assert trick is not None
        if trick.pos == 0:
            return tricks.explain_lead(action.cards, hand, trick, game._table, game.ruleset)
        return tricks.explain_follow(action.cards, hand, trick, game._table, game.ruleset)
    if phase == "exchange":
        if action.kind != "exchange":
            return Text("Now is the exchange: exchange some cards, or keep your hand (exchange)")
        missing = tricks.missing_card(action.cards, hand)
        if missing is not None:
            return Text("You don't hold %(card)s", card=pretty(missing))
        limit = game.exchange_limit or 0
        if game.exchanges and game._prev_exchange == limit:
            reason = Text("the player before you exchanged %(n)s", n=game._prev_exchange)
        elif len(game.stock) == 1:
            reason = Text("the stock has %(n)s card", n=len(game.stock))
        else:
            reason = Text("the stock has %(n)s cards", n=len(game.stock))
        return Text("You may exchange at most %(limit)s cards: %(reason)s", limit=limit, reason=reason)
    kind = RASSI_ROUNDS[game._rassi_round][1]
    return RASSI_WORDS[kind]
