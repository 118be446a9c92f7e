"""The club's use cases called as the pages and the phones call them, with no request: each
says how it went with a typed outcome, and what it stores is what the club core decided."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date
from typing import Any

import pytest

from app.club import Night
from app.nights import recording
from app.nights.recording import Said
from app.store import members as member_store
from app.store import night_replay
from app.store import nights as night_store
from app.store import results as result_store
from app.store.db import make_engine, session_scope, upgrade
from tests.web.club.helpers import NINE

ENTRY = "e" * 20


@pytest.fixture
def night(database_url: str) -> Iterator[tuple[Any, int]]:
    """An engine and tonight's night on real cards (seed 7), nobody recorded yet."""
    upgrade(database_url)
    engine = make_engine(database_url)
    with session_scope(engine) as session:
        players = []
        for name in NINE:
            member = member_store.add_member(session, name=name)
            players.append({"name": name, "member_id": member.id, "for_id": None, "for_name": None})
        row = night_store.create_night(session, day=date.today(), host="Ann", seed=7, players=players, start={})
        night_replay.save_state(session, row, Night.new(NINE, None, seed=7))
        night_id = row.id
    assert night_id is not None
    yield engine, night_id
    engine.dispose()


def _chairs(engine: Any, night_id: int, table: str) -> list[str]:
    with session_scope(engine) as session:
        loaded = night_replay.load(session, night_id=night_id)
    assert loaded is not None
    return list(loaded[2].tables[table])


def _send(engine: Any, night_id: int, table: str, *, entry: str = ENTRY, round_no: str = "1",
          first: int = 0) -> recording.PhoneAnswer:
    chairs = _chairs(engine, night_id, table)
    with session_scope(engine) as session:
        return recording.take_phone_result(
            session, night_id=night_id, table=table, entry_id=entry, phase="base", round_no=round_no,
            fields={"first_out": chairs[first], "second_out": chairs[(first + 1) % 3]})


def test_a_phones_result_is_taken_once_and_its_entry_belongs_to_its_slot(night: tuple[Any, int]) -> None:
    engine, night_id = night
    assert _send(engine, night_id, "vinder").kind is Said.SAVED
    assert _send(engine, night_id, "vinder").kind is Said.SAVED  # a repeat: the stored answer
    assert _send(engine, night_id, "mellan").kind is Said.MISMATCH  # that entry at another table
    assert _send(engine, night_id, "vinder", round_no="2").kind is Said.MISMATCH  # ... or round
    assert _send(engine, night_id, "vinder", entry="f" * 20, first=1).kind is Said.CONFLICT
    assert _send(engine, night_id, "vinder", entry="short").kind is Said.INVALID
    with session_scope(engine) as session:
        rows = result_store.list_results(session, night_id=night_id)
        assert [(r.table, r.source) for r in rows] == [("vinder", "phone")]
        taken = recording.take_back(session, night_id=night_id, table="vinder", entry_id=ENTRY)
    assert taken.kind is Said.TAKEN_BACK
    assert _send(engine, night_id, "vinder").kind is Said.UNDONE  # taken back stays taken back
    with session_scope(engine) as session:
        assert result_store.list_results(session, night_id=night_id) == []
        again = recording.take_back(session, night_id=night_id, table="vinder", entry_id=ENTRY)
    assert again.kind is Said.GONE


def test_a_result_by_hand_and_its_correction_say_what_is_wrong_or_store_it(night: tuple[Any, int]) -> None:
    engine, night_id = night
    chairs = _chairs(engine, night_id, "taber")
    typed = {"first_out": chairs[0], "second_out": chairs[1], "winner": chairs[2]}
    with session_scope(engine) as session:
        wrong = recording.record_by_hand(session, night_id=night_id, table="taber", phase="base", round_no="1",
                                         fields={**typed, "winner": chairs[0]}, by="Elsa")
    assert not wrong.ok and any("chosen twice" in e for e in wrong.errors)
    with session_scope(engine) as session:
        done = recording.record_by_hand(session, night_id=night_id, table="taber", phase="base", round_no="1",
                                        fields=typed, by="Elsa")
    assert done.ok
    with session_scope(engine) as session:
        late = recording.record_by_hand(session, night_id=night_id, table="taber", phase="base", round_no="1",
                                        fields=typed, by="Elsa")
        assert not late.ok and "already recorded or not open" in late.errors[0]
        (row,) = result_store.list_results(session, night_id=night_id)
        assert row.id is not None
        no_reason = recording.correct(session, night_id=night_id, result_id=row.id, reason="", drop_later=False,
                                      who="Elsa", fields={**typed, "first_out": chairs[1], "second_out": chairs[0]})
        assert not no_reason.ok and "reason" in no_reason.errors[0]
    with session_scope(engine) as session:
        fixed = recording.correct(session, night_id=night_id, result_id=row.id, reason="swapped", drop_later=False,
                                  who="Elsa", fields={**typed, "first_out": chairs[1], "second_out": chairs[0]})
        assert fixed.ok
        (stored,) = result_store.list_results(session, night_id=night_id)
        assert stored.result["out"] == [chairs[1], chairs[0]]
        assert [c.reason for c in result_store.list_corrections(session, night_id=night_id)] == ["swapped"]
        with pytest.raises(recording.Missing):
            recording.correct(session, night_id=night_id, result_id=row.id + 99, reason="x", drop_later=False,
                              who="Elsa", fields=typed)


def test_a_playoff_typed_when_there_is_none_is_refused_and_an_unknown_night_is_missing(
    night: tuple[Any, int],
) -> None:
    engine, night_id = night
    with session_scope(engine) as session:
        done = recording.record_playoff(session, night_id=night_id, group_no="0", by="Elsa",
                                        fields={"place_0": NINE[0], "place_1": NINE[1]})
        assert not done.ok and done.errors == ["There is no playoff to record now."]
        assert result_store.list_results(session, night_id=night_id) == []
        with pytest.raises(recording.Missing):
            recording.record_playoff(session, night_id=night_id + 1, group_no="0", by="Elsa", fields={})
