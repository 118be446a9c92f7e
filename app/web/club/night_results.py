"""Recording a night by hand: one form per table per round, and the playoffs (RULES.md §7.2-7.4).
Mistakes come back as clear messages on the night page."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, Response
from starlette.datastructures import FormData

from app.club import RoundResult
from app.club.night_records import reason_of
from app.i18n import N_, _
from app.nights.words import describe_slot
from app.parsing import strict_int
from app.store import night_replay
from app.store import nights as night_store
from app.store import results as result_store
from app.store.db import session_scope
from app.web.club import auth
from app.web.club import online as club_online
from app.web.club.common import db_engine, night_or_404, redirect, require_elder, upper_first
from app.web.club.nights import night_context, render_night
from app.web.shared.loop import on_loop

router = APIRouter(prefix="/club", tags=["club"])


MAX_AGURKER = 30


def parse_result(form: FormData, chairs: list[str]) -> tuple[RoundResult | None, list[str], dict[str, Any]]:
    """A table's result from its form; errors in words a player understands."""
    typed: dict[str, Any] = {
        "first_out": str(form.get("first_out") or ""),
        "second_out": str(form.get("second_out") or ""),
        "winner": str(form.get("winner") or ""),
        "bar_rov": bool(form.get("bar_rov")),
        "agurker": {},
    }
    errors: list[str] = []
    picked: list[str] = []
    for key, missing in (("first_out", N_("Choose who went out first.")),
                         ("second_out", N_("Choose who went out second.")), ("winner", N_("Choose who won."))):
        name = typed[key]
        if not name:
            errors.append(_(missing))
        elif name not in chairs:
            errors.append(_("%(name)s is not at this table: choose one of %(chairs)s.", name=name,
                            chairs=", ".join(chairs)))
        else:
            picked.append(name)
    for name in sorted({n for n in picked if picked.count(n) > 1}):
        errors.append(_("%(name)s is chosen twice: each of the three players takes one place.", name=name))
    agurker: dict[str, int] = {}
    for i, name in enumerate(chairs):
        raw = str(form.get(f"agurk_{i}") or "0").strip() or "0"
        typed["agurker"][name] = raw
        count = strict_int(raw, lo=0, hi=MAX_AGURKER)
        if count is None:
            errors.append(_("Agurker for %(name)s must be a whole number from 0 to %(max)s.", name=name,
                            max=MAX_AGURKER))
        elif count:
            agurker[name] = count
    if errors:
        return None, errors, typed
    took = {typed["first_out"], typed["second_out"]}
    if not typed["bar_rov"]:
        took.add(typed["winner"])
    result = RoundResult(
        out=[typed["first_out"], typed["second_out"]], winner=typed["winner"], took_cards=took,
        agurker=agurker,
    )
    return result, [], typed


@router.post("/nights/{night_id}/results", response_class=HTMLResponse)
def record_result(request: Request, night_id: int, form: auth.CsrfForm) -> Response:
    who = require_elder(request)
    table = str(form.get("table") or "")
    phase = str(form.get("phase") or "")
    round_no = str(form.get("round") or "")
    with session_scope(db_engine(request)) as session:
        night_store.lock_night(session, night_id=night_id)  # a table's phone may be sending this very result
        row, results, night = night_or_404(session, night_id)
        errors: list[str] = []
        typed: dict[str, Any] = {}
        if night.phase not in ("base", "finals"):
            errors.append(_("This night is not waiting for a table's result."))
        elif (phase, round_no) != (night.stage, str(night.current.number)) or table not in night.pending_tables:
            errors.append(_(
                "%(slot)s is already recorded or not open: the page has moved on, see below.",
                slot=upper_first(describe_slot(phase, strict_int(round_no, lo=0) or 0, table)),
            ))
        else:
            chairs = list(night.current.seating[table])
            result, errors, typed = parse_result(form, chairs)
            if result is not None:
                try:
                    night_replay.add_table_result(session, row, night, table=table, result=result,
                                           by=who.name or "", source="hand")
                except ValueError as exc:
                    errors.append(reason_of(exc))
        if errors:
            ctx = night_context(
                session, row, results, night, form_errors={table: errors}, typed={table: typed}
            )
    if errors:
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
                stage = night.stage
                try:
                    night.record_playoff(order)
                except ValueError as exc:
                    errors.append(str(exc))
                else:
                    count = sum(1 for r in results if r.phase == "playoff")
                    result_store.add_result(
                        session, night_id=night_id, phase="playoff", round_no=count + 1,
                        table=stage, result={"order": order}, recorded_by=who.name or "",
                    )
                    night_replay.save_state(session, row, night)
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
