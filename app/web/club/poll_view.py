"""A date poll as its pages show it (the night page, the dates page, the overview, a new
night's form): the stored poll and answers read through the club core's `DatePoll`."""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

from app.club import DatePoll
from app.store import date_polls as poll_store
from app.store import members as member_store


def poll_view(poll: poll_store.DatePoll, votes: list[poll_store.DateVote] | None, members: list[member_store.MemberPublic],
              today: date) -> dict[str, Any]:
    names = {m.id: m.name for m in members}
    core = DatePoll(
        night_date=poll.option_a - timedelta(days=1),  # not used past construction
        proposer=poll.proposed_by,
        members=tuple(sorted({*names.values(), poll.proposed_by})),
        proposed_on=poll.answer_by - timedelta(days=7),
        dates=(poll.option_a, poll.option_b),
    )
    answers: dict[str, str] = {}
    entered: dict[str, str] = {}  # member → the elder who answered for them
    late: list[str] = []
    for vote in votes or []:
        name = names.get(vote.member_id)
        if name is None or name == poll.proposed_by:
            continue
        answers[name] = vote.choice
        if vote.entered_by:
            entered[name] = vote.entered_by
        if vote.late:
            late.append(name)  # recorded and shown, but the date was settled without it
            if vote.choice in ("a", "b"):
                core.late_answers[name] = poll.option_a if vote.choice == "a" else poll.option_b
        elif vote.choice in ("a", "b"):
            core.answers[name] = poll.option_a if vote.choice == "a" else poll.option_b
    # "neither" is an answer too (the core counts only answers for one of the two dates)
    missing = [m for m in core.voters if m not in answers]
    closed = poll.chosen is not None or today > core.deadline or not missing
    chosen = poll.chosen or (core.chosen if closed else None)
    tally = core.votes()
    return {
        "poll": poll,
        "dates": [("a", poll.option_a, tally[poll.option_a]), ("b", poll.option_b, tally[poll.option_b])],
        "answers": answers,
        "entered": entered,
        "missing": missing,
        "closed": closed,
        "chosen": chosen,
        "leading": core.chosen,
        "deadline": core.deadline,
        "late": late,
        "late_now": core.is_late(today),
        "voters": [m for m in members if m.name != poll.proposed_by],
    }
