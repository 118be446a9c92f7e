"""Where each player starts tonight (RULES.md §7.1).

"Each player starts at the table where they finished last night (a reserve's place counts
for the player they stood in for); new players are placed by the host." The seed adds: "if
you played the final round at the middle table, that is where you start", so the final
tables map to base tables: finale → vinder, mellanfinale → mellan, taberfinale → taber.

``stand_ins`` maps *tonight's player* to the name whose last-night table they take. It
covers both directions of §7.1: a reserve standing in tonight (``{"Kim": "Ann"}``: Kim plays
for Ann and starts where Ann finished) and a member coming back after a reserve played for
them last night (``{"Ann": "Kim"}``: Ann starts where her reserve Kim finished).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from app.club.constants import BASE_TABLES, FINAL_TO_BASE, TABLE_NAMES, TABLE_SIZE
from app.rules.text import Text


def _last_table_of(last_night: Mapping[str, Sequence[str]] | Mapping[str, str]) -> dict[str, str]:
    """Accept ``{table: [players]}`` (finals or base names) or ``{player: table}``."""
    where: dict[str, str] = {}
    for key, value in last_night.items():
        if isinstance(value, str):
            player, table = key, value
            where[player] = FINAL_TO_BASE.get(table, table)
            continue
        table = FINAL_TO_BASE.get(key, key)
        for player in value:
            where[player] = table
    for player, table in where.items():
        if table not in BASE_TABLES:
            raise ValueError(f"{table!r} is not a table (last night, {player})")
    return where


def start_tables(
    last_night_tables: Mapping[str, Sequence[str]] | Mapping[str, str],
    players: Sequence[str],
    stand_ins: Mapping[str, str] | None = None,
    newcomers: Mapping[str, str] | None = None,
) -> dict[str, str]:
    """The ``start`` mapping for :meth:`app.club.Night.new`: player → base table."""
    stand_ins = dict(stand_ins or {})
    newcomers = dict(newcomers or {})
    where = _last_table_of(last_night_tables)
    for player in (*stand_ins, *newcomers):
        if player not in players:
            raise ValueError(f"{player} is not one of tonight's players")
    taken: dict[str, str] = {}
    for player, other in stand_ins.items():
        if other in players and other != player:
            raise ValueError(Text("%(other)s plays tonight, so %(player)s cannot take %(other)s's place",
                                  other=other, player=player))
        if other in taken:
            raise ValueError(Text("%(first)s and %(player)s both take %(other)s's place",
                                  first=taken[other], player=player, other=other))
        taken[other] = player
    start: dict[str, str] = {}
    for player in players:
        if player in newcomers:
            table = newcomers[player]
            if table not in BASE_TABLES:
                raise ValueError(
                    f"{table!r} is not a start table for {player}: use vinder, mellan or taber"
                )
        elif player in stand_ins:
            other = stand_ins[player]
            if other not in where:
                raise ValueError(Text(
                    "%(other)s did not play last night, so %(player)s cannot start at %(other)s's table",
                    other=other, player=player,
                ))
            table = where[other]
        elif player in where:
            table = where[player]
        else:
            raise ValueError(Text("%(player)s did not play last night: the host places them (newcomers)",
                                  player=player))
        start[player] = table
    for table in BASE_TABLES:
        names = [p for p in players if start[p] == table]
        if len(names) != TABLE_SIZE:
            raise ValueError(Text(
                "the %(table)s would have %(count)s players (%(names)s); each table needs three",
                table=TABLE_NAMES[table], count=len(names), names=", ".join(names),
            ))
    return start
