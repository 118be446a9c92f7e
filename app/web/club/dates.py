"""After the night: the winner proposes two dates, the members answer, each from their own
device (or an elder for them, shown as such)."""

from __future__ import annotations

from datetime import date

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import HTMLResponse, Response
from sqlmodel import Session

from app.club import DatePoll
from app.club.dates import LATE_ANSWER
from app.club.night_records import reason_of
from app.i18n import _, say
from app.nights.words import upper_first
from app.store import beer as beer_store
from app.store import date_polls as poll_store
from app.store import members as member_store
from app.store import nights as night_store
from app.store.db import row_id, session_scope
from app.web.club import auth, identity
from app.web.club.common import db_engine, form_text, nice_date, parse_date, redirect
from app.web.club.nights import night_page_response
from app.web.club.poll_view import poll_view

router = APIRouter(prefix="/club", tags=["club"])


@router.post("/nights/{night_id}/poll", response_class=HTMLResponse)
def propose_dates(request: Request, night_id: int, form: auth.CsrfForm) -> Response:
    errors: list[str] = []
    with session_scope(db_engine(request)) as session:
        row = night_store.get_night(session, night_id=night_id)
        if row is None:
            raise HTTPException(status_code=404, detail=_("No such night"))
        first, second = parse_date(form_text(form, "date_a")), parse_date(form_text(form, "date_b"))
        if row.status != "done" or not row.winner:
            errors.append(_("The dates are proposed by the winner once the night is over."))
        elif poll_store.get_poll(session, night_id=night_id) is not None:
            errors.append(_("The dates for the next night are already proposed."))
        elif first is None or second is None:
            errors.append(_("Choose two dates."))
        else:
            today = date.today()
            try:
                core = DatePoll.propose(
                    night_date=row.date, proposer=row.winner,
                    members=[m.name for m in member_store.list_public(session, active_only=True)],
                    dates=[first, second], proposed_on=today,
                )
            except ValueError as exc:
                errors.append(upper_first(say(reason_of(exc))))
            else:
                proposal = poll_store.DatePollCreate(
                    proposed_by=row.winner, option_a=core.dates[0], option_b=core.dates[1],
                    answer_by=core.deadline, late=core.proposed_late,
                )
                poll_store.create_poll(session, night_id=night_id, poll=proposal)
                for crate in core.crates():  # a late proposal owes a crate
                    _owe_crate(session, name=crate.member, reason=crate.reason, night_id=night_id)
    if errors:
        return night_page_response(request, night_id, status=422, poll_errors=errors)
    return redirect(f"/club/nights/{night_id}#next-night", request)


@router.post("/nights/{night_id}/vote", response_class=HTMLResponse)
def vote(request: Request, night_id: int, form: auth.CsrfForm) -> Response:
    """A member answers the date poll from their own device (the one their personal link made
    remember them: `identity`); the form names nobody. An elder may answer for a member (the
    form's `member`), recorded and shown as entered by that elder. Anyone else, or a form that
    names someone its device does not belong to, is refused and nothing changes."""
    who = auth.viewer(request)
    me = identity.remembered(request)
    named = form.get("member")
    errors: list[str] = []
    with session_scope(db_engine(request)) as session:
        poll = poll_store.get_poll(session, night_id=night_id)
        if poll is None:
            raise HTTPException(status_code=404, detail=_("No date poll for this night"))
        members = member_store.list_public(session, active_only=True)
        entered_by: str | None = None
        if named is not None and (me is None or str(me.member_id) != named):
            if not who.is_elder:  # a device answers as its own member only
                raise HTTPException(status_code=403, detail=_(
                    "This device can answer only as its own member. An elder can answer for someone else."))
            member = next((m for m in members if str(m.id) == named), None)
            entered_by = who.name if member is not None and member.id != who.member_id else None
        else:
            member = next((m for m in members if me is not None and m.id == me.member_id), None)
        choice = str(form.get("choice") or "")
        view = poll_view(poll, poll_store.list_votes(session, poll_id=row_id(poll)), members, date.today())
        if member is None and named is None:
            errors.append(_("This device does not know you yet: open the personal link an elder sent you, once,"
                            " on this device, then answer."))
        elif member is None:
            errors.append(_("Choose the member you answer for."))
        elif member.name == poll.proposed_by:
            errors.append(_("%(name)s proposed the dates; the other members answer.", name=member.name))
        if choice not in ("a", "b", "neither"):
            errors.append(_("Choose the date that suits you."))
        # after the answer week a member who has not answered may still answer: recorded late
        late = view["late_now"] and member is not None and member.name in view["missing"]
        if view["closed"] and not late:
            errors.append(_("The poll is closed: the next night is %(day)s.", day=nice_date(view["chosen"])))
        if not errors:
            assert member is not None and member.id is not None and poll.id is not None
            if view["closed"] and poll.chosen is None:  # settle the date before a late answer
                poll_store.choose_date(session, poll_id=poll.id, chosen=view["chosen"])
            answer = poll_store.DateVoteCreate(member_id=member.id, choice=choice, late=late, entered_by=entered_by)
            poll_store.set_vote(session, poll_id=poll.id, answer=answer)
            if late:
                _owe_crate(session, name=member.name, reason=LATE_ANSWER, night_id=night_id)
            view = poll_view(poll, poll_store.list_votes(session, poll_id=poll.id), members, date.today())
            if view["closed"] and poll.chosen is None:
                poll_store.choose_date(session, poll_id=poll.id, chosen=view["chosen"])
    if errors:
        return night_page_response(request, night_id, status=422, poll_errors=errors)
    return redirect(f"/club/nights/{night_id}#next-night", request)


def _owe_crate(session: Session, *, name: str, reason: str, night_id: int) -> None:
    """Put a crate on the beer ledger for a late proposal or answer (seed 000's rule)."""
    member = member_store.get_member_by_name(session, name=name)
    if member is not None:
        debt = beer_store.BeerDebtCreate(member_id=row_id(member), reason=reason, night_id=night_id)
        beer_store.add_debt(session, debt=debt, recorded_by="the date poll")
