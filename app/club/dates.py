"""The date poll for the next night (RULES.md §7.6), pure: "today" is always passed in.

Readings: the winner proposes two different dates within 7 days after the night (the night's
day counts as day 0); both dates must lie after the day of the proposal. The other members
answer which of the two suits them within 7 days after the proposal; a member may change
their answer until then (the last answer counts). The proposer does not vote: both dates
suit them. The chosen date has the most votes; a tie (including no votes at all) goes to the
earlier date.

Late (seed 000: "Brud på disse datoer koster en kasse øl"): a proposal after its week, or an
answer after its week from a member who had not answered, is recorded and marked late, and
costs that member a crate of beer. A late answer is shown but does not move the date: the
date was settled when the answer week ended. An answer given in time cannot be changed late.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import date, timedelta

from app.rules.text import Text

WEEK = timedelta(days=7)
# Stored as the crate's reason (in English, the message id), said in each reader's language.
LATE_PROPOSAL = Text("Proposed the dates after the week (Brud på disse datoer koster en kasse øl)")
LATE_ANSWER = Text("Answered the date poll after the week (Brud på disse datoer koster en kasse øl)")


@dataclass(frozen=True)
class Crate:
    """A crate of beer owed, with why (for the beer ledger)."""

    member: str
    reason: str


@dataclass
class DatePoll:
    night_date: date
    proposer: str
    members: tuple[str, ...]
    proposed_on: date
    dates: tuple[date, date]
    answers: dict[str, date] = field(default_factory=dict)
    late_answers: dict[str, date] = field(default_factory=dict)
    proposed_late: bool = False

    @classmethod
    def propose(
        cls,
        *,
        night_date: date,
        proposer: str,
        members: Iterable[str],
        dates: Iterable[date],
        proposed_on: date,
    ) -> DatePoll:
        """The night's winner proposes two dates (RULES.md §7.6)."""
        members_t = tuple(members)
        if proposer not in members_t:
            members_t = (*members_t, proposer)
        if len(set(members_t)) != len(members_t):
            raise ValueError("a member is listed twice")
        proposed = tuple(dates)
        if len(proposed) != 2:
            raise ValueError(f"propose exactly two dates, got {len(proposed)}")
        first, second = sorted(proposed)
        if first == second:
            raise ValueError(Text("propose two different dates"))
        if proposed_on < night_date:
            raise ValueError(Text("the proposal cannot come before the night (%(night)s)", night=night_date))
        for d in (first, second):
            if d <= proposed_on:
                raise ValueError(Text("%(day)s is not after the day of the proposal (%(proposed)s)", day=d,
                                      proposed=proposed_on))
        return cls(night_date, proposer, members_t, proposed_on, (first, second),
                   proposed_late=is_proposal_late(night_date, proposed_on))

    @property
    def deadline(self) -> date:
        """Last day to answer: one week after the proposal."""
        return self.proposed_on + WEEK

    @property
    def voters(self) -> tuple[str, ...]:
        return tuple(m for m in self.members if m != self.proposer)

    def answer(self, member: str, choice: date, *, on: date) -> None:
        """Record (or change) a member's answer."""
        if member == self.proposer:
            raise ValueError(f"{member} proposed the dates; the other members answer")
        if member not in self.members:
            raise ValueError(f"{member} is not a member of the club")
        if choice not in self.dates:
            a, b = self.dates
            raise ValueError(f"{choice} was not proposed: choose {a} or {b}")
        if on < self.proposed_on:
            raise ValueError(f"the dates were proposed on {self.proposed_on}, not before")
        if on <= self.deadline:
            self.answers[member] = choice
            return
        if member in self.answers or member in self.late_answers:
            raise ValueError(f"answers were due by {self.deadline}; {member} answered already")
        self.late_answers[member] = choice

    def is_late(self, on: date) -> bool:
        """An answer given ``on`` that day is after its week."""
        return on > self.deadline

    def crates(self) -> list[Crate]:
        """Crates owed for this poll: a late proposal, then each late answer in order."""
        owed = [Crate(self.proposer, LATE_PROPOSAL)] if self.proposed_late else []
        return owed + [Crate(m, LATE_ANSWER) for m in self.late_answers]

    def votes(self) -> dict[date, int]:
        return {d: sum(1 for c in self.answers.values() if c == d) for d in self.dates}

    @property
    def chosen(self) -> date:
        """Most votes; a tie goes to the earlier date (dates are kept in order)."""
        votes = self.votes()
        return max(self.dates, key=lambda d: (votes[d], -d.toordinal()))

    def missing(self) -> list[str]:
        """Members who have not answered yet (in time or late)."""
        return [m for m in self.voters if m not in self.answers and m not in self.late_answers]

    def is_closed(self, today: date) -> bool:
        """The date is settled once every member answered or the answer week is over (late
        answers are still recorded after that)."""
        return today > self.deadline or not self.missing()


def proposal_due(night_date: date) -> date:
    """Last day for the winner to propose the dates: one week after the night."""
    return night_date + WEEK


def is_proposal_late(night_date: date, proposed_on: date) -> bool:
    return proposed_on > proposal_due(night_date)
