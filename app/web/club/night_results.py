"""Recording a night by hand: one form per table per round (`app.nights.recording`), and the
playoffs (RULES.md §7.2-7.4). Mistakes come back as clear messages on the night page."""

from __future__ import annotations

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import HTMLResponse, Response

from app.nights import recording
from app.store.db import session_scope
from app.web.club import auth
from app.web.club import online as club_online
from app.web.club.common import db_engine, redirect, require_elder
from app.web.club.nights import night_context, render_night
from app.web.shared.loop import on_loop

router = APIRouter(prefix="/club", tags=["club"])


@router.post("/nights/{night_id}/results", response_class=HTMLResponse)
def record_result(request: Request, night_id: int, form: auth.CsrfForm) -> Response:
    who = require_elder(request)
    with session_scope(db_engine(request)) as session:
        try:
            done = recording.record_by_hand(
                session, night_id=night_id, table=str(form.get("table") or ""), phase=str(form.get("phase") or ""),
                round_no=str(form.get("round") or ""), fields=form, by=who.name or "")
        except recording.Missing as missing:
            raise HTTPException(status_code=404, detail=str(missing)) from None
        row, results, night = done.loaded
        if not done.ok:
            table = str(form.get("table") or "")
            ctx = night_context(session, row, results, night, form_errors={table: done.errors},
                                typed={table: done.typed})
    if not done.ok:
        return render_night(request, ctx, status=422)
    if row.mode == "online":
        on_loop(club_online.advance, request.app, night_id)
    return redirect(f"/club/nights/{night_id}#record", request)


@router.post("/nights/{night_id}/playoff", response_class=HTMLResponse)
def record_playoff(request: Request, night_id: int, form: auth.CsrfForm) -> Response:
    who = require_elder(request)
    group_no = str(form.get("group") or "")
    with session_scope(db_engine(request)) as session:
        try:
            done = recording.record_playoff(session, night_id=night_id, group_no=group_no, fields=form,
                                            by=who.name or "")
        except recording.Missing as missing:
            raise HTTPException(status_code=404, detail=str(missing)) from None
        row, results, night = done.loaded
        if not done.ok:
            ctx = night_context(session, row, results, night, form_errors={f"playoff{group_no}": done.errors},
                                typed={f"playoff{group_no}": done.typed})
    if not done.ok:
        return render_night(request, ctx, status=422)
    if row.mode == "online":
        on_loop(club_online.advance, request.app, night_id)
    return redirect(f"/club/nights/{night_id}#record", request)
