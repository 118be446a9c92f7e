"""Recording a night by hand: one form per table per round (`app.nights.recording`), and the
playoffs (RULES.md §7.2-7.4). Mistakes come back as clear messages on the night page."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import HTMLResponse, Response

from app.i18n import N_, _
from app.nights import recording
from app.parsing import strict_int
from app.store import night_replay
from app.store.db import session_scope
from app.web.club import auth
from app.web.club import online as club_online
from app.web.club.common import db_engine, night_or_404, redirect, require_elder
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
        row, results, night = night_or_404(session, night_id)
        errors: list[str] = []
        groups = night.playoffs
        typed: dict[str, Any] = {}
        if not groups:
            errors.append(_("There is no playoff to record now."))
        elif (group_at := strict_int(group_no, lo=0, hi=len(groups) - 1)) is None:
            errors.append(_("That playoff is already recorded: see below."))
        else:
            group = groups[group_at]
            order = [str(form.get(f"place_{i}") or "") for i in range(len(group))]
            typed = {"order": order}
            for i, name in enumerate(order, start=1):
                if not name:
                    errors.append(_("Choose who came %(place)s in the playoff.", place=_ordinal(i)))
                elif name not in group:
                    errors.append(_("%(name)s is not in this playoff.", name=name))
            for name in sorted({n for n in order if n and order.count(n) > 1}):
                errors.append(_("%(name)s is chosen twice: each player takes one place.", name=name))
            if not errors:
                try:
                    night_replay.add_playoff(session, row, night, order=order, by=who.name or "",
                                             count=sum(1 for r in results if r.phase == "playoff"))
                except ValueError as exc:
                    errors.append(str(exc))
        if errors:
            ctx = night_context(
                session, row, results, night, form_errors={f"playoff{group_no}": errors},
                typed={f"playoff{group_no}": typed},
            )
    if errors:
        return render_night(request, ctx, status=422)
    if row.mode == "online":
        on_loop(club_online.advance, request.app, night_id)
    return redirect(f"/club/nights/{night_id}#record", request)


ORDINALS = (N_("1st"), N_("2nd"), N_("3rd"), N_("4th"), N_("5th"), N_("6th"), N_("7th"), N_("8th"), N_("9th"))


def _ordinal(n: int) -> str:
    return _(ORDINALS[n - 1]) if 1 <= n <= len(ORDINALS) else f"{n}."
