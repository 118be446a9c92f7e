"""Golden walks: one whole deal per preset, card by card from explicit hands, with the exact
legal set at every step, each trick's winner, the penalty, the scores and the next dealer.

Every expected legal set below was worked out by hand from RULES.md, not printed by the engine.
"""

from __future__ import annotations

from itertools import combinations

import pytest

from app.rules import IllegalAction, new_game
from app.rules.game import Game

Step = tuple[int, str, set[str]] | tuple[str, int]


def plays(*cards: str) -> set[str]:
    return {f"play {c}" for c in cards}


def walk(game: Game, steps: list[Step]) -> None:
    """(seat, action, legal) steps; ("trick", winner) checks the trick just finished."""
    for step in steps:
        if step[0] == "trick":
            assert game.last_trick is not None
            assert game.last_trick.winner == step[1], f"trick winner at {step}"
            continue
        seat, action, legal = step  # type: ignore[misc]
        assert game.to_act == seat, f"to_act before {action!r}"
        assert {str(a) for a in game.legal_actions()} == legal, f"legal set before {action!r}"
        game.apply(action, seat=seat)


def test_gurka_night_deal() -> None:
    """7 cards, beat strictly higher or discard lowest; 8 led: lowest; final trick (§3)."""
    g = new_game("gurka-night", players=3, seed=1, dealer=0)
    g.deal(hands=[
        ["2C", "5D", "8H", "9S", "JC", "KD", "X1"],
        ["3C", "4D", "8S", "TH", "QC", "AS", "X2"],
        ["2D", "6C", "7H", "9C", "JD", "QH", "AH"],
    ])
    assert (g.phase, g.forehand, g.to_act) == ("play", 1, 1)
    walk(g, [
        (1, "play 8S", plays("3C", "4D", "8S", "TH", "QC", "AS", "X2")),
        (2, "play 2D", plays("2D")),                      # an 8 was led: lowest only
        (0, "play 2C", plays("2C")),
        ("trick", 1),
        (1, "play TH", plays("3C", "4D", "TH", "QC", "AS", "X2")),
        (2, "play JD", plays("6C", "JD", "QH", "AH")),
        (0, "play 5D", plays("5D", "KD", "X1")),          # J♣ equal does not beat
        ("trick", 2),
        (2, "play 9C", plays("6C", "7H", "9C", "QH", "AH")),
        (0, "play X1", plays("8H", "JC", "KD", "X1")),
        (1, "play 3C", plays("3C")),                      # X2 equal to X1 does not beat
        ("trick", 0),
        (0, "play 8H", plays("8H", "9S", "JC", "KD")),
        (1, "play 4D", plays("4D")),
        (2, "play 6C", plays("6C")),
        ("trick", 0),
        (0, "play 9S", plays("9S", "JC", "KD")),
        (1, "play AS", plays("QC", "AS", "X2")),
        (2, "play 7H", plays("7H")),                      # A♥ only ties A♠: no beat
        ("trick", 1),
        (1, "play QC", plays("QC", "X2")),
        (2, "play QH", plays("QH", "AH")),                # lowest Q♥ ties Q♣ ...
        (0, "play JC", plays("JC", "KD")),
        ("trick", 2),                                     # ... and the later tie wins
        (2, "play AH", plays("AH")),                      # final trick, card by card
        (0, "play KD", plays("KD")),
        (1, "play X2", plays("X2")),
        ("trick", 1),
    ])
    result = g.last_deal
    assert result is not None
    assert result.losers == (1,) and result.cards == ("X2",) and result.points == (15,)
    assert result.agurk == (1,)
    assert result.final_cards == ("KD", "X2", "AH")
    assert g.scores == [0, 15, 0]
    assert g.penalty_cards == [[], ["X2"], []]
    assert g.agurk == [0, 1, 0]
    assert (g.phase, g.to_act, g.dealer, g.forehand) == ("waiting", None, 1, 2)


def test_gurka_is_deal() -> None:
    """Multi-card lead, equal beats, sit-out with one card, show, 6♣ exactly 21 clears."""
    g = new_game("gurka-is", players=3, seed=1, dealer=0, hand_sizes=(6, 5, 4, 3, 2, 1))
    g.deal(hands=[
        ["4C", "5D", "7S", "9D", "JC", "AD"],
        ["2D", "2H", "2S", "9H", "KH", "AC"],
        ["3C", "4H", "8D", "QH", "KD", "6C"],
    ])
    walk(g, [
        (1, "play 2S 2H", plays("2D", "2H", "2S", "9H", "KH", "AC",
                                "2D 2H", "2D 2S", "2H 2S", "2D 2H 2S")),
        (2, "play 3C", plays("3C", "4H", "8D", "QH", "KD", "6C")),
        (0, "play 4C", plays("4C", "5D", "7S", "9D", "JC", "AD")),
        ("trick", 0),
        (0, "play JC", plays("5D", "7S", "9D", "JC", "AD")),
        (1, "play 2D", plays("2D", "KH", "AC")),
        (2, "play KD", plays("4H", "QH", "KD", "6C")),
        ("trick", 2),
        (2, "play 4H", plays("4H", "8D", "QH", "6C")),
        (0, "play 9D", plays("5D", "7S", "9D", "AD")),
        (1, "play 9H", plays("9H", "KH", "AC")),          # equal beats, later wins
        ("trick", 1),
        (1, "play KH", plays("KH", "AC")),                # 2 cards: only single leads
        (2, "play 8D", plays("8D", "6C")),
        (0, "play AD", plays("5D", "AD")),
        ("trick", 0),
        # seat 1 holds only A♣ now and sits out
        (0, "play 7S", plays("5D", "7S")),
        (2, "play QH", plays("QH", "6C")),
        ("trick", 2),
    ])
    assert g.log[1] == {"seat": 1, "action": "play 2H 2S"}      # canonical card order
    result = g.last_deal
    assert result is not None
    assert result.final_cards == ("5D", "AC", "6C")
    assert result.losers == (2,) and result.cards == ("6C",) and result.points == (21,)
    assert result.cleared == (2,)                          # an empty pile + 6♣ = exactly 21
    assert g.scores == [0, 0, 0] and g.penalty_cards == [[], [], []]
    assert (g.dealer, g.forehand, g.next_hand_size()) == (1, 2, 5)


def test_gurka_is_soft_discard_deal() -> None:
    """Seed 001's soft discard example, played out (§4.4): Baldur leads Q, Sunna discards 3,
    Jón may play 5 and keep 2. Jón = seat 0, Baldur = seat 1 (forhönd), Sunna = seat 2."""
    g = new_game("gurka-is", players=3, seed=1, dealer=0, hand_sizes=(4,), soft_discard=True)
    g.deal(hands=[
        ["2S", "5D", "6H", "JC"],
        ["QH", "4C", "8C", "AD"],
        ["3S", "7D", "TD", "JD"],
    ])
    walk(g, [
        (1, "play QH", plays("4C", "8C", "QH", "AD")),
        (2, "play 3S", plays("3S")),                      # nothing reaches the Q: lowest
        (0, "play 5D", plays("2S", "5D", "6H", "JC")),    # soft: anything above the 3
        ("trick", 1),
    ])
    assert g.hands[0] == ["2S", "6H", "JC"]              # Jón kept his 2
    walk(g, [
        (1, "play AD", plays("4C", "8C", "AD")),
        (2, "play 7D", plays("7D")),
        (0, "play JC", plays("2S", "JC")),                # 6♥ is neither lowest nor above 7♦
        ("trick", 1),
        (1, "play 8C", plays("4C", "8C")),
        (2, "play TD", plays("TD", "JD")),                # both beat: no discard before
        (0, "play 2S", plays("2S")),                      # after a beat: lowest only
        ("trick", 2),
    ])
    assert [p[2] for p in g.last_trick.plays] == ["lead", "beat", "discard"]  # type: ignore[union-attr]
    result = g.last_deal
    assert result is not None
    assert result.final_cards == ("6H", "4C", "JD")
    assert result.losers == (2,) and result.cards == ("JD",) and result.points == (11,)
    assert g.scores == [0, 0, 11]
    assert (g.dealer, g.forehand) == (1, 2)


def exchange_set(hand: list[str], most: int) -> set[str]:
    out = {"exchange"}
    for k in range(1, most + 1):
        out |= {"exchange " + " ".join(c) for c in combinations(hand, k)}
    return out


def test_vidivellir_deal() -> None:
    """Exchange (§5), a pair lead, a pair kill, a lay-on, singles, final trick, loser deals."""
    g = new_game("vidivellir", players=3, seed=1, dealer=0)
    g.deal(
        hands=[
            ["3S", "4D", "6H", "TC", "TH", "QD", "7S"],
            ["2C", "3D", "5H", "8C", "8D", "QS", "KH"],
            ["2D", "5C", "6S", "9C", "9H", "JD", "AS"],
        ],
        stock=["9S", "4C", "7C", "TD", "3H"],
    )
    assert (g.phase, g.to_act) == ("exchange", 1)
    hand1 = ["2C", "3D", "5H", "8C", "8D", "QS", "KH"]
    assert {str(a) for a in g.legal_actions()} == exchange_set(hand1, 5)
    assert len(g.legal_actions()) == 120
    g.apply("exchange KH QS", seat=1)
    assert g.hands[1] == ["2C", "3D", "4C", "5H", "8C", "8D", "9S"]
    assert (g.to_act, g.exchange_limit) == (2, 2)
    hand2 = ["2D", "5C", "6S", "9C", "9H", "JD", "AS"]
    assert {str(a) for a in g.legal_actions()} == exchange_set(hand2, 2)
    with pytest.raises(IllegalAction, match="at most 2 cards: the player before you exchanged 2"):
        g.apply("exchange 2D 5C 6S")
    g.apply("exchange AS", seat=2)
    assert g.hands[2] == ["2D", "5C", "6S", "9C", "9H", "JD", "7C"]
    assert (g.to_act, g.exchange_limit) == (0, 1)
    hand0 = ["3S", "4D", "6H", "TC", "TH", "QD", "7S"]
    assert {str(a) for a in g.legal_actions()} == exchange_set(hand0, 1)
    g.apply("exchange", seat=0)
    assert g.phase == "play" and g.to_act == 1
    assert g.stock == ["TD", "3H"]
    assert sorted(g.exchanged_away) == ["AS", "KH", "QS"]
    assert g.view(0)["exchange"]["done"] == [
        {"seat": 1, "count": 2}, {"seat": 2, "count": 1}, {"seat": 0, "count": 0}]

    walk(g, [
        (1, "play 8C 8D", plays("2C", "3D", "4C", "5H", "8C", "8D", "9S", "8C 8D")),
        (2, "play 9C 9H", plays("9C 9H", "9C JD", "9C 7C", "9H JD", "9H 7C", "JD 7C",
                                "2D 5C")),
    ])
    with pytest.raises(IllegalAction, match="A pair can only be killed by a pair"):
        g.apply("play 7S", seat=0)
    walk(g, [
        (0, "play QD 7S", plays("TC TH", "TC QD", "TC 7S", "TH QD", "TH 7S", "QD 7S",
                                "3S 4D")),
        ("trick", 2),
    ])
    assert [p[2] for p in g.last_trick.plays] == ["lead", "kill", "lay_on"]  # type: ignore[union-attr]
    walk(g, [
        (2, "play JD", plays("2D", "5C", "6S", "JD", "7C")),
        (0, "play 3S", plays("3S")),
        (1, "play 2C", plays("2C")),
        ("trick", 2),
        (2, "play 2D", plays("2D", "5C", "6S", "7C")),
        (0, "play TH", plays("4D", "6H", "TC", "TH")),
        (1, "play 3D", plays("3D")),
        ("trick", 0),
        (0, "play 6H", plays("4D", "6H", "TC")),
        (1, "play 9S", plays("4C", "9S")),
        (2, "play 7C", plays("5C", "7C")),
        ("trick", 2),
        (2, "play 5C", plays("5C", "6S")),
        (0, "play TC", plays("4D", "TC")),
        (1, "play 4C", plays("4C")),
        ("trick", 0),
        (0, "play 4D", plays("4D")),                      # final trick: singles
        (1, "play 5H", plays("5H")),
        (2, "play 6S", plays("6S")),
        ("trick", 2),
    ])
    result = g.last_deal
    assert result is not None
    assert result.losers == (2,) and result.cards == ("6S",) and result.points == (6,)
    assert g.scores == [0, 0, 6]
    assert (g.phase, g.dealer, g.forehand) == ("waiting", 2, 0)   # the loser deals


def test_kurkku_deal() -> None:
    """Must beat when able, equal beats, show the last cards (§3)."""
    g = new_game("kurkku", players=3, seed=1, dealer=0)
    g.deal(hands=[
        ["4C", "7D", "8S", "JD", "QH", "KS"],
        ["2C", "5D", "9H", "JS", "QD", "AC"],
        ["3C", "6D", "9S", "TH", "KD", "AH"],
    ])
    walk(g, [
        (1, "play 9H", plays("2C", "5D", "9H", "JS", "QD", "AC")),
        (2, "play 9S", plays("9S", "TH", "KD", "AH")),
        (0, "play JD", plays("JD", "QH", "KS")),
        ("trick", 0),
        (0, "play KS", plays("4C", "7D", "8S", "QH", "KS")),
        (1, "play AC", plays("AC")),
        (2, "play AH", plays("AH")),
        ("trick", 2),
        (2, "play 3C", plays("3C", "6D", "TH", "KD")),
        (0, "play 4C", plays("4C", "7D", "8S", "QH")),
        (1, "play QD", plays("5D", "JS", "QD")),
        ("trick", 1),
        (1, "play JS", plays("2C", "5D", "JS")),
        (2, "play KD", plays("KD")),
        (0, "play 7D", plays("7D")),                      # cannot beat: lowest
        ("trick", 2),
        (2, "play TH", plays("6D", "TH")),
        (0, "play QH", plays("QH")),
        (1, "play 2C", plays("2C")),
        ("trick", 0),
    ])
    result = g.last_deal
    assert result is not None
    assert result.final_cards == ("8S", "5D", "6D")
    assert result.losers == (0,) and result.cards == ("8S",) and result.points == (8,)
    assert g.scores == [8, 0, 0]
    assert (g.dealer, g.forehand) == (1, 2)


def test_rassi_deal() -> None:
    """Free cards / double / redouble offers, ×2 for the doubler, ace low in the final cards."""
    g = new_game("rassi", players=3, seed=1, dealer=0)
    g.deal(
        hands=[
            ["3D", "4H", "5S", "8C", "QC", "AH"],
            ["2C", "3C", "5D", "8H", "9S", "TC"],
            ["4D", "6H", "7C", "JH", "KS", "AD"],
        ],
        stock=["2D", "4S", "6C", "9D", "AC", "AS", "TH", "3S", "2S", "5C", "7D", "9C"],
    )
    # free cards: only seat 1 was dealt no J, Q or K
    assert (g.phase, g.to_act) == ("rassi_free", 1)
    walk(g, [(1, "pass", {"free", "pass"})])
    assert g.phase == "rassi_double"
    walk(g, [
        (1, "pass", {"double", "pass"}),
        (2, "double", {"double", "pass"}),
        (0, "pass", {"double", "pass"}),
    ])
    assert g.hands[2] == ["2D", "4S", "6C", "9D", "AC", "AS"]
    assert g.phase == "rassi_redouble"
    walk(g, [(2, "pass", {"redouble", "pass"})])
    assert g.phase == "play" and g.multipliers == [1, 1, 2]
    assert g.view(1)["rassi"] == {"free": [], "double": [2], "redouble": []}
    walk(g, [
        (1, "play 2C", plays("2C", "3C", "5D", "8H", "9S", "TC")),
        (2, "play 2D", plays("2D", "4S", "6C", "9D", "AC", "AS")),
        (0, "play 3D", plays("3D", "4H", "5S", "8C", "QC", "AH")),
        ("trick", 0),
        (0, "play QC", plays("4H", "5S", "8C", "QC", "AH")),
        (1, "play 3C", plays("3C")),
        (2, "play AC", plays("AC", "AS")),
        ("trick", 2),
        (2, "play 4S", plays("4S", "6C", "9D", "AS")),
        (0, "play 4H", plays("4H", "5S", "8C", "AH")),
        (1, "play TC", plays("5D", "8H", "9S", "TC")),
        ("trick", 1),
        (1, "play 5D", plays("5D", "8H", "9S")),
        (2, "play 6C", plays("6C", "9D", "AS")),
        (0, "play 8C", plays("8C", "AH")),
        ("trick", 0),
        (0, "play 5S", plays("5S", "AH")),
        (1, "play 9S", plays("8H", "9S")),
        (2, "play AS", plays("9D", "AS")),
        ("trick", 2),
    ])
    result = g.last_deal
    assert result is not None
    assert result.final_cards == ("AH", "8H", "9D")        # A♥ is 1 among the final cards
    assert result.losers == (2,) and result.cards == ("9D",)
    assert result.multipliers == (2,) and result.points == (18,)
    assert g.scores == [0, 0, 18]
    assert (g.dealer, g.forehand) == (1, 2)
