"""A Gurka Night for the tests, over the app's TestClient: set up by an elder for the nine members
of `NINE` (by hand, online, on duplicate deals), its row and its rooms as stored, its online tables
played to their end by bots (bounded waits until the night records them), and the cards a text
shows."""

from __future__ import annotations

import re
import time
from typing import Any

from sqlmodel import Session

from app.store import members as member_store
from app.store import nights as night_store
from app.store.db import session_scope
from app.web.club.auth import hash_password
from tests.web.club.helpers import (
    NINE,
    add_members,
    become_elder,
    bots_play,
    core,
    create_night,
    setup_form,
)

FIRST_ROUND_TABLES = ("vinder", "mellan", "taber")


def club_in_store(session: Session, *, elder_password: str, members: list[str] = NINE) -> dict[str, int]:
    """Written straight to the store: the elder Elsa (who logs in with `elder_password`) and
    `members`; every member's id by name, Elsa's too."""
    member_store.add_member(session, name="Elsa", is_elder=True, password_hash=hash_password(elder_password))
    for name in members:
        member_store.add_member(session, name=name)
    return {m.name: m.id for m in member_store.list_members(session)}


def new_night(client: Any, **form: str) -> int:
    """A new night of the nine members of `NINE` (hosted by Ann, recorded by hand), set up by an
    elder; `form` adds to or overrides the set-up form's fields."""
    become_elder(client)
    ids = add_members(client, NINE)
    return create_night(client, {**setup_form(ids, NINE), **form})


def online_night(client: Any, **form: str) -> int:
    """A new night played online (its first round's rooms open), as `new_night`."""
    return new_night(client, mode="online", **form)


def duplicate_night(client: Any, *, turn_seconds: str = "60") -> int:
    """A new online night on duplicate deals (`turn_seconds` "0": no turn timer)."""
    return online_night(client, duplicate="yes", turn_seconds=turn_seconds)


def night_row(client: Any, night_id: int) -> night_store.Night:
    with session_scope(client.app.state.engine) as session:
        row = night_store.get_night(session, night_id=night_id)
        assert row is not None
        return row


def rooms_of(client: Any, night_id: int) -> dict[str, Any]:
    """The night's rooms as stored, by table key (`base-1-vinder`: the room's slug and players)."""
    return dict(night_row(client, night_id).state["rooms"])


def first_round_slugs(client: Any, night_id: int) -> dict[str, str]:
    """The slug of each first-round table's room, by table."""
    rooms = rooms_of(client, night_id)
    return {table: rooms[f"base-1-{table}"]["slug"] for table in FIRST_ROUND_TABLES}


def bots_finish_table(client: Any, night_id: int, table: str, slug: str, *, within: float = 30) -> None:
    """Bots play the table's game (in room `slug`) to its end, and the night records it."""
    bots_play(client, slug)
    wait_table_recorded(client, night_id, table, within=within)


def wait_table_recorded(client: Any, night_id: int, table: str, *, within: float = 30) -> None:
    """Until the night has recorded the table's result (of its current round)."""
    deadline = time.monotonic() + within
    while table in core(client, night_id).pending_tables:
        assert time.monotonic() < deadline, "the bots' table was not recorded"
        time.sleep(0.02)


def bots_finish_first_round(client: Any, night_id: int, slugs: list[str], *, within: float = 30) -> None:
    """Bots play these rooms' games to their end, the last of the night's first round, and the
    night goes on to its next round."""
    for slug in slugs:
        bots_play(client, slug)
    deadline = time.monotonic() + within
    while core(client, night_id).current.number == 1:
        assert time.monotonic() < deadline, "the round did not end"
        time.sleep(0.02)


def card_codes(text: str) -> list[str]:
    """Every card in a text, in order: as a code (`7C`) or as shown (`7♣`, `10♥`, `Joker`).
    Jokers are alike (a player sees "Joker", not which of the two), so each reads as `X`."""
    from app.rules.cards import RANK_WORD, SUIT_SYMBOL

    words = {RANK_WORD.get(r, r) + SUIT_SYMBOL[s]: r + s for r in "23456789TJQKA" for s in "CDHS"}
    # a code or "Joker" is a word of its own: not a piece of a random token (a form's csrf value
    # holds "X1" now and then)
    alone = r"(?<![A-Za-z0-9%])(?:[2-9TJQKA][CDHS]|X[12]|Joker)(?![A-Za-z0-9])"
    pattern = re.compile("|".join(sorted(map(re.escape, words), key=len, reverse=True)) + "|" + alone)
    return [words.get(m, "X" if m.startswith(("X", "Joker")) else m) for m in pattern.findall(text)]
