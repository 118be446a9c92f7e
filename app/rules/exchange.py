"""Before the play: the exchange with the stock (RULES.md §5) and Rassi's free, double and
redouble rounds (§6). Each seat is asked in turn from forhånd; the play starts when nobody is
left to ask (or the stock cannot serve the next one)."""

from __future__ import annotations

from app.rules.actions import Action
from app.rules.play import start_play
from app.rules.state import GameState
from app.rules.text import Text

KEEP = Action("exchange")
PASS = Action("pass")
RASSI_ROUNDS = (("rassi_free", "free"), ("rassi_double", "double"),
                ("rassi_redouble", "redouble"))
RASSI_ACTION = {"free": Action("free"), "double": Action("double"),
                "redouble": Action("redouble")}
RASSI_WORDS = {"free": Text("Now is the free round: free cards (exchange all your cards) or pass"),
               "double": Text("Now is the double round: double (exchange all your cards, losing scores ×2) or pass"),
               "redouble": Text("Now is the redouble round: redouble (exchange all your cards again, "
                                "losing scores ×4) or pass")}


def advance_exchange(game: GameState) -> None:
    while game._queue:
        seat = game._queue.pop(0)
        limit = min(game._prev_exchange, len(game.stock))
        if limit > 0:
            game.to_act = seat
            game.exchange_limit = limit
            return
        game._queue.clear()
    game.exchange_limit = None
    start_play(game)


def advance_rassi(game: GameState) -> None:
    while True:
        while game._queue:
            seat = game._queue.pop(0)
            if len(game.stock) >= game.hand_size:
                game.to_act = seat
                return
            game._queue.clear()
        game._rassi_round += 1
        if game._rassi_round == 1:
            game.phase = "rassi_double"
            game._queue = game._seats_from(game.forehand)
        elif game._rassi_round == 2:
            game.phase = "rassi_redouble"
            doubled = set(game.rassi_taken["double"])
            game._queue = [s for s in game._seats_from(game.forehand) if s in doubled]
        else:
            start_play(game)
            return


def _draw(game: GameState, n: int) -> list[str]:
    drawn = game.stock[:n]
    del game.stock[:n]
    return drawn


def apply_exchange(game: GameState, seat: int, action: Action) -> None:
    hand = game.hands[seat]
    for card in action.cards:
        hand.remove(card)
    n = len(action.cards)
    game.exchanged_away.extend(action.cards)
    game.gave[seat].extend(action.cards)
    hand.extend(_draw(game, n))
    game.hands[seat] = game._table.sort(hand)
    game.exchanges.append((seat, n))
    game._prev_exchange = n
    advance_exchange(game)


def apply_rassi(game: GameState, seat: int, action: Action) -> None:
    if action.kind != "pass":
        game.exchanged_away.extend(game.hands[seat])
        game.gave[seat].extend(game.hands[seat])
        game.hands[seat] = game._table.sort(_draw(game, game.hand_size))
        game.rassi_taken[action.kind].append(seat)
        if action.kind == "double":
            game.multipliers[seat] = 2
        elif action.kind == "redouble":
            game.multipliers[seat] = 4
    advance_rassi(game)
