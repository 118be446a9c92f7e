"""A table's phone at a night on real cards: `/club/nights/<id>/table/<table>/<secret>`.

The page shows the table's chairs in order, who deals, the round, and a result form made for
people holding cards; once a round is complete at all three tables, who moves where and the next
first dealer. Results go in through the same path as results an elder types on the night page
(`night_data.record_table_result`), so the standings cannot differ.

What a phone sends carries the link's secret (in the address: the only credential, see
`table_links`), the slot it was entered for (stage and round) and an entry id made when the form
was drawn. The phone keeps an entry it could not send (static/js/table_phone.js) and sends it
again when the connection is back; the server stores each entry id, so a repeat gets the stored
answer and never a second result. Each change locks the night first (`night_store.lock_night`): two
phones at one table entering the same round get one result, and the other a conflict that
says what was recorded. Nothing here uses a cookie, so there is nothing a cross-site form could
ride on (and the security middleware refuses cross-site posts anyway).

Answers are JSON for the page's script (`Accept: application/json`), else the page again with
the message (a phone without script still records, without the offline queue).
"""

from __future__ import annotations

import re
import secrets
from dataclasses import dataclass
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Request
from fastapi.responses import HTMLResponse, JSONResponse, Response
from sqlmodel import Session
from starlette.datastructures import FormData

from app.club import BASE_TABLES, Night
from app.club.constants import TABLE_NAMES, Stage
from app.club.night_records import reason_of
from app.i18n import _, current_language, say
from app.nights.words import describe_slot, result_words
from app.parsing import strict_int
from app.store import night_replay
from app.store import nights as night_store
from app.store import results as result_store
from app.store import table_phones as phone_store
from app.store.db import session_scope
from app.web.club import home_night, night_view
from app.web.club.common import db_engine, nice_date, render, render_string, upper_first
from app.web.club.night_results import parse_result
from app.web.club.table_links import FINAL_OF_BASE, TableRefused, admit, phone_of, phone_path
from app.web.shared.throttle import wait_message

router = APIRouter(prefix="/club", tags=["club"])

ENTRY_ID = re.compile(r"[A-Za-z0-9_-]{16,64}", re.ASCII)
PAGE = "/nights/{night_id}/table/{table}/{secret}"


async def table_form(request: Request) -> FormData:
    """The posted form. No CSRF token: the link's secret in the address is the credential."""
    return await request.form()


TableForm = Annotated[FormData, Depends(table_form)]


@dataclass(frozen=True)
class Outcome:
    kind: str  # saved | taken_back | conflict | closed | invalid | undone | gone | refused | mismatch
    status: int
    message: str


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
        "row": row, "night": night, "table": table, "state": state, "stamp": stamp,
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
        ctx["undo_entry"] = _undoable_entry(session, night_id, night, table)
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


def _undoable_entry(session: Session, night_id: int, night: Night, table: str) -> str | None:
    """The entry id of this round's result at `table` when it came from a phone and no elder
    has corrected it: it can be taken back until the round is complete."""
    recorded = result_store.get_result(session, night_id=night_id, phase=night.stage, round_no=night.current.number,
                                table=table)
    if recorded is None or recorded.source != "phone" or recorded.id is None:
        return None
    if any(c.result_id == recorded.id for c in result_store.list_corrections(session, night_id=night_id)):
        return None
    entry = phone_store.entries_for_results(session, night_id=night_id).get(recorded.id)
    return entry.entry_id if entry else None


def _refusal(wait: float) -> str:
    if wait:
        return wait_message(wait, _("Too many wrong table links from here"))
    return _("This table link does not work (any more). An elder can show the table's current code on the "
             "night page.")


def _refused(request: Request, wait: float) -> Response:
    response = render(request, "club/table_refused.html", {"message": _refusal(wait)}, status=429 if wait else 404)
    response.headers["Referrer-Policy"] = "no-referrer"
    return response


def _page(request: Request, night_id: int, table: str, secret: str, *, said: Outcome | None = None) -> Response:
    with session_scope(db_engine(request)) as session:
        try:
            admit(request, session, night_id, table, secret)
        except TableRefused as refused:
            return _refused(request, refused.wait)
        ctx = phone_context(request, session, night_id, table, secret)
    ctx["said"] = said
    response = render(request, "club/table_phone.html", ctx, status=said.status if said else 200)
    response.headers["Referrer-Policy"] = "no-referrer"
    return response


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
            return HTMLResponse(html, status_code=404, headers={"Referrer-Policy": "no-referrer"})
        if f"{night_store.night_fingerprint(session, night_id=night_id)}-{current_language()}" == v:
            return Response(status_code=204, headers={"Referrer-Policy": "no-referrer"})
        ctx = phone_context(request, session, night_id, table, secret)
    html = render_string(request, "club/_table_phone_live.html", ctx)
    return HTMLResponse(html, headers={"Referrer-Policy": "no-referrer"})


# ------------------------------------------------------------------ sending a result


def _answer(request: Request, night_id: int, table: str, secret: str, outcome: Outcome) -> Response:
    if "application/json" in request.headers.get("accept", ""):
        return JSONResponse({"outcome": outcome.kind, "message": outcome.message}, status_code=outcome.status,
                            headers={"Referrer-Policy": "no-referrer"})
    if outcome.kind == "refused":
        return _refused(request, 0)
    return _page(request, night_id, table, secret, said=outcome)


def _guarded(request: Request, night_id: int, table: str, secret: str, form: FormData,
             work: Any) -> Response:
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
        outcome = work(session, night_id, table, form)
    return _answer(request, night_id, table, secret, outcome)


@router.post(PAGE + "/results", response_class=HTMLResponse)
def send_result(request: Request, night_id: int, table: str, secret: str, form: TableForm) -> Response:
    return _guarded(request, night_id, table, secret, form, take_result)


@router.post(PAGE + "/undo", response_class=HTMLResponse)
def undo_result(request: Request, night_id: int, table: str, secret: str, form: TableForm) -> Response:
    return _guarded(request, night_id, table, secret, form, take_back)


def _with_winner(form: FormData, chairs: list[str]) -> FormData:
    """The form with its winner: the player who went out neither first nor second."""
    items = [(k, v) for k, v in form.multi_items() if k != "winner"]
    out = {str(form.get("first_out") or ""), str(form.get("second_out") or "")}
    rest = [p for p in chairs if p not in out]
    if len(out) == 2 and len(rest) == 1:
        items.append(("winner", rest[0]))
    return FormData(items)


def take_result(session: Session, night_id: int, table: str, form: FormData) -> Outcome:
    """Record the phone's result once: a repeat of its entry id gets the stored answer, a round
    that is not open or a slot already recorded a clear refusal, never a second result."""
    entry_id = str(form.get("entry") or "")
    phase: Stage = "finals" if form.get("phase") == "finals" else "base"
    round_no = strict_int(form.get("round"), lo=1, hi=99)
    if not ENTRY_ID.fullmatch(entry_id) or form.get("phase") not in home_night.PLAYING or round_no is None:
        return Outcome("invalid", 422, _("This result is incomplete: reload the page and enter it again."))
    slot = describe_slot(phase, round_no, table)
    night_store.lock_night(session, night_id=night_id)
    known = phone_store.get_table_entry(session, night_id=night_id, entry_id=entry_id)
    if known is not None and (known.table, known.phase, known.round) != (table, phase, round_no):
        return Outcome("mismatch", 409, _(
            "Not saved: this result's entry was already used for %(used)s, not %(slot)s. It stays on this "
            "phone: show it to an elder, who can enter it on the night page.",
            used=describe_slot(known.phase, known.round, known.table), slot=slot))
    if known is not None:
        if known.undone_at is not None:
            return Outcome("undone", 409, _("This result for %(slot)s was taken back at the table, so it is not "
                                            "recorded again.", slot=slot))
        return Outcome("saved", 200, _("Saved: %(slot)s.", slot=slot))
    loaded = night_replay.load(session, night_id=night_id)
    assert loaded is not None
    row, _results, night = loaded
    seating = next((r.seating for r in night.history(phase) if r.number == round_no), None)
    if seating is None or table not in seating:
        return Outcome("closed", 409, _("%(slot)s is not open: nothing was saved. The page shows where the "
                                        "night is now.", slot=describe_slot(phase, round_no, table)))
    chairs = list(seating[table])
    result, errors, _typed = parse_result(_with_winner(form, chairs), chairs)
    if result is None:
        return Outcome("invalid", 422, " ".join(errors))
    recorded = result_store.get_result(session, night_id=night_id, phase=phase, round_no=round_no, table=table)
    if recorded is not None:
        if recorded.result == result.to_dict():
            phone_store.add_table_entry(session, night_id=night_id, entry_id=entry_id, table=table, phase=phase,
                                  round_no=round_no, result=result.to_dict(), result_id=None)
            return Outcome("saved", 200, _("%(slot)s was already recorded with this same result.",
                                           slot=upper_first(slot)))
        return Outcome("conflict", 409, _(
            "Not saved: %(slot)s is already recorded, from another phone or by an elder: %(result)s. "
            "If that is wrong, take it back on this page or ask an elder to correct it.",
            slot=slot, result=result_words(recorded.result)))
    if night.phase not in home_night.PLAYING or (phase, round_no) != (night.stage, night.current.number):
        return Outcome("closed", 409, _("%(slot)s cannot be recorded now: nothing was saved. The page shows "
                                        "where the night is now.", slot=upper_first(slot)))
    try:
        saved = night_replay.add_table_result(session, row, night, table=table, result=result,
                                       by=TABLE_NAMES[table], source="phone")
    except ValueError as exc:
        return Outcome("invalid", 422, say(reason_of(exc)))
    phone_store.add_table_entry(session, night_id=night_id, entry_id=entry_id, table=table, phase=phase,
                          round_no=round_no, result=result.to_dict(), result_id=saved.id)
    return Outcome("saved", 200, _("Saved: %(slot)s.", slot=slot))


def take_back(session: Session, night_id: int, table: str, form: FormData) -> Outcome:
    """Undo the phone's last result while its round is still open (no other table's result
    completed it) and no elder has corrected it."""
    entry_id = str(form.get("entry") or "")
    night_store.lock_night(session, night_id=night_id)
    entry = phone_store.get_table_entry(session, night_id=night_id, entry_id=entry_id) if ENTRY_ID.fullmatch(entry_id) else None
    if entry is None or entry.table != table or entry.undone_at is not None or entry.result_id is None:
        return Outcome("gone", 409, _("There is no result from this table to take back."))
    slot = describe_slot(entry.phase, entry.round, table)
    loaded = night_replay.load(session, night_id=night_id)
    assert loaded is not None
    _row, _results, night = loaded
    if night.phase not in home_night.PLAYING or (entry.phase, entry.round) != (night.stage, night.current.number):
        return Outcome("gone", 409, _("Too late to take back %(slot)s: the next round has begun. An elder can "
                                      "correct it on the night page.", slot=slot))
    if any(c.result_id == entry.result_id for c in result_store.list_corrections(session, night_id=night_id)):
        return Outcome("gone", 409, _("An elder has corrected %(slot)s, so it cannot be taken back here.", slot=slot))
    result_store.undo_table_entry(session, entry=entry)
    reloaded = night_replay.load(session, night_id=night_id)
    assert reloaded is not None
    night_replay.save_state(session, reloaded[0], reloaded[2])
    return Outcome("taken_back", 200, _("Taken back: %(slot)s can be entered again.", slot=slot))

