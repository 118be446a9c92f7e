"""Who may answer the date poll (issue 24, item 9): a member answers from the device their
personal link made remember them, as themself only; a device that knows nobody is told how to
get its link; an elder may answer for a member, and the answer says so."""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

from app.store import date_polls as poll_store
from app.store import members as member_store
from app.store.db import session_scope

from .helpers import NINE, add_members, become_elder, member_ids, remember_member, token
from .test_pages import _done_night


def answers(client: Any, night_id: int) -> dict[str, tuple[str, str | None]]:
    """member → (choice, elder who entered it), straight from the store."""
    with session_scope(client.app.state.engine) as session:
        names = {m.id: m.name for m in member_store.list_members(session)}
        poll = poll_store.get_poll(session, night_id=night_id)
        assert poll is not None and poll.id is not None
        return {names[v.member_id]: (v.choice, v.entered_by) for v in poll_store.list_votes(session, poll_id=poll.id)}


def night_with_a_poll(client: Any) -> tuple[int, str, str, dict[str, int]]:
    """A finished night whose winner proposed two dates (the client is the elder)."""
    become_elder(client)
    add_members(client, NINE)
    night_id, winner, ids = _done_night(client)
    url = f"/club/nights/{night_id}"
    a, b = date.today() + timedelta(days=14), date.today() + timedelta(days=21)
    response = client.post(f"{url}/poll", data={"csrf": token(client, url), "date_a": a.isoformat(),
                                                "date_b": b.isoformat()}, follow_redirects=False)
    assert response.status_code == 303
    return night_id, url, winner, ids


def as_plain_visitor(client: Any) -> None:
    """Drop the elder's session (the device keeps the member it remembers, if any)."""
    for cookie in [c for c in client.cookies.jar if c.name == "gurka_club"]:
        client.cookies.jar.clear(cookie.domain, cookie.path, cookie.name)


def test_a_visitor_whose_device_knows_nobody_cannot_answer(client: Any) -> None:
    night_id, url, winner, ids = night_with_a_poll(client)
    voter = next(p for p in NINE if p != winner)
    client.cookies.clear()
    page = client.get(url).text
    assert "To answer, open the personal link an elder sent you" in page
    assert 'name="choice"' not in page and 'id="vote-member"' not in page  # no form, no name to choose

    csrf = token(client, "/club/login")  # the visitor's session has a CSRF token all the same
    plain = client.post(f"{url}/vote", data={"csrf": csrf, "choice": "a"})
    assert plain.status_code == 422 and "This device does not know you yet" in plain.text
    posing = client.post(f"{url}/vote", data={"csrf": csrf, "member": str(ids[voter]), "choice": "a"})
    assert posing.status_code == 403 and "can answer only as its own member" in posing.text
    assert answers(client, night_id) == {}


def test_a_members_device_answers_as_that_member_only(client: Any) -> None:
    night_id, url, winner, ids = night_with_a_poll(client)
    me, other = [p for p in NINE if p != winner][:2]
    remember_member(client, me)
    as_plain_visitor(client)
    page = client.get(url).text
    assert f"Which date suits you, {me}?" in page and f"You answer as {me}" in page
    assert 'id="vote-member"' not in page  # the name is shown, not chosen

    response = client.post(f"{url}/vote", data={"csrf": token(client, url), "choice": "b"}, follow_redirects=False)
    assert response.status_code == 303
    assert answers(client, night_id) == {me: ("b", None)}
    tampered = client.post(f"{url}/vote", data={"csrf": token(client, url), "member": str(ids[other]),
                                                 "choice": "a"})
    assert tampered.status_code == 403
    assert answers(client, night_id) == {me: ("b", None)}  # nothing changed, for anyone
    own = client.post(f"{url}/vote", data={"csrf": token(client, url), "member": str(ids[me]), "choice": "a"},
                      follow_redirects=False)
    assert own.status_code == 303 and answers(client, night_id) == {me: ("a", None)}
    page = client.get(url).text
    assert 'value="a" required checked' in page  # the form shows the answer given


def test_an_elders_answer_for_a_member_is_shown_as_entered_by_that_elder(client: Any) -> None:
    night_id, url, winner, ids = night_with_a_poll(client)
    member = [p for p in NINE if p != winner][2]
    page = client.get(url).text
    assert "Answer for a member" in page and 'id="vote-member"' in page
    response = client.post(f"{url}/vote", data={"csrf": token(client, url), "member": str(ids[member]),
                                                "choice": "neither"}, follow_redirects=False)
    assert response.status_code == 303
    assert answers(client, night_id) == {member: ("neither", "Elsa")}
    page = client.get(url).text
    assert f"{member} <span class=\"entered\">(entered by Elsa)</span>" in page

    # the elder answering as themself is their own answer; the member's own answer replaces the
    # elder's and is no longer marked
    client.post(f"{url}/vote", data={"csrf": token(client, url), "member": str(member_ids(client)["Elsa"]),
                                     "choice": "a"})
    remember_member(client, member)
    as_plain_visitor(client)
    client.post(f"{url}/vote", data={"csrf": token(client, url), "choice": "b"})
    assert answers(client, night_id) == {member: ("b", None), "Elsa": ("a", None)}
    assert "entered by" not in client.get(url).text
