"""The worked examples of docs/history-format.md: one short game per preset, played by the
heuristic bots on seeded deals and written by `write_game`, so the document shows what the code
writes (tests/rules/test_history.py checks that the document still says exactly this).

    python -m app.rules.history_examples docs/history-format.md   # rewrite the examples in place
"""

from __future__ import annotations

import re
import sys

from app.rules.bots import HeuristicBot
from app.rules.game import Game, new_game
from app.rules.history import write_game
from app.rules.simulate import play_out

# A lower target than the preset's keeps each example to a few deals (the Rule tags show it).
EXAMPLES: dict[str, dict[str, int]] = {
    "gurka-night": {"target": 10},
    "gurka-is": {"target": 8},
    "vidivellir": {"target": 10},
    "kurkku": {"target": 10},
    "rassi": {"target": 12},
}
NAMES = ("Ann", "Bjørn", 'Siggi "the Fox"')  # not shown
_BLOCK = re.compile(r"(<!-- example (?P<preset>[a-z-]+) -->\n```text\n)(.*?)(```\n<!-- /example -->)", re.DOTALL)


def example_game(preset: str, seed: int = 3) -> Game:
    game = new_game(preset, players=3, seed=seed, dealer=0, **EXAMPLES[preset])
    return play_out(game, [HeuristicBot(seed * 10 + s) for s in range(3)])


def example_text(preset: str) -> str:
    return write_game(example_game(preset), NAMES, {"Date": "2026-11-14", "Time": "19:30:00Z",
                                                     "Link": "https://gurka.example/r/example"})


def fill_examples(document: str) -> str:
    """The document with every example block rewritten from the code."""
    return _BLOCK.sub(lambda m: m.group(1) + example_text(m.group("preset")) + m.group(4), document)


def main(argv: list[str]) -> int:
    path = argv[1] if len(argv) > 1 else "docs/history-format.md"
    with open(path, encoding="utf-8") as f:
        text = f.read()
    with open(path, "w", encoding="utf-8") as f:
        f.write(fill_examples(text))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
