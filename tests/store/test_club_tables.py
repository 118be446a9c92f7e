"""The club's tables and queries, on SQLite and on Postgres (migration 0002 included)."""

from __future__ import annotations

from datetime import date

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy.exc import IntegrityError
from sqlmodel import SQLModel

from app.store import beer as beer_store
from app.store import date_polls as poll_store
from app.store import members as member_store
from app.store import nights as night_store
from app.store import results as result_store
from app.store.db import downgrade, make_engine, session_scope, upgrade

CLUB_TABLES = {
    "members", "nights", "night_results", "corrections", "date_polls", "date_votes", "beer_ledger",
}


@pytest.fixture
def engine(database_url: str):
    upgrade(database_url)
    engine = make_engine(database_url)
    yield engine
    engine.dispose()


def test_migration_matches_the_models(engine) -> None:
    with engine.connect() as connection:
        context = MigrationContext.configure(connection, opts={"compare_type": True})
        diff = compare_metadata(context, SQLModel.metadata)

    def table_of(change: object) -> str | None:
        item = change[0] if isinstance(change, list) else change
        for part in item[1:]:
            if isinstance(part, str) and part in CLUB_TABLES:
                return part
            table = getattr(part, "table", None)
            name = getattr(table, "name", None) or getattr(part, "name", None)
            if isinstance(name, str) and name in CLUB_TABLES:
                return name
        return None

    mine = [c for c in diff if table_of(c) in CLUB_TABLES]
    assert mine == []


def test_downgrade_to_0001_drops_only_the_club(database_url: str, engine) -> None:
    from sqlalchemy import inspect

    downgrade(database_url, "0001")
    engine.dispose()
    assert not CLUB_TABLES & set(inspect(engine).get_table_names())
    engine.dispose()
    upgrade(database_url)
    assert CLUB_TABLES <= set(inspect(engine).get_table_names())


def test_members(engine) -> None:
    with session_scope(engine) as s:
        assert member_store.count_elders(s) == 0
        ann = member_store.add_member(s, name="Ann", is_elder=True, password_hash="x")
        member_store.add_member(s, name="bo")
        member_store.add_member(s, name="Cee")
        assert member_store.count_elders(s) == 1
        assert [m.name for m in member_store.list_members(s)] == ["Ann", "bo", "Cee"]
        assert member_store.get_member_by_name(s, name="BO").name == "bo"
        member_store.update_member(s, member_id=ann.id, active=False)
        assert member_store.count_elders(s) == 0
        assert [m.name for m in member_store.list_members(s, active_only=True)] == ["bo", "Cee"]
    with pytest.raises(IntegrityError), session_scope(engine) as s:
        member_store.add_member(s, name="Cee")


def test_night_results_and_corrections(engine) -> None:
    with session_scope(engine) as s:
        night = night_store.create_night(
            s, day=date(2025, 3, 1), host="Ann", seed=2**61 + 5,
            players=[{"name": "Ann", "member_id": 1, "for_id": None, "for_name": None}],
            start={"Ann": "vinder"},
        )
        one = result_store.add_result(
            s, night_id=night.id, phase="base", round_no=1, table="vinder",
            result={"out": ["a", "b"], "winner": "c"}, recorded_by="Ann",
        )
        two = result_store.add_result(
            s, night_id=night.id, phase="base", round_no=1, table="mellan",
            result={"out": ["d", "e"], "winner": "f"}, recorded_by="Ann",
        )
        assert (one.seq, two.seq) == (1, 2)
        result_store.correct_result(
            s, result_id=one.id, after={"out": ["b", "a"], "winner": "c"}, who="Ann",
            reason="they swapped",
        )
        night_id = night.id
    with session_scope(engine) as s:
        night = night_store.get_night(s, night_id=night_id)
        assert night.seed == 2**61 + 5 and night.date == date(2025, 3, 1)
        rows = result_store.list_results(s, night_id=night_id)
        assert rows[0].result["out"] == ["b", "a"]
        [fix] = result_store.list_corrections(s, night_id=night_id)
        assert fix.before["out"] == ["a", "b"] and fix.reason == "they swapped"
        night_store.save_night_state(s, night_id=night_id, state={"phase": "done"}, status="done", winner="c")
        assert night_store.last_done_night(s).id == night_id
        assert night_store.last_done_night(s, before_id=night_id) is None
    with pytest.raises(IntegrityError), session_scope(engine) as s:
        result_store.add_result(
            s, night_id=night_id, phase="base", round_no=1, table="vinder",
            result={}, recorded_by="Ann",
        )


def test_poll_votes_and_beer(engine) -> None:
    with session_scope(engine) as s:
        ann = member_store.add_member(s, name="Ann")
        bo = member_store.add_member(s, name="Bo")
        night = night_store.create_night(s, day=date(2025, 3, 1), host="Ann", seed=1, players=[], start={})
        poll = poll_store.create_poll(s, night_id=night.id, poll=poll_store.DatePollCreate(
            proposed_by="Ann", option_a=date(2025, 4, 5), option_b=date(2025, 4, 12), answer_by=date(2025, 3, 15)))
        poll_store.set_vote(s, poll_id=poll.id, answer=poll_store.DateVoteCreate(member_id=ann.id, choice="a"))
        poll_store.set_vote(s, poll_id=poll.id, answer=poll_store.DateVoteCreate(member_id=bo.id, choice="a"))
        poll_store.set_vote(s, poll_id=poll.id, answer=poll_store.DateVoteCreate(member_id=bo.id, choice="b"))
        assert [v.choice for v in poll_store.list_votes(s, poll_id=poll.id)] == ["a", "b"]
        poll_store.choose_date(s, poll_id=poll.id, chosen=date(2025, 4, 5))
        assert poll_store.get_poll(s, night_id=night.id).chosen == date(2025, 4, 5)
        debt = beer_store.add_debt(s, debt=beer_store.BeerDebtCreate(member_id=bo.id, reason="broke the date",
                                                                   night_id=night.id), recorded_by="Ann")
        assert len(beer_store.list_debts(s, open_only=True)) == 1
        beer_store.settle_debt(s, debt_id=debt.id)
        assert beer_store.list_debts(s, open_only=True) == []
        assert len(beer_store.list_debts(s)) == 1
        night_store.delete_night(s, night_id=night.id)
        assert night_store.get_night(s, night_id=night.id) is None
        assert beer_store.list_debts(s)[0].night_id is None


def test_late_flags_and_waived_crates(engine) -> None:
    """Migration 0003: late proposals and answers are stored; an elder's waiver with its reason
    takes a crate out of what is owed, once."""
    with session_scope(engine) as s:
        bo = member_store.add_member(s, name="Bo")
        night = night_store.create_night(s, day=date(2025, 3, 1), host="Bo", seed=1, players=[], start={})
        poll = poll_store.create_poll(s, night_id=night.id, poll=poll_store.DatePollCreate(
            proposed_by="Bo", option_a=date(2025, 4, 5), option_b=date(2025, 4, 12), answer_by=date(2025, 3, 20),
            late=True))
        poll_store.set_vote(s, poll_id=poll.id, answer=poll_store.DateVoteCreate(member_id=bo.id, choice="b", late=True))
        debt = beer_store.add_debt(s, debt=beer_store.BeerDebtCreate(member_id=bo.id, reason="late",
                                                                   night_id=night.id), recorded_by="the date poll")
        poll_id, debt_id = poll.id, debt.id
    with session_scope(engine) as s:
        assert poll_store.get_poll(s, night_id=night.id).late is True
        assert [v.late for v in poll_store.list_votes(s, poll_id=poll_id)] == [True]
        waived = beer_store.waive_debt(s, debt_id=debt_id, by="Elsa", reason="his car broke down")
        assert (waived.waived_by, waived.waive_reason) == ("Elsa", "his car broke down")
        assert waived.waived_at is not None and not waived.is_owed
        assert beer_store.list_debts(s, open_only=True) == [] and len(beer_store.list_debts(s)) == 1
        with pytest.raises(ValueError, match="no longer owed"):
            beer_store.waive_debt(s, debt_id=debt_id, by="Elsa", reason="again")
        with pytest.raises(LookupError):
            beer_store.waive_debt(s, debt_id=debt_id + 99, by="Elsa", reason="none")


def test_a_member_as_pages_read_it_carries_no_hash(engine) -> None:
    """MemberPublic is what the pages get: the name and roles, whether there is a personal
    link, and nothing of the password's or the link's hash."""
    with session_scope(engine) as session:
        elder = member_store.add_member(session, name="Elsa", is_elder=True, password_hash="argon2-hash")
        member_store.set_member_link(session, member_id=elder.id, link_hash="a" * 64)
        member_store.add_member(session, name="Bo")
        shown = member_store.list_public(session)
    assert [(m.name, m.is_elder, m.active, m.has_link) for m in shown] == [
        ("Bo", False, True, False), ("Elsa", True, True, True)]
    dumped = [m.model_dump() for m in shown]
    assert all(set(d) == {"id", "name", "is_elder", "active", "has_link"} for d in dumped), dumped
    assert "argon2-hash" not in repr(shown) and "a" * 64 not in repr(shown)


def test_a_night_as_pages_read_it_shows_its_seed_only_once_it_is_over(engine) -> None:
    """NightPublic is what a night's pages get: what they show of the night, and the seed of its
    lots only once the night is over; nothing of its players, start tables or cached state."""
    with session_scope(engine) as session:
        kept = night_store.create_night(session, day=date(2025, 3, 1), host="Ann", seed=123456789012, players=[],
                                        start={}, state={"phase": "base"})
        night_store.create_night(session, day=date(2025, 3, 8), host="Bo", seed=987654321098, players=[], start={})
        night_store.save_night_state(session, night_id=kept.id, state={"phase": "done"}, status="done", winner="Ann")
        shown = night_store.list_public(session)
    assert [(n.date, n.host, n.status, n.winner, n.seed) for n in shown] == [
        (date(2025, 3, 8), "Bo", "open", None, None), (date(2025, 3, 1), "Ann", "done", "Ann", 123456789012)]
    assert all(set(n.model_dump()) == {"id", "date", "host", "status", "mode", "winner", "turn_seconds", "duplicate",
                                       "seed"} for n in shown)
    assert "987654321098" not in repr(shown)
