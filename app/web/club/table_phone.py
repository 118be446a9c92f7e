"""A table's phone at a night on real cards: `/club/nights/<id>/table/<table>/<secret>`.

The page shows the table's chairs in order, who deals, the round, and a result form made for
people holding cards; once a round is complete at all three tables, who moves where and the next
first dealer. Results are taken by the club's use cases (`app.nights.recording`: the same
recording as results an elder types on the night page, so the standings cannot differ; an entry
id counts once, and only at its own table, stage and round; each change locks the night first).

What a phone sends carries the link's secret (in the address: the only credential, see
`table_links`; every answer here says no-referrer), the slot it was entered for (stage and round)
and an entry id made when the form was drawn. The phone keeps an entry it could not send
(static/js/table_phone.js) and sends it again when the connection is back; one refused as
another slot's entry stays on the phone, held. Nothing here uses a cookie, so there is nothing a
cross-site form could ride on (and the security middleware refuses cross-site posts anyway).

Answers are JSON for the page's script (`Accept: application/json`), else the page again with
the message (a phone without script still records, without the offline queue).
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Request
from fastapi.responses import HTMLResponse, JSONResponse, Response
from sqlmodel import Session
from starlette.datastructures import FormData

from app.club import BASE_TABLES
from app.club.constants import TABLE_NAMES, Stage
from app.i18n import _, current_language
from app.nights import recording
from app.nights.recording import PhoneAnswer, Said
from app.nights.words import describe_slot
from app.store import night_replay
from app.store import nights as night_store
from app.store.db import session_scope
from app.web.club import home_night, night_view
from app.web.club.common import db_engine, nice_date, render, render_string
from app.web.club.table_links import FINAL_OF_BASE, TableRefused, admit, phone_of, phone_path
from app.web.shared.headers import SecretAddressRoute
from app.web.shared.throttle import wait_message

router = APIRouter(prefix="/club", tags=["club"], route_class=SecretAddressRoute)  # the link is the credential

PAGE = "/nights/{night_id}/table/{table}/{secret}"


async def table_form(request: Request) -> FormData:
    """The posted form. No CSRF token: the link's secret in the address is the credential."""
    return await request.form()


TableForm = Annotated[FormData, Depends(table_form)]


# ------------------------------------------------------------------ the page


def phone_context(request: Request, session: Session, night_id: int, table: str, secret: str) -> dict[str, Any]:
    loaded = night_replay.load(session, night_id=night_id)
    assert loaded is not None  # `admit` found the night
    row, _results, night = loaded
    stamp = f"{night_store.night_fingerprint(session, night_id=night_id)}-{current_language()}"
    own_stage: Stage = "base" if table in BASE_TABLES else "finals"
    rnd = night.current
    if night.phase == "done":
        state = "done"
    elif own_stage != night.stage:
        state = "before_finals" if own_stage == "finals" else "base_over"
    elif night.phase == "playoff":
        state = "playoff"
    elif table in rnd.pending_tables:
        state = "play"
    else:
        state = "wait"
    ctx: dict[str, Any] = {
        "row": night_store.public(row), "night": night, "table": table, "state": state, "stamp": stamp,
        "title": TABLE_NAMES[table], "suit": night_view.TABLE_SUIT[table], "note": night_view.TABLE_NOTE[table],
        "title_date": nice_date(row.date), "round_label": night_view.round_label(night),
        "base": phone_path(night_id, table, secret),
    }
    if state in ("play", "wait"):
        ctx["chairs"] = home_night.chairs_of(rnd, table)
        ctx["dealer_note"] = home_night.dealer_note(night, table)
        ctx["slot"] = f"{night.stage}-{rnd.number}"
        ctx["slot_words"] = describe_slot(night.stage, rnd.number, table)
    if state == "play":
        ctx["entry"] = secrets.token_urlsafe(18)
        moved_after, moves = home_night.last_moves(night)
        ctx["moved_after"], ctx["moves"] = moved_after, moves
    if state == "wait":
        ctx["result"] = rnd.results[table]
        ctx["waiting_for"] = [TABLE_NAMES[t] for t in rnd.pending_tables]
        ctx["undo_entry"] = recording.undoable_entry(session, night_id=night_id, night=night, table=table)
    if state == "base_over" and night.stage == "finals":
        final = FINAL_OF_BASE[table]
        ctx["final_title"], ctx["final_link"] = TABLE_NAMES[final], phone_of(request, session, night_id, final)
    if state in ("base_over", "before_finals", "playoff", "done"):
        ctx.update(home_night.standings_view(night))
        ctx.update(home_night.finals_view(night))
        ctx["playoffs"] = night.playoffs
    ctx["earlier"] = [(r.number, r.results[table]) for r in night.history(own_stage)
                      if table in r.results and not (r.number == rnd.number and r.stage == night.stage)]
    return ctx


def _refusal(wait: float) -> str:
    if wait:
        return wait_message(wait, _("Too many wrong table links from here"))
    return _("This table link does not work (any more). An elder can show the table's current code on the "
             "night page.")


def _refused(request: Request, wait: float) -> Response:
    return render(request, "club/table_refused.html", {"message": _refusal(wait)}, status=429 if wait else 404)


def _page(request: Request, night_id: int, table: str, secret: str, *, said: PhoneAnswer | None = None,
          status: int = 200) -> Response:
    with session_scope(db_engine(request)) as session:
        try:
            admit(request, session, night_id, table, secret)
        except TableRefused as refused:
            return _refused(request, refused.wait)
        ctx = phone_context(request, session, night_id, table, secret)
    ctx["said"] = said
    return render(request, "club/table_phone.html", ctx, status=status)


@router.get(PAGE, response_class=HTMLResponse)
def table_page(request: Request, night_id: int, table: str, secret: str) -> Response:
    return _page(request, night_id, table, secret)


@router.get(PAGE + "/fresh", response_class=HTMLResponse)
def table_fresh(request: Request, night_id: int, table: str, secret: str, v: str = "") -> Response:
    """The page's changing part, or 204 while the night is as the page shows it. A phone whose
    address must wait gets 204 too (it keeps asking, and recovers when the wait is over); a
    link that stopped working gets the refusal in place of the page, which ends the polling."""
    with session_scope(db_engine(request)) as session:
        try:
            admit(request, session, night_id, table, secret)
        except TableRefused as refused:
            if refused.wait:
                return Response(status_code=204)
            html = render_string(request, "club/_table_refused.html", {"message": _refusal(0)})
            return HTMLResponse(html, status_code=404)
        if f"{night_store.night_fingerprint(session, night_id=night_id)}-{current_language()}" == v:
            return Response(status_code=204)
        ctx = phone_context(request, session, night_id, table, secret)
    html = render_string(request, "club/_table_phone_live.html", ctx)
    return HTMLResponse(html)


# ------------------------------------------------------------------ sending a result


STATUS = {Said.SAVED: 200, Said.TAKEN_BACK: 200, Said.INVALID: 422}  # anything else: 409, a conflict


def _answer(request: Request, night_id: int, table: str, secret: str, answer: PhoneAnswer) -> Response:
    status = STATUS.get(answer.kind, 409)
    if "application/json" in request.headers.get("accept", ""):
        return JSONResponse({"outcome": answer.kind.value, "message": answer.message}, status_code=status)
    return _page(request, night_id, table, secret, said=answer, status=status)


def _guarded(request: Request, night_id: int, table: str, secret: str,
             work: Callable[[Session], PhoneAnswer]) -> Response:
    with session_scope(db_engine(request)) as session:
        try:
            admit(request, session, night_id, table, secret)
        except TableRefused as refused:
            if "application/json" not in request.headers.get("accept", ""):
                return _refused(request, refused.wait)
            message = (wait_message(refused.wait, _("Too many wrong table links from here")) if refused.wait
                       else _("This table link does not work any more: nothing was saved. Ask an elder for the "
                              "table's new code."))
            return JSONResponse({"outcome": "refused", "message": message}, status_code=429 if refused.wait else 404)
        answer = work(session)
    return _answer(request, night_id, table, secret, answer)


@router.post(PAGE + "/results", response_class=HTMLResponse)
def send_result(request: Request, night_id: int, table: str, secret: str, form: TableForm) -> Response:
    return _guarded(request, night_id, table, secret, lambda session: recording.take_phone_result(
        session, night_id=night_id, table=table, entry_id=str(form.get("entry") or ""),
        phase=str(form.get("phase") or ""), round_no=str(form.get("round") or ""), fields=form))


@router.post(PAGE + "/undo", response_class=HTMLResponse)
def undo_result(request: Request, night_id: int, table: str, secret: str, form: TableForm) -> Response:
    return _guarded(request, night_id, table, secret, lambda session: recording.take_back(
        session, night_id=night_id, table=table, entry_id=str(form.get("entry") or "")))
