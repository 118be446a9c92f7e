"""Corrections by elders: change a recorded result with a reason; everything recomputes and the
correction stays visible on the night page and in the log."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import HTMLResponse, Response

from app.club import Night, RoundResult
from app.nights import recording
from app.nights.words import describe_slot
from app.store import nights as night_store
from app.store import results as result_store
from app.store.db import session_scope
from app.web.club import auth
from app.web.club import online as club_online
from app.web.club.common import db_engine, nice_date, night_or_404, redirect, render, require_elder
from app.web.shared.loop import on_loop

router = APIRouter(prefix="/club", tags=["club"])


def _correctable(
    results: list[result_store.NightResult], night: Night, result_id: int
) -> tuple[result_store.NightResult, list[str]]:
    """The recorded (non-playoff) result `result_id` and its table's chairs, else 404."""
    try:
        return recording.correctable(results, night, result_id)
    except recording.Missing as missing:
        raise HTTPException(status_code=404, detail=str(missing)) from None


def _correct_page(request: Request, night_id: int, result_id: int, *, typed: dict[str, Any] | None = None,
                  errors: list[str] | None = None, offer_drop: bool = False, status: int = 200) -> Response:
    with session_scope(db_engine(request)) as session:
        row, results, night = night_or_404(session, night_id)
        target, chairs = _correctable(results, night, result_id)
        if typed is None:
            current = RoundResult.from_dict(target.result)
            typed = {
                "first_out": current.first_out, "second_out": current.second_out,
                "winner": current.winner, "bar_rov": current.bar_rov,
                "agurker": {p: str(current.agurk(p)) for p in chairs}, "reason": "",
            }
        history = [c for c in result_store.list_corrections(session, night_id=night_id) if c.result_id == result_id]
    return render(
        request,
        "club/correct.html",
        {
            "row": night_store.public(row), "target": target, "chairs": chairs, "typed": typed, "errors": errors or [],
            "offer_drop": offer_drop, "history": history, "slot": describe_slot(target.phase, target.round, target.table),
            "title_date": nice_date(row.date),
        },
        status=status,
    )


@router.get("/nights/{night_id}/results/{result_id}/correct", response_class=HTMLResponse)
def correct_form(request: Request, night_id: int, result_id: int) -> Response:
    require_elder(request)
    return _correct_page(request, night_id, result_id)


@router.post("/nights/{night_id}/results/{result_id}/correct", response_class=HTMLResponse)
def correct_submit(request: Request, night_id: int, result_id: int, form: auth.CsrfForm) -> Response:
    who = require_elder(request)
    reason = " ".join(str(form.get("reason") or "").split())[:500]
    drop_later = form.get("drop_later") == "yes"
    with session_scope(db_engine(request)) as session:
        try:
            done = recording.correct(session, night_id=night_id, result_id=result_id, fields=form, reason=reason,
                                     drop_later=drop_later, who=who.name or "")
        except recording.Missing as missing:
            raise HTTPException(status_code=404, detail=str(missing)) from None
    row = done.loaded[0]
    if not done.ok:
        return _correct_page(request, night_id, result_id, typed=done.typed, errors=done.errors,
                             offer_drop=done.offer_drop, status=422)
    if row.mode == "online":
        on_loop(club_online.advance, request.app, night_id)
    return redirect(f"/club/nights/{night_id}#corrections", request)


@router.get("/corrections", response_class=HTMLResponse)
def corrections_log(request: Request) -> Response:
    with session_scope(db_engine(request)) as session:
        corrections = result_store.list_corrections(session)
        nights = {n.id: n for n in night_store.list_public(session)}
    return render(
        request,
        "club/corrections.html",
        {"corrections": corrections, "nights": nights, "describe_slot": describe_slot, "nice_date": nice_date},
    )
