"""Issue 10's findings, rerun against a live server: each one refused or survived, nothing lost?

    python bench/findings_rerun.py                          # SQLite in a temporary directory
    python bench/findings_rerun.py --database-url postgresql+psycopg://postgres@127.0.0.1:5432/test
    python bench/findings_rerun.py --only frames,headers --json

Starts the real app (uvicorn as `gurka serve` runs it: websockets-sansio, compression off, 64 KiB
frames, proxy headers trusted from loopback as behind nginx; the default caps and budgets) on a
free loopback port with its own database: a temporary SQLite file, or with --database-url a
fresh database created on that Postgres server for this run and dropped after it. Then it
reruns each finding of issue 10 over real HTTP and real websockets and prints one line per
finding: what was done, what was seen (figures), and PASS (refused plainly, or survived with
nothing lost) or FAIL. The server's output (stderr included) goes to a log that is searched for
"Traceback" after every finding. Exit status 0 when nothing failed.

Clients that stand for different people send different X-Forwarded-For addresses (uvicorn trusts
them from 127.0.0.1, as it trusts nginx in production), so the per-address limits meet the
attacker and not the honest player beside it.

Issue 24's findings follow in their own functions (forged-cookie: the old default SECRET_KEY;
spoofed-xff: X-Forwarded-For rotated behind a proxy). Findings tested elsewhere are listed as
notes (the test that covers them). Loopback only; every
wait is bounded; the server it started is stopped at the end.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import contextlib
import hashlib
import hmac
import html as htmlmod
import ipaddress
import json
import multiprocessing
import os
import re
import secrets
import socket
import sys
import tempfile
import time
import uuid
from collections.abc import Awaitable, Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass, field
from datetime import date
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidStatus

sys.path.insert(0, str(Path(__file__).resolve().parent))  # the other bench scripts
from ws_load import Server, free_port, offered, pct, raise_fd_limit

from bench.table_wire import Stale, apply, parse  # (ws_load put the repository on the path)

ROOT = Path(__file__).resolve().parent.parent
PASSWORD = "findings-elder-1"
CSRF = re.compile(r'name="csrf" value="([^"]+)"')
HX_DO = re.compile(r"hx-vals='([^']*)'")
TAGS = re.compile(r"<[^>]+>")


# ---------------------------------------------------------------------------- results


@dataclass
class Result:
    key: str
    finding: str
    done: str = ""
    observed: str = ""
    verdict: str = "FAIL"  # PASS, FAIL, or NOTE (covered elsewhere)

    def line(self) -> str:
        return f"{self.verdict:<4}  [{self.key}] {self.finding} | did: {self.done} | saw: {self.observed}"


@dataclass
class Finding:
    key: str
    title: str  # the finding as issue 10 reported it
    run: Callable[[Run, Result], Awaitable[Result]]  # fills in the result: done, observed, verdict


# ---------------------------------------------------------------------------- the server


class Database:
    """SQLite in the work directory, or a fresh database on the given Postgres server."""

    def __init__(self, workdir: Path, postgres_url: str | None) -> None:
        self.admin_url = postgres_url
        if postgres_url is None:
            self.url = f"sqlite:///{workdir / 'findings.db'}"
            self.name = "SQLite"
            return
        parts = urlsplit(postgres_url)
        self.db_name = f"findings_rerun_{uuid.uuid4().hex[:10]}"
        self.url = parts._replace(path=f"/{self.db_name}").geturl()
        self.name = f"Postgres ({parts.hostname}:{parts.port or 5432}, database {self.db_name})"
        self._admin(f'CREATE DATABASE "{self.db_name}"')

    def _admin(self, statement: str) -> None:
        from sqlalchemy import create_engine, text

        assert self.admin_url is not None
        engine = create_engine(self.admin_url, isolation_level="AUTOCOMMIT")
        try:
            with engine.connect() as conn:
                conn.execute(text(statement))
        finally:
            engine.dispose()

    def drop(self) -> None:
        if self.admin_url is not None:
            self._admin(f'DROP DATABASE IF EXISTS "{self.db_name}" WITH (FORCE)')


def log_config(workdir: Path) -> Path:
    """uvicorn's own lines as it logs them by default, and the app's ("gurka.*") from INFO on: a
    finding may wait for what the server says it did (a slow reader dropped)."""
    path = workdir / "logging.json"
    plain = {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"}
    out = {"class": "logging.StreamHandler", "formatter": "plain", "stream": "ext://sys.stderr"}
    loggers = {name: {"handlers": ["out"], "level": "INFO", "propagate": False} for name in ("uvicorn", "gurka")}
    path.write_text(json.dumps({"version": 1, "disable_existing_loggers": False, "formatters": {"plain": plain},
                                "handlers": {"out": out}, "loggers": loggers}))
    return path


def start_app(workdir: Path, database_url: str, env_extra: dict[str, str] | None = None) -> Server:
    port = free_port()
    env = dict(os.environ)
    env.update({
        "DATABASE_URL": database_url,
        "SECRET_KEY": secrets.token_urlsafe(32),
        "BOT_DELAY": "0",
        "DEAL_PAUSE": "0",
        "PYTHONUNBUFFERED": "1",
        **(env_extra or {}),
    })
    argv = [sys.executable, "-m", "uvicorn", "app.main:create_app", "--factory", "--host", "127.0.0.1",
            "--port", str(port), "--ws", "websockets-sansio", "--ws-per-message-deflate", "false",
            "--ws-max-size", "65536", "--proxy-headers", "--forwarded-allow-ips", "127.0.0.1",
            "--no-access-log", "--backlog", "4096", "--timeout-graceful-shutdown", "5",
            "--log-config", str(log_config(workdir))]
    server = Server(argv, env, f"http://127.0.0.1:{port}", workdir / "server.log")
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if server.proc.poll() is not None:
            raise SystemExit(f"the server exited:\n{server.log.read_text()[-3000:]}")
        try:
            if httpx.get(f"{server.url}/healthz", timeout=2).status_code == 200:
                return server
        except httpx.HTTPError:
            pass
        time.sleep(0.05)
    server.stop()
    raise SystemExit("the server did not answer /healthz in 60 s")


# ---------------------------------------------------------------------------- page helpers


def csrf_of(page: str) -> str:
    found = CSRF.search(page)
    if not found:
        raise RuntimeError("the page has no CSRF token")
    return found.group(1)


def alert_text(page: str) -> str:
    """The first alert's words (error boxes and toasts carry role="alert")."""
    for match in re.finditer(r'role="alert"[^>]*>', page):
        inside = page[match.end():match.end() + 600].split("</div>", 1)[0]
        words = " ".join(htmlmod.unescape(TAGS.sub(" ", inside)).split())
        words = words.split("×")[0].strip()
        if words:
            return words[:120]
    return ""


def seat_cookie_set(response: httpx.Response) -> bool:
    return any(v.startswith("gurka_seat_") for v in response.headers.get_list("set-cookie"))


def short(text: str, n: int = 70) -> str:
    return text if len(text) <= n else text[: n - 1] + "…"


# ---------------------------------------------------------------------------- the run


@dataclass
class Room:
    slug: str
    cookie: str  # "gurka_seat_<slug>=<token>": the host's seat


@dataclass
class Club:
    elder: httpx.AsyncClient
    night_id: int = 0


@dataclass
class Run:
    server: Server
    next_address: int = 0
    club: Club | None = None
    clients: list[httpx.AsyncClient] = field(default_factory=list)

    @property
    def url(self) -> str:
        return self.server.url

    @property
    def ws_url(self) -> str:
        return self.server.url.replace("http://", "ws://")

    def address(self) -> str:
        """A new client address (10.77.x.x: private, and only ever sent as a header here)."""
        self.next_address += 1
        return str(ipaddress.ip_address("10.77.0.0") + self.next_address)

    def client(self, headers: dict[str, str] | None = None) -> httpx.AsyncClient:
        """A new visitor: its own address and cookie jar."""
        client = httpx.AsyncClient(base_url=self.url, timeout=20,
                                   headers={"X-Forwarded-For": self.address(), **(headers or {})})
        self.clients.append(client)
        return client

    async def close(self) -> None:
        for client in self.clients:
            await client.aclose()

    def log_size(self) -> int:
        return self.server.log.stat().st_size

    def tracebacks_since(self, offset: int) -> int:
        with self.server.log.open("rb") as log:
            log.seek(offset)
            return log.read().count(b"Traceback")

    async def new_room(self, *, bots: int, seats: int = 3, name: str = "Anna") -> Room:
        response = await self.client().post("/rooms", data={
            "name": name, "preset": "gurka-night", "seats": str(seats), "bots": str(bots), "turn_seconds": "0"})
        if response.status_code != 303:
            raise RuntimeError(f"POST /rooms answered {response.status_code}: {alert_text(response.text)}")
        slug = response.headers["location"].rsplit("/", 1)[-1]
        cookie = next(v.split(";", 1)[0] for v in response.headers.get_list("set-cookie")
                      if v.startswith(f"gurka_seat_{slug}="))
        return Room(slug, cookie)

    def socket(self, room: Room, *, cookie: str | None = None, origin: str | None = None) -> Any:
        """A websocket to the room from a new address (with the seat cookie if given)."""
        headers = {"X-Forwarded-For": self.address()}
        if cookie:
            headers["Cookie"] = cookie
        return connect(f"{self.ws_url}/r/{room.slug}/ws", additional_headers=headers, origin=origin,
                       compression=None, max_size=None, ping_interval=None, open_timeout=10, close_timeout=2)

    async def the_club(self) -> Club:
        """The first elder (Elsa, through the setup page) and a night played online."""
        if self.club is not None:
            return self.club
        elder = self.client()
        page = await elder.get("/club/setup")
        made = await elder.post("/club/setup", data={"csrf": csrf_of(page.text), "name": "Elsa",
                                                    "password": PASSWORD, "password2": PASSWORD})
        if made.status_code != 303:
            raise RuntimeError(f"club setup answered {made.status_code}: {alert_text(made.text)}")
        form = {"csrf": csrf_of((await elder.get("/club/nights/new")).text), "date": date.today().isoformat(),
                "host": "Ann", "mode": "online", "turn_seconds": "0"}
        for i, name in enumerate(["Ann", "Bo", "Cy", "Di", "Ed", "Fi", "Gu", "Hal", "Ida"]):
            form.update({f"player_{i}": "", f"new_{i}": name, f"for_{i}": "", f"table_{i}": "auto"})
        night = await elder.post("/club/nights/new", data=form)
        if night.status_code != 303:
            raise RuntimeError(f"the online night was not set up ({night.status_code}): {alert_text(night.text)}")
        self.club = Club(elder, int(night.headers["location"].rsplit("/", 1)[-1]))
        return self.club


async def next_frame(ws: ClientConnection, timeout: float = 5.0) -> dict[str, Any]:
    return parse(await asyncio.wait_for(ws.recv(), timeout))


async def frame_of_kind(ws: ClientConnection, kinds: tuple[str, ...], timeout: float = 5.0) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while True:
        frame = await next_frame(ws, max(0.05, deadline - time.monotonic()))
        if frame.get("kind") in kinds:
            return frame


async def syncs(ws: ClientConnection, timeout: float = 5.0) -> bool:
    """The room answers a sync with a table."""
    try:
        await ws.send(json.dumps({"do": "sync"}))
        await frame_of_kind(ws, ("table",), timeout)
        return True
    except (ConnectionClosed, TimeoutError):
        return False


# ---------------------------------------------------------------------------- the findings


BAD_FRAMES = [  # (label, frame, sent from the host's seat rather than by a cookie-less spectator)
    ('v "--1"', '{"do":"sync","v":"--1"}', False),
    ('v "²"', '{"do":"sync","v":"²"}', False),
    ("4,301-digit v", '{"do":"sync","v":' + "9" * 4301 + "}", False),
    ("2,000 nested [", "[" * 2000, False),
    ("a seat's move with v ²", '{"do":"act","action":"2C","v":"²"}', True),
    ("a seat's move with a 4,301-digit v", '{"do":"act","action":"2C","v":"' + "9" * 4301 + '"}', True),
]


async def frames(run: Run, result: Result) -> Result:
    start = run.log_size()
    room = await run.new_room(bots=2)
    seen: list[str] = []
    ok = True
    async with run.socket(room, cookie=room.cookie) as host:
        await frame_of_kind(host, ("table",))
        await host.send(json.dumps({"do": "start"}))  # a game on: a seat's move reaches its version check
        await frame_of_kind(host, ("table", "fragments"))  # (the changes to the host's table)
        for label, text, seated in BAD_FRAMES:
            async with run.socket(room, cookie=room.cookie if seated else None) as ws:
                await frame_of_kind(ws, ("table",))
                await ws.send(text)
                try:
                    frame = await frame_of_kind(ws, ("notice", "table"), 5)
                    answer = f"notice '{short(frame['message'], 40)}'" if frame["kind"] == "notice" else "a table"
                    alive = await syncs(ws)
                    answer += ", socket still syncs" if alive else ", then the socket stopped answering"
                    ok = ok and alive
                except ConnectionClosed as closed:
                    code = closed.rcvd.code if closed.rcvd else None
                    answer = f"closed {code} {closed.rcvd.reason if closed.rcvd else ''}".strip()
                    ok = ok and code in (1000, 1003, 1007, 1008, 1009)
                except TimeoutError:
                    answer, ok = "no answer in 5 s", False
                seen.append(f"{label}: {answer}")
        room_ok = await syncs(host)
    tracebacks = run.tracebacks_since(start)
    log_kib = (run.log_size() - start) / 1024
    result.done = (f"{len(BAD_FRAMES)} frames, each on a new socket to a 3-seat room (a cookie-less spectator's, "
                   "or the host's seat)")
    result.observed = "; ".join(seen) + (f"; the room's host still syncs: {'yes' if room_ok else 'NO'}; "
                                        f"{tracebacks} tracebacks, {log_kib:.1f} KiB of server log")
    result.verdict = "PASS" if ok and room_ok and tracebacks == 0 else "FAIL"
    return result


async def queries(run: Run, result: Result) -> Result:
    start = run.log_size()
    club = await run.the_club()
    elder, night = club.elder, club.night_id
    anon = run.client()
    answers: list[tuple[str, int]] = []
    for label, year in (("year=²", "²"), ("year=5,000 digits", "9" * 5000), ("year=--1", "--1")):
        answers.append((label, (await anon.get("/club/hall-of-fame", params={"year": year})).status_code))
    csrf = csrf_of((await elder.get("/club/beer")).text)
    for label, form in (
        ("beer crates=²", {"member": "2", "reason": "late", "crates": "²", "night": ""}),
        ("beer member/night=²", {"member": "²", "reason": "late", "crates": "1", "night": "²"}),
        ("beer crates=5,000 digits", {"member": "2", "reason": "late", "crates": "9" * 5000, "night": ""}),
    ):
        answers.append((label, (await elder.post("/club/beer", data={"csrf": csrf, **form})).status_code))
    csrf = csrf_of((await elder.get(f"/club/nights/{night}")).text)
    base = {"csrf": csrf, "table": "vinder", "phase": "base", "first_out": "Ann", "second_out": "Bo", "winner": "Cy"}
    for label, form in (
        ("results round=²", {**base, "round": "²"}),
        ("results round=4,301 digits", {**base, "round": "9" * 4301}),
        ("results agurk=²", {**base, "round": "1", "agurk_0": "²"}),
    ):
        answers.append((label, (await elder.post(f"/club/nights/{night}/results", data=form)).status_code))
    answers.append(("night id ²", (await anon.get("/club/nights/²")).status_code))
    tracebacks = run.tracebacks_since(start)
    result.done = "GET the hall of fame anonymously, POST the beer and results forms as an elder (CSRF valid)"
    result.observed = ", ".join(f"{label} {status}" for label, status in answers) + f"; {tracebacks} tracebacks"
    ok = all(400 <= status < 500 for _, status in answers) and tracebacks == 0
    result.verdict = "PASS" if ok else "FAIL"
    return result


async def is_elder(client: httpx.AsyncClient) -> bool:
    page = (await client.get("/club/members")).text
    return 'action="/club/logout"' in page


async def log_in(client: httpx.AsyncClient, name: str, password: str) -> httpx.Response:
    csrf = csrf_of((await client.get("/club/login")).text)
    return await client.post("/club/login", data={"csrf": csrf, "name": name, "password": password})


def guess(url: str, seconds: float, name: str | None, addresses: list[str]) -> dict[int, int]:
    """Four guessers POST /club/login for `seconds` (in their own process, so their work is not the
    measuring client's): each from its own address guessing `name`, or with name None, every guess
    from a new address for a new name (a botnet the throttle cannot hold: each guess costs argon2)."""
    statuses: dict[int, int] = {}

    async def one(i: int) -> None:
        async with httpx.AsyncClient(base_url=url, timeout=20) as client:
            n, ends = 0, time.monotonic() + seconds
            while time.monotonic() < ends:
                n += 1
                address = addresses[i] if name else f"10.{100 + i}.{n // 250 % 250}.{n % 250 + 1}"
                client.headers["X-Forwarded-For"] = address
                answer = await log_in(client, name or f"Nobody{i}x{n}", f"guess-{i}-{n}")
                statuses[answer.status_code] = statuses.get(answer.status_code, 0) + 1

    async def four() -> None:
        await asyncio.gather(*(one(i) for i in range(4)))

    asyncio.run(four())
    return statuses


async def round_trips(ws: ClientConnection, seconds: float) -> list[float]:
    """A sync every 0.2 s (a player may send 100 messages per 20 s): ms until its table."""
    rtts: list[float] = []
    ends = time.monotonic() + seconds
    while time.monotonic() < ends:
        sent = time.perf_counter()
        await ws.send(json.dumps({"do": "sync"}))
        await frame_of_kind(ws, ("table",), 10)
        rtts.append((time.perf_counter() - sent) * 1000)
        await asyncio.sleep(0.2)
    return rtts


async def login(run: Run, result: Result, seconds: float = 8.0) -> Result:
    start = run.log_size()
    club = await run.the_club()
    room = await run.new_room(bots=2)
    loop = asyncio.get_running_loop()
    phases: list[str] = []
    worst = 0.0
    statuses_all: dict[int, int] = {}
    async with run.socket(room, cookie=room.cookie) as ws:
        await frame_of_kind(ws, ("table",))
        with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as pool:
            for label, name in (("4 guessers at Elsa", "Elsa"), ("4 guessers, new address and name each guess", None)):
                guessing = loop.run_in_executor(pool, guess, run.url, seconds, name, [run.address() for _ in range(4)])
                await asyncio.sleep(1.0)  # the process has started and the guessers are busy
                rtts = await round_trips(ws, seconds - 1.5)
                statuses = await guessing
                for status, n in statuses.items():
                    statuses_all[status] = statuses_all.get(status, 0) + n
                worst = max(worst, pct(rtts, 99))
                phases.append(f"{label}: {', '.join(f'{n}×{s}' for s, n in sorted(statuses.items()))}, "
                              f"round trip p50 {pct(rtts, 50):.1f} ms p99 {pct(rtts, 99):.1f} ms ({len(rtts)} syncs)")

    # a second elder, 200 wrong passwords from one address, then the right one
    elder = club.elder
    page = (await elder.get("/club/members")).text
    await elder.post("/club/members", data={"csrf": csrf_of(page), "name": "Olga"})
    page = (await elder.get("/club/members")).text
    olga = re.search(r'href="/club/players/Olga".*?action="/club/members/(\d+)"', page, re.DOTALL)
    made = olga and await elder.post(f"/club/members/{olga.group(1)}", data={
        "csrf": csrf_of(page), "action": "elder", "password": PASSWORD})
    if not made or made.status_code != 303:
        raise RuntimeError("could not make Olga an elder")
    guesser_client = run.client()
    wrong: dict[int, int] = {}
    for n in range(200):
        status = (await log_in(guesser_client, "Olga", f"wrong-{n}")).status_code
        wrong[status] = wrong.get(status, 0) + 1
    right = await log_in(guesser_client, "Olga", PASSWORD)
    waited = 0.0
    first_right = right.status_code
    told = alert_text(right.text) if right.status_code != 303 else ""
    wait_s = re.search(r"(\d+) s", told)
    if right.status_code == 429 and wait_s and int(wait_s.group(1)) <= 40:
        waited = int(wait_s.group(1)) + 0.5
        await asyncio.sleep(waited)
        right = await log_in(guesser_client, "Olga", PASSWORD)
    right_ok = right.status_code == 303

    # sessions: a second device's copy ends at a password change, the changer's at logout
    phone, laptop = run.client(), run.client()
    await log_in(phone, "Olga", PASSWORD)
    await log_in(laptop, "Olga", PASSWORD)
    both = await is_elder(phone) and await is_elder(laptop)
    page = (await laptop.get("/club/members")).text
    olga_id = olga.group(1)  # type: ignore[union-attr]
    await laptop.post(f"/club/members/{olga_id}", data={"csrf": csrf_of(page), "action": "password",
                                                        "password": PASSWORD + "-new"})
    phone_after_change = await is_elder(phone)
    laptop_after_change = await is_elder(laptop)
    stolen = laptop.cookies.get("gurka_club")
    await laptop.post("/club/logout", data={"csrf": csrf_of((await laptop.get("/club")).text)})
    thief = run.client()
    thief.cookies.set("gurka_club", stolen or "")
    copy_after_logout = await is_elder(thief)
    tracebacks = run.tracebacks_since(start)

    result.done = (f"4 anonymous guessers POST /club/login for {seconds:.0f} s (twice) while a websocket in another "
                   "room syncs every 0.2 s; 200 wrong passwords for a second elder, then the right one; "
                   "two devices, a password change, a logout")
    result.observed = (
        "; ".join(phases) + "; "
        f"200 wrong: {', '.join(f'{n}×{s}' for s, n in sorted(wrong.items()))}; right password: {first_right}"
        + (f" ('{short(told, 50)}'), after {waited:.0f} s {right.status_code}" if waited else "")
        + f"; both devices elders: {both}; other device after the password change: "
        f"{'still elder' if phone_after_change else 'ended'}, changer: {'kept' if laptop_after_change else 'lost'}; "
        f"copied cookie after logout: {'still elder' if copy_after_logout else 'ended'}; {tracebacks} tracebacks"
    )
    ok = (worst < 200 and right_ok and both and not phone_after_change and laptop_after_change
          and not copy_after_logout and tracebacks == 0 and 500 not in statuses_all)
    result.verdict = "PASS" if ok else "FAIL"
    return result


async def seats(run: Run, result: Result) -> Result:
    start = run.log_size()
    club = await run.the_club()
    url = f"/club/nights/{club.night_id}"
    answers: list[str] = []
    taken = 0
    for _ in range(5):
        stranger = run.client()
        page = (await stranger.get(url)).text
        plays = re.findall(rf'action="({re.escape(url)}/play/[^"]+)"', page)
        if not plays:
            answers.append("no Play form")
            continue
        response = await stranger.post(plays[0], data={"csrf": csrf_of(page)})
        taken += seat_cookie_set(response)
        answers.append(f"{response.status_code}")
    tracebacks = run.tracebacks_since(start)
    result.done = "5 strangers GET the public night page and POST its first Play form with the page's CSRF token"
    result.observed = (f"answers {', '.join(answers)}; seat cookies given: {taken} of 5; "
                       f"{tracebacks} tracebacks")
    result.verdict = "PASS" if taken == 0 and all(a.startswith("4") for a in answers) and tracebacks == 0 else "FAIL"
    return result


class SlowPlayer:
    """The honest client: holds a seat, reads one frame every 100 ms, plays what its latest table
    offers (starts the game, deals on)."""

    def __init__(self, ws: ClientConnection) -> None:
        self.ws = ws
        self.version = -1
        self.content = ""  # the table it shows (whole tables, and changes applied)
        self.dropped: str | None = None
        self.refused = 0
        self.task = asyncio.get_running_loop().create_task(self._play())

    async def _play(self) -> None:
        try:
            while True:
                frame = parse(await self.ws.recv())
                if frame.get("kind") == "notice" and frame.get("level") == "error":
                    self.refused += 1
                if frame.get("kind") == "table":
                    self.content = str(frame["content"])
                elif frame.get("kind") == "fragments" and self.content:
                    try:  # as the page does: the changes, or a sync when they start elsewhere
                        self.content = apply(self.content, frame)
                    except Stale:
                        await self.ws.send(json.dumps({"do": "sync"}))
                        continue
                else:
                    continue
                if int(frame["version"]) != self.version:
                    self.version = int(frame["version"])
                    await self._answer(self.content)
                await asyncio.sleep(0.1)
        except ConnectionClosed as closed:
            code = closed.rcvd.code if closed.rcvd else None
            self.dropped = f"closed {code} {closed.rcvd.reason if closed.rcvd else ''}".strip()

    async def _answer(self, content: str) -> None:
        actions, rematch = offered(content)
        asks = {str(json.loads(htmlmod.unescape(raw)).get("do")) for raw in HX_DO.findall(content)}
        if actions:
            message: dict[str, Any] = {"do": "act", "action": actions[0], "v": self.version, "aid": uuid.uuid4().hex}
        elif "start" in asks or "next_deal" in asks:
            message = {"do": "start" if "start" in asks else "next_deal", "v": self.version}
        elif rematch:
            message = {"do": "rematch", "v": self.version}
        else:
            return
        await self.ws.send(json.dumps(message))

    async def moves_in(self, seconds: float) -> int:
        first = self.version
        await asyncio.sleep(seconds)
        return self.version - first


async def churner(run: Run, room: Room, addresses: list[str], stop: asyncio.Event, counts: dict[str, int]) -> None:
    """Open spectator sockets (only the link), each from the next of `addresses`: see whether it
    is let in, and abort it (RST)."""
    port = int(urlsplit(run.url).port or 80)
    n = 0
    while not stop.is_set():
        n += 1
        request = (f"GET /r/{room.slug}/ws HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
                   "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13"
                   f"\r\nX-Forwarded-For: {addresses[n % len(addresses)]}\r\n\r\n").encode()
        counts["opened"] += 1
        writer = None
        try:
            reader, writer = await asyncio.wait_for(asyncio.open_connection("127.0.0.1", port), 5)
            writer.write(request)
            head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 5)
            if not head.startswith(b"HTTP/1.1 101"):
                counts["refused"] += 1
            else:
                first = await asyncio.wait_for(reader.readexactly(2), 5)
                counts["refused" if first[0] & 0x0F == 0x8 else "admitted"] += 1  # a close frame first: refused
        except (OSError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, TimeoutError):
            counts["errors"] += 1
        finally:
            if writer is not None:
                sock = writer.get_extra_info("socket")
                with contextlib.suppress(OSError):
                    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
                writer.transport.abort()


@dataclass
class ChurnPhase:
    label: str
    rate: float  # sockets opened per second
    counts: dict[str, int]
    moves: int
    seconds: float

    @property
    def refused_share(self) -> float:
        return self.counts["refused"] / max(1, self.counts["admitted"] + self.counts["refused"])

    def describe(self) -> str:
        c = self.counts
        return (f"{self.label}: {self.rate:.0f} sockets/s ({c['admitted']} let in, {c['refused']} refused "
                f"= {self.refused_share:.0%}, {c['errors']} errors), {self.moves} moves ({self.moves / self.seconds:.1f}/s)")


async def churn_phase(run: Run, room: Room, player: SlowPlayer, label: str, addresses: list[str],
                      seconds: float) -> ChurnPhase:
    stop = asyncio.Event()
    counts = {"opened": 0, "admitted": 0, "refused": 0, "errors": 0}
    began = time.monotonic()
    workers = [asyncio.create_task(churner(run, room, addresses, stop, counts)) for _ in range(8)]
    moves = await player.moves_in(seconds)
    stop.set()
    await asyncio.gather(*workers, return_exceptions=True)
    return ChurnPhase(label, counts["opened"] / (time.monotonic() - began), counts, moves, seconds)


async def churn(run: Run, result: Result, quiet: float = 5.0, seconds: float = 8.0) -> Result:
    start = run.log_size()
    room = await run.new_room(bots=2)
    async with run.socket(room, cookie=room.cookie) as ws:
        player = SlowPlayer(ws)
        deadline = time.monotonic() + 10
        while player.version < 2 and time.monotonic() < deadline:  # the game has started
            await asyncio.sleep(0.05)
        quiet_moves = await player.moves_in(quiet)
        one = await churn_phase(run, room, player, "one address", [run.address()], seconds)
        many = await churn_phase(run, room, player, "200 addresses", [run.address() for _ in range(200)], seconds)
        dropped = player.dropped
        still = await syncs(ws) if dropped is None else False
        player.task.cancel()
    quiet_rate = quiet_moves / quiet
    tracebacks = run.tracebacks_since(start)
    result.done = (f"a seated player reading one frame per 100 ms plays 2 bots: {quiet:.0f} s quiet, then {seconds:.0f} s "
                   "while 8 workers open and abort spectator sockets from one address, then from 200 addresses")
    honest = f"dropped: {dropped}" if dropped else "kept, still syncs" if still else "kept, but no sync answer"
    result.observed = (f"quiet: {quiet_moves} moves ({quiet_rate:.1f}/s); {one.describe()}; {many.describe()}; "
                       f"honest player {honest}; {tracebacks} tracebacks")
    ok = (dropped is None and still and quiet_moves > 0 and tracebacks == 0
          and all(p.moves / p.seconds >= 0.5 * quiet_rate for p in (one, many))
          and one.rate >= 100 and one.refused_share >= 0.9)
    result.verdict = "PASS" if ok else "FAIL"
    return result


async def headers(run: Run, result: Result) -> Result:
    start = run.log_size()
    port = urlsplit(run.url).port
    room = await run.new_room(bots=0)
    evil = {"Origin": "https://evil.example"}
    made = await run.client(headers=evil).post("/rooms", data={"name": "Eve", "preset": "gurka-night", "seats": "3",
                                                               "bots": "0", "turn_seconds": "0"})
    joined = await run.client(headers=evil).post(f"/r/{room.slug}/join", data={"name": "Eve"})
    posts = [("POST /rooms", made), ("POST /r/…/join", joined)]
    post_ok = all(400 <= r.status_code < 500 and not seat_cookie_set(r) for _, r in posts)
    origins = {f"https://127.0.0.1:{port}": False, f"http://127.0.0.1:{(port or 0) + 1}": False,
               "https://evil.example": False, f"http://127.0.0.1:{port}": True}
    ws_seen: list[str] = []
    ws_ok = True
    for origin, allowed in origins.items():
        try:
            async with run.socket(room, origin=origin) as ws:
                await frame_of_kind(ws, ("table",))
                outcome = "accepted"
        except InvalidStatus as refused:
            outcome = f"refused {refused.response.status_code}"
        except ConnectionClosed as closed:
            outcome = f"closed {closed.rcvd.code if closed.rcvd else None}"
        ws_ok = ws_ok and ((outcome == "accepted") == allowed)
        ws_seen.append(f"{origin} {outcome}")
    heads: list[str] = []
    head_ok = True
    for path in ("/", f"/r/{room.slug}", "/club"):
        got = (await run.client().get(path)).headers
        csp = got.get("content-security-policy", "")
        script = next((part for part in csp.split(";") if part.strip().startswith("script-src")), "")
        good = ("frame-ancestors 'none'" in csp and "unsafe-inline" not in script and bool(script)
                and got.get("x-frame-options", "").upper() == "DENY" and bool(got.get("referrer-policy")))
        head_ok = head_ok and good
        heads.append(f"{path}: {'CSP+XFO+Referrer-Policy' if good else 'MISSING ' + repr(csp[:40])}")
    tracebacks = run.tracebacks_since(start)
    result.done = "POSTs with Origin https://evil.example; websockets with other scheme, port, site; page headers"
    result.observed = (", ".join(f"{label} {r.status_code}{' +seat cookie' if seat_cookie_set(r) else ''}"
                                 for label, r in posts)
                       + "; ws " + ", ".join(ws_seen) + "; " + ", ".join(heads) + f"; {tracebacks} tracebacks")
    result.verdict = "PASS" if post_ok and ws_ok and head_ok and tracebacks == 0 else "FAIL"
    return result


# ---------------------------------------------------------------------------- issue 24: throttles that hold


def the_app() -> None:
    """The app's own modules importable here (a finding computes what an attacker could compute)."""
    if str(ROOT) not in sys.path:
        sys.path.insert(1, str(ROOT))


async def reset_trick(run: Run, result: Result, seconds: float = 20.0) -> Result:
    the_app()
    from app.rooms.tokens import CODE_ALPHABET, CODE_LENGTH, rejoin_code
    from app.web.table.rejoin import TRIES_FREE

    start = run.log_size()
    room = await run.new_room(bots=0, seats=3)
    mallory, victim = run.client(), run.client()
    joined = await mallory.post(f"/r/{room.slug}/join", data={"name": "Mallory"})
    await victim.post(f"/r/{room.slug}/join", data={"name": "Vic"})
    token = mallory.cookies.get(f"gurka_seat_{room.slug}") or ""
    if joined.status_code != 303 or not token:
        raise RuntimeError(f"Mallory could not sit down: {joined.status_code}")
    counts = {"wrong": 0, "own": 0, "refused": 0}
    through, n, ends = 0, 0, time.monotonic() + seconds
    while time.monotonic() < ends:
        n += 1
        own = through % 5 == 4  # every fifth try that gets through: its own seat's (computable) code
        code = rejoin_code(token) if own else "".join(CODE_ALPHABET[(n * 7 + i) % len(CODE_ALPHABET)]
                                                      for i in range(CODE_LENGTH))
        mallory.cookies.clear()  # as a device without the seat: a real move each time
        answer = await mallory.post(f"/r/{room.slug}/rejoin", data={"code": code})
        if answer.status_code == 303:
            counts["own"] += 1
            token = mallory.cookies.get(f"gurka_seat_{room.slug}") or token
        elif answer.status_code == 400:
            counts["wrong"] += 1
        elif answer.status_code == 429:
            counts["refused"] += 1
        through += answer.status_code != 429
    waits, slots = 2.0, 0  # free tries at once, then one after 2, 4, 8, ... s of waiting
    while waits <= seconds:
        slots, waits = slots + 1, waits + 2.0 * 2 ** (slots + 1)
    allowed = TRIES_FREE + slots
    tracebacks = run.tracebacks_since(start)
    result.done = (f"a seated player tries rejoin codes of the other seats for {seconds:.0f} s from one address, "
                   f"typing its own seat's code (from its own token) every fifth try that got through ({n} tries)")
    result.observed = (f"{counts['wrong']} wrong codes evaluated (the throttle allows {allowed} in {seconds:.0f} s "
                       f"without the trick; the issue saw 1,782 in 20 s), {counts['own']} moves of its own seat, "
                       f"{counts['refused']} tries refused with 429; {tracebacks} tracebacks")
    result.verdict = "PASS" if counts["wrong"] <= allowed and counts["refused"] > 0 and tracebacks == 0 else "FAIL"
    return result


async def room_flood(run: Run, result: Result, seconds: float = 8.0) -> Result:
    the_app()
    import room_flood as bench  # bench/room_flood.py: the measured room, the flood

    from app.settings import Settings

    start = run.log_size()
    per_address = Settings.model_fields["new_rooms_per_address"].default
    slug, cookie = await bench.measured_room(run.url)
    loop = asyncio.get_running_loop()
    async with bench.open_player(run.url, slug, cookie) as ws:
        player = bench.Player(ws)
        await player.next_table()
        await ws.send(json.dumps({"do": "start", "v": player.version}))
        await player.next_table()
        pace = 0.21  # a person's message budget: 100 per 20 s
        quiet = await player.play(seconds, pace)
        with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as pool:
            await loop.run_in_executor(pool, int, "0")  # the process is up before the clock starts
            flooding = loop.run_in_executor(pool, bench.flood, run.url, seconds, 8, 1)
            during = await player.play(seconds, pace)
            statuses = await flooding
    again = await run.client(headers={"X-Forwarded-For": "10.66.0.1"}).post(
        "/rooms", data={"name": "Flood", **bench.FLOOD_FORM})
    said = alert_text(again.text)
    made, refused = statuses.get(303, 0), statuses.get(429, 0)
    tracebacks = run.tracebacks_since(start)
    result.done = (f"8 clients of one visitor POST /rooms (7 seats, 6 bots) as fast as answered for {seconds:.0f} s, "
                   f"while the host of another room plays a move every {pace} s; {seconds:.0f} s of moves before")
    result.observed = (f"rooms made {made} (the limit is {per_address} per 10 minutes; the issue saw 1,482 a minute), "
                       f"refused {refused}, other answers {sum(statuses.values()) - made - refused}; the next one: "
                       f"{again.status_code} '{short(said, 70)}' Retry-After {again.headers.get('retry-after')}; "
                       f"the other room's moves quiet p50 {pct(quiet, 50):.1f} p99 {pct(quiet, 99):.1f} ms "
                       f"({len(quiet)}), flooded p50 {pct(during, 50):.1f} p99 {pct(during, 99):.1f} ms ({len(during)}; "
                       f"the issue saw 5.9 -> 65.5 ms); {tracebacks} tracebacks")
    ok = (made <= per_address and refused > 0 and again.status_code == 429 and "try again" in said
          and len(during) > 0 and tracebacks == 0)
    result.verdict = "PASS" if ok else "FAIL"
    return result


def stalled_socket(url: str, path: str, address: str) -> socket.socket:
    """A websocket that completes its handshake and then reads nothing (a phone in a tunnel): a
    small receive buffer, so the server feels it soon."""
    import base64

    parts = urlsplit(url)
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.settimeout(10)
    sock.connect((parts.hostname or "127.0.0.1", parts.port or 80))
    key = base64.b64encode(os.urandom(16)).decode()
    sock.sendall((f"GET {path} HTTP/1.1\r\nHost: {parts.netloc}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                  f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\nOrigin: {url}\r\n"
                  f"X-Forwarded-For: {address}\r\n\r\n").encode())
    head = b""
    while b"\r\n\r\n" not in head:
        chunk = sock.recv(1)  # byte by byte: every frame after the headers stays unread
        if not chunk:
            raise ConnectionError("closed during the handshake")
        head += chunk
    if not head.startswith(b"HTTP/1.1 101"):
        raise ConnectionError(head.split(b"\r\n", 1)[0].decode(errors="replace"))
    return sock


def close_frame(sock: socket.socket) -> tuple[int, str] | None:
    """Read to the end: the close frame's code and reason after the frames left unread (None: the
    connection ended without one)."""
    buf = b""
    while True:
        while len(buf) >= 2:
            opcode, size, at = buf[0] & 0x0F, buf[1] & 0x7F, 2
            if size >= 126:
                width = 2 if size == 126 else 8
                if len(buf) < 2 + width:
                    break
                size, at = int.from_bytes(buf[2:2 + width], "big"), 2 + width
            if len(buf) < at + size:
                break
            payload, buf = buf[at:at + size], buf[at + size:]
            if opcode == 0x8:
                return int.from_bytes(payload[:2], "big"), payload[2:].decode(errors="replace")
        chunk = sock.recv(1 << 16)
        if not chunk:
            return None
        buf += chunk


async def close_code(run: Run, result: Result, limit: float = 60.0) -> Result:
    the_app()
    import room_flood as bench

    start = run.log_size()
    room = await run.new_room(bots=2)
    stuck = await asyncio.to_thread(stalled_socket, run.url, f"/r/{room.slug}/ws", run.address())
    dropped = False
    moves = 0
    try:
        async with run.socket(room, cookie=room.cookie) as ws:
            player = bench.Player(ws)
            await player.next_table()
            await ws.send(json.dumps({"do": "start", "v": player.version}))
            await player.next_table()
            ends = time.monotonic() + limit
            while time.monotonic() < ends and not dropped:
                moves += len(await player.play(0.5, 0.21))
                with run.server.log.open("rb") as log:
                    log.seek(start)
                    dropped = b"dropping slow connection" in log.read()
        closed = await asyncio.to_thread(close_frame, stuck) if dropped else None  # it reads again, at once
    finally:
        stuck.close()
    tracebacks = run.tracebacks_since(start)
    result.done = (f"a spectator's socket stops reading while the host plays ({moves} moves); once the server "
                   "says it dropped the reader, the socket reads again to its end")
    said = f"close {closed[0]} '{closed[1]}'" if closed else "no close frame"
    result.observed = (f"dropped: {'yes' if dropped else 'NO'}; {said} (the issue saw 1000 and no reason, which "
                       f"a page does not reconnect on); {tracebacks} tracebacks")
    ok = dropped and closed is not None and closed[0] == 1013 and bool(closed[1]) and tracebacks == 0
    result.verdict = "PASS" if ok else "FAIL"
    return result


HUGE = [str(2**64), str(2**31), "9" * 30]


async def huge_ids(run: Run, result: Result) -> Result:
    start = run.log_size()
    club = await run.the_club()
    elder, night = club.elder, club.night_id
    page = (await elder.get(f"/club/nights/{night}")).text
    result_id = re.search(rf"/club/nights/{night}/results/(\d+)/correct", page)
    csrf = csrf_of((await elder.get("/club/members")).text)
    answers: list[tuple[str, int]] = []
    for huge in HUGE:
        for path in (f"/club/nights/{huge}", f"/club/nights/{huge}/live", f"/club/nights/{huge}/fresh",
                     f"/club/nights/{night}/results/{huge}/correct",
                     f"/club/nights/{huge}/results/{result_id.group(1) if result_id else 1}/correct"):
            answers.append((f"GET {path}", (await run.client().get(path)).status_code))
        for path in (f"/club/members/{huge}", f"/club/members/{huge}/link", f"/club/beer/{huge}/settle",
                     f"/club/beer/{huge}/waive", f"/club/nights/{huge}/results", f"/club/nights/{huge}/delete"):
            answers.append((f"POST {path}", (await elder.post(path, data={"csrf": csrf})).status_code))
    tracebacks = run.tracebacks_since(start)
    codes: dict[int, int] = {}
    for _, status in answers:
        codes[status] = codes.get(status, 0) + 1
    result.done = (f"{len(answers)} requests: GET night, live, fresh and correction pages and POST member, link, "
                   f"beer and night forms (as an elder, CSRF valid) with ids {', '.join(h[:12] + '…' if len(h) > 12 else h for h in HUGE)}")
    result.observed = (", ".join(f"{n}×{s}" for s, n in sorted(codes.items()))
                       + f" (the issue saw 500 with a traceback); {tracebacks} tracebacks")
    result.verdict = "PASS" if set(codes) == {404} and tracebacks == 0 else "FAIL"
    return result


LOOK_ALIKES = [
    ("Anna", "Ａｎｎａ", "fullwidth"),
    ("Anna", "\u0410nna", "Cyrillic А"),
    ("Anna", "Ann\u1d43", "superscript a"),
    ("Bo", "Bo\u200b", "zero-width space"),
    ("José", "Jose\u0301", "decomposed é"),
]


async def names(run: Run, result: Result) -> Result:
    start = run.log_size()
    room = await run.new_room(bots=0, seats=7, name="Anna")
    for first in ("Bo", "José"):
        joined = await run.client().post(f"/r/{room.slug}/join", data={"name": first})
        if not seat_cookie_set(joined):
            raise RuntimeError(f"{first} could not join: {alert_text(joined.text)}")
    seen: list[str] = []
    ok = True
    for original, alike, label in LOOK_ALIKES:
        response = await run.client().post(f"/r/{room.slug}/join", data={"name": alike})
        refused = not seat_cookie_set(response) and 400 <= response.status_code < 500
        ok = ok and refused and bool(alert_text(response.text))
        seen.append(f"table {label}: {response.status_code} '{short(alert_text(response.text), 60)}'")
    club = await run.the_club()
    elder = club.elder
    for original, alike, label in [("Bo", "Bo\u200b", "zero-width space"), ("José", "Jose\u0301", "decomposed é"),
                                   ("Ann", "Ａｎｎ", "fullwidth")]:
        if original == "José":
            page = (await elder.get("/club/members")).text
            await elder.post("/club/members", data={"csrf": csrf_of(page), "name": original})
        page = (await elder.get("/club/members")).text
        response = await elder.post("/club/members", data={"csrf": csrf_of(page), "name": alike})
        refused = 400 <= response.status_code < 500
        ok = ok and refused and bool(alert_text(response.text))
        seen.append(f"member {label}: {response.status_code} '{short(alert_text(response.text), 50)}'")
    tracebacks = run.tracebacks_since(start)
    result.done = "join a table of Anna, Bo and José with each look-alike; add look-alike club members"
    result.observed = "; ".join(seen) + f"; {tracebacks} tracebacks"
    result.verdict = "PASS" if ok and tracebacks == 0 else "FAIL"
    return result


async def spectators(run: Run, result: Result) -> Result:
    try:
        import idle_spectators  # bench/idle_spectators.py (branch rest)
    except ImportError:
        result.done = "needs bench/idle_spectators.py (on branch rest), which measures it"
        result.observed = "not run on this branch"
        return result
    args = argparse.Namespace(spectators=300, pushes=30, rounds=3, json=True)
    figures = await idle_spectators.run(args)  # its own server (SQLite): the caps lifted so all 300 get in
    mb = {k: figures[k] / 1024 for k in ("rss_before_kb", "rss_with_kb", "rss_peak_kb", "rss_after_kb")}
    rounds = [kb / 1024 for kb in figures["rss_after_each_round_kb"]]
    one_round = max(mb["rss_peak_kb"], figures["rss_after_pushes_kb"] / 1024) - mb["rss_before_kb"]
    grown = rounds[-1] - rounds[0]
    result.done = ("bench/idle_spectators.py on its own SQLite server: 300 raw sockets that never read join one "
                   "room (caps lifted), 30 pushes, then they go; 3 rounds")
    result.observed = (f"RSS before {mb['rss_before_kb']:.1f} MB, with them {mb['rss_with_kb']:.1f} MB, peak "
                       f"{mb['rss_peak_kb']:.1f} MB, after {mb['rss_after_kb']:.1f} MB "
                       f"({figures['returned_share']:.0%} returned); after each round "
                       f"{', '.join(f'{r:.1f}' for r in rounds)} MB (grew {grown:+.1f} MB over the rounds "
                       f"against {one_round:.1f} MB a round uses); {figures['kb_per_connection_peak']:.0f} KB per "
                       f"connection at the peak; honest reader got {figures['honest_tables_during_pushes']} tables "
                       f"in {figures['pushes']} pushes")
    # Held memory would add a round's worth each round; reused memory stays put. And some of it
    # must go back to the system when they go (the issue: "a room's memory returned").
    ok = (figures["kb_per_connection_peak"] < 100 and grown < 0.5 * one_round
          and figures["returned_share"] >= 0.2 and figures["honest_tables_during_pushes"] >= figures["pushes"])
    result.verdict = "PASS" if ok else "FAIL"
    return result


# ---------------------------------------------------------------------------- issue 24's findings


OLD_DEFAULTS = ["change-me-in-production", "secret", "test-secret", "e2e"]  # keys once in use here


async def refused_start(key: str | None) -> tuple[int | None, str]:
    """`gurka serve` started with this SECRET_KEY (None: unset), outside development: its exit
    code (None: it kept running and was stopped) and the first line it printed."""
    env = {k: v for k, v in os.environ.items() if k not in ("SECRET_KEY", "ENVIRONMENT")}
    if key is not None:
        env["SECRET_KEY"] = key
    with tempfile.TemporaryDirectory(prefix="findings-secret-") as tmp:
        env["DATABASE_URL"] = f"sqlite:///{tmp}/never.db"
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "app.main", "serve", "--port", str(free_port()), cwd=tmp, env=env,
            stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE)
        try:
            _, err = await asyncio.wait_for(proc.communicate(), 30)
        except TimeoutError:
            proc.kill()
            await proc.wait()
            return None, "it started"
    return proc.returncode, err.decode(errors="replace").strip().splitlines()[0] if err else ""


async def forged_cookie(run: Run, result: Result) -> Result:
    start = run.log_size()
    club = await run.the_club()
    page = (await club.elder.get("/club/members")).text
    elsa = re.search(r'href="/club/players/Elsa".*?action="/club/members/(\d+)"', page, re.DOTALL)
    if not elsa:
        raise RuntimeError("no member form for the elder Elsa")
    seen: list[str] = []
    forged_in = 0
    for key in OLD_DEFAULTS:
        forger = run.client()
        forger.cookies.set("gurka_club", sign_cookie(key, {"m": int(elsa.group(1)), "g": 0, "c": "x",
                                                            "t": int(time.time())}))
        answer = await forger.get("/club/nights/new")  # an elder's page
        elder_page = answer.status_code == 200
        forged_in += elder_page
        seen.append(f"'{key}' {'OPENED an elder page' if elder_page else answer.status_code}")
    genuine = await is_elder(club.elder)
    starts = [(key, *await refused_start(key)) for key in (None, "too-short", "change-me-in-production")]
    refusals = [f"{'unset' if key is None else repr(key)}: exit {code}" for key, code, _ in starts]
    ok_starts = all(code == 2 and "SECRET_KEY" in said for _, code, said in starts)
    tracebacks = run.tracebacks_since(start)
    result.done = (f"GET /club/nights/new with the elder's cookie signed by {len(OLD_DEFAULTS)} keys once used "
                   "as defaults; `gurka serve` started with SECRET_KEY unset, short and the old compose default")
    result.observed = (", ".join(seen) + f"; the elder's own cookie: {'elder' if genuine else 'NOT elder'}; "
                       f"starts refused: {', '.join(refusals)} ('{short(starts[0][2], 60)}'); {tracebacks} tracebacks")
    result.verdict = "PASS" if forged_in == 0 and genuine and ok_starts and tracebacks == 0 else "FAIL"
    return result


def sign_cookie(secret: str, data: dict[str, Any]) -> str:
    """A session cookie in the format app/web/club/auth.py documents, signed with `secret`: made
    here as an attacker would make it, from the format alone."""

    def b64(raw: bytes) -> str:
        return base64.urlsafe_b64encode(raw).rstrip(b"=").decode("ascii")

    payload = b64(json.dumps(data, separators=(",", ":"), sort_keys=True).encode())
    return f"{payload}.{b64(hmac.new(secret.encode(), payload.encode('ascii'), hashlib.sha256).digest())}"


async def spoofed_xff(run: Run, result: Result, tries: int = 30) -> Result:
    start = run.log_size()
    await run.the_club()
    # what nginx forwards when it appends ($proxy_add_x_forwarded_for): the client's own claim,
    # a new one each time, then the address nginx saw (always the same client)
    seen_by_proxy = run.address()
    guesser = run.client()
    statuses: dict[int, int] = {}
    for n in range(tries):
        guesser.headers["X-Forwarded-For"] = f"203.0.113.{n % 250 + 1}, {seen_by_proxy}"
        answer = await log_in(guesser, f"Nobody-xff-{n}", f"guess-{n}")
        statuses[answer.status_code] = statuses.get(answer.status_code, 0) + 1
    room = await run.new_room(bots=2)
    sockets_seen: dict[str, int] = {}
    async with contextlib.AsyncExitStack() as held:
        for n in range(tries):
            headers = {"X-Forwarded-For": f"198.51.100.{n % 250 + 1}, {seen_by_proxy}"}
            ws = await held.enter_async_context(connect(
                f"{run.ws_url}/r/{room.slug}/ws", additional_headers=headers, compression=None, max_size=None,
                ping_interval=None, open_timeout=10, close_timeout=2))
            try:
                outcome = (await frame_of_kind(ws, ("table",)))["kind"]
            except ConnectionClosed as closed:
                outcome = f"closed {closed.rcvd.code if closed.rcvd else None}"
            sockets_seen[outcome] = sockets_seen.get(outcome, 0) + 1
    tracebacks = run.tracebacks_since(start)
    result.done = (f"{tries} wrong elder logins (a new name each) and {tries} websockets to one room, each with a "
                   "new spoofed X-Forwarded-For entry before the address the proxy appended")
    result.observed = (f"logins: {', '.join(f'{n}×{s}' for s, n in sorted(statuses.items()))}; websockets: "
                       + ", ".join(f"{n}× {k}" for k, n in sorted(sockets_seen.items())) + f"; {tracebacks} tracebacks")
    # five checked, then 2, 4, 8 s waits: far fewer than ten of 30 even on a slow machine
    ok = (statuses.get(429, 0) > 0 and statuses.get(401, 0) < 10 and sockets_seen.get("table", 0) <= 20
          and sockets_seen.get("closed 1008", 0) >= tries - 20 and tracebacks == 0)
    result.verdict = "PASS" if ok else "FAIL"
    return result


def covered(key: str, title: str, test: str, branch: str) -> Finding:
    async def note(run: Run, result: Result) -> Result:
        where = "on this branch" if (ROOT / test).exists() else f"not on this branch yet: branch {branch}"
        result.done, result.observed, result.verdict = "not rerun here", f"covered by {test} ({where})", "NOTE"
        return result
    return Finding(key, title, note)


FINDINGS = [
    Finding("frames", "frames that raised (v --1, ², 4,301 digits, 2,000 nested [)",
            frames),
    Finding("queries", "queries and forms that answered 500 (year ², 5,000-digit year, beer and results forms ²)",
            queries),
    Finding("login", "elder login froze every room; guesses unlimited; sessions outlived logout",
            login),
    Finding("seats", "anyone could take any club seat (anonymous Play on the night page)",
            seats),
    Finding("churn", "connection churn starved honest players (228 sockets/s; 13 moves in 15 s, not 654)",
            churn),
    Finding("headers", "cross-site POSTs, websocket Origin ignoring scheme/port, missing CSP and frame headers",
            headers),
    Finding("reset-trick", "issue 24: typing one's own rejoin code every fifth try reset the throttle "
            "(1,782 wrong codes in 20 s, 8 without)", reset_trick),
    Finding("room-flood", "issue 24: room creation unthrottled (1,482 rooms a minute from one visitor; "
            "another room's move p99 5.9 -> 65.5 ms)", room_flood),
    Finding("close-code", "issue 24: a slow reader was closed with 1000 and no reason, not 1013", close_code),
    Finding("huge-ids", "issue 24: ids past the database's range (/club/nights/18446744073709551616) "
            "answered 500 with a traceback", huge_ids),
    Finding("names", "look-alike names beside Anna, Bo, José (at a table and as club members)",
            names),
    Finding("spectators", "300 never-reading spectators held 36 MB that was not freed",
            spectators),
    Finding("forged-cookie", "issue 24: compose's default SECRET_KEY let anyone sign an elder's session",
            forged_cookie),
    Finding("spoofed-xff", "issue 24: behind nginx any X-Forwarded-For was believed (30 logins, never 429; "
            "30 sockets past the cap of 20)", spoofed_xff),
    covered("outage", "a Postgres outage during a move destroyed the room",
            "tests/resilience/test_db_outage.py", "commit"),
    covered("sqlite-lock", "SQLite locks blocked the event loop",
            "tests/resilience/test_sqlite_lock.py", "commit"),
    covered("two-processes", "two processes: reloads not a consistent snapshot",
            "tests/resilience/test_two_processes.py", "commit"),
    covered("date-poll", "issue 24: a visitor with no link answered the date poll as another member",
            "tests/web/club/test_date_answers.py", "club"),
    covered("absent-bots", "issue 24: bots for the absent lasted one round (66 presses a night)",
            "tests/web/club/test_absent_bots.py", "club"),
    covered("elder-words", "issue 24: 'at vinder', 'finalevinderbord', '(RULES.md §7.6)' shown to elders",
            "tests/web/club/test_wording.py", "club"),
]


async def rerun(server: Server, chosen: list[Finding]) -> list[Result]:
    run = Run(server)
    results: list[Result] = []
    try:
        for finding in chosen:
            result = Result(finding.key, finding.title)
            try:
                await asyncio.wait_for(finding.run(run, result), 120)
            except Exception as exc:  # noqa: BLE001 -- a finding that could not be run is a FAIL, with why
                result.done = result.done or "could not run"
                result.observed = f"{type(exc).__name__}: {short(str(exc), 200)}"
                result.verdict = "FAIL"
            results.append(result)
    finally:
        await run.close()
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database-url", help="a Postgres server (postgresql+psycopg://…/db): a fresh database "
                        "is created on it for the run and dropped after; default: SQLite in a temporary directory")
    parser.add_argument("--only", help=f"comma-separated findings: {','.join(f.key for f in FINDINGS)}")
    parser.add_argument("--json", action="store_true", help="print the results as a JSON list")
    parser.add_argument("--log", type=Path, help="keep the server's log (stdout and stderr) in this file")
    args = parser.parse_args()
    chosen = FINDINGS
    if args.only:
        wanted = [k.strip() for k in args.only.split(",") if k.strip()]
        unknown = sorted(set(wanted) - {f.key for f in FINDINGS})
        if unknown:
            raise SystemExit(f"unknown findings {unknown}; choose from {[f.key for f in FINDINGS]}")
        chosen = [f for f in FINDINGS if f.key in wanted]
    if args.database_url and not args.database_url.startswith("postgresql"):
        raise SystemExit("--database-url takes a postgresql+psycopg://… URL (SQLite is the default)")
    host = urlsplit(args.database_url).hostname if args.database_url else "127.0.0.1"
    if host not in ("127.0.0.1", "localhost", "::1"):
        raise SystemExit("this script creates and drops a database: loopback Postgres servers only")
    raise_fd_limit(4096)
    began = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="findings-rerun-") as tmp:
        database = Database(Path(tmp), args.database_url)
        try:
            server = start_app(Path(tmp), database.url)
            try:
                results = asyncio.run(rerun(server, chosen))
            finally:
                server.stop()
                log = server.log.read_text(errors="replace")
                if args.log:
                    args.log.write_text(log)
        finally:
            database.drop()
    tracebacks = log.count("Traceback")
    if args.json:
        print(json.dumps([asdict(r) for r in results], ensure_ascii=False, indent=2))
    else:
        print(f"Issue 10 rerun on {database.name}, {time.monotonic() - began:.0f} s")
        for r in results:
            print(r.line())
        failed = [r.key for r in results if r.verdict == "FAIL"]
        print(f"{len(results) - len(failed)} of {len(results)} not failing; FAIL: {', '.join(failed) or 'none'}; "
              f"{tracebacks} tracebacks in the whole server log")
        if tracebacks:
            first = log.index("Traceback")
            print(log[max(0, first - 200):first + 1500], file=sys.stderr)
    sys.exit(1 if any(r.verdict == "FAIL" for r in results) else 0)


if __name__ == "__main__":
    main()
