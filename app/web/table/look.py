"""What a room's table shows every viewer, in no language: worked out once per push.

A push renders every connection's table; what they all show of the room (the spectator's view
of the game, each seat's row, the clocks) is the same for every one of them and for every
language, so it is read off the room once per push (`look_of`) and every table is drawn from it.

Built from `game.view(None)` only (plus the seats' public names and presence), so nothing a
spectator may not see is in it: each seat adds its own part (`game.seat_view`) for its table.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, NamedTuple

from app.rooms.room import LiveRoom
from app.web.shared.frozen import register

BOT_SUFFIX = " (bot)"


class SeatRow(NamedTuple):
    """A seat as its row in the list of players shows it (the fields before a game starts are
    None; `name` is None for a free seat)."""

    seat: int
    empty: bool
    name: str | None
    is_bot: bool
    bot_controlled: bool
    present: bool
    is_host: bool
    can_hand_to_bot: bool
    out: bool | None = None
    dealer: bool | None = None
    forehand: bool | None = None
    multiplier: int | None = None
    bot_level: str | None = None  # a bot seat's level (`app.rooms.bot_levels`)


class SeatStats(NamedTuple):
    """A seat's score and penalty cards, as its row shows them in a game (its count of cards in
    hand changes with every card it plays: `Look.counts`)."""

    name: str
    score: int
    agurk: int
    penalty_cards: tuple[str, ...]


register(SeatRow, SeatStats)  # (plain fields only: a row keys what was rendered from it)


@dataclass(slots=True)
class Look:
    """(Not frozen: a frozen dataclass sets each field through `object.__setattr__`, and a look
    is made per push; nothing changes one once made.)"""

    room: LiveRoom
    version: int
    status: str
    host: int | None
    view: dict[str, Any] | None  # the game as a spectator sees it (None: no game yet)
    rows: tuple[SeatRow, ...]  # every seat's row (the table's capacity in the lobby)
    stats: dict[int, SeatStats]  # the stats of each seat in the game
    counts: dict[int, int]  # the cards in each hand in the game
    names: tuple[str | None, ...]  # the players' names by seat (None: nobody there)
    top_cards: tuple[str, ...]  # the preset's cards above the ace (drawn with a gold corner)
    turn_left: int | None  # whole seconds left on the turn timer (None: none runs)
    deal_waiting: bool  # a finished deal's cards are on the table until the next deal
    time_note: str | None
    turn_seconds: int
    handovers: frozenset[int]  # the seats a "Let a bot play" button is offered for
    present: frozenset[int]


def display_name(name: str, is_bot: bool, taken: frozenset[str] = frozenset()) -> str:
    """A bot's name without the "(bot)" suffix (the seat carries a "bot" tag instead), unless a
    player in `taken` has that very name."""
    if is_bot and name.endswith(BOT_SUFFIX) and len(name) > len(BOT_SUFFIX):
        short = name[: -len(BOT_SUFFIX)]
        return name if short in taken else short
    return name


def look_of(room: LiveRoom) -> Look:
    """`room` as every viewer's table shows it now."""
    present = frozenset(room.present())
    g = room.game
    view: dict[str, Any] | None = g.view(None) if g is not None else None
    humans = frozenset(s.name for s in room.seats.values() if not s.is_bot)
    handovers = room.handovers()
    host = room.host
    names = tuple(display_name(s.name, s.is_bot, humans) if (s := room.seats.get(i)) is not None else None
                  for i in range(len(room.seats)))
    rows: list[SeatRow] = []
    stats: dict[int, SeatStats] = {}
    counts: dict[int, int] = {}
    n = room.capacity if view is None else len(room.seats)
    playing = len(view["scores"]) if view is not None else 0  # (a latecomer sits out until the next game)
    for i in range(n):
        s = room.seats.get(i)
        if s is None:
            rows.append(SeatRow(i, True, None, False, False, False, False, False))
            continue
        name = names[i] if i < len(names) else None
        if name is None:
            name = display_name(s.name, s.is_bot, humans)
        level = room.bot_level(i) if s.is_bot else None
        if i < playing:
            assert view is not None
            rows.append(SeatRow(i, False, name, s.is_bot, s.bot_controlled, s.is_bot or i in present, i == host,
                                i in handovers, i in view["out"], i == view["dealer"], i == view["forehand"],
                                view["multipliers"][i], level))
            counts[i] = view["hand_counts"][i]
            stats[i] = SeatStats(name, view["scores"][i], view["agurk"][i],
                                 tuple(view["penalty_cards"][i]))
        else:
            rows.append(SeatRow(i, False, name, s.is_bot, s.bot_controlled, s.is_bot or i in present, i == host,
                                i in handovers, bot_level=level))
    deadline = room.turn_deadline()
    return Look(
        room=room, version=room.version, status=room.status, host=host, view=view, rows=tuple(rows), stats=stats, counts=counts,
        names=names, top_cards=tuple(c for c in (g.ruleset.top_cards if g is not None else ()) if not c.startswith("X")),
        turn_left=None if deadline is None else max(0, math.ceil(deadline - room.manager.clock.now())),
        deal_waiting=room.deal_due() is not None, time_note=room.time_note, turn_seconds=int(room.turn_seconds),
        handovers=handovers, present=present,
    )
