"""Who the client is, behind a proxy or not (issue 24, item 3), against `gurka serve` itself.

Before: uvicorn believed any peer's X-Forwarded-For and took its leftmost entry, the client's own
claim, so 30 wrong logins with rotating headers were all evaluated and the websocket cap per
address never held. Now only FORWARDED_ALLOW_IPS may say who the client is, and uvicorn takes the
rightmost entry that is not such a proxy: the address the proxy appended. The personal links'
throttle also counts wrong links from every address together.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

import httpx
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from app.push.keys import new_private_key
from app.web.club import identity
from bench.table_wire import parse
from tests.resilience.conftest import SECRET_KEY
from tests.support.app_process import free_port, server_process, without_pytest

CSRF = re.compile(r'name="csrf" value="([^"]+)"')
PASSWORD = "forwarded-elder-1"
WS_PER_ADDRESS = 3
PROXY_ELSEWHERE = "192.0.2.1"  # a proxy that is not us: our loopback peer is untrusted


@contextmanager
def gurka_serve(tmp_path: Path, forwarded_allow_ips: str) -> Iterator[str]:
    """`gurka serve` on a free port with its own SQLite file; yields its URL."""
    port = free_port()
    env = without_pytest(DATABASE_URL=f"sqlite:///{tmp_path / 'gurka.db'}", SECRET_KEY=SECRET_KEY, BOT_DELAY="0",
                         FORWARDED_ALLOW_IPS=forwarded_allow_ips, WS_PER_ADDRESS=str(WS_PER_ADDRESS),
                         VAPID_PRIVATE_KEY=new_private_key())  # gurka serve needs one
    with server_process(["-m", "app.main", "serve", "--host", "127.0.0.1", "--port", str(port)], port,
                        tmp_path / "server.log", env, start_timeout=60, stop_timeout=15) as base:
        yield base


def csrf(http: httpx.Client, path: str) -> str:
    found = CSRF.search(http.get(path).text)
    assert found, f"{path} has no CSRF token"
    return found.group(1)


def wrong_logins(base: str, forwarded_for: list[str]) -> list[int]:
    """One wrong login per header value, each for a new name (so only the address can hold them)."""
    statuses = []
    with httpx.Client(base_url=base, timeout=30) as http:
        token = csrf(http, "/club/setup")
        for n, header in enumerate(forwarded_for):
            answer = http.post("/club/login", headers={"X-Forwarded-For": header},
                               data={"csrf": token, "name": f"Nobody{n}", "password": f"guess-{n}"})
            statuses.append(answer.status_code)
    return statuses


def new_room(base: str) -> str:
    created = httpx.post(f"{base}/rooms", data={"name": "Anna", "preset": "gurka-night", "seats": "3",
                                                "bots": "2"}, timeout=30)
    assert created.status_code == 303, created.text[:300]
    return created.headers["location"].rsplit("/", 1)[-1]


def open_socket(held: ExitStack, base: str, slug: str, forwarded_for: str) -> str:
    """A websocket to the room, kept open in `held`: what came first ('table' or 'closed <code>')."""
    ws = held.enter_context(connect(base.replace("http://", "ws://") + f"/r/{slug}/ws", open_timeout=15,
                                    additional_headers={"X-Forwarded-For": forwarded_for}))
    try:
        return str(parse(ws.recv(timeout=15)).get("kind"))
    except ConnectionClosed as closed:
        return f"closed {closed.rcvd.code if closed.rcvd else None}"


def evaluated(statuses: list[int]) -> int:
    """Logins the server checked (a wrong password: 401) rather than refused unseen (429)."""
    assert set(statuses) <= {401, 429}, statuses
    return statuses.count(401)


# After LOGIN_FREE_ATTEMPTS (5) wrong tries each further one waits 2, 4, 8 s...: even on a slow
# machine, a run of 30 tries from one address gets far fewer than 10 of them checked.
MOST_CHECKED = 9


def test_an_untrusted_peer_cannot_pick_its_address_with_a_header(tmp_path: Path) -> None:
    with gurka_serve(tmp_path, PROXY_ELSEWHERE) as base:
        statuses = wrong_logins(base, [f"203.0.113.{n}" for n in range(1, 31)])
        assert 429 in statuses and evaluated(statuses) <= MOST_CHECKED, statuses

        slug = new_room(base)
        with ExitStack() as held:
            kinds = [open_socket(held, base, slug, f"198.51.100.{n}") for n in range(1, WS_PER_ADDRESS + 3)]
        assert kinds == ["table"] * WS_PER_ADDRESS + ["closed 1008"] * 2, kinds


def test_a_trusted_proxy_is_believed_for_the_address_it_appended(tmp_path: Path) -> None:
    with gurka_serve(tmp_path, "127.0.0.1") as base:
        # nginx with $proxy_add_x_forwarded_for: the client's claim, then the address nginx saw
        statuses = wrong_logins(base, [f"203.0.113.{n}, 198.51.100.7" for n in range(1, 31)])
        assert 429 in statuses and evaluated(statuses) <= MOST_CHECKED, statuses
        # another client behind the same proxy is someone else: its own tries are its own
        assert wrong_logins(base, ["203.0.113.1, 198.51.100.8"]) == [401]

        slug = new_room(base)
        with ExitStack() as held:
            kinds = [open_socket(held, base, slug, f"203.0.113.{n}, 198.51.100.7") for n in range(WS_PER_ADDRESS + 1)]
            kinds.append(open_socket(held, base, slug, "203.0.113.1, 198.51.100.8"))
        assert kinds == ["table"] * WS_PER_ADDRESS + ["closed 1008", "table"], kinds


def test_wrong_personal_links_from_many_addresses_meet_one_limit(tmp_path: Path) -> None:
    with gurka_serve(tmp_path, "127.0.0.1") as base, httpx.Client(base_url=base, timeout=30) as elder:
        made = elder.post("/club/setup", data={"csrf": csrf(elder, "/club/setup"), "name": "Elsa",
                                               "password": PASSWORD, "password2": PASSWORD})
        assert made.status_code == 303, made.text[:300]
        assert elder.post("/club/members", data={"csrf": csrf(elder, "/club/members"), "name": "Mette"}
                          ).status_code == 303
        page = elder.get("/club/members").text
        mette = re.search(r'href="/club/players/Mette".*?action="/club/members/(\d+)"', page, re.DOTALL)
        assert mette, "no member form for Mette"
        shown = elder.post(f"/club/members/{mette.group(1)}/link", data={"csrf": csrf(elder, "/club/members")})
        link = re.search(r"/club/me/[A-Za-z0-9_-]{20,}", shown.text)
        assert link, "the page shows no personal link"

        def open_link(path: str, address: str) -> httpx.Response:
            return httpx.get(base + path, headers={"X-Forwarded-For": address}, timeout=30)

        # right links never use up the allowance, however many devices open them
        free = identity.WRONG_LINKS_FREE
        assert {open_link(link.group(0), f"198.51.100.{n}").status_code for n in range(free + 5)} == {200}
        # one wrong link from each of many addresses: each address is fresh, yet they meet one limit
        # (each further wrong link waits 2, 4, 8 s...: at most a couple more get checked, however slow)
        wrong = [open_link(f"/club/me/not-a-link-{n}", f"10.9.{n // 200}.{n % 200 + 1}") for n in range(free + 5)]
        statuses = [answer.status_code for answer in wrong]
        assert statuses[:free] == [404] * free and set(statuses) == {404, 429}, statuses
        assert statuses.count(404) <= free + 2, statuses
        refused = next(answer for answer in wrong if answer.status_code == 429)
        assert "Too many wrong links have been tried" in refused.text
