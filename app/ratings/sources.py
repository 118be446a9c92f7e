"""The results the ratings are computed from, read from the store (blocking: a worker thread).

- Every recorded table round of every Gurka Night (online, by hand or from a table's phone),
  as it stands after the elders' corrections (a correction rewrites the stored result and keeps
  its record): the winner 1st, the second out 2nd, the first out 3rd. Players under their
  current member names (a reserve is rated as themselves).
- Every finished online game outside a night whose every seat was taken by a device known as a
  member (`app.store.seat_members`), its places from the game's ranking.
"""

from __future__ import annotations

from datetime import UTC, datetime, time, timedelta

from sqlmodel import Session

from app.club import RoundResult
from app.ratings.engine import Result
from app.rooms.replay import StoredEvent, build_stories
from app.store import members as member_store
from app.store import nights as night_store
from app.store import results as result_store
from app.store import rooms as room_store
from app.store import seat_members

NIGHT_RULESET = "gurka-night"


def night_results(session: Session) -> list[Result]:
    names = {m.id: m.name for m in member_store.list_members(session)}
    out: list[Result] = []
    for row in night_store.list_nights(session, newest_first=False):
        if row.id is None:
            continue
        current = {p["name"]: names.get(p.get("member_id"), p["name"]) for p in row.players}
        start = datetime.combine(row.date, time(15, 30), tzinfo=UTC)
        for stored in result_store.list_results(session, night_id=row.id):
            if stored.phase not in ("base", "finals"):
                continue
            result = RoundResult.from_dict(stored.result)
            first_out, second_out = result.out
            places = ((current.get(result.winner, result.winner), 1),
                      (current.get(second_out, second_out), 2),
                      (current.get(first_out, first_out), 3))
            out.append(Result(
                key=f"night:{row.id:08d}:{stored.seq:04d}",
                on=start + timedelta(minutes=stored.seq),  # the night's order of recording
                ruleset=NIGHT_RULESET,
                places=places,
                agurker={current.get(p, p): n for p, n in result.agurker.items() if n},
                bar_rov=frozenset({current.get(result.winner, result.winner)} - {
                    current.get(p, p) for p in result.took_cards}),
                source="night",
                link=f"/club/nights/{row.id}",
            ))
    return out


def _utc(at: datetime | None) -> datetime | None:
    if at is None:
        return None
    return at.replace(tzinfo=UTC) if at.tzinfo is None else at.astimezone(UTC)


def _night_slugs(session: Session) -> set[str]:
    slugs: set[str] = set()
    for row in night_store.list_nights(session):
        for entry in (row.state.get("rooms") or {}).values():
            if isinstance(entry, dict) and isinstance(entry.get("slug"), str):
                slugs.add(entry["slug"])
    return slugs


def online_results(session: Session) -> list[Result]:
    """Finished games outside the nights whose every seat's latest taker before the game began
    was a known member (each a different one)."""
    names = {m.id: m.name for m in member_store.list_members(session)}
    nights = _night_slugs(session)
    out: list[Result] = []
    for room_id, takers in seat_members.rooms_with_members(session).items():
        room = room_store.get_room_by_id(session, room_id=room_id)
        if room is None or room.slug in nights:
            continue
        events: list[StoredEvent] = [(e.seat, e.kind, dict(e.payload), e.at) for e in room_store.list_events(session, room_id=room_id)]
        for story in build_stories(room.preset, dict(room.options or {}), events):
            began, ended = _utc(story.started_at), _utc(story.ended_at)
            if not story.over or began is None:
                continue
            members: dict[int, int | None] = {}
            for taker in takers:
                taken = _utc(taker.at)
                if taken is not None and taken <= began:
                    members[taker.seat] = taker.member_id
            seats = range(len(story.players))
            ids = [members.get(s) for s in seats]
            if any(i is None or i not in names for i in ids) or len(set(ids)) != len(ids):
                continue
            game = story.game
            who = [names[i] for i in ids if i is not None]
            ranking = game.ranking or []
            tie_on_score = game.ruleset.game_end == "target"
            places = tuple((who[s], 1 + sum(1 for t in ranking[:pos] if not (tie_on_score and game.scores[t] == game.scores[s])))
                           for pos, s in enumerate(ranking))
            lost = {s for d in game.deal_log for s in d.losers}
            out.append(Result(
                key=f"room:{room_id:08d}:{story.number:03d}",
                on=ended or began,
                ruleset=room.preset,
                places=places,
                agurker={who[s]: n for s, n in enumerate(game.agurk) if n},
                bar_rov=frozenset({who[ranking[0]]} - {who[s] for s in lost}) if ranking else frozenset(),
                source="online",
                link=f"/r/{room.slug}/replay?game={story.number}",
            ))
    return out


def all_results(session: Session) -> list[Result]:
    return night_results(session) + online_results(session)
