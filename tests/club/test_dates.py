"""The date poll for the next night (RULES.md §7.6)."""

from __future__ import annotations

from datetime import date

import pytest

from app.club import DatePoll
from app.club.dates import LATE_ANSWER, LATE_PROPOSAL, Crate, is_proposal_late, proposal_due

NIGHT = date(2025, 3, 1)
MEMBERS = ["Ann", "Bo", "Cy", "Di"]


def poll(proposed_on: date = date(2025, 3, 5)) -> DatePoll:
    return DatePoll.propose(
        night_date=NIGHT, proposer="Ann", members=MEMBERS,
        dates=[date(2025, 5, 10), date(2025, 5, 3)], proposed_on=proposed_on,
    )  # fmt: skip


def test_most_votes_wins() -> None:
    p = poll()
    assert p.dates == (date(2025, 5, 3), date(2025, 5, 10))
    assert p.deadline == date(2025, 3, 12)
    p.answer("Bo", date(2025, 5, 10), on=date(2025, 3, 6))
    p.answer("Cy", date(2025, 5, 10), on=date(2025, 3, 12))
    p.answer("Di", date(2025, 5, 3), on=date(2025, 3, 7))
    assert p.votes() == {date(2025, 5, 3): 1, date(2025, 5, 10): 2}
    assert p.chosen == date(2025, 5, 10)
    assert p.is_closed(date(2025, 3, 8))  # everyone answered


def test_tie_goes_to_the_earlier_date_and_answers_can_change() -> None:
    p = poll()
    assert p.chosen == date(2025, 5, 3)  # no votes yet: earlier date
    p.answer("Bo", date(2025, 5, 10), on=date(2025, 3, 6))
    p.answer("Cy", date(2025, 5, 10), on=date(2025, 3, 6))
    p.answer("Di", date(2025, 5, 3), on=date(2025, 3, 6))
    p.answer("Cy", date(2025, 5, 3), on=date(2025, 3, 8))  # Cy changes her mind
    assert p.votes() == {date(2025, 5, 3): 2, date(2025, 5, 10): 1}
    assert p.chosen == date(2025, 5, 3)


def test_open_until_the_deadline() -> None:
    p = poll()
    p.answer("Bo", date(2025, 5, 3), on=date(2025, 3, 6))
    assert p.missing() == ["Cy", "Di"]
    assert not p.is_closed(date(2025, 3, 12))
    assert p.is_closed(date(2025, 3, 13))


def test_proposal_deadline_is_one_week_after_the_night() -> None:
    on_time = poll(proposed_on=date(2025, 3, 8))
    assert on_time.deadline == date(2025, 3, 15) and not on_time.proposed_late
    assert on_time.crates() == []
    assert proposal_due(NIGHT) == date(2025, 3, 8)
    with pytest.raises(ValueError, match="cannot come before the night"):
        poll(proposed_on=date(2025, 2, 28))


def test_a_late_proposal_is_recorded_and_costs_the_proposer_a_crate() -> None:
    """Seed 000: "Brud på disse datoer koster en kasse øl"."""
    late = poll(proposed_on=date(2025, 3, 9))
    assert late.proposed_late and late.dates == (date(2025, 5, 3), date(2025, 5, 10))
    assert late.deadline == date(2025, 3, 16)    # the answer week runs from the proposal
    assert late.crates() == [Crate("Ann", LATE_PROPOSAL)]
    assert "Brud på disse datoer koster en kasse øl" in LATE_PROPOSAL
    assert is_proposal_late(NIGHT, date(2025, 3, 9)) and not is_proposal_late(NIGHT, date(2025, 3, 8))


def test_a_late_answer_is_recorded_marked_and_costs_a_crate_but_does_not_move_the_date() -> None:
    p = poll()
    p.answer("Bo", date(2025, 5, 10), on=date(2025, 3, 6))
    assert not p.is_late(date(2025, 3, 12)) and p.is_late(date(2025, 3, 13))
    p.answer("Cy", date(2025, 5, 3), on=date(2025, 3, 13))
    p.answer("Di", date(2025, 5, 3), on=date(2025, 3, 20))
    assert p.late_answers == {"Cy": date(2025, 5, 3), "Di": date(2025, 5, 3)}
    assert p.answers == {"Bo": date(2025, 5, 10)}
    assert p.chosen == date(2025, 5, 10)             # settled when the week ended
    assert p.missing() == []
    assert p.crates() == [Crate("Cy", LATE_ANSWER), Crate("Di", LATE_ANSWER)]
    assert "Brud på disse datoer koster en kasse øl" in LATE_ANSWER
    with pytest.raises(ValueError, match="Bo answered already"):
        p.answer("Bo", date(2025, 5, 3), on=date(2025, 3, 14))
    with pytest.raises(ValueError, match="Cy answered already"):
        p.answer("Cy", date(2025, 5, 10), on=date(2025, 3, 14))
    assert p.answers == {"Bo": date(2025, 5, 10)} and len(p.crates()) == 2


@pytest.mark.parametrize(
    ("dates", "message"),
    [
        ([date(2025, 5, 3)], "exactly two dates, got 1"),
        ([date(2025, 5, 3), date(2025, 5, 3)], "two different dates"),
        ([date(2025, 3, 5), date(2025, 5, 3)], "2025-03-05 is not after the day of the proposal"),
    ],
)
def test_proposal_validation(dates: list[date], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        DatePoll.propose(
            night_date=NIGHT, proposer="Ann", members=MEMBERS, dates=dates,
            proposed_on=date(2025, 3, 5),
        )  # fmt: skip


def test_answer_validation() -> None:
    p = poll()
    with pytest.raises(ValueError, match="Ann proposed the dates"):
        p.answer("Ann", date(2025, 5, 3), on=date(2025, 3, 6))
    with pytest.raises(ValueError, match="Kim is not a member"):
        p.answer("Kim", date(2025, 5, 3), on=date(2025, 3, 6))
    with pytest.raises(ValueError, match="2025-05-04 was not proposed"):
        p.answer("Bo", date(2025, 5, 4), on=date(2025, 3, 6))
    with pytest.raises(ValueError, match="not before"):
        p.answer("Bo", date(2025, 5, 3), on=date(2025, 3, 4))
    assert p.answers == {}
