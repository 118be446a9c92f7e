"""Fixed numbers and names of a Gurka Night (RULES.md §7).

Table names are the ones of the club contract (ARCHITECTURE.md, "Club core contract").
"""

from __future__ import annotations

from typing import Final, Literal

#: The three base tables in rank order (RULES.md §7.1): winner, middle, loser table.
BASE_TABLES: Final[tuple[str, str, str]] = ("vinder", "mellan", "taber")
#: The three final tables in rank order (RULES.md §7.4): places 1-3, 4-6, 7-9.
FINAL_TABLES: Final[tuple[str, str, str]] = ("finale", "mellanfinale", "taberfinale")

#: The table a player "finished at" maps to the base table they start at next night
#: (RULES.md §7.1, seed 000: "if you played the final at the middle table, you start there").
FINAL_TO_BASE: Final[dict[str, str]] = dict(zip(FINAL_TABLES, BASE_TABLES, strict=True))

#: The tables' own names, the same in every language (the club's words): what pages and
#: messages call them, never their keys.
TABLE_NAMES: Final[dict[str, str]] = {
    "vinder": "Vinderbord",
    "mellan": "Mellanbord",
    "taber": "Taberbord",
    "finale": "Finalevinderbord",
    "mellanfinale": "Mellanfinale",
    "taberfinale": "Taberfinale",
}

Stage = Literal["base", "finals"]
Phase = Literal["base", "playoff", "finals", "done"]

PLAYERS: Final = 9
TABLE_SIZE: Final = 3
BASE_ROUNDS: Final = 16  # RULES.md §7.4
FINAL_ROUNDS: Final = 6  # RULES.md §7.4

#: Round points by place (RULES.md §7.1/§7.2): first out 3, second out 2, winner 1, bar røv 0.
FIRST_OUT_POINTS: Final = 3
SECOND_OUT_POINTS: Final = 2
WINNER_POINTS: Final = 1
BAR_ROV_POINTS: Final = 0

#: Points carried into the finals by base place 1..9 (RULES.md §7.4): 0, 1, 2 at each table.
CARRY_OVER: Final[tuple[int, ...]] = (0, 1, 2, 0, 1, 2, 0, 1, 2)

#: Hall of Fame points by final place 1..9 (RULES.md §7.5).
HALL_OF_FAME_POINTS: Final[tuple[int, ...]] = (9, 8, 7, 6, 5, 4, 3, 2, 1)
