"""Issue 10: elder login is throttled per name and per address with a capped back-off, and an
elder's sessions end at logout and at a password change."""

from __future__ import annotations

import re

from fastapi.testclient import TestClient

from app.rooms.clock import FakeClock
from app.web.shared.throttle import Throttle
from tests.web.club.helpers import PASSWORD, become_elder, csrf_of, member_ids, token


def _login(client, name: str, password: str):
    csrf = token(client, "/club/login")
    return client.post("/club/login", data={"csrf": csrf, "name": name, "password": password},
                       follow_redirects=False)


def _fresh_visitor(client) -> None:
    client.cookies.clear()


def test_wrong_passwords_are_throttled_with_a_clear_message_and_the_elder_gets_back_in(client) -> None:
    become_elder(client, "Elsa")
    clock = FakeClock(start=1000.0)
    client.app.state.login_throttle = Throttle(free=5, base=2.0, cap=300.0, clock=clock)
    _fresh_visitor(client)
    statuses = [_login(client, "Elsa", f"wrong-{i}").status_code for i in range(5)]
    assert statuses == [401] * 5
    refused = _login(client, "Elsa", PASSWORD)  # even the right password waits now
    assert refused.status_code == 429
    assert re.search(r"Too many attempts; try again in \d+ s\.", refused.text)
    assert "location" not in refused.headers
    clock.advance(2.5)
    assert _login(client, "Elsa", PASSWORD).status_code == 303


def test_logging_in_as_oneself_between_guesses_buys_no_extra_guesses(client) -> None:
    """Issue 24: a right password takes back only its own try. An elder who logs in as herself
    every fifth try, guessing a new name each other time (so no name's own count ever stops
    her), is held by the address's count as if she never logged in."""
    become_elder(client, "Elsa")
    clock = FakeClock(start=1000.0)
    client.app.state.login_throttle = Throttle(free=5, base=2.0, cap=300.0, clock=clock)
    wrong = through = 0
    for n in range(80):  # a try every 0.25 s for 20 s
        _fresh_visitor(client)
        own = through % 5 == 4
        answer = _login(client, "Elsa", PASSWORD) if own else _login(client, f"Nobody{n}", f"guess-{n}")
        assert answer.status_code in ((303, 429) if own else (401, 429)), answer.status_code
        wrong += answer.status_code == 401
        through += answer.status_code != 429
        clock.advance(0.25)
    assert through > 5  # she did log in between guesses
    assert wrong <= 5 + 3  # the free tries, then one after each of 2, 4 and 8 s: as without the trick


def test_the_right_password_frees_the_elders_name_for_her_other_devices(client) -> None:
    """A guesser's wrong passwords at Elsa's name make her wait once; once she got in, her name
    starts afresh, so her laptop (a new device, another address) logs in at once, while the
    guesser's address keeps its count."""
    become_elder(client, "Elsa")
    clock = FakeClock(start=1000.0)
    client.app.state.login_throttle = Throttle(free=3, base=30.0, clock=clock)
    guesser, phone, laptop = (TestClient(client.app, client=(ip, 5000)) for ip in ("203.0.113.1", "198.51.100.2",
                                                                                    "198.51.100.3"))
    assert [_login(guesser, "Elsa", f"wrong-{i}").status_code for i in range(3)] == [401] * 3
    assert _login(phone, "Elsa", PASSWORD).status_code == 429  # the name is held for everybody
    clock.advance(30.0)
    assert _login(phone, "Elsa", PASSWORD).status_code == 303
    assert _login(laptop, "Elsa", PASSWORD).status_code == 303  # at once: her name's count is gone
    # the guesser's address still remembers its wrong passwords: one try after its wait, then 60 s
    assert _login(guesser, "Elsa", "wrong-again").status_code == 401
    assert _login(guesser, "Elsa", "wrong-once-more").status_code == 429
    assert client.app.state.login_throttle.wait("addr:203.0.113.1") == 60.0


def test_a_lookalike_name_shares_the_throttle(client) -> None:
    become_elder(client, "Elsa")
    client.app.state.login_throttle = Throttle(free=2, base=30.0, clock=FakeClock())
    _fresh_visitor(client)
    assert _login(client, "Elsa", "nope-1").status_code == 401
    assert _login(client, "ELSA", "nope-2").status_code == 401
    assert _login(client, "Ｅｌｓａ", "nope-3").status_code == 429


def test_a_device_the_elder_used_before_is_not_locked_out_by_a_guesser(client) -> None:
    become_elder(client, "Elsa")  # this browser is now a known device of Elsa's
    client.app.state.login_throttle = Throttle(free=2, base=30.0, clock=FakeClock())
    device = client.cookies.get("gurka_elder_device")
    assert device
    # a guesser (another address would be another key; here: the name key) locks the name
    client.app.state.login_throttle.attempt(["name:elsa"])
    client.app.state.login_throttle.attempt(["name:elsa"])
    client.cookies.clear()
    assert _login(client, "Elsa", PASSWORD).status_code == 429
    client.cookies.clear()
    client.cookies.set("gurka_elder_device", device, path="/club")
    assert _login(client, "Elsa", PASSWORD).status_code == 303


def _is_elder(client, cookie: str) -> bool:
    client.cookies.clear()
    client.cookies.set("gurka_club", cookie)
    page = client.get("/club/members").text
    return "Log out" in page or 'action="/club/logout"' in page


def test_logout_ends_the_session_everywhere(client) -> None:
    become_elder(client, "Elsa")
    stolen = client.cookies.get("gurka_club")
    assert _is_elder(client, stolen)
    csrf = csrf_of(client.get("/club").text)
    assert client.post("/club/logout", data={"csrf": csrf}, follow_redirects=False).status_code == 303
    assert not _is_elder(client, stolen)


def test_a_password_change_ends_old_sessions_but_not_the_changers(client) -> None:
    become_elder(client, "Elsa")
    old = client.cookies.get("gurka_club")
    csrf = token(client, "/club/members")
    elsa = member_ids(client)["Elsa"]
    response = client.post(f"/club/members/{elsa}", data={"csrf": csrf, "action": "password",
                                                         "password": "a-new-password-2"},
                           follow_redirects=False)
    assert response.status_code == 303
    fresh = response.cookies.get("gurka_club") or client.cookies.get("gurka_club")
    assert fresh != old
    assert _is_elder(client, fresh)
    assert not _is_elder(client, old)
    client.cookies.clear()
    assert _login(client, "Elsa", PASSWORD).status_code == 401
    assert _login(client, "Elsa", "a-new-password-2").status_code == 303


def test_setup_after_the_first_elder_hashes_nothing(client, monkeypatch) -> None:
    """Once the club has an elder, POST /club/setup is refused before any argon2 work, so it
    cannot be used to keep a core busy hashing."""
    from app.web.club import auth

    become_elder(client, "Elsa")
    hashed: list[str] = []
    monkeypatch.setattr(auth, "hash_password", lambda password: hashed.append(password) or "x")
    csrf = token(client, "/club")
    response = client.post("/club/setup", data={"csrf": csrf, "name": "Mallory", "password": "p" * 12,
                                                 "password2": "p" * 12}, follow_redirects=False)
    assert response.status_code == 303 and response.headers["location"] == "/club/login"
    assert hashed == []
