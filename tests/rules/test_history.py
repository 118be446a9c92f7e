"""The history file (docs/history-format.md): written games read back equal (every preset and
variant, many games), names that try to break a line or a tag, every kind of bad file answered
with its line, and the document's worked examples still exactly what the code writes."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.rules import Game
from app.rules.bots import HeuristicBot, RandomBot
from app.rules.history import (
    FORMAT,
    HistoryError,
    escape,
    read_games,
    unescape,
    write_game,
    write_games,
)
from app.rules.history_examples import EXAMPLES, example_text, fill_examples
from app.rules.simulate import play_out
from tests.rules.test_properties import CASES, make

DOC = Path(__file__).resolve().parents[2] / "docs" / "history-format.md"


def played(case: str, players: int, seed: int, *, heuristic: bool = False) -> Game:
    game = make(case, players, seed)
    rng = random.Random(seed)
    kind = HeuristicBot if heuristic else RandomBot
    return play_out(game, [kind(rng.randrange(2**30)) for _ in range(players)])


def same_game(a: Game, b: Game) -> None:
    assert b.ruleset == a.ruleset
    assert b.log == a.log
    assert [d.as_dict() for d in b.deal_log] == [d.as_dict() for d in a.deal_log]
    assert (b.scores, b.ranking, b.out, b.agurk) == (a.scores, a.ranking, a.out, a.agurk)


@pytest.mark.parametrize(("case", "players"), CASES)
def test_every_preset_and_variant_reads_back_the_same_game(case: str, players: int) -> None:
    for seed in range(3):
        game = played(case, players, seed, heuristic=seed == 0)
        names = [f"Player {s}" for s in range(players)]
        [back] = read_games(write_game(game, names, {"Game": "1"}))
        same_game(game, back.game)
        assert back.names == tuple(names) and back.tags["Game"] == "1"


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=st.sampled_from(CASES), seed=st.integers(0, 10**6))
def test_round_trip_property(case: tuple[str, int], seed: int) -> None:
    game = played(*case, seed)
    text = write_game(game, [str(s) for s in range(game.players)])
    [back] = read_games(text)
    same_game(game, back.game)
    assert write_game(back.game, back.names) == text  # and written again, the same bytes


@given(st.text())
def test_any_name_survives_and_never_breaks_a_line(name: str) -> None:
    line = f'[Seat 0 "{escape(name)}"]'
    assert "\n" not in line and "\r" not in line and len(line.splitlines()) == 1
    assert unescape(escape(name)) == name


def test_many_games_in_one_file() -> None:
    games = [played("gurka-night", 3, seed) for seed in (1, 2)]
    names = ['Ann "A"', "Bo\\", "Cy\u2028\u202e"]
    text = write_games([write_game(g, names, {"Table": "vinder", "Round": str(i + 1)})
                        for i, g in enumerate(games)])
    back = read_games(text)
    assert [b.tags["Round"] for b in back] == ["1", "2"]
    for g, b in zip(games, back):
        same_game(g, b.game)
        assert b.names == tuple(names)
    assert "\u2028" not in text and "\u202e" not in text
    assert back[1].line == text.split("\n").index(f'[Format "{FORMAT}"]', 1) + 1


def test_the_documented_examples_are_what_the_code_writes() -> None:
    doc = DOC.read_text(encoding="utf-8")
    assert fill_examples(doc) == doc, "run: python -m app.rules.history_examples docs/history-format.md"
    for preset in EXAMPLES:
        block = example_text(preset)
        assert block in doc
        [back] = read_games(block)
        assert back.preset == preset


# ------------------------------------------------------------------ bad files, each with its line

def numbered(text: str, needle: str) -> int:
    """The 1-based number of the first line starting with `needle`."""
    return next(i for i, line in enumerate(text.split("\n"), 1) if line.startswith(needle))


def refused(text: str) -> HistoryError:
    with pytest.raises(HistoryError) as caught:
        read_games(text)
    return caught.value


@pytest.fixture(scope="module")
def good() -> str:
    return example_text("gurka-night")


def replace_line(text: str, needle: str, new: str) -> str:
    lines = text.split("\n")
    i = numbered(text, needle) - 1
    lines[i] = new
    return "\n".join(lines)


def test_an_illegal_action_names_its_line_and_the_rule(good: str) -> None:
    # deal 1's first action is seat 1 leading JS; make seat 1 lead a card it does not hold
    line = numbered(good, "1 play JS")
    error = refused(replace_line(good, "1 play JS", "1 play AS"))
    assert error.line == line
    assert "Seat 1 cannot play 'play AS'" in error.message and "don't hold" in error.message


def test_an_action_out_of_turn(good: str) -> None:
    error = refused(replace_line(good, "1 play JS", "0 play 9S"))
    assert error.line == numbered(good, "1 play JS")
    assert "seat 1's turn" in error.message


def test_a_deal_that_is_not_one_deck(good: str) -> None:
    # the stock loses its last card: the deck is short of it
    stock = next(line for line in good.split("\n") if line.startswith("stock "))
    error = refused(replace_line(good, "stock ", stock.rsplit(" ", 1)[0]))
    assert error.line == numbered(good, "stock ")
    assert "not one deck" in error.message and "missing: " + stock.rsplit(" ", 1)[1] in error.message
    # a card twice: too many
    hand0 = next(line for line in good.split("\n") if line.startswith("hand 0 "))
    first = hand0.split()[2]
    error = refused(replace_line(good, "hand 0 ", hand0.rsplit(" ", 1)[0] + " " + first))
    assert error.line == numbered(good, "stock ") and f"too many: {first}" in error.message


def test_a_hand_of_the_wrong_size_and_a_card_not_of_the_game(good: str) -> None:
    hand0 = next(line for line in good.split("\n") if line.startswith("hand 0 "))
    error = refused(replace_line(good, "hand 0 ", hand0.rsplit(" ", 1)[0]))
    assert "seat 0 holds 6 cards, but should hold 7" in error.message
    error = refused(replace_line(good, "hand 0 ", hand0 + " 1Z"))
    assert error.line == numbered(good, "hand 0 ") and "'1Z' is not a card" in error.message


def test_a_wrong_result_line(good: str) -> None:
    line = numbered(good, "result ")
    wrong = good.split("\n")[line - 1].replace("scores 0 7 0", "scores 0 8 0")
    error = refused(replace_line(good, "result ", wrong))
    assert error.line == line and 'the rules make it "result 1:7D:7 scores 0 7 0"' in error.message


def test_a_missing_result_line_and_a_truncated_file(good: str) -> None:
    lines = good.split("\n")
    i = numbered(good, "result ") - 1
    error = refused("\n".join(lines[:i] + lines[i + 1:]))
    assert error.line == i + 2 and "its result line comes next" in error.message  # the blank, then "deal 2"
    cut = numbered(good, "deal 3")
    error = refused("\n".join(lines[:cut + 3]))
    assert "before it is over" in error.message and error.line == cut + 3


def test_bad_tags(good: str) -> None:
    assert "begins with its tags" in refused("deal 1\n").message
    error = refused(good.replace('[Rule target "10"]', '[Rule target "ten"]'))
    assert "target has a bad value" in error.message
    error = refused(good.replace('[Rule target "10"]', '[Rule targt "10"]'))
    assert error.line == numbered(good, '[Rule target') and "Unknown rule 'targt'" in error.message
    error = refused(good.replace('[Preset "gurka-night"]', '[Preset "whist"]'))
    assert "Unknown preset 'whist'" in error.message
    error = refused(good.replace('[Seat 1 "Bjørn"]', '[Seat 1 "Bj\\qrn"]'))
    assert error.line == numbered(good, "[Seat 1") and "Unknown escape" in error.message
    error = refused(good.replace('[Seat 1 "Bjørn"]', '[Seat 1 "Bj"rn"]'))
    assert error.line == numbered(good, "[Seat 1") and "A tag is written" in error.message
    error = refused(good.replace('[Seat 2 ', '[Seat 3 '))
    assert "without a gap" in error.message
    error = refused(good.replace('[Format "gurka-history 1"]', '[Format "gurka-history 9"]'))
    assert error.line == 1 and "knows the format" in error.message
    error = refused(good.replace('[Ranking "0 2 1"]', '[Ranking "2 0 1"]'))
    assert "The Ranking tag says '2 0 1', but the game ends '0 2 1'" in error.message
    error = refused(good.replace('[Seat 1 "Bjørn"]', '[Seat 1 "Bj\x0bn"]'))
    assert error.line == numbered(good, "[Seat 1") and "control character (U+000B)" in error.message
    error = refused(good.replace('[Rule jokers "2"]', '[Rule jokers "0"]'))
    assert "'X2' is not a card of this game" in error.message  # the deal no longer fits the rules
    assert "holds no game" in refused("; nothing\n\n").message


def test_crlf_and_comments_are_read(good: str) -> None:
    [back] = read_games("; saved by hand\r\n" + good.replace("\n", "\r\n"))
    assert back.names[2] == 'Siggi "the Fox"'


def test_an_unfinished_game_cannot_be_written() -> None:
    game = make("kurkku", 3, 1)
    game.deal()
    with pytest.raises(ValueError, match="finished"):
        write_game(game, ["a", "b", "c"])
