"""The club's pages: members and elders, Gurka Nights (set up, record, correct), the date poll,
the beer ledger and the Hall of Fame (RULES.md §7, issue 4).

Reading is open to everyone (members need no password); changing the club's records needs an
elder's login, except what the rules give to every member: the winner proposes the next
dates and every member answers the date poll.
"""

from __future__ import annotations

import secrets
from datetime import date, timedelta
from typing import Any
from urllib.parse import quote

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from sqlmodel import Session
from starlette.datastructures import FormData

from app.club import CorrectionError, DatePoll, Night, RoundResult, start_tables
from app.club.constants import BASE_TABLES, PLAYERS
from app.store import club as store
from app.store.db import session_scope
from app.web import auth, club_online
from app.web import club_night as cn
from app.web.security import set_seat_cookie

router = APIRouter(prefix="/club", tags=["club"])

MAX_AGURKER = 30
NAME_MAX = 40
WEEKDAYS = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]


# ------------------------------------------------------------------ helpers


def _engine(request: Request):  # type: ignore[no-untyped-def]
    return request.app.state.engine


def render(
    request: Request, name: str, context: dict[str, Any] | None = None, *, status: int = 200
) -> Response:
    who = auth.viewer(request)
    ctx = {"viewer": who, "csrf": who.csrf, "tables": cn.TABLE_TITLE, **(context or {})}
    response = request.app.state.templates.TemplateResponse(request, name, ctx, status_code=status)
    return auth.finish(request, response)


def redirect(url: str, request: Request | None = None) -> Response:
    response = RedirectResponse(url, status_code=303)
    if request is not None:
        auth.finish(request, response)
    return response


def require_elder(request: Request) -> auth.Viewer:
    who = auth.viewer(request)
    if not who.is_elder:
        target = quote(request.url.path)
        raise HTTPException(status_code=303, headers={"Location": f"/club/login?next={target}"})
    return who


def clean_name(raw: str | None) -> str:
    return " ".join((raw or "").split())[:NAME_MAX]


def parse_date(raw: str | None) -> date | None:
    try:
        return date.fromisoformat((raw or "").strip())
    except ValueError:
        return None


def nice_date(d: date | None) -> str:
    return f"{WEEKDAYS[d.weekday()]} {d.day} {d.strftime('%b %Y')}" if d else ""


def _night_or_404(session: Session, night_id: int) -> tuple[store.Night, list[store.NightResult], Night]:
    loaded = cn.load(session, night_id=night_id)
    if loaded is None:
        raise HTTPException(status_code=404, detail="No such night")
    return loaded


# ------------------------------------------------------------------ overview, setup, login


@router.get("", response_class=HTMLResponse)
def club_home(request: Request) -> Response:
    with session_scope(_engine(request)) as session:
        nights = store.list_nights(session)
        no_elder = store.count_elders(session) == 0
        members = store.list_members(session, active_only=True)
        polls = {p.night_id: p for p in store.list_polls(session)}
        debts = store.list_debts(session, open_only=True)
        played = cn.played_nights(session)
    this_year = date.today().year
    table = cn.table_for(played, None)[:5]
    next_date = None
    for night in nights:
        poll = polls.get(night.id)
        if poll is not None:
            next_date = _poll_view(poll, None, members, date.today())
            next_date["night"] = night
            break
    return render(
        request,
        "club/index.html",
        {
            "nights": nights,
            "open_nights": [n for n in nights if n.status == "open"],
            "no_elder": no_elder,
            "members": members,
            "top": table,
            "this_year": this_year,
            "next_date": next_date,
            "open_debts": debts,
            "nice_date": nice_date,
        },
    )


@router.get("/setup", response_class=HTMLResponse)
def setup_form(request: Request) -> Response:
    with session_scope(_engine(request)) as session:
        if store.count_elders(session):
            return redirect("/club/login", request)
    return render(request, "club/setup.html", {"errors": [], "typed": {}})


@router.post("/setup", response_class=HTMLResponse)
async def setup_submit(request: Request) -> Response:
    form = await auth.check_csrf(request)
    name = clean_name(form.get("name"))  # type: ignore[arg-type]
    password = str(form.get("password") or "")
    errors = _password_errors(name, password, str(form.get("password2") or ""))
    with session_scope(_engine(request)) as session:
        if store.count_elders(session):
            return redirect("/club/login", request)
        if not errors:
            existing = store.get_member_by_name(session, name=name)
            if existing is None:
                member = store.add_member(
                    session, name=name, is_elder=True, password_hash=auth.hash_password(password)
                )
            else:
                member = store.update_member(
                    session, member_id=existing.id, is_elder=True, active=True,  # type: ignore[arg-type]
                    password_hash=auth.hash_password(password),
                )
            member_id = member.id
    if errors:
        return render(request, "club/setup.html", {"errors": errors, "typed": {"name": name}}, status=422)
    response = redirect("/club/members")
    auth.set_cookie(request, response, auth.new_session(request, member_id))
    return response


def _password_errors(name: str, password: str, again: str) -> list[str]:
    errors = []
    if not name:
        errors.append("Write the elder's name.")
    if len(password) < auth.MIN_PASSWORD:
        errors.append(f"The password needs at least {auth.MIN_PASSWORD} characters.")
    elif password != again:
        errors.append("The two passwords are not the same.")
    return errors


def _safe_next(raw: str | None) -> str:
    target = (raw or "").strip()
    if not target.startswith("/club") or target.startswith("//") or "\\" in target:
        return "/club"
    return target


@router.get("/login", response_class=HTMLResponse)
def login_form(request: Request, next: str = "/club") -> Response:
    with session_scope(_engine(request)) as session:
        if store.count_elders(session) == 0:
            return redirect("/club/setup", request)
    return render(request, "club/login.html", {"next": _safe_next(next), "error": None, "name": ""})


@router.post("/login", response_class=HTMLResponse)
async def login_submit(request: Request) -> Response:
    form = await auth.check_csrf(request)
    name = clean_name(form.get("name"))  # type: ignore[arg-type]
    member_id = auth.login_member(request, name=name, password=str(form.get("password") or ""))
    target = _safe_next(form.get("next"))  # type: ignore[arg-type]
    if member_id is None:
        return render(
            request,
            "club/login.html",
            {"next": target, "error": "That name and password do not match an elder.", "name": name},
            status=401,
        )
    response = redirect(target)
    auth.set_cookie(request, response, auth.new_session(request, member_id))
    return response


@router.post("/logout")
async def logout(request: Request) -> Response:
    await auth.check_csrf(request)
    response = redirect("/club")
    auth.set_cookie(request, response, auth.new_session(request, None))
    return response


# ------------------------------------------------------------------ members


@router.get("/members", response_class=HTMLResponse)
def members_page(request: Request) -> Response:
    return _members(request)


def _members(request: Request, *, errors: list[str] | None = None, typed: dict[str, Any] | None = None,
             status: int = 200) -> Response:
    with session_scope(_engine(request)) as session:
        members = store.list_members(session)
        played = cn.played_nights(session)
    stats = {row.player: row for row in cn.table_for(played, None)}
    return render(
        request,
        "club/members.html",
        {"members": members, "stats": stats, "errors": errors or [], "typed": typed or {}},
        status=status,
    )


@router.post("/members", response_class=HTMLResponse)
async def add_member(request: Request) -> Response:
    form = await auth.check_csrf(request)
    require_elder(request)
    name = clean_name(form.get("name"))  # type: ignore[arg-type]
    with session_scope(_engine(request)) as session:
        error = _name_error(session, name)
        if error is None:
            store.add_member(session, name=name)
    if error:
        return _members(request, errors=[error], typed={"name": name}, status=422)
    return redirect("/club/members#members", request)


def _name_error(session: Session, name: str, *, member_id: int | None = None) -> str | None:
    if not name:
        return "Write the member's name."
    if "/" in name:
        return "A name cannot contain “/”."
    existing = store.get_member_by_name(session, name=name)
    if existing is not None and existing.id != member_id:
        return f"There is already a member called {existing.name}."
    return None


@router.post("/members/{member_id}", response_class=HTMLResponse)
async def change_member(request: Request, member_id: int) -> Response:
    form = await auth.check_csrf(request)
    who = require_elder(request)
    action = str(form.get("action") or "")
    errors: list[str] = []
    with session_scope(_engine(request)) as session:
        member = store.get_member(session, member_id=member_id)
        if member is None:
            raise HTTPException(status_code=404, detail="No such member")
        if action == "rename":
            name = clean_name(form.get("name"))  # type: ignore[arg-type]
            error = _name_error(session, name, member_id=member_id)
            if error:
                errors.append(error)
            else:
                store.update_member(session, member_id=member_id, name=name)
        elif action in ("retire", "reinstate"):
            if action == "retire" and member.is_elder and store.count_elders(session) <= 1:
                errors.append("The club needs at least one elder: make someone else an elder first.")
            else:
                store.update_member(session, member_id=member_id, active=action == "reinstate")
        elif action == "elder":
            password = str(form.get("password") or "")
            if len(password) < auth.MIN_PASSWORD:
                errors.append(
                    f"An elder logs in with a password of at least {auth.MIN_PASSWORD} characters:"
                    f" give {member.name} one."
                )
            else:
                store.update_member(
                    session, member_id=member_id, is_elder=True, active=True,
                    password_hash=auth.hash_password(password),
                )
        elif action == "unelder":
            if store.count_elders(session) <= 1 and member.is_elder:
                errors.append("The club needs at least one elder.")
            else:
                store.update_member(session, member_id=member_id, is_elder=False)
        elif action == "password":
            password = str(form.get("password") or "")
            if not member.is_elder:
                errors.append(f"{member.name} is not an elder and needs no password.")
            elif len(password) < auth.MIN_PASSWORD:
                errors.append(f"The password needs at least {auth.MIN_PASSWORD} characters.")
            else:
                store.update_member(session, member_id=member_id, password_hash=auth.hash_password(password))
        else:
            errors.append("Unknown change.")
    if errors:
        return _members(request, errors=errors, status=422)
    if member_id == who.member_id and action in ("retire", "unelder"):
        return redirect("/club/members", request)
    return redirect(f"/club/members#m{member_id}", request)


# ------------------------------------------------------------------ setting up a night


def _setup_defaults(session: Session) -> dict[str, Any]:
    members = store.list_members(session, active_only=True)
    by_id = {m.id: m for m in store.list_members(session)}
    last = store.last_done_night(session)
    host = ""
    players: list[dict[str, str]] = []
    day = date.today()
    if last is not None:
        host_id = next((p["member_id"] for p in last.players if p["name"] == last.winner), None)
        host = by_id[host_id].name if host_id in by_id else (last.winner or "")
        for p in last.players:
            owner = by_id.get(p.get("for_id") or p["member_id"])
            if owner is not None and owner.active:
                players.append({"player": str(owner.id), "new": "", "for": "", "table": "auto"})
        poll = store.get_poll(session, night_id=last.id)  # type: ignore[arg-type]
        if poll is not None:
            day = _poll_view(poll, None, members, date.today())["chosen"] or day
    while len(players) < PLAYERS:
        players.append({"player": "", "new": "", "for": "", "table": "auto"})
    return {"date": day.isoformat(), "host": host, "mode": "hand", "rows": players[:PLAYERS]}


def _setup_page(request: Request, typed: dict[str, Any], errors: list[str], status: int = 200) -> Response:
    with session_scope(_engine(request)) as session:
        members = store.list_members(session, active_only=True)
        where = cn.last_night_tables(session)
        last = store.last_done_night(session)
    return render(
        request,
        "club/night_new.html",
        {
            "members": members,
            "where": where,
            "typed": typed,
            "errors": errors,
            "last": last,
            "base_tables": BASE_TABLES,
            "nice_date": nice_date,
        },
        status=status,
    )


@router.get("/nights/new", response_class=HTMLResponse)
def new_night_form(request: Request) -> Response:
    require_elder(request)
    with session_scope(_engine(request)) as session:
        typed = _setup_defaults(session)
    return _setup_page(request, typed, [])


@router.post("/nights/new", response_class=HTMLResponse)
async def new_night_submit(request: Request) -> Response:
    form = await auth.check_csrf(request)
    who = require_elder(request)
    rows = [
        {
            "player": str(form.get(f"player_{i}") or ""),
            "new": clean_name(form.get(f"new_{i}")),  # type: ignore[arg-type]
            "for": str(form.get(f"for_{i}") or ""),
            "table": str(form.get(f"table_{i}") or "auto"),
        }
        for i in range(PLAYERS)
    ]
    typed = {
        "date": str(form.get("date") or ""),
        "host": clean_name(form.get("host")),  # type: ignore[arg-type]
        "mode": "online" if form.get("mode") == "online" else "hand",
        "rows": rows,
    }
    errors: list[str] = []
    day = parse_date(typed["date"])
    if day is None:
        errors.append("Choose the night's date.")
    with session_scope(_engine(request)) as session:
        by_id = {str(m.id): m for m in store.list_members(session)}
        players: list[dict[str, Any]] = []
        newcomers: dict[str, str] = {}
        stand_ins: dict[str, str] = {}
        to_create: list[str] = []
        for i, row in enumerate(rows, start=1):
            name, member_id = "", None
            if row["new"]:
                existing = store.get_member_by_name(session, name=row["new"])
                if existing is not None:
                    row["player"], row["new"] = str(existing.id), ""
                else:
                    error = _name_error(session, row["new"])
                    if error:
                        errors.append(f"Player {i}: {error}")
                        continue
                    to_create.append(row["new"])
                    name = row["new"]
            if not row["new"]:
                member = by_id.get(row["player"])
                if member is None:
                    errors.append(f"Player {i}: choose a member or write a new player's name.")
                    continue
                name, member_id = member.name, member.id
            stands_for = by_id.get(row["for"]) if row["for"] else None
            if stands_for is not None and stands_for.name == name:
                errors.append(f"Player {i}: {name} cannot stand in for themselves.")
                continue
            players.append(
                {
                    "name": name,
                    "member_id": member_id,
                    "for_id": stands_for.id if stands_for else None,
                    "for_name": stands_for.name if stands_for else None,
                }
            )
            if stands_for is not None:
                stand_ins[name] = stands_for.name
            if row["table"] in BASE_TABLES:
                newcomers[name] = row["table"]
        names = [p["name"] for p in players]
        for name in sorted({n for n in names if names.count(n) > 1}):
            errors.append(f"{name} is listed twice: each player plays once.")
        host = typed["host"]
        if not host:
            errors.append("Choose the host.")
        start: dict[str, str] | None = None
        where_ids = cn.last_night_tables(session)
        where = {by_id[str(mid)].name: t for mid, t in where_ids.items() if str(mid) in by_id}
        if not errors and len(players) == PLAYERS:
            nobody_known = not any(
                p["name"] in where or (p["for_name"] in where) for p in players
            )
            if nobody_known and not newcomers:
                start = None  # the first night: the tables are drawn by lot
            else:
                try:
                    start = start_tables(where, names, stand_ins=stand_ins, newcomers=newcomers)
                except ValueError as exc:
                    errors.append(_start_message(str(exc)))
        elif not errors:
            errors.append(f"A Gurka Night needs {PLAYERS} players.")
        night_id = None
        if not errors:
            seed = secrets.randbits(62)
            try:
                Night.new(names, start, seed=seed)
            except ValueError as exc:
                errors.append(str(exc))
        if not errors:
            for name in to_create:
                member = store.add_member(session, name=name)
                for p in players:
                    if p["name"] == name:
                        p["member_id"] = member.id
            row = store.create_night(
                session, day=day, host=host, seed=seed, players=players, start=start or {},  # type: ignore[arg-type]
                mode=typed["mode"], created_by=who.name or "",
            )
            cn.save_state(session, row, cn.replay(row, []))
            night_id = row.id
    if errors:
        return _setup_page(request, typed, errors, status=422)
    if typed["mode"] == "online":
        await club_online.advance(request.app, night_id)  # type: ignore[arg-type]
    return redirect(f"/club/nights/{night_id}", request)


def _start_message(text: str) -> str:
    return text.replace("(newcomers)", "— choose a start table for them").replace(
        "the host places them", "the host places them"
    )


# ------------------------------------------------------------------ the night page


def _night_context(
    session: Session,
    row: store.Night,
    results: list[store.NightResult],
    night: Night,
    *,
    form_errors: dict[str, list[str]] | None = None,
    typed: dict[str, dict[str, Any]] | None = None,
    poll_errors: list[str] | None = None,
) -> dict[str, Any]:
    members = store.list_members(session, active_only=True)
    poll = store.get_poll(session, night_id=row.id)  # type: ignore[arg-type]
    poll_view = _poll_view(poll, store.list_votes(session, poll_id=poll.id) if poll else None,
                           members, date.today()) if poll else None
    corrections = store.list_corrections(session, night_id=row.id)
    debts = [d for d in store.list_debts(session) if d.night_id == row.id]
    standings_stage = night.stage
    rows_by_round: dict[tuple[str, int], list[store.NightResult]] = {}
    playoff_rows: list[store.NightResult] = []
    for result in results:
        if result.phase == "playoff":
            playoff_rows.append(result)
        else:
            rows_by_round.setdefault((result.phase, result.round), []).append(result)
    corrected = {c.result_id for c in corrections}
    form_keys = set(night.pending_tables) | {f"playoff{i}" for i in range(len(night.playoffs))}
    general_errors = [e for k, errs in (form_errors or {}).items() if k not in form_keys for e in errs]
    tables_now = cn.tables_view(night)
    online_playoffs: list[dict[str, Any]] = []
    if row.mode == "online" and night.phase in ("base", "finals"):
        for t in tables_now:
            key = club_online.room_key(night.stage, night.current.number, t["key"])
            entry = club_online.room_entry(row, key)
            if entry and entry.get("players") == t["chairs"]:
                t["room_url"] = f"/r/{entry['slug']}"
                t["room_key"] = key
                t["play"] = {p: f"/club/nights/{row.id}/play/{key}/{i}" for i, p in enumerate(t["chairs"])}
    elif row.mode == "online" and night.phase == "playoff":
        groups = [sorted(g) for g in night.playoffs]
        for key, entry in row.state.get("rooms", {}).items():
            if key.startswith(f"playoff-{night.stage}-") and sorted(entry.get("players", [])) in groups:
                online_playoffs.append({
                    "room_key": key, "room_url": f"/r/{entry['slug']}", "players": entry["players"],
                    "play": {p: f"/club/nights/{row.id}/play/{key}/{i}" for i, p in enumerate(entry["players"])},
                })
    ctx: dict[str, Any] = {
        "row": row,
        "night": night,
        "title_date": nice_date(row.date),
        "programme": cn.PROGRAMME,
        "programme_now": cn.programme_now(night),
        "round_label": cn.round_label(night),
        "tables_now": tables_now,
        "online_playoffs": online_playoffs,
        "standings": night.standings(standings_stage),
        "carry": night.carry_over,
        "stage": standings_stage,
        "base_done": night.stage == "finals",
        "pending": night.pending_tables if night.phase in ("base", "finals") else [],
        "playoffs": night.playoffs,
        "placement": night.placement() if night.phase == "done" else [],
        "hof_points": night.hall_of_fame() if night.phase == "done" else {},
        "rounds": sorted(rows_by_round.items(), key=lambda kv: (kv[0][0] != "base", kv[0][1]), reverse=True),
        "playoff_rows": playoff_rows,
        "corrections": corrections,
        "corrected": corrected,
        "form_errors": form_errors or {},
        "general_errors": general_errors,
        "typed": typed or {},
        "poll": poll_view,
        "poll_errors": poll_errors or [],
        "members": members,
        "debts": debts,
        "lots": night.lots,
        "stand_ins": {p["name"]: p["for_name"] for p in row.players if p.get("for_name")},
        "progress": _progress(night),
        "today": date.today(),
        "week_after": row.date + timedelta(days=7),
        "nice_date": nice_date,
        "describe_slot": cn.describe_slot,
        "table_note": cn.TABLE_NOTE,
        "table_suit": cn.TABLE_SUIT,
    }
    return ctx


def _progress(night: Night) -> int:
    """Percent of the night's 22 rounds recorded."""
    done = sum(1 for r in night.history() if r.complete)
    return round(100 * done / 22)


def _night_page(request: Request, night_id: int, *, status: int = 200, **extra: Any) -> Response:
    with session_scope(_engine(request)) as session:
        row, results, night = _night_or_404(session, night_id)
        ctx = _night_context(session, row, results, night, **extra)
    return render(request, "club/night.html", ctx, status=status)


@router.get("/nights/{night_id}", response_class=HTMLResponse)
def night_page(request: Request, night_id: int) -> Response:
    return _night_page(request, night_id)


@router.get("/nights/{night_id}/live", response_class=HTMLResponse)
def night_live(request: Request, night_id: int) -> Response:
    """The part of the night page that htmx refreshes every few seconds."""
    with session_scope(_engine(request)) as session:
        row, results, night = _night_or_404(session, night_id)
        ctx = _night_context(session, row, results, night)
    return render(request, "club/_night_live.html", ctx)


@router.get("/nights/{night_id}/play/{key}/{chair}")
async def play_at_table(request: Request, night_id: int, key: str, chair: int) -> Response:
    """A player's way into their online table: a fresh token for their seat (the previous one
    stops working: this is how a player takes their seat back on another device), the room's
    seat cookie, then the room."""
    with session_scope(_engine(request)) as session:
        row = store.get_night(session, night_id=night_id)
    if row is None:
        raise HTTPException(status_code=404, detail="No such night")
    link = await club_online.issue_seat(request.app, row, key, chair)
    if link is None:
        raise HTTPException(status_code=404, detail="No such table or seat")
    slug, seat_token = link
    response = redirect(f"/r/{slug}", request)
    response.headers["Cache-Control"] = "no-store"
    set_seat_cookie(response, slug=slug, token=seat_token,
                    secure=bool(request.app.state.settings.secure_cookies))
    return response


@router.post("/nights/{night_id}/bots/{key}", response_class=HTMLResponse)
async def bots_for_absent(request: Request, night_id: int, key: str) -> Response:
    """An elder lets bots play the seats of players who are not at their online table."""
    from app.rooms import Refused
    from app.web.state import manager_of

    await auth.check_csrf(request)
    require_elder(request)
    with session_scope(_engine(request)) as session:
        row = store.get_night(session, night_id=night_id)
        if row is None:
            raise HTTPException(status_code=404, detail="No such night")
        entry = club_online.room_entry(row, key)
    room = manager_of(request.app).get(entry["slug"]) if entry else None
    if room is None:
        raise HTTPException(status_code=404, detail="No such table")
    problems: list[str] = []
    for seat in list(room.seats):
        if room.seats[seat].botted or seat in room.present():
            continue
        try:
            await room.hand_to_bot(room.host, seat)
        except Refused as exc:
            problems.append(str(exc))
    if problems:
        return _night_page(request, night_id, status=409, form_errors={"bots": problems})
    return redirect(f"/club/nights/{night_id}", request)


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
    for key, label in (("first_out", "went out first"), ("second_out", "went out second"),
                       ("winner", "won")):
        name = typed[key]
        if not name:
            errors.append(f"Choose who {label}.")
        elif name not in chairs:
            errors.append(f"{name} is not at this table: choose one of {', '.join(chairs)}.")
        else:
            picked.append(name)
    for name in sorted({n for n in picked if picked.count(n) > 1}):
        errors.append(f"{name} is chosen twice: each of the three players takes one place.")
    agurker: dict[str, int] = {}
    for i, name in enumerate(chairs):
        raw = str(form.get(f"agurk_{i}") or "0").strip() or "0"
        typed["agurker"][name] = raw
        if not raw.isdigit() or int(raw) > MAX_AGURKER:
            errors.append(f"Agurker for {name} must be a whole number from 0 to {MAX_AGURKER}.")
        elif int(raw):
            agurker[name] = int(raw)
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
async def record_result(request: Request, night_id: int) -> Response:
    form = await auth.check_csrf(request)
    who = require_elder(request)
    table = str(form.get("table") or "")
    phase = str(form.get("phase") or "")
    round_no = str(form.get("round") or "")
    with session_scope(_engine(request)) as session:
        row, results, night = _night_or_404(session, night_id)
        errors: list[str] = []
        typed: dict[str, Any] = {}
        if night.phase not in ("base", "finals"):
            errors.append("This night is not waiting for a table's result.")
        elif (phase, round_no) != (night.stage, str(night.current.number)) or table not in night.pending_tables:
            errors.append(
                f"{cn.describe_slot(phase, int(round_no or 0), table).capitalize()} is already"
                " recorded or not open: the page has moved on, see below."
            )
        else:
            chairs = list(night.current.seating[table])
            result, errors, typed = parse_result(form, chairs)
            if result is not None:
                try:
                    night.record(table, result)
                except ValueError as exc:
                    errors.append(str(exc))
                else:
                    store.add_result(
                        session, night_id=night_id, phase=phase, round_no=int(round_no),
                        table=table, result=result.to_dict(), recorded_by=who.name or "",
                    )
                    cn.save_state(session, row, night)
        if errors:
            ctx = _night_context(
                session, row, results, night, form_errors={table: errors}, typed={table: typed}
            )
    if errors:
        return render(request, "club/night.html", ctx, status=422)
    if row.mode == "online":
        await club_online.advance(request.app, night_id)
    return redirect(f"/club/nights/{night_id}#record", request)


@router.post("/nights/{night_id}/playoff", response_class=HTMLResponse)
async def record_playoff(request: Request, night_id: int) -> Response:
    form = await auth.check_csrf(request)
    who = require_elder(request)
    group_no = str(form.get("group") or "")
    with session_scope(_engine(request)) as session:
        row, results, night = _night_or_404(session, night_id)
        errors: list[str] = []
        groups = night.playoffs
        typed: dict[str, Any] = {}
        if not groups:
            errors.append("There is no playoff to record now.")
        elif not group_no.isdigit() or int(group_no) >= len(groups):
            errors.append("That playoff is already recorded: see below.")
        else:
            group = groups[int(group_no)]
            order = [str(form.get(f"place_{i}") or "") for i in range(len(group))]
            typed = {"order": order}
            for i, name in enumerate(order, start=1):
                if not name:
                    errors.append(f"Choose who came {_ordinal(i)} in the playoff.")
                elif name not in group:
                    errors.append(f"{name} is not in this playoff.")
            for name in sorted({n for n in order if n and order.count(n) > 1}):
                errors.append(f"{name} is chosen twice: each player takes one place.")
            if not errors:
                stage = night.stage
                try:
                    night.record_playoff(order)
                except ValueError as exc:
                    errors.append(str(exc))
                else:
                    count = sum(1 for r in results if r.phase == "playoff")
                    store.add_result(
                        session, night_id=night_id, phase="playoff", round_no=count + 1,
                        table=stage, result={"order": order}, recorded_by=who.name or "",
                    )
                    cn.save_state(session, row, night)
        if errors:
            ctx = _night_context(
                session, row, results, night, form_errors={f"playoff{group_no}": errors},
                typed={f"playoff{group_no}": typed},
            )
    if errors:
        return render(request, "club/night.html", ctx, status=422)
    if row.mode == "online":
        await club_online.advance(request.app, night_id)
    return redirect(f"/club/nights/{night_id}#record", request)


def _ordinal(n: int) -> str:
    return {1: "1st", 2: "2nd", 3: "3rd"}.get(n, f"{n}th")


@router.post("/nights/{night_id}/delete")
async def delete_night(request: Request, night_id: int) -> Response:
    form = await auth.check_csrf(request)
    require_elder(request)
    if form.get("confirm") != "yes":
        return redirect(f"/club/nights/{night_id}", request)
    with session_scope(_engine(request)) as session:
        if store.get_night(session, night_id=night_id) is None:
            raise HTTPException(status_code=404, detail="No such night")
        store.delete_night(session, night_id=night_id)
    return redirect("/club", request)


# ------------------------------------------------------------------ corrections


def _correct_page(request: Request, night_id: int, result_id: int, *, typed: dict[str, Any] | None = None,
                  errors: list[str] | None = None, offer_drop: bool = False, status: int = 200) -> Response:
    with session_scope(_engine(request)) as session:
        row, results, night = _night_or_404(session, night_id)
        target = next((r for r in results if r.id == result_id), None)
        if target is None or target.phase == "playoff":
            raise HTTPException(status_code=404, detail="No such result")
        rnd = next(r for r in night.history(target.phase) if r.number == target.round)  # type: ignore[arg-type]
        chairs = list(rnd.seating[target.table])
        if typed is None:
            current = RoundResult.from_dict(target.result)
            typed = {
                "first_out": current.first_out, "second_out": current.second_out,
                "winner": current.winner, "bar_rov": current.bar_rov,
                "agurker": {p: str(current.agurk(p)) for p in chairs}, "reason": "",
            }
        history = [c for c in store.list_corrections(session, night_id=night_id) if c.result_id == result_id]
    return render(
        request,
        "club/correct.html",
        {
            "row": row, "target": target, "chairs": chairs, "typed": typed, "errors": errors or [],
            "offer_drop": offer_drop, "history": history, "slot": cn.describe_slot(target.phase, target.round, target.table),
            "title_date": nice_date(row.date),
        },
        status=status,
    )


@router.get("/nights/{night_id}/results/{result_id}/correct", response_class=HTMLResponse)
def correct_form(request: Request, night_id: int, result_id: int) -> Response:
    require_elder(request)
    return _correct_page(request, night_id, result_id)


@router.post("/nights/{night_id}/results/{result_id}/correct", response_class=HTMLResponse)
async def correct_submit(request: Request, night_id: int, result_id: int) -> Response:
    form = await auth.check_csrf(request)
    who = require_elder(request)
    reason = " ".join(str(form.get("reason") or "").split())[:500]
    drop_later = form.get("drop_later") == "yes"
    offer_drop = False
    with session_scope(_engine(request)) as session:
        row, results, night = _night_or_404(session, night_id)
        target = next((r for r in results if r.id == result_id), None)
        if target is None or target.phase == "playoff":
            raise HTTPException(status_code=404, detail="No such result")
        rnd = next(r for r in night.history(target.phase) if r.number == target.round)  # type: ignore[arg-type]
        result, errors, typed = parse_result(form, list(rnd.seating[target.table]))
        typed["reason"] = reason
        if not reason:
            errors.append("Write the reason for the correction: it stays on the record.")
        if result is not None and result.to_dict() == RoundResult.from_dict(target.result).to_dict():
            errors.append("Nothing changed: this is the result already recorded.")
        if not errors and result is not None:
            try:
                night.correct(
                    target.phase, target.round, target.table, result,  # type: ignore[arg-type]
                    reason=reason, drop_later=drop_later,
                )
            except CorrectionError as exc:
                errors.append(f"{exc}. Tick the box below to discard the later results that no longer fit"
                              " and record them again.")
                offer_drop = True
            except ValueError as exc:
                errors.append(str(exc))
            else:
                store.correct_result(session, result_id=result_id, after=result.to_dict(),
                                     who=who.name or "", reason=reason)
                cn.sync_rows(session, row, night)
                cn.save_state(session, row, night)
    if errors:
        return _correct_page(request, night_id, result_id, typed=typed, errors=errors,
                             offer_drop=offer_drop, status=422)
    if row.mode == "online":
        await club_online.advance(request.app, night_id)
    return redirect(f"/club/nights/{night_id}#corrections", request)


@router.get("/corrections", response_class=HTMLResponse)
def corrections_log(request: Request) -> Response:
    with session_scope(_engine(request)) as session:
        corrections = store.list_corrections(session)
        nights = {n.id: n for n in store.list_nights(session)}
    return render(
        request,
        "club/corrections.html",
        {"corrections": corrections, "nights": nights, "describe_slot": cn.describe_slot, "nice_date": nice_date},
    )


# ------------------------------------------------------------------ date poll and beer


def _poll_view(poll: store.DatePoll, votes: list[store.DateVote] | None, members: list[store.Member],
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
    for vote in votes or []:
        name = names.get(vote.member_id)
        if name is None or name == poll.proposed_by:
            continue
        answers[name] = vote.choice
        if vote.choice in ("a", "b"):
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
        "missing": missing,
        "closed": closed,
        "chosen": chosen,
        "leading": core.chosen,
        "deadline": core.deadline,
        "voters": [m for m in members if m.name != poll.proposed_by],
    }


@router.post("/nights/{night_id}/poll", response_class=HTMLResponse)
async def propose_dates(request: Request, night_id: int) -> Response:
    form = await auth.check_csrf(request)
    errors: list[str] = []
    with session_scope(_engine(request)) as session:
        row = store.get_night(session, night_id=night_id)
        if row is None:
            raise HTTPException(status_code=404, detail="No such night")
        first, second = parse_date(form.get("date_a")), parse_date(form.get("date_b"))  # type: ignore[arg-type]
        if row.status != "done" or not row.winner:
            errors.append("The dates are proposed by the winner once the night is over.")
        elif store.get_poll(session, night_id=night_id) is not None:
            errors.append("The dates for the next night are already proposed.")
        elif first is None or second is None:
            errors.append("Choose two dates.")
        else:
            today = date.today()
            try:
                core = DatePoll.propose(
                    night_date=row.date, proposer=row.winner,
                    members=[m.name for m in store.list_members(session, active_only=True)],
                    dates=[first, second], proposed_on=today,
                )
            except ValueError as exc:
                errors.append(str(exc).capitalize())
            else:
                store.create_poll(
                    session, night_id=night_id, proposed_by=row.winner, option_a=core.dates[0],
                    option_b=core.dates[1], answer_by=core.deadline,
                )
    if errors:
        return _night_page(request, night_id, status=422, poll_errors=errors)
    return redirect(f"/club/nights/{night_id}#next-night", request)


@router.post("/nights/{night_id}/vote", response_class=HTMLResponse)
async def vote(request: Request, night_id: int) -> Response:
    form = await auth.check_csrf(request)
    errors: list[str] = []
    with session_scope(_engine(request)) as session:
        poll = store.get_poll(session, night_id=night_id)
        if poll is None:
            raise HTTPException(status_code=404, detail="No date poll for this night")
        members = store.list_members(session, active_only=True)
        member = next((m for m in members if str(m.id) == form.get("member")), None)
        choice = str(form.get("choice") or "")
        view = _poll_view(poll, store.list_votes(session, poll_id=poll.id), members, date.today())  # type: ignore[arg-type]
        if member is None:
            errors.append("Choose your name.")
        elif member.name == poll.proposed_by:
            errors.append(f"{member.name} proposed the dates; the other members answer.")
        if choice not in ("a", "b", "neither"):
            errors.append("Choose the date that suits you.")
        if view["closed"]:
            errors.append(f"The poll is closed: the next night is {nice_date(view['chosen'])}.")
        if not errors:
            store.set_vote(session, poll_id=poll.id, member_id=member.id, choice=choice)  # type: ignore[arg-type,union-attr]
            view = _poll_view(poll, store.list_votes(session, poll_id=poll.id), members, date.today())  # type: ignore[arg-type]
            if view["closed"] and poll.chosen is None:
                store.choose_date(session, poll_id=poll.id, chosen=view["chosen"])  # type: ignore[arg-type]
    if errors:
        return _night_page(request, night_id, status=422, poll_errors=errors)
    return redirect(f"/club/nights/{night_id}#next-night", request)


@router.get("/beer", response_class=HTMLResponse)
def beer_page(request: Request) -> Response:
    return _beer(request)


def _beer(request: Request, *, errors: list[str] | None = None, typed: dict[str, str] | None = None,
          status: int = 200) -> Response:
    with session_scope(_engine(request)) as session:
        debts = store.list_debts(session)
        members = store.list_members(session)
        nights = store.list_nights(session)
    names = {m.id: m.name for m in members}
    owed: dict[str, int] = {}
    for debt in debts:
        if debt.settled_at is None:
            owed[names.get(debt.member_id, "?")] = owed.get(names.get(debt.member_id, "?"), 0) + debt.crates
    return render(
        request,
        "club/beer.html",
        {
            "debts": debts, "names": names, "owed": sorted(owed.items(), key=lambda kv: (-kv[1], kv[0])),
            "members": [m for m in members if m.active], "nights": nights, "errors": errors or [],
            "typed": typed or {}, "nice_date": nice_date,
        },
        status=status,
    )


@router.post("/beer", response_class=HTMLResponse)
async def add_debt(request: Request) -> Response:
    form = await auth.check_csrf(request)
    who = require_elder(request)
    typed = {k: str(form.get(k) or "") for k in ("member", "reason", "crates", "night")}
    errors: list[str] = []
    reason = " ".join(typed["reason"].split())[:200]
    crates = int(typed["crates"]) if typed["crates"].isdigit() else 0
    with session_scope(_engine(request)) as session:
        member = next((m for m in store.list_members(session) if str(m.id) == typed["member"]), None)
        if member is None:
            errors.append("Choose who owes the crate.")
        if not reason:
            errors.append("Write why: which date was broken.")
        if not 1 <= crates <= 10:
            errors.append("A debt is 1 to 10 crates.")
        night_id = int(typed["night"]) if typed["night"].isdigit() else None
        if night_id is not None and store.get_night(session, night_id=night_id) is None:
            night_id = None
        if not errors:
            store.add_debt(session, member_id=member.id, reason=reason, recorded_by=who.name or "",  # type: ignore[union-attr,arg-type]
                           crates=crates, night_id=night_id)
    if errors:
        return _beer(request, errors=errors, typed=typed, status=422)
    return redirect("/club/beer", request)


@router.post("/beer/{debt_id}/settle")
async def settle_debt(request: Request, debt_id: int) -> Response:
    await auth.check_csrf(request)
    require_elder(request)
    with session_scope(_engine(request)) as session:
        try:
            store.settle_debt(session, debt_id=debt_id)
        except LookupError as exc:
            raise HTTPException(status_code=404, detail="No such debt") from exc
    return redirect("/club/beer", request)


# ------------------------------------------------------------------ Hall of Fame


HOF_COLUMNS = [
    ("name", "Player", False),
    ("points", "HoF points", True),
    ("nights", "Nights", True),
    ("wins", "Wins", True),
    ("podiums", "Podiums", True),
    ("average", "Avg. place", True),
    ("bar_rov", "Bar røv", True),
    ("agurker", "Agurker", True),
]


@router.get("/hall-of-fame", response_class=HTMLResponse)
def hall_of_fame(request: Request, sort: str = "points", year: str = "") -> Response:
    with session_scope(_engine(request)) as session:
        played = cn.played_nights(session)
    years = sorted({n.on.year for n in played}, reverse=True)
    chosen_year = int(year) if year.isdigit() and int(year) in years else None
    sort = sort if sort in cn.SORTS else "points"
    rows = cn.table_for(played, chosen_year)
    rank = {r.player: i for i, r in enumerate(rows, start=1)}
    return render(
        request,
        "club/hall_of_fame.html",
        {
            "rows": cn.sorted_table(rows, sort), "rank": rank, "sort": sort, "year": chosen_year,
            "years": years, "columns": HOF_COLUMNS,
            "nights": [n for n in reversed(played) if chosen_year is None or n.on.year == chosen_year],
            "nice_date": nice_date,
        },
    )


@router.get("/players/{name}", response_class=HTMLResponse)
def player_page(request: Request, name: str) -> Response:
    with session_scope(_engine(request)) as session:
        member = store.get_member_by_name(session, name=name)
        played = cn.played_nights(session)
    if member is None:
        raise HTTPException(status_code=404, detail="No such player")
    if member.name != name:
        return redirect(f"/club/players/{quote(member.name)}", request)
    mine = [(n, n.placement.index(member.name) + 1) for n in played if member.name in n.placement]
    all_time = next((r for r in cn.table_for(played, None) if r.player == member.name), None)
    years = sorted({n.on.year for n, _ in mine}, reverse=True)
    per_year = []
    for y in years:
        table = cn.table_for(played, y)
        row = next(r for r in table if r.player == member.name)
        per_year.append((y, row, [r.player for r in table].index(member.name) + 1, len(table)))
    chart = cn.places_chart([(n.on, place) for n, place in mine], title=f"{member.name}'s place night by night")
    return render(
        request,
        "club/player.html",
        {
            "member": member, "mine": list(reversed(mine)), "all_time": all_time, "per_year": per_year,
            "chart": chart, "nice_date": nice_date,
            "hof": dict(zip(range(1, 10), (9, 8, 7, 6, 5, 4, 3, 2, 1), strict=True)),
        },
    )
