"""Focused tests: one rule of RULES.md §3.1 and §4–6, or one option, each."""

from __future__ import annotations

import json

import pytest

from app.rules import (
    OPTION_HELP,
    PRESETS,
    Action,
    DealResult,
    Game,
    IllegalAction,
    Ruleset,
    card_height,
    card_points,
    new_game,
    pretty,
)


def legal(g: Game) -> set[str]:
    return {str(a) for a in g.legal_actions()}


def play_out(g: Game, moves: list[str]) -> None:
    for move in moves:
        g.apply(move)


# ----------------------------------------------------------------------------- cards, §2, §3.1


def test_card_heights_and_points() -> None:
    night, vidi, rassi, gis = (PRESETS[n] for n in ("gurka-night", "vidivellir", "rassi",
                                                     "gurka-is"))
    assert card_height("AS", night) == 14 and card_height("X1", night) == 15
    assert card_height("X2", night) == card_height("X1", night)
    assert card_points("X2", night) == 15 and card_points("JC", night) == 11
    assert card_height("7S", vidi) == 16 and card_height("7C", vidi) == 17
    assert card_height("7H", vidi) == 7
    assert [card_points(c, vidi) for c in ("6D", "7H", "9S", "TC", "KD", "AS", "7S", "7C")] == \
        [6, 7, 9, 10, 10, 11, 21, 22]
    assert card_height("6C", gis) == 16 and card_points("6C", gis) == 21
    assert card_height("AD", rassi) == 14 and card_height("AD", rassi, final=True) == 1
    assert card_points("AD", rassi) == 1 and card_points("AD", rassi, final=False) == 14
    assert pretty("8H") == "8♥" and pretty("TS") == "10♠" and pretty("X1") == "Joker"


def test_action_notation_round_trip() -> None:
    a = Action("play", ("8H", "8S"))
    assert str(a) == "play 8H 8S" and a == Action("play", ("8H", "8S"))
    assert str(Action("exchange")) == "exchange" and str(Action("pass")) == "pass"
    g = new_game("kurkku", players=2, seed=3)
    g.deal()
    card = g.hands[g.to_act][0]  # type: ignore[index]
    text = "PLAY " + card.lower().replace("t", "10")
    assert g.check(text) is None
    assert g.apply(text) == Action("play", (card,))


# ----------------------------------------------------------------------------- options


def test_options_and_refusals_name_the_option() -> None:
    assert new_game("gurka-is", players=3, black_sevens=True).ruleset.top_cards == ("7S", "7C")
    assert new_game("gurka-is", players=3, black_sevens=True).ruleset.top_points == (21, 21)
    two = new_game("vidivellir", players=7, decks=2).ruleset
    assert two.hand_sizes == (14,) and two.max_players == 7 and two.decks == 2
    assert new_game("vidivellir", players=3, play_on=True).ruleset.game_end == "one_left"
    assert new_game("kurkku", players=3, target=40).ruleset.target == 40
    with pytest.raises(ValueError, match="hand_sizes: 7 players × 10 cards"):
        new_game("gurka-is", players=7, max_players=7)
    with pytest.raises(ValueError, match="players: gurka-is is for 2–5"):
        new_game("gurka-is", players=6)
    with pytest.raises(ValueError, match="players: vidivellir is for 3–6"):
        new_game("vidivellir", players=7)
    with pytest.raises(ValueError, match="exchange"):
        new_game("rassi", players=3, exchange=True)
    with pytest.raises(ValueError, match="nonsense"):
        new_game("kurkku", players=3, nonsense=1)
    with pytest.raises(ValueError, match="preset"):
        new_game("bridge", players=4)
    assert {"target", "soft_discard", "black_sevens", "decks", "play_on",
            "deal_schedule"} <= set(OPTION_HELP)
    with pytest.raises(ValueError, match="deal_schedule: must be one of cycle, zigzag"):
        new_game("gurka-is", players=3, deal_schedule="spiral")


def test_black_sevens_both_worth_21_seven_of_spades_below_clubs() -> None:
    """Seed 001: "svörtu sjöurnar … gefur 21 stig": each black seven is worth 21."""
    r = new_game("gurka-is", players=2, black_sevens=True).ruleset
    assert card_height("7S", r) < card_height("7C", r)
    assert card_height("AS", r) < card_height("7S", r)
    assert card_points("7S", r) == card_points("7C", r) == 21
    assert card_height("6C", r) == 6 and card_points("6C", r) == 6


@pytest.mark.parametrize("seven", ["7S", "7C"])
def test_black_seven_on_an_empty_pile_clears_and_on_points_is_out(seven: str) -> None:
    g = new_game("gurka-is", players=2, hand_sizes=(2,), black_sevens=True)
    d = _finish_with(g, [["2C", seven], ["3D", "4D"]], ["play 3D", "play 2C"])
    assert d.losers == (0,) and d.points == (21,) and d.cleared == (0,)
    assert g.scores == [0, 0] and g.out == [] and not g.over
    g2 = new_game("gurka-is", players=2, hand_sizes=(2,), black_sevens=True)
    g2.scores = [5, 0]
    _finish_with(g2, [["2C", seven], ["3D", "4D"]], ["play 3D", "play 2C"])
    assert g2.scores == [26, 0] and g2.out == [0] and g2.over


# ----------------------------------------------------------------------------- §4.2 following


def test_beat_or_lowest_and_message() -> None:
    g = new_game("gurka-night", players=2, hand_sizes=(3,))
    g.deal(hands=[["2C", "9D", "KS"], ["3C", "7H", "QS"]])
    g.apply("play 7H")
    assert legal(g) == {"play 2C", "play 9D", "play KS"}
    before = g.to_json()
    with pytest.raises(IllegalAction) as exc:
        g.apply("play 5C")
    assert str(exc.value) == "You don't hold 5♣"
    g2 = new_game("gurka-night", players=2, hand_sizes=(3,))
    g2.deal(hands=[["2C", "7D", "KS"], ["3C", "8H", "QS"]])
    g2.apply("play QS")
    assert g2.check("play 7D") == "You must beat Q♠ or play your lowest card (2♣)"
    assert g.to_json() == before


def test_beat_equal_switch() -> None:
    night = new_game("gurka-night", players=2, hand_sizes=(3,))
    night.deal(hands=[["2C", "9D", "KS"], ["3C", "9H", "QS"]])
    night.apply("play 9H")
    assert legal(night) == {"play 2C", "play KS"}      # equal does not beat
    kurkku = new_game("kurkku", players=2, hand_sizes=(3,))
    kurkku.deal(hands=[["2C", "9D", "KS"], ["3C", "9H", "QS"]])
    kurkku.apply("play 9H")
    assert legal(kurkku) == {"play 9D", "play KS"}     # equal beats; must beat


def test_must_beat_on_gurka_night_and_message() -> None:
    g = new_game("gurka-night", players=2, hand_sizes=(3,), must_beat=True)
    g.deal(hands=[["2C", "9D", "KS"], ["3C", "JS", "QS"]])
    g.apply("play JS")
    assert legal(g) == {"play KS"}
    assert g.check("play 2C") == "You must beat J♠ when you can"
    g2 = new_game("gurka-night", players=2, hand_sizes=(3,), must_beat=True)
    g2.deal(hands=[["2C", "9D", "TS"], ["3C", "JS", "QS"]])
    g2.apply("play JS")
    assert legal(g2) == {"play 2C"}


def test_eight_led_everyone_lowest_any_copy() -> None:
    g = new_game("gurka-night", players=3, hand_sizes=(3,))
    g.deal(hands=[["3D", "3S", "AS"], ["8C", "9C", "TC"], ["2H", "KH", "X1"]])
    g.apply("play 8C")
    assert legal(g) == {"play 2H"}
    assert g.check("play X1") == "An 8 was led: everyone plays their lowest card (2♥)"
    g.apply("play 2H")
    assert legal(g) == {"play 3D", "play 3S"}


def test_eight_led_only_in_gurka_night() -> None:
    g = new_game("gurka-is", players=2, hand_sizes=(3,))
    g.deal(hands=[["3D", "9S", "AS"], ["8C", "9C", "TC"]])
    g.apply("play 8C")
    assert legal(g) == {"play 3D", "play 9S", "play AS"}


def test_tie_later_discard_wins() -> None:
    g = new_game("gurka-night", players=3, hand_sizes=(2,))
    # dealer 0: seat 1 leads, then 2, then 0
    g.deal(hands=[["9S", "AS"], ["9C", "TC"], ["2H", "KH"]])
    g.apply("play 9C")
    g.apply("play 2H")
    assert legal(g) == {"play 9S", "play AS"}
    g.apply("play 9S")                      # lowest, ties the 9♣: later play wins
    assert g.last_trick is not None and g.last_trick.winner == 0
    assert [p[2] for p in g.last_trick.plays] == ["lead", "discard", "discard"]


def test_soft_discard_example() -> None:
    """§4.4 Baldur leads Q, Sunna discards her 3, Jón may play his 5 instead of his 2."""
    g = new_game("gurka-is", players=3, hand_sizes=(3,), soft_discard=True)
    g.deal(hands=[["2S", "5D", "9H"], ["QH", "4C", "8C"], ["3S", "7D", "TD"]])
    g.apply("play QH")        # Baldur (seat 1)
    assert legal(g) == {"play 3S"}
    g.apply("play 3S")        # Sunna (seat 2) cannot beat: her lowest
    assert legal(g) == {"play 2S", "play 5D", "play 9H"}
    g.apply("play 5D")        # Jón keeps the 2
    assert g.hands[0] == ["2S", "9H"]
    plain = new_game("gurka-is", players=3, hand_sizes=(3,))
    plain.deal(hands=[["2S", "5D", "9H"], ["QH", "4C", "8C"], ["3S", "7D", "TD"]])
    plain.apply("play QH")
    plain.apply("play 3S")
    assert legal(plain) == {"play 2S"}


def test_soft_discard_not_for_a_player_who_can_beat() -> None:
    """Jón holds K♥, which beats the Q: the soft discard is closed; beat or lowest."""
    g = new_game("gurka-is", players=3, hand_sizes=(3,), soft_discard=True)
    g.deal(hands=[["2S", "5D", "KH"], ["QH", "4C", "8C"], ["3S", "7D", "TD"]])
    play_out(g, ["play QH", "play 3S"])
    assert legal(g) == {"play 2S", "play KH"}
    assert g.check("play 5D") == "You must beat Q♥ or play your lowest card (2♠)"
    with pytest.raises(IllegalAction):
        g.apply("play 5D")
    assert g.hands[0] == ["2S", "5D", "KH"] and g.to_act == 0


def test_soft_discard_only_right_after_a_lowest_card_that_did_not_beat() -> None:
    """A soft discard opens nothing for the next player; a beat closes it (§4.4)."""
    hands = [["4C", "6D", "8H"], ["QH", "4S", "8C"], ["3S", "7D", "TD"], ["2C", "5D", "9H"]]
    g = new_game("gurka-is", players=4, hand_sizes=(3,), soft_discard=True)
    g.deal(hands=hands)
    play_out(g, ["play QH", "play 3S"])
    assert legal(g) == {"play 2C", "play 5D", "play 9H"}
    g.apply("play 5D")                  # seat 3: a soft discard, not its lowest
    assert legal(g) == {"play 4C"}      # seat 0 gets only the ordinary choice
    # nothing in seat 0's hand beats the queen: the advice never says "must beat" then
    assert g.check("play 6D") == "You cannot beat Q♥: play your lowest card (4♣)"
    beaten = new_game("gurka-is", players=4, hand_sizes=(3,), soft_discard=True)
    beaten.deal(hands=[["4C", "6D", "8H"], ["QH", "4S", "8C"], ["3S", "7D", "TD"],
                       ["2C", "5D", "KH"]])
    play_out(beaten, ["play QH", "play 3S", "play KH"])
    assert legal(beaten) == {"play 4C"}


def test_soft_discard_message_names_the_discard() -> None:
    g = new_game("gurka-is", players=3, hand_sizes=(3,), soft_discard=True)
    g.deal(hands=[["2S", "3D", "9H"], ["QH", "4C", "8C"], ["5S", "7D", "TD"]])
    play_out(g, ["play QH", "play 5S"])
    assert legal(g) == {"play 2S", "play 9H"}   # 3♦ is neither lowest nor above the 5♠
    assert g.check("play 3D") == ("You cannot beat Q♥: play your lowest card (2♠) or a card "
                                  "higher than the 5♠ just discarded")


# ----------------------------------------------------------------------------- §4.1, §4.3 sets


def test_gurka_is_lead_keeps_one_card_and_multi_lead_followers_one_card() -> None:
    g = new_game("gurka-is", players=2, hand_sizes=(3,))
    g.deal(hands=[["4C", "9D", "KS"], ["8C", "8D", "8H"]])
    assert legal(g) == {"play 8C", "play 8D", "play 8H", "play 8C 8D", "play 8C 8H",
                        "play 8D 8H"}
    assert "at most 2" in (g.check("play 8C 8D 8H") or "")
    g.apply("play 8D 8H")
    assert legal(g) == {"play 4C", "play 9D", "play KS"}
    assert g.check("play 9D KS") == "Play one card: the trick is followed with one card"
    g.apply("play 9D")
    # seat 1 holds one card and sits out; seat 0 plays on alone
    assert g.to_act == 0 and g.trick is not None and g.trick.order == [0]
    g.apply("play 4C")
    d = g.last_deal
    assert d is not None and d.final_cards == ("KS", "8C") and d.losers == (0,)


def test_gurka_is_lead_passes_left_from_a_one_card_winner() -> None:
    g = new_game("gurka-is", players=3, hand_sizes=(3,))
    # seat 1 leads 2 cards, keeping one; seat 2 beats; seat 0 takes with A
    g.deal(hands=[["3C", "4C", "AS"], ["5D", "5H", "9H"], ["2C", "6D", "QS"]])
    g.apply("play 5D 5H")
    g.apply("play 6D")
    g.apply("play AS")
    assert g.last_trick is not None and g.last_trick.winner == 0
    assert g.to_act == 0
    g.apply("play 4C")   # seat 1 (one card) sits out: seat 2 follows
    assert g.to_act == 2
    g.apply("play QS")
    assert g.last_trick.winner == 2
    d = g.last_deal
    assert d is not None and d.final_cards == ("3C", "9H", "2C")
    g3 = new_game("gurka-is", players=3, hand_sizes=(3,))
    g3.deal(hands=[["3C", "4C", "9S"], ["5D", "5H", "AH"], ["2C", "6D", "QS"]])
    g3.apply("play 5D 5H")
    g3.apply("play 6D")
    g3.apply("play 9S")
    assert g3.last_trick.winner == 0  # type: ignore[union-attr]
    g3.apply("play 3C")
    g3.apply("play 2C")
    # seat 2 took it with a tie? no: 2 < 3, seat 0 wins and now holds one card
    assert g3.last_trick.winner == 0  # type: ignore[union-attr]
    assert g3.over is False and g3.phase == "waiting"


def test_one_card_winner_cannot_lead() -> None:
    g = new_game("gurka-is", players=3, hand_sizes=(3,))
    g.deal(hands=[["2H", "3H", "4H"], ["9D", "9H", "2C"], ["5C", "6D", "KS"]])
    g.apply("play 9D 9H")      # seat 1 keeps 2C
    g.apply("play 5C")
    g.apply("play 2H")
    assert g.last_trick.winner == 1  # type: ignore[union-attr]
    # seat 1 won but holds one card: the lead passes left to seat 2
    assert g.to_act == 2 and g.trick.order == [2, 0]  # type: ignore[union-attr]


def test_vidivellir_black_sevens_pair_and_kills() -> None:
    g = new_game("vidivellir", players=3, hand_sizes=(3,), exchange=False)
    g.deal(hands=[["2C", "AD", "AH"], ["7S", "7C", "3D"], ["4D", "KC", "KD"]])
    assert "play 7S 7C" in legal(g)
    g.apply("play 7C 7S")
    assert g.trick is not None and g.trick.high == 16 and g.trick.k == 2
    assert legal(g) == {"play 4D KC", "play 4D KD"}     # no kill, no lay-on possible
    assert g.check("play KC KD") is not None
    g.apply("play 4D KD")


def test_vidivellir_kill_layon_discard_and_must_beat() -> None:
    hands = [["2C", "3C", "TS", "QH"], ["5D", "5H", "6S", "8S"], ["4D", "4S", "9C", "9D"]]
    g = new_game("vidivellir", players=3, hand_sizes=(4,), exchange=False)
    g.deal(hands=hands)
    g.apply("play 5D 5H")
    assert legal(g) == {"play 9C 9D", "play 4D 4S"}     # 4 4 lowest (a lower pair is a discard)
    g.apply("play 4D 4S")
    assert [p[2] for p in g.trick.plays] == ["lead", "discard"]  # type: ignore[union-attr]
    assert legal(g) == {"play TS QH", "play 2C 3C"}
    assert g.check("play 3C TS") is not None
    g.apply("play TS QH")
    assert g.last_trick.winner == 1  # type: ignore[union-attr]
    mb = new_game("vidivellir", players=3, hand_sizes=(4,), exchange=False, must_beat=True)
    mb.deal(hands=hands)
    mb.apply("play 5D 5H")
    assert legal(mb) == {"play 9C 9D"}
    assert mb.check("play 4D 4S") == "You must kill the pair (5♦ 5♥) when you can"


def test_vidivellir_discard_lowest_every_combination() -> None:
    g = new_game("vidivellir", players=3, hand_sizes=(4,), exchange=False)
    g.deal(hands=[["2C", "3D", "3H", "3S"], ["9D", "9H", "6S", "8S"], ["4D", "5S", "JC", "QD"]])
    g.apply("play 9D 9H")
    assert legal(g) == {"play JC QD", "play 4D 5S"}
    g.apply("play 4D 5S")
    assert legal(g) == {"play 2C 3D", "play 2C 3H", "play 2C 3S"}


def test_two_decks_distinct_combinations() -> None:
    g = new_game("vidivellir", players=3, decks=2, hand_sizes=(3,), exchange=False)
    g.deal(hands=[["2C", "2C", "9H"], ["5D", "5D", "KS"], ["4D", "4H", "AS"]])
    assert legal(g) == {"play 5D", "play KS", "play 5D 5D"}
    g.apply("play 5D 5D")
    assert legal(g) == {"play 4D 4H"}
    with pytest.raises(ValueError, match="2C is dealt 3 times"):
        new_game("vidivellir", players=3, decks=2, hand_sizes=(3,)).deal(
            hands=[["2C", "2C", "9H"], ["2C", "5D", "KS"], ["4D", "4H", "AS"]])


# ----------------------------------------------------------------------------- §5 exchange


def test_exchange_limits_and_skips() -> None:
    g = new_game("vidivellir", players=3, hand_sizes=(3,))
    g.deal(hands=[["2C", "3C", "4C"], ["2D", "3D", "4D"], ["2H", "3H", "4H"]],
           stock=["5S", "6S"])
    assert g.phase == "exchange" and g.to_act == 1 and g.exchange_limit == 2
    assert g.check("exchange 2D 3D 4D") == "You may exchange at most 2 cards: the stock has 2 cards"
    g.apply("exchange 4D")
    assert g.exchange_limit == 1 and g.to_act == 2
    g.apply("exchange")               # keeps: nobody after may exchange
    assert g.phase == "play" and g.to_act == 1
    g2 = new_game("vidivellir", players=3, hand_sizes=(3,))
    g2.deal(hands=[["2C", "3C", "4C"], ["2D", "3D", "4D"], ["2H", "3H", "4H"]], stock=[])
    assert g2.phase == "play"         # empty stock: no exchange at all
    g3 = new_game("gurka-is", players=2, hand_sizes=(2,), exchange=True)
    g3.deal(hands=[["2C", "3C"], ["2D", "3D"]], stock=["5S", "6S", "7S"])
    g3.apply("exchange 2D 3D")
    assert g3.exchange_limit == 1 and g3.view(0)["exchange"]["max"] == 1


# ----------------------------------------------------------------------------- §6 Rassi


def test_rassi_offers_and_redouble() -> None:
    stock = ["2D", "3D", "4D", "5D", "6D", "7D", "2H", "3H", "4H", "5H", "6H", "7H",
             "2S", "3S", "4S", "5S", "6S", "7S"]
    g = new_game("rassi", players=2, seed=1, dealer=1)
    g.deal(hands=[["2C", "3C", "4C", "5C", "6C", "7C"], ["8C", "9C", "TC", "JC", "QC", "KC"]],
           stock=stock)
    assert (g.phase, g.to_act) == ("rassi_free", 0)
    g.apply("free")
    assert g.hands[0] == ["2D", "3D", "4D", "5D", "6D", "7D"]
    assert g.phase == "rassi_double" and g.to_act == 0
    g.apply("double")
    g.apply("pass")
    assert (g.phase, g.to_act) == ("rassi_redouble", 0)
    assert g.check("double") == ("Now is the redouble round: redouble (exchange all your cards "
                                 "again, losing scores ×4) or pass")
    g.apply("redouble")
    assert g.multipliers == [4, 1] and g.phase == "play"
    assert g.view(1)["rassi"] == {"free": [0], "double": [0], "redouble": [0]}


def test_rassi_no_offer_without_a_full_stock() -> None:
    g = new_game("rassi", players=2, dealer=1)
    g.deal(hands=[["2C", "3C", "4C", "5C", "6C", "7C"], ["8C", "9C", "TC", "JC", "QC", "KC"]],
           stock=["2D", "3D", "4D", "5D", "6D"])
    assert g.phase == "play"


# ----------------------------------------------------------------------------- deal end, scores


def test_gurka_night_final_tie_later_loses_and_both_agurk() -> None:
    g = new_game("gurka-night", players=2, hand_sizes=(2,), dealer=1)
    g.deal(hands=[["2C", "X1"], ["3C", "X2"]])
    g.apply("play 2C")
    g.apply("play 3C")
    assert g.to_act == 1
    g.apply("play X2")
    g.apply("play X1")
    d = g.last_deal
    assert d is not None and d.losers == (0,) and d.agurk == (0, 1) and g.agurk == [1, 1]


def test_kurkku_show_ties() -> None:
    g = new_game("kurkku", players=3, hand_sizes=(2,))
    g.deal(hands=[["2C", "QD"], ["3C", "QS"], ["3H", "KC"]])
    play_out(g, ["play 3C", "play 3H"])   # seat 2 ties: equal beats
    assert legal(g) == {"play QD"}
    g.apply("play QD")
    assert g.last_trick.winner == 0  # type: ignore[union-attr]
    d = g.last_deal
    assert d is not None
    assert d.final_cards == ("2C", "QS", "KC") and d.losers == (2,)
    g2 = new_game("kurkku", players=3, hand_sizes=(2,))
    g2.deal(hands=[["2C", "QD"], ["3C", "QS"], ["3H", "QH"]])
    play_out(g2, ["play 3C", "play 3H", "play QD"])
    d2 = g2.last_deal
    assert d2 is not None and d2.losers == (1, 2) and d2.points == (12, 12)
    assert g2.scores == [0, 12, 12] and d2["losers"] == (1, 2)


def _finish_with(g: Game, hands: list[list[str]], moves: list[str]) -> DealResult:
    g.deal(hands=hands)
    play_out(g, moves)
    assert g.last_deal is not None
    return g.last_deal


def test_exact_21_clear_and_out_above() -> None:
    g = new_game("gurka-is", players=2, hand_sizes=(2,))
    g.scores = [5, 0]
    _finish_with(g, [["2C", "6C"], ["3D", "4D"]], ["play 3D", "play 2C"])
    assert g.scores == [26, 0] and g.out == [0] and g.over and g.ranking == [1, 0]
    g2 = new_game("gurka-is", players=2, hand_sizes=(2,))
    g2.scores = [8, 0]
    g2.penalty_cards = [["8H"], []]
    d = _finish_with(g2, [["2C", "KD"], ["3D", "4D"]], ["play 3D", "play 2C"])
    assert d.cleared == (0,) and g2.scores == [0, 0] and g2.penalty_cards == [[], []]
    assert not g2.over


def test_reach_versus_exceed() -> None:
    for out_at, expect_out in (("reach", [1]), ("exceed", [])):
        g = new_game("gurka-night", players=3, hand_sizes=(1,), out_at=out_at)
        g.scores = [0, 10, 0]
        _finish_with(g, [["2C"], ["JD"], ["3C"]], ["play JD", "play 3C", "play 2C"])
        assert g.scores[1] == 21 and g.out == expect_out


def test_out_seats_skipped_and_one_left_ranking() -> None:
    g = new_game("gurka-night", players=3, hand_sizes=(1,), dealer=0)
    g.scores = [0, 20, 0]
    _finish_with(g, [["2C"], ["JD"], ["3C"]], ["play JD", "play 3C", "play 2C"])
    assert g.out == [1] and (g.dealer, g.forehand) == (2, 0)
    with pytest.raises(ValueError, match="seat 1 is out"):
        g.deal(hands=[["2C"], ["3C"], ["4C"]])
    g.deal()
    assert g.hands[1] == [] and g.to_act == 0
    g.apply(str(g.legal_actions()[0]))
    assert g.to_act == 2
    g.scores = [30, 99, 30]
    g.apply(str(g.legal_actions()[0]))
    assert g.over and g.ranking is not None and g.ranking[-1] == 1


def test_several_out_in_one_deal_order() -> None:
    g = new_game("kurkku", players=3, hand_sizes=(1,), game_end="one_left")
    g.scores = [25, 20, 0]
    _finish_with(g, [["QD"], ["QS"], ["2C"]], [])
    assert g.scores == [37, 32, 0]
    assert g.out == [0, 1] and g.ranking == [2, 1, 0]   # higher score went out first


def test_first_out_ends_vidivellir_and_play_on() -> None:
    g = new_game("vidivellir", players=3, hand_sizes=(1,), exchange=False)
    g.scores = [15, 5, 3]
    _finish_with(g, [["9C"], ["2D"], ["3D"]], ["play 2D", "play 3D", "play 9C"])
    assert g.over and g.out == [0] and g.ranking == [2, 1, 0]
    p = new_game("vidivellir", players=3, hand_sizes=(1,), exchange=False, play_on=True)
    p.scores = [15, 5, 3]
    _finish_with(p, [["9C"], ["2D"], ["3D"]], ["play 2D", "play 3D", "play 9C"])
    assert not p.over and p.out == [0] and p.phase == "waiting"
    assert p.dealer == 1        # loser is out: next active seat after the loser


def test_target_game_end_and_ranking() -> None:
    g = new_game("kurkku", players=3, hand_sizes=(1,))
    g.scores = [25, 10, 10]
    _finish_with(g, [["5D"], ["3C"], ["2C"]], [])
    assert g.over and g.out == [0] and g.ranking == [1, 2, 0]
    assert g.phase == "over" and g.to_act is None
    assert g.check("play 2C") == "The game is over"
    with pytest.raises(IllegalAction, match="The game is over"):
        g.deal()


def test_next_dealer_is_loser_in_vidivellir() -> None:
    g = new_game("vidivellir", players=4, hand_sizes=(1,), exchange=False, dealer=3)
    _finish_with(g, [["2C"], ["3C"], ["KD"], ["4C"]],
                 ["play 2C", "play 3C", "play KD", "play 4C"])
    assert g.last_deal is not None and g.last_deal.losers == (2,)
    assert (g.dealer, g.forehand) == (2, 3)


# ----------------------------------------------------------------------------- API behaviour


def test_messages_and_state_unchanged() -> None:
    g = new_game("gurka-night", players=3, seed=4)
    assert g.check("play 2C") == "No deal in progress: deal first"
    g.deal()
    assert g.check("play 2C", seat=0) == "It is not your turn: waiting for seat 1"
    snapshot = json.dumps(g.to_json()) + json.dumps(g.view(1))
    for bad in ("play ZZ", "dance", "exchange", "play", "double"):
        with pytest.raises(IllegalAction):
            g.apply(bad)
    with pytest.raises(IllegalAction, match="not your turn"):
        g.apply(g.legal_actions()[0], seat=2)
    assert json.dumps(g.to_json()) + json.dumps(g.view(1)) == snapshot
    with pytest.raises(IllegalAction, match="deal"):
        g.deal()


def test_deal_validation() -> None:
    g = new_game("kurkku", players=2)
    with pytest.raises(ValueError, match="seat 1 must get 6 cards"):
        g.deal(hands=[["2C", "3C", "4C", "5C", "6C", "7C"], ["2D"]])
    with pytest.raises(ValueError, match="not a card"):
        g.deal(hands=[["2C", "3C", "4C", "5C", "6C", "ZZ"], ["2D"] * 6])
    with pytest.raises(ValueError, match="2D is dealt 6 times"):
        g.deal(hands=[["2C", "3C", "4C", "5C", "6C", "7C"], ["2D"] * 6])
    with pytest.raises(ValueError, match="X1"):
        g.deal(hands=[["2C", "3C", "4C", "5C", "6C", "X1"], ["2D", "3D", "4D", "5D", "6D", "7D"]])
    assert g.deal_no == 0 and g.phase == "waiting"


def test_seeded_deal_is_a_function_of_seed_and_deal_number() -> None:
    a = new_game("gurka-night", players=3, seed=42)
    b = new_game("gurka-night", players=3, seed=42)
    a.deal()
    b.deal()
    assert a.hands == b.hands and a.stock == b.stock
    assert len(a.stock) == 54 - 21


def test_view_contents_and_why_not() -> None:
    g = new_game("gurka-night", players=3, seed=7)
    g.deal()
    g.apply(g.legal_actions()[-1])
    seat = g.to_act
    assert seat is not None
    v = g.view(seat)
    assert v["hand"] == g.hands[seat] and v["legal"] == [str(a) for a in g.legal_actions()]
    assert set(v["why_not"]) == {c for c in g.hands[seat] if f"play {c}" not in v["legal"]}
    spectator = g.view(None)
    assert spectator["hand"] == [] and spectator["legal"] == [] and spectator["why_not"] == {}
    assert spectator["hand_counts"] == [len(h) for h in g.hands]
    assert "stock" not in spectator and "seed" not in json.dumps(spectator)
    other = (seat + 1) % 3
    assert g.view(other)["legal"] == []
    json.dumps(v)


# ----------------------------------------------------------------------------- deal schedules


def hand_sizes_of(g: Game, deals: int) -> list[int]:
    """Deal ``deals`` seeded deals, play each out with the first legal action, and return
    how many cards each seat was dealt (checked equal at every seat). The games below use a
    target nobody reaches, to watch the schedule go on."""
    sizes: list[int] = []
    for _ in range(deals):
        g.deal()
        dealt = {len(h) for s, h in enumerate(g.dealt_hands) if s not in g.out}
        assert len(dealt) == 1
        sizes.append(dealt.pop())
        while g.to_act is not None:
            g.apply(g.legal_actions()[0])
    assert not g.out
    return sizes


def test_zigzag_deal_follows_seed_001() -> None:
    """"First six cards, then five and so on; after one card, two, and up to five; then down,
    and up to four, and so on", then over again from six."""
    round_ = [6, 5, 4, 3, 2, 1, 2, 3, 4, 5, 4, 3, 2, 1, 2, 3, 4, 3, 2, 1, 2, 3, 2, 1, 2, 1]
    g = new_game("gurka-is", players=4, seed=3, deal_schedule="zigzag", target=10**6)
    assert g.ruleset.deal_schedule == "zigzag" and g.ruleset.hand_sizes == (6,)
    assert hand_sizes_of(g, 60) == (round_ * 3)[:60]


def test_countdown_stays_the_default_and_zigzag_can_start_higher() -> None:
    g = new_game("gurka-is", players=3, seed=3, target=10**6)
    assert g.ruleset.deal_schedule == "cycle"
    assert hand_sizes_of(g, 12) == [10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 10, 9]
    high = new_game("gurka-is", players=3, seed=3, deal_schedule="zigzag", hand_sizes=(8,),
                    target=10**6)
    assert hand_sizes_of(high, 17) == [8, 7, 6, 5, 4, 3, 2, 1, 2, 3, 4, 5, 6, 7, 6, 5, 4]
    with pytest.raises(ValueError, match="hand_sizes: 5 players × 11 cards"):
        new_game("gurka-is", players=5, deal_schedule="zigzag", hand_sizes=(11,))


def test_ruleset_stored_before_deal_schedule_still_loads() -> None:
    stored = PRESETS["gurka-is"].as_dict()
    del stored["deal_schedule"]
    assert Ruleset.from_dict(stored) == PRESETS["gurka-is"]
    zig = new_game("gurka-is", players=3, deal_schedule="zigzag").ruleset
    assert Ruleset.from_dict(json.loads(json.dumps(zig.as_dict()))) == zig


def test_the_advice_never_asks_to_beat_a_card_nothing_beats() -> None:
    """A joker led in Vidivellir-like play: no card beats it, so the advice says so plainly."""
    for preset in ("gurka-night", "gurka-is", "kurkku"):
        for seed in range(30):
            g = new_game(preset, players=3, seed=seed)
            g.deal()
            steps = 0
            while not g.over and g.phase == "play" and steps < 40:
                seat = g.to_act
                assert seat is not None
                for code in g.hands[seat]:
                    reason = g.check(f"play {code}")
                    if reason and "must beat" in reason:
                        target = reason.split("must beat ", 1)[1].split(" ", 1)[0]
                        assert not target.startswith("Joker") and "🃏" not in target, reason
                        assert any(g.check(f"play {c}") is None and c != g.hands[seat][0]
                                   for c in g.hands[seat]), (preset, seed, reason)
                g.apply(str(g.legal_actions()[0]))
                steps += 1
