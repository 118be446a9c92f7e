"""Club pages with TestClient: first elder, login, CSRF, members, setting up nights, the record
form's validation, the date poll, the beer ledger and the Hall of Fame."""

from __future__ import annotations

import re
from datetime import date, timedelta

from app.club.dates import LATE_ANSWER, LATE_PROPOSAL
from app.store import beer as beer_store
from app.store import date_polls as poll_store
from app.store import members as member_store
from app.store import nights as night_store
from app.store.db import session_scope
from app.web.club import auth
from tests.support.club_nights import new_night

from .helpers import (
    NINE,
    PASSWORD,
    add_members,
    become_elder,
    by_chair_form,
    core,
    create_night,
    finished_night_in_store,
    member_ids,
    setup_form,
    token,
)


def test_first_elder_then_login_and_logout(client) -> None:
    assert "Create the first elder" in client.get("/club").text
    csrf = token(client, "/club/setup")
    short = client.post("/club/setup", data={"csrf": csrf, "name": "Elsa", "password": "x", "password2": "x"})
    assert short.status_code == 422 and "at least 8 characters" in short.text
    assert 'value="Elsa"' in short.text  # the form keeps the name
    become_elder(client)
    assert client.get("/club/setup", follow_redirects=False).headers["location"] == "/club/login"
    page = client.get("/club").text
    assert "Log out" in page and "Set up a night" in page
    cookie = client.cookies.get(auth.COOKIE)
    assert auth.unsign(client.app.state.settings.secret_key, cookie)["m"] is not None
    assert auth.unsign("other-secret", cookie) is None

    client.post("/club/logout", data={"csrf": token(client)})
    assert "Elder login" in client.get("/club").text
    assert client.get("/club/nights/new", follow_redirects=False).headers["location"].startswith("/club/login")

    csrf = token(client, "/club/login")
    bad = client.post("/club/login", data={"csrf": csrf, "name": "Elsa", "password": "nope-nope"})
    assert bad.status_code == 401 and "do not match an elder" in bad.text
    good = client.post("/club/login", data={"csrf": csrf, "name": "elsa", "password": PASSWORD,
                                            "next": "/club/members"}, follow_redirects=False)
    assert good.status_code == 303 and good.headers["location"] == "/club/members"
    evil = client.post("/club/login", data={"csrf": token(client, "/club/login"), "name": "Elsa",
                                            "password": PASSWORD, "next": "//evil.example"},
                       follow_redirects=False)
    assert evil.headers["location"] == "/club"


def test_session_cookie_is_httponly_lax_and_forms_need_csrf(client) -> None:
    response = client.get("/club")
    header = response.headers["set-cookie"].lower()
    assert "httponly" in header and "samesite=lax" in header
    become_elder(client)
    assert client.post("/club/members", data={"name": "Mallory"}).status_code == 403
    assert client.post("/club/members", data={"name": "Mallory", "csrf": "forged"}).status_code == 403
    assert "Mallory" not in client.get("/club/members").text


def test_members_are_managed_by_elders(client) -> None:
    become_elder(client)
    ids = add_members(client, ["Ann", "Bo"])
    csrf = token(client, "/club/members")
    dup = client.post("/club/members", data={"csrf": csrf, "name": "ann"})
    assert dup.status_code == 422 and "already a member called Ann" in dup.text
    client.post(f"/club/members/{ids['Bo']}", data={"csrf": csrf, "action": "rename", "name": "Bodil"})
    client.post(f"/club/members/{ids['Ann']}", data={"csrf": csrf, "action": "retire"})
    weak = client.post(f"/club/members/{ids['Bo']}", data={"csrf": csrf, "action": "elder", "password": "short"})
    assert weak.status_code == 422 and "at least 8 characters" in weak.text
    client.post(f"/club/members/{ids['Bo']}", data={"csrf": csrf, "action": "elder", "password": "bodil-pass"})
    with session_scope(client.app.state.engine) as session:
        members = {m.name: m for m in member_store.list_members(session)}
    assert not members["Ann"].active and members["Bodil"].is_elder
    assert members["Bodil"].password_hash.startswith("$argon2")
    last = client.post(f"/club/members/{ids['Elsa']}", data={"csrf": csrf, "action": "unelder"})
    assert last.status_code in (303, 200)
    # a retired elder's session ends at once
    client.post(f"/club/members/{ids['Bo']}", data={"csrf": csrf, "action": "retire"})
    page = client.get("/club/members").text
    assert "Retired" in page
    # anonymous visitors can read but not change
    client.cookies.clear()
    assert client.get("/club/members").status_code == 200
    response = client.post("/club/members", data={"csrf": token(client, "/club/login"), "name": "Zed"},
                           follow_redirects=False)
    assert response.status_code == 303 and "/club/login" in response.headers["location"]


def test_setting_up_a_night_validates_and_draws_lots(client) -> None:
    become_elder(client)
    ids = add_members(client, NINE)
    csrf = token(client, "/club/nights/new")
    data = setup_form(ids, NINE[:8] + ["Ann"])
    data["player_8"] = str(ids["Ann"])
    bad = client.post("/club/nights/new", data={"csrf": csrf, **data, "date": ""})
    assert bad.status_code == 422
    assert "Choose the night&#39;s date." in bad.text and "Ann is listed twice" in bad.text
    assert f'<option value="{ids["Bo"]}" selected>' in bad.text  # the form keeps its rows
    night_id = create_night(client, setup_form(ids, NINE))
    night = core(client, night_id)
    with session_scope(client.app.state.engine) as session:
        row = night_store.get_night(session, night_id=night_id)
    assert row.start == {}  # the club's first night: tables drawn by lot
    assert [lot.kind for lot in night.lots][:1] == ["table"]
    page = client.get(f"/club/nights/{night_id}").text
    assert "Lots drawn (9)" in page  # start table, chairs and first dealer at each table
    assert str(row.seed) not in page  # the seed stays secret until the night is over
    for table in ("Vinderbord", "Mellanbord", "Taberbord"):
        assert table in page


def test_record_form_messages_and_kept_values(client) -> None:
    night_id = new_night(client)
    chairs = core(client, night_id).tables["mellan"]
    csrf = token(client, f"/club/nights/{night_id}")
    base = {"csrf": csrf, "table": "mellan", "phase": "base", "round": "1"}
    url = f"/club/nights/{night_id}/results"

    twice = client.post(url, data={**base, "first_out": chairs[0], "second_out": chairs[0], "winner": chairs[1],
                                   "agurk_1": "2"})
    assert twice.status_code == 422
    assert f"{chairs[0]} is chosen twice" in twice.text
    form = twice.text[twice.text.index('id="form-mellan"'):]
    form = form[: form.index("</form>")]
    assert f'<option value="{chairs[1]}" selected>' in form and 'name="agurk_1" value="2"' in form

    stranger = next(p for p in NINE if p not in chairs)
    wrong = client.post(url, data={**base, "first_out": stranger, "second_out": chairs[0], "winner": chairs[1],
                                   "agurk_0": "-1"})
    assert f"{stranger} is not at this table" in wrong.text
    assert "must be a whole number from 0 to 30" in wrong.text
    missing = client.post(url, data={**base, "first_out": chairs[0]})
    assert "Choose who went out second." in missing.text and "Choose who won." in missing.text

    ok = client.post(url, data={**base, **by_chair_form(chairs, bar_rov=True)}, follow_redirects=False)
    assert ok.status_code == 303
    again = client.post(url, data={**base, **by_chair_form(chairs)})
    assert again.status_code == 422 and "already recorded or not open" in again.text
    rows = {r.player: r for r in core(client, night_id).standings()}
    assert rows[chairs[2]].points == 0 and rows[chairs[2]].bar_rov == 1  # bar røv scores 0


def test_next_night_starts_where_players_finished_with_a_reserve(client) -> None:
    become_elder(client)
    ids = add_members(client, [*NINE, "Kim", "Nia"])
    engine = client.app.state.engine
    finished_night_in_store(engine, ids=ids, players=NINE, day=date.today() - timedelta(days=28), seed=4)
    last = core(client, 1)
    finished_at = {p: t for t, ps in last.tables.items() for p in ps}
    base_of = {"finale": "vinder", "mellanfinale": "mellan", "taberfinale": "taber"}

    # Kim plays for Ann; Bo stays home and the newcomer Nia must be placed by the host
    tonight = ["Kim", *[p for p in NINE if p not in ("Ann", "Bo")], "Nia"]
    data = setup_form(ids, tonight, stand_ins={"Kim": "Ann"})
    unplaced = client.post("/club/nights/new", data={"csrf": token(client, "/club/nights/new"), **data})
    assert unplaced.status_code == 422
    assert "Nia did not play last night" in unplaced.text
    data = setup_form(ids, tonight, stand_ins={"Kim": "Ann"}, tables={"Nia": base_of[finished_at["Bo"]]})
    night_id = create_night(client, data)
    with session_scope(engine) as session:
        row = night_store.get_night(session, night_id=night_id)
    assert row.start["Kim"] == base_of[finished_at["Ann"]]
    for p in tonight[1:-1]:
        assert row.start[p] == base_of[finished_at[p]]
    assert "Kim plays for Ann" in client.get(f"/club/nights/{night_id}").text


def _done_night(client, days_ago: int = 0, seed: int = 5) -> tuple[int, str, dict[str, int]]:
    ids = member_ids(client)
    night_id = finished_night_in_store(client.app.state.engine, ids=ids, players=NINE,
                                       day=date.today() - timedelta(days=days_ago), seed=seed)
    return night_id, core(client, night_id).winner, ids


def test_date_poll_and_beer_ledger(client) -> None:
    become_elder(client)
    add_members(client, NINE)
    night_id, winner, ids = _done_night(client)
    url = f"/club/nights/{night_id}"
    page = client.get(url).text
    assert f"{winner} won and proposes two dates" in page
    csrf = token(client, url)
    today = date.today()
    a, b = today + timedelta(days=14), today + timedelta(days=21)
    same = client.post(f"{url}/poll", data={"csrf": csrf, "date_a": a.isoformat(), "date_b": a.isoformat()})
    assert same.status_code == 422 and "Propose two different dates" in same.text
    past = client.post(f"{url}/poll", data={"csrf": csrf, "date_a": today.isoformat(), "date_b": b.isoformat()})
    assert "is not after the day of the proposal" in past.text
    client.post(f"{url}/poll", data={"csrf": csrf, "date_a": b.isoformat(), "date_b": a.isoformat()})
    page = client.get(url).text
    assert "Which date suits them?" in page

    own = client.post(f"{url}/vote", data={"csrf": csrf, "member": str(ids[winner]), "choice": "a"})
    assert own.status_code == 422 and "proposed the dates" in own.text
    voters = [p for p in NINE if p != winner]
    for i, name in enumerate(voters):
        choice = "b" if i < 5 else "a"  # the later date wins 5 to 3
        r = client.post(f"{url}/vote", data={"csrf": csrf, "member": str(ids[name]), "choice": choice})
        assert r.status_code in (200, 303), r.text
    # Elsa (the elder) is a member too: the poll closes when everyone answered
    client.post(f"{url}/vote", data={"csrf": csrf, "member": str(ids["Elsa"]), "choice": "neither"})
    page = client.get(url).text
    assert re.search(r"The next night is <strong>[^<]*" + str(b.day), page), page[page.index("next-night"):][:800]
    closed = client.post(f"{url}/vote", data={"csrf": csrf, "member": str(ids[voters[0]]), "choice": "a"})
    assert "The poll is closed" in closed.text
    assert "Next night:" in client.get("/club").text
    assert f'value="{b.isoformat()}"' in client.get("/club/nights/new").text  # the chosen date is proposed

    # Bo broke the date: a crate
    csrf = token(client, "/club/beer")
    empty = client.post("/club/beer", data={"csrf": csrf, "member": "", "reason": "", "crates": "1"})
    assert "Choose who owes the crate." in empty.text and "Write why" in empty.text
    client.post("/club/beer", data={"csrf": csrf, "member": str(ids["Bo"]), "crates": "2",
                                    "reason": "Did not come on the agreed date", "night": str(night_id)})
    beer = client.get("/club/beer").text
    assert "Did not come on the agreed date" in beer and "2 crates" in beer
    with session_scope(client.app.state.engine) as session:
        debt = beer_store.list_debts(session)[0]
    client.post(f"/club/beer/{debt.id}/settle", data={"csrf": csrf})
    beer = client.get("/club/beer").text
    assert "Nobody owes a crate" in beer and "paid" in beer


def open_crates(client) -> list[tuple[str, str]]:
    """(member, reason) of every crate still owed, straight from the store."""
    with session_scope(client.app.state.engine) as session:
        names = {m.id: m.name for m in member_store.list_members(session)}
        return [(names[d.member_id], d.reason) for d in beer_store.list_debts(session, open_only=True)]


def test_a_late_proposal_is_recorded_and_costs_a_crate(client) -> None:
    become_elder(client)
    add_members(client, NINE)
    night_id, winner, _ = _done_night(client, days_ago=10)
    url = f"/club/nights/{night_id}"
    page = client.get(url).text
    assert "The week to propose dates is over: dates proposed now are recorded as late" in page
    assert open_crates(client) == []
    later = date.today() + timedelta(days=5)
    response = client.post(f"{url}/poll", data={"csrf": token(client, url), "date_a": later.isoformat(),
                                                "date_b": (later + timedelta(days=1)).isoformat()},
                           follow_redirects=False)
    assert response.status_code == 303
    with session_scope(client.app.state.engine) as session:
        poll = poll_store.get_poll(session, night_id=night_id)
        assert poll is not None and poll.late and poll.answer_by == date.today() + timedelta(days=7)
    assert open_crates(client) == [(winner, LATE_PROPOSAL)]
    assert "Brud på disse datoer koster en kasse øl" in LATE_PROPOSAL
    page = client.get(url).text
    assert "The dates were proposed late." in page and "Which date suits them?" in page
    assert "Brud på disse datoer koster en kasse øl" in client.get("/club/beer").text


def _poll_past_its_week(client) -> tuple[str, int, list[str], dict[str, int], date, date]:
    """A night three weeks ago whose date poll's answer week ended yesterday; the first voter
    answered in time."""
    night_id, winner, ids = _done_night(client, days_ago=21)
    a, b = date.today() + timedelta(days=10), date.today() + timedelta(days=17)
    voters = [p for p in NINE if p != winner]
    with session_scope(client.app.state.engine) as session:
        poll = poll_store.create_poll(session, night_id=night_id, poll=poll_store.DatePollCreate(
            proposed_by=winner, option_a=a, option_b=b, answer_by=date.today() - timedelta(days=1)))
        poll_store.set_vote(session, poll_id=poll.id,  # type: ignore[arg-type]
                            answer=poll_store.DateVoteCreate(member_id=ids[voters[0]], choice="b"))
    return f"/club/nights/{night_id}", night_id, voters, ids, a, b


def test_a_late_answer_is_recorded_marked_and_costs_a_crate(client) -> None:
    become_elder(client)
    add_members(client, NINE)
    url, night_id, voters, ids, _, b = _poll_past_its_week(client)
    page = client.get(url).text
    assert "The answer week is over." in page and "Which date suits them?" in page
    select = page[page.index('id="vote-member"'):]
    select = select[: select.index("</select>")]
    assert f'value="{ids[voters[0]]}"' not in select and f'value="{ids[voters[1]]}"' in select
    late = client.post(f"{url}/vote", data={"csrf": token(client, url), "member": str(ids[voters[1]]),
                                            "choice": "a"}, follow_redirects=False)
    assert late.status_code == 303
    with session_scope(client.app.state.engine) as session:
        poll = poll_store.get_poll(session, night_id=night_id)
        votes = {v.member_id: (v.choice, v.late) for v in poll_store.list_votes(session, poll_id=poll.id)}  # type: ignore[arg-type,union-attr]
        assert poll.chosen == b        # settled by the answers in time: the late one counts for nothing
    assert votes == {ids[voters[0]]: ("b", False), ids[voters[1]]: ("a", True)}
    assert open_crates(client) == [(voters[1], LATE_ANSWER)]
    page = client.get(url).text
    assert f"{voters[1]} (late)" in page
    assert re.search(r"The next night is <strong>[^<]*" + str(b.day), page)
    again = client.post(f"{url}/vote", data={"csrf": token(client, url), "member": str(ids[voters[1]]),
                                             "choice": "b"})
    in_time = client.post(f"{url}/vote", data={"csrf": token(client, url), "member": str(ids[voters[0]]),
                                               "choice": "a"})
    for refused in (again, in_time):
        assert refused.status_code == 422 and "The poll is closed" in refused.text
    assert len(open_crates(client)) == 1


def test_an_elder_waives_a_crate_with_a_reason(client) -> None:
    become_elder(client)
    add_members(client, NINE)
    url, _, voters, ids, _, _ = _poll_past_its_week(client)
    client.post(f"{url}/vote", data={"csrf": token(client, url), "member": str(ids[voters[2]]),
                                     "choice": "neither"})
    assert open_crates(client) == [(voters[2], LATE_ANSWER)]
    with session_scope(client.app.state.engine) as session:
        debt_id = beer_store.list_debts(session)[0].id
    beer = client.get("/club/beer").text
    assert f'action="/club/beer/{debt_id}/waive"' in beer
    forged = client.post(f"/club/beer/{debt_id}/waive", data={"csrf": "forged", "waive_reason": "x"})
    assert forged.status_code == 403
    empty = client.post(f"/club/beer/{debt_id}/waive", data={"csrf": token(client, "/club/beer"),
                                                             "waive_reason": "  "})
    assert empty.status_code == 422 and "Write why the crate is waived." in empty.text
    assert len(open_crates(client)) == 1
    client.post(f"/club/beer/{debt_id}/waive", data={"csrf": token(client, "/club/beer"),
                                                     "waive_reason": "Her flight was cancelled"})
    assert open_crates(client) == []
    beer = client.get("/club/beer").text
    assert "Nobody owes a crate" in beer and "waived by Elsa" in beer and "Her flight was cancelled" in beer
    twice = client.post(f"/club/beer/{debt_id}/waive", data={"csrf": token(client, "/club/beer"),
                                                             "waive_reason": "again"})
    assert twice.status_code == 422 and "no longer owed" in twice.text
    missing = client.post(f"/club/beer/{debt_id + 50}/waive", data={"csrf": token(client, "/club/beer"),
                                                                    "waive_reason": "none"})
    assert missing.status_code == 404
    client.post("/club/logout", data={"csrf": token(client)})
    anonymous = client.post(f"/club/beer/{debt_id}/waive", data={"csrf": token(client, "/club/login"),
                                                                 "waive_reason": "me"},
                            follow_redirects=False)
    assert anonymous.status_code == 303 and "/club/login" in anonymous.headers["location"]
    assert "Mark paid" not in client.get("/club/beer").text


def test_hall_of_fame_sorting_years_and_player_page(client) -> None:
    become_elder(client)
    add_members(client, NINE)
    _done_night(client, days_ago=400, seed=1)
    _done_night(client, days_ago=30, seed=2)
    _done_night(client, days_ago=2, seed=3)

    def first_column(html: str, sort: str) -> list[str]:
        body = html[html.index('<table class="hof" id="hof">'):]
        body = body[: body.index("</table>")]
        return re.findall(r'<th scope="row"><a[^>]*>([^<]+)</a>', body)

    by_points = first_column(client.get("/club/hall-of-fame").text, "points")
    assert len(by_points) == 9
    by_name = first_column(client.get("/club/hall-of-fame?sort=name").text, "name")
    assert by_name == sorted(NINE, key=str.lower)
    html = client.get("/club/hall-of-fame?sort=average").text
    averages = [float(x) for x in re.findall(r'<td class="num">(\d\.\d\d)</td>', html)]
    assert averages == sorted(averages)
    assert 'aria-sort="ascending"' in html
    html = client.get("/club/hall-of-fame?sort=bogus").text
    assert first_column(html, "points") == by_points

    year = (date.today() - timedelta(days=400)).year
    per_year = client.get(f"/club/hall-of-fame?year={year}").text
    assert f"Hall of Fame {year}" in per_year
    assert "Every night's placement" in per_year

    player = client.get(f"/club/players/{by_points[0]}").text
    chart = player[player.index('<svg class="places-chart"'):]
    assert chart[: chart.index("</svg>")].count("<circle") == 3  # one dot per night
    assert "HoF points" in player
    assert client.get("/club/players/nobody").status_code == 404
    assert client.get(f"/club/players/{by_points[0].lower()}", follow_redirects=False).status_code == 303
