"""A duplicate night's comparison, read from its tables' rooms: for each round over at every
table, deal by deal what each player made of the same cards (`app.club.duplicate`), and each
player's duplicate score (matchpoints) over the night.

Each table's game is rebuilt from its room's stored log (`app.rooms.replay`); a finished game
never changes, so what is read from it is kept in memory per room. Nothing here is shown before
the round is over at all three tables: `round_view` answers None until then.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

from sqlmodel import Session

from app.club.constants import BASE_TABLES, FINAL_TABLES
from app.club.duplicate import (
    DealComparison,
    DuplicateScore,
    HandFate,
    Play,
    TableDeal,
    compare_round,
    score_round,
)
from app.rooms.replay import GameStory, Step, StoredEvent, build_stories
from app.store import nights as night_store
from app.store import results as result_store
from app.store import rooms as room_store
from app.web.club import online as club_online
from app.web.club.duplicate_decks import TABLE_SIZE

_CACHE: dict[str, tuple[TableDeal, ...]] = {}  # room slug -> its finished game's deals
_CACHE_LOCK = threading.Lock()


@dataclass(frozen=True)
class TableLink:
    table: str
    slug: str
    players: list[str]


@dataclass(frozen=True)
class RoundView:
    stage: str
    number: int
    tables: list[TableLink]  # in table order
    deals: list[DealComparison]

    def replay_url(self, table: str, deal_no: int) -> str:
        slug = next(t.slug for t in self.tables if t.table == table)
        return f"/r/{slug}/replay?deal={deal_no}"


def tables_of(stage: str) -> tuple[str, ...]:
    return BASE_TABLES if stage == "base" else FINAL_TABLES


def finished_rounds(results: list[result_store.NightResult]) -> list[tuple[str, int]]:
    """(stage, round) of every round with a result at all three tables, in playing order."""
    done: dict[tuple[str, int], set[str]] = {}
    for r in results:
        if r.phase in ("base", "finals"):
            done.setdefault((r.phase, r.round), set()).add(r.table)
    rounds = [k for k, tables in done.items() if len(tables) >= TABLE_SIZE]
    return sorted(rounds, key=lambda k: (k[0] != "base", k[1]))


def round_view(session: Session, row: night_store.Night, results: list[result_store.NightResult], stage: str,
               number: int) -> RoundView | None:
    """The comparison of one round of a duplicate night, or None (not a duplicate night, the
    round not over at every table, or a table played elsewhere than in a room)."""
    if not row.duplicate or (stage, number) not in finished_rounds(results):
        return None
    links: list[TableLink] = []
    deals: dict[str, tuple[TableDeal, ...]] = {}
    for table in tables_of(stage):
        entry = club_online.room_entry(row, club_online.room_key(stage, number, table))
        if entry is None:
            return None
        players = list(entry.get("players") or [])
        found = _table_deals(session, entry["slug"], table, players)
        if found is None:
            return None
        links.append(TableLink(table, entry["slug"], players))
        deals[table] = found
    return RoundView(stage, number, links, compare_round(deals))


def night_scores(session: Session, row: night_store.Night, results: list[result_store.NightResult]) -> dict[str, DuplicateScore]:
    """Every player's duplicate score over the rounds of the night that are over everywhere."""
    scores: dict[str, DuplicateScore] = {}
    for stage, number in finished_rounds(results):
        view = round_view(session, row, results, stage, number)
        if view is not None:
            score_round(round_code(stage, number), view.deals, scores)
    return scores


def round_code(stage: str, number: int) -> str:
    """A round's short code for the pictures' axis: B1..B16, F1..F6."""
    return f"{'B' if stage == 'base' else 'F'}{number}"


def player_nights(session: Session, player: str) -> list[tuple[night_store.Night, DuplicateScore]]:
    """The duplicate nights `player` played, oldest first, with their duplicate score there."""
    out = []
    for row in night_store.list_nights(session, newest_first=False):
        if not row.duplicate or row.id is None or all(p.get("name") != player for p in row.players):
            continue
        results = result_store.list_results(session, night_id=row.id)
        score = night_scores(session, row, results).get(player)
        if score is not None and score.comparisons:
            out.append((row, score))
    return out


# ------------------------------------------------------------------ a table's game, deal by deal


def _table_deals(session: Session, slug: str, table: str, players: list[str]) -> tuple[TableDeal, ...] | None:
    with _CACHE_LOCK:
        found = _CACHE.get(slug)
    if found is not None:
        return found
    room = room_store.get_room(session, slug=slug)
    if room is None or room.id is None:
        return None
    events: list[StoredEvent] = [(e.seat, e.kind, dict(e.payload), e.at)
                                 for e in room_store.list_events(session, room_id=room.id)]
    stories = build_stories(room.preset, dict(room.options or {}), events)
    if not stories or not stories[-1].over:
        return None
    deals = tuple(deals_of(stories[-1], table, players))
    with _CACHE_LOCK:
        _CACHE[slug] = deals
    return deals


def deals_of(story: GameStory, table: str, players: list[str]) -> list[TableDeal]:
    """Each deal of a finished game: the hands by place from forhånd, their fates, the final trick."""
    names = players if len(players) == len(story.players) else list(story.players)
    by_deal: dict[int, list[Step]] = {}
    for step in story.steps:
        by_deal.setdefault(step.deal_no, []).append(step)
    out: list[TableDeal] = []
    for deal_no, steps in sorted(by_deal.items()):
        dealt = next((s for s in steps if s.action == "deal"), None)
        end = next((s for s in steps if s.deal_end is not None), None)
        if dealt is None or end is None or end.deal_end is None:
            continue
        result = end.deal_end
        n = len(dealt.hands)
        seats = [s for s in ((dealt.dealer + 1 + i) % n for i in range(n)) if dealt.hands[s]]
        fates = []
        for seat in seats:
            took = [(c, p) for loser, c, p in zip(result.losers, result.cards, result.points, strict=False) if loser == seat]
            fates.append(HandFate(
                player=names[seat], hand=tuple(dealt.hands[seat]), penalty=tuple(c for c, _ in took),
                points=sum(p for _, p in took), went_out=seat in result.went_out, agurk=seat in result.agurk,
            ))
        final = next((s.last_trick for s in reversed(steps) if s.trick_done and s.last_trick
                      and s.last_trick.get("final")), None)
        trick = tuple(Play(names[p["seat"]], tuple(p["cards"])) for p in (final or {}).get("plays", []))
        out.append(TableDeal(table, deal_no, tuple(fates), trick, full=n))
    return out


def forget(slug: str) -> None:
    """Drop a room's deals from memory (tests; a room rebuilt differently)."""
    with _CACHE_LOCK:
        _CACHE.pop(slug, None)


