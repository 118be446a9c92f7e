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
from app.store import club as store

NIGHT_RULESET = "gurka-night"


def night_results(session: Session) -> list[Result]:
    names = {m.id: m.name for m in store.list_members(session)}
    out: list[Result] = []
    for row in store.list_nights(session, newest_first=False):
        if row.id is None:
            continue
        current = {p["name"]: names.get(p.get("member_id"), p["name"]) for p in row.players}
        start = datetime.combine(row.date, time(15, 30), tzinfo=UTC)
        for stored in store.list_results(session, night_id=row.id):
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


def all_results(session: Session) -> list[Result]:
    return night_results(session)
