"""The table games of a Gurka Night played online, each with its table and its replay link.

A night remembers its rooms in `state["rooms"]` (table key → room slug and players); a game's
story is its room's replay page (`/r/<slug>/replay`), open once that game is over.
"""

from __future__ import annotations

from typing import Any

from sqlmodel import Session

from app.nights.words import describe_slot
from app.store import nights as night_store


def _label(key: str) -> str:
    parts = key.split("-")
    if parts[0] == "playoff" and len(parts) >= 2:
        return describe_slot("playoff", 0, parts[1])
    if len(parts) >= 3 and parts[1].isdigit():
        return describe_slot(parts[0], int(parts[1]), "-".join(parts[2:]))
    return key


def night_games(state: dict[str, Any], player: str | None = None) -> list[dict[str, Any]]:
    """Every online table game of a night (those `player` sat at, if given), in the order opened."""
    games = []
    for key, entry in (state.get("rooms") or {}).items():
        if not isinstance(entry, dict) or "slug" not in entry:
            continue
        players = list(entry.get("players") or [])
        if player is not None and player not in players:
            continue
        games.append({"key": key, "label": _label(key), "players": players,
                      "table_url": f"/r/{entry['slug']}", "replay_url": f"/r/{entry['slug']}/replay"})
    return games


def games_by_night(session: Session, player: str) -> dict[int, list[dict[str, Any]]]:
    """Night id → the online table games `player` sat at that night."""
    out: dict[int, list[dict[str, Any]]] = {}
    for row in night_store.list_nights(session, status="done"):
        if row.id is not None:
            games = night_games(row.state, player)
            if games:
                out[row.id] = games
    return out
