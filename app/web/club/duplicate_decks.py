"""Where a duplicate night's tables get their decks: drawn with `secrets` when a round opens,
stored with the night (`night_decks`), kept in memory for the rooms (which ask on the event
loop, `DeckSource.deck`), and secret until the round is over at every table.

A deck key names one round of one night: `night-<id>-<stage>-<round>`; a room made with it
(its `create` event keeps the key) deals its deal k from deck k.
"""

from __future__ import annotations

import logging
import re
import secrets
import threading

from fastapi import FastAPI
from sqlalchemy import Engine
from sqlmodel import Session

from app.rooms import engine as rules_engine
from app.store import decks as deck_store
from app.store import nights as night_store
from app.store import results as result_store
from app.store.db import session_scope

log = logging.getLogger("gurka.club.duplicate")

PRESET = "gurka-night"
TABLE_SIZE = 3
# Decks drawn per round: far more deals than a table's game lasts (9 at most in 300 bot games,
# 7 on average); a game that outlasts them deals its later deals from a fresh shuffle, and the
# comparison shows those deals at that table alone.
DECKS_PER_ROUND = 40
_KEY = re.compile(r"night-(\d{1,12})-(base|finals)-(\d{1,3})")


def deck_key(night_id: int, stage: str, number: int) -> str:
    return f"night-{night_id}-{stage}-{number}"


def parse_key(key: str) -> tuple[int, str, int] | None:
    found = _KEY.fullmatch(key)
    return (int(found[1]), found[2], int(found[3])) if found else None


def draw_decks(count: int = DECKS_PER_ROUND) -> list[list[str]]:
    rng = secrets.SystemRandom()
    return [rules_engine.shuffled_deck(PRESET, TABLE_SIZE, rng) for _ in range(count)]


def round_over_everywhere(session: Session, night_id: int, stage: str, number: int) -> bool:
    """Every table of the round has its result recorded."""
    done = {r.table for r in result_store.list_results(session, night_id=night_id) if r.phase == stage and r.round == number}
    return len(done) >= TABLE_SIZE


class ClubDecks:
    """The `DeckSource` of the room manager: the decks of duplicate nights' rounds."""

    def __init__(self, db: Engine) -> None:
        self.db = db
        self._decks: dict[str, list[list[str]]] = {}
        self._lock = threading.Lock()

    # ---------------------------------------------------------------- for the rooms

    def deck(self, key: str, deal_no: int, /) -> list[str] | None:
        decks = self._decks.get(key)
        if decks is None:
            # Another process opened the round and this one has not read it yet (`refresh`
            # runs every few seconds): one small read, once per round and process.
            log.warning("decks %s: not in memory yet, read now", key)
            decks = self._read(key)
        return list(decks[deal_no - 1]) if decks is not None and 1 <= deal_no <= len(decks) else None

    def secret(self, key: str, /) -> bool:
        parsed = parse_key(key)
        if parsed is None:
            return False
        night_id, stage, number = parsed
        with session_scope(self.db) as session:
            if night_store.get_night(session, night_id=night_id) is None:
                return False
            return not round_over_everywhere(session, night_id, stage, number)

    # ---------------------------------------------------------------- for the night (blocking)

    def ensure(self, night_id: int, stage: str, number: int) -> str:
        """The key of the round's decks, drawn and stored now if the round has none yet."""
        key = deck_key(night_id, stage, number)
        if key in self._decks:
            return key
        with self._lock, session_scope(self.db) as session:
            row = deck_store.add_decks(session, night_id=night_id, stage=stage, round_no=number, decks=draw_decks())
            self._decks[key] = [list(d) for d in row.decks]
        return key

    def refresh(self) -> None:
        """Read the decks of every open duplicate night (at start, and now and then: a round
        another process opened)."""
        with session_scope(self.db) as session:
            found = {}
            for night in night_store.list_nights(session, status="open"):
                if night.duplicate and night.id is not None:
                    for row in deck_store.list_decks(session, night_id=night.id):
                        found[deck_key(night.id, row.stage, row.round)] = [list(d) for d in row.decks]
        with self._lock:
            self._decks.update(found)

    def _read(self, key: str) -> list[list[str]] | None:
        parsed = parse_key(key)
        if parsed is None:
            return None
        night_id, stage, number = parsed
        with session_scope(self.db) as session:
            row = deck_store.get_decks(session, night_id=night_id, stage=stage, round_no=number)
            decks = [list(d) for d in row.decks] if row is not None else None
        if decks is not None:
            with self._lock:
                self._decks[key] = decks
        return decks


def decks_of(app: FastAPI) -> ClubDecks:
    """The app's duplicate decks (made once, with the app's database)."""
    found = getattr(app.state, "club_decks", None)
    if not isinstance(found, ClubDecks):
        found = app.state.club_decks = ClubDecks(app.state.engine)
    return found
