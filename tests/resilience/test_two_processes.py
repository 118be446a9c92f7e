"""Two real app processes on one Postgres database serve the same room.

Seats connected to different processes see each other's moves live (LISTEN/NOTIFY doorbell,
then the events are read from the database); a process killed with `kill -9` loses nothing:
its players move to the other process and carry on; two moves on the same version from two
processes: exactly one wins, the other player gets a clear message and the fresh table.
"""

from __future__ import annotations

import asyncio
import random
import re

import httpx
import psycopg
import pytest

from app.rooms.pg_notify import libpq_dsn
from app.store.db import upgrade
from app.web.shared.security import seat_cookie_name
from tests.resilience.conftest import (
    DATA_CODE,
    SeatClient,
    all_at,
    autoplay,
    create_room,
    fingerprint,
    join_room,
    play_step,
    play_to_end,
    settle,
    start_game,
)
from tests.support.waiting import await_until

pytestmark = pytest.mark.postgres

PAGE_VERSION = re.compile(r'<section id="table"[^>]*data-version="(\d+)"')


@pytest.fixture
def two_servers(postgres_url, start_server):
    upgrade(postgres_url)  # the schema first, so the two processes start side by side
    a = start_server(postgres_url, wait=False)
    b = start_server(postgres_url, wait=False)
    a.wait_ready()
    b.wait_ready()
    return a, b


def cut_listeners(url: str) -> int:
    """Terminate every doorbell (LISTEN) connection on the database; returns how many."""
    with psycopg.connect(libpq_dsn(url), autocommit=True) as conn:
        rows = conn.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
            "WHERE application_name = 'gurka-listener' AND datname = current_database()"
        ).fetchall()
    return len(rows)


async def seat_across(a, b) -> list[SeatClient]:
    """A room created on A; Bo joins through B (which has never seen it), Cai through A."""
    slug, t0 = await create_room(a.url, name="Anna", seats=3, target=5)
    t1 = await join_room(b.url, slug, "Bo")
    t2 = await join_room(a.url, slug, "Cai")
    return [
        SeatClient(a.url, slug, t0, "Anna@A"),
        SeatClient(b.url, slug, t1, "Bo@B"),
        SeatClient(b.url, slug, t2, "Cai@B"),
    ]


async def test_players_on_two_processes_see_each_others_moves_live(two_servers) -> None:
    a, b = two_servers
    clients = await seat_across(a, b)
    for c in clients:
        await c.connect()
    await start_game(clients)  # the host's start on A reaches Bo and Cai on B
    rng = random.Random(2)
    for _ in range(3):
        await play_step(clients, rng)
    # Postgres drops both processes' LISTEN connections: they reconnect, resync every room
    # they serve, and play goes on as if nothing happened.
    cut = await asyncio.to_thread(cut_listeners, a.database_url)
    assert cut == 2
    steps = await play_to_end(clients, rng)
    assert steps > 5
    for server in (a, b):
        await await_until(
            lambda server=server: server.log_text().count("listening on 'room'") >= 2,
            what="the server's log line \"listening on 'room'\" twice",
            seen=server.log_tail,
        )
    fps = [c.fingerprint() for c in clients]
    assert len({fp["version"] for fp in fps}) == 1
    assert len({tuple(fp["scores"]) for fp in fps}) == 1
    assert all(fp["over"] for fp in fps)
    for c in clients:
        await c.close()


async def test_kill_9_one_of_two_processes_loses_nothing(two_servers) -> None:
    a, b = two_servers
    clients = await seat_across(a, b)
    for c in clients:
        await c.connect()
    await start_game(clients)
    rng = random.Random(4)
    for _ in range(4):
        await play_step(clients, rng)
    version = max(c.version for c in clients)
    await all_at(clients, version)
    await settle(clients)
    before = [c.fingerprint() for c in clients]

    a.kill()
    assert await clients[0].wait_closed() == 1006
    await clients[0].connect(b.url)  # Anna's page reconnects, now to B
    await clients[0].send(do="sync", v=version)
    await all_at(clients, version)
    await settle(clients)
    assert [c.fingerprint() for c in clients] == before
    for _ in range(3):  # the game goes on with everybody on B
        await play_step(clients, rng)

    a.start()  # A comes back on the same database; Cai moves over to it
    await clients[2].close()
    await clients[2].connect(a.url)
    await all_at(clients, max(c.version for c in clients))
    await play_to_end(clients, rng)
    for c in clients:
        await c.close()


async def test_two_moves_on_one_version_from_two_processes_exactly_one_wins(two_servers) -> None:
    a, b = two_servers
    clients = await seat_across(a, b)
    for c in clients:
        await c.connect()
    await start_game(clients)
    rng = random.Random(9)
    for _ in range(2):
        await play_step(clients, rng)
    version = max(c.version for c in clients)
    await all_at(clients, version)
    await settle(clients)  # (the seat's own move comes right after the table's change)
    mover = next(c for c in clients if c.offered_actions())
    options = mover.offered_actions()
    # The same seat, a second device on the other process: both move at once on one version.
    other_url = b.url if mover.base_url == a.url else a.url
    twin = SeatClient(other_url, mover.slug, mover.token, mover.name + "-twin")
    await twin.connect()
    await twin.wait_for(lambda c: c.version >= version, what="its first table")
    first, second = options[0], options[-1]
    aids = await asyncio.gather(mover.act(first, v=version), twin.act(second, v=version))
    await all_at([*clients, twin], version + 1)
    # Exactly one move was applied: every seat, on both processes, agrees on one table ...
    top = max(c.version for c in [*clients, twin])
    await all_at([*clients, twin], top)
    fps = [c.fingerprint() for c in [*clients, twin]]
    assert len({fp["version"] for fp in fps}) == 1, fps

    # ... and exactly one of the two devices was told its move lost, with the fresh table.
    def losers() -> list[SeatClient]:
        return [
            c for c in (mover, twin) if any("first" in n or "changed" in n for n in c.notices())
        ]

    await await_until(lambda: len(losers()) >= 1, what="a process losing the version race",
                      seen=lambda: [c.notices() for c in (mover, twin)])
    assert len(losers()) == 1, [c.notices() for c in (mover, twin)]
    loser = losers()[0]
    assert loser.version == top  # the loser got the fresh table with the refusal

    # A repeated submission (same action id, e.g. resent after a reconnect to the other
    # process) is applied once: the winner's very message again, through both processes.
    winner, winner_aid, winner_action = (
        (twin, aids[1], second) if loser is mover else (mover, aids[0], first)
    )
    for device in (mover, twin):
        told = len(device.notices())
        await device.act(winner_action, v=version, aid=winner_aid)
        await device.wait_for(lambda c, told=told: len(c.notices()) > told, what="a refusal")
    # A wrongly applied duplicate would be in its process's table before the refusal: ask each
    # process for its table now (a sync answers with the full table) instead of sleeping.
    for device in (mover, twin):
        seen = len(device.frames)
        await device.send(do="sync", v=device.version)
        await device.wait_for(
            lambda c, seen=seen: any(f.get("kind") in ("table", "fragments") for f in c.frames[seen:]),
            what="the table a sync answers with",
        )
    assert {c.version for c in [*clients, twin]} == {top}
    assert winner is not loser
    await twin.close()
    await play_to_end(clients, rng)
    for c in clients:
        await c.close()


async def test_bots_move_from_one_process_and_the_other_takes_over_when_it_dies(
    postgres_url, start_server
) -> None:
    upgrade(postgres_url)
    a = start_server(postgres_url, env={"BOT_DELAY": "1.0"})
    b = start_server(postgres_url, env={"BOT_DELAY": "0"})
    slug, token = await create_room(a.url, name="Anna", seats=3, bots=2, target=5)
    anna = SeatClient(a.url, slug, token, "Anna@A")
    watcher = SeatClient(b.url, slug, None, "watcher@B")  # B follows the room
    await anna.connect()
    await watcher.connect()
    await anna.send(do="start", v=anna.version)
    rng = random.Random(6)
    moved = -1  # the version Anna last moved at: her next turn is a table above it (until that
    # table arrives, her page still shows the turn she has just played)

    def anna_to_act(c: SeatClient) -> bool:
        return c.version > moved and bool(c.offered_actions())

    # Anna plays on A until the bots have moved a few times: A's action path drives them.
    for _ in range(3):
        await anna.wait_for(anna_to_act, timeout=20, what="Anna's turn")
        moved = anna.version
        await anna.act(rng.choice(anna.offered_actions()))
        await watcher.wait_version(moved)
    assert "a bot moves from this process" not in b.log_text()
    assert "another process moved first" not in a.log_text() + b.log_text()
    # Anna moves, and A dies before its bot (1 s delay) can answer: B's bot takes over.
    for _ in range(20):
        await anna.wait_for(anna_to_act, timeout=20, what="Anna's turn")
        moved = anna.version
        await anna.act(rng.choice(anna.offered_actions()))
        await watcher.wait_version(moved)  # B has Anna's move ...
        if watcher.fingerprint()["turn"] not in ([], [0]):  # ... and a bot is to move next
            break
    a.kill()
    after = watcher.version
    await watcher.wait_version(after, timeout=20)  # ... and then a bot's, from B
    await await_until(lambda: "a bot moves from this process" in b.log_text(),
                      what="the log line 'a bot moves from this process'", seen=b.log_tail)
    await anna.wait_closed()
    await anna.connect(b.url)
    await anna.wait_for(lambda c: c.version >= watcher.version)
    for c in (anna, watcher):
        await c.close()


def stored_version(url: str, slug: str) -> int:
    with psycopg.connect(libpq_dsn(url), autocommit=True) as conn:
        row = conn.execute("SELECT version FROM rooms WHERE slug = %s", (slug,)).fetchone()
    assert row is not None
    return int(row[0])


async def test_two_processes_racing_on_one_room_keep_one_history(two_servers, postgres_url) -> None:
    """Every seat plays from two devices, one on each process, all at once: many moves lose the
    version race. Still each version means one table everywhere (a frame never shows a later
    state under an earlier version), a page never shows a move that is not committed, and no
    process ever has to throw its room away ("did not apply; rebuilding")."""
    a, b = two_servers
    slug, t0 = await create_room(a.url, name="Anna", seats=3, target=30)  # a long game
    t1 = await join_room(b.url, slug, "Bo")
    t2 = await join_room(a.url, slug, "Cai")
    clients = [SeatClient(a.url, slug, t0, "Anna@A"), SeatClient(b.url, slug, t1, "Bo@B"),
               SeatClient(a.url, slug, t2, "Cai@A")]
    twins = [SeatClient(b.url if c.base_url == a.url else a.url, c.slug, c.token, c.name + "-twin")
             for c in clients]
    devices = [*clients, *twins]
    for c in devices:
        await c.connect()
    await start_game(clients)
    stop = asyncio.Event()
    players = [asyncio.ensure_future(autoplay(c, random.Random(i), stop)) for i, c in enumerate(devices)]
    pages: list[tuple[int, int, list[str], int]] = []  # (seat, page version, hand, stored version after)
    loop = asyncio.get_running_loop()
    deadline = loop.time() + 15
    async with httpx.AsyncClient(timeout=10) as http:
        while loop.time() < deadline and not any(c.over for c in clients):
            for seat, c in enumerate(devices):
                response = await http.get(f"{c.base_url}/r/{slug}", headers={"Cookie": f"{seat_cookie_name(slug)}={c.token}"})
                assert response.status_code == 200
                stored = stored_version(postgres_url, slug)
                match = PAGE_VERSION.search(response.text)
                assert match, response.text[:300]
                pages.append((seat % 3, int(match.group(1)), sorted(DATA_CODE.findall(response.text)), stored))
    stop.set()
    sent = sum(await asyncio.gather(*players))
    assert sent > 20 and len(pages) > 10

    # one table per version and seat, whichever process pushed it
    seen: dict[tuple[int, int], dict[str, object]] = {}
    for seat, c in enumerate(devices):
        for frame in c.tables:  # every whole table it showed (whole ones pushed, and changes applied)
            fp = fingerprint(str(frame["content"]), int(frame["version"]))
            key = (seat % 3, int(frame["version"]))
            assert seen.setdefault(key, fp) == fp, f"two tables under version {key[1]} for seat {key[0]}"
    # pages: committed versions only, showing what the sockets showed for that version
    for seat, version, hand, stored in pages:
        assert version <= stored, f"a page showed version {version}, only {stored} was committed"
        pushed = seen.get((seat, version))
        if pushed is not None:
            assert pushed["hand"] == hand, f"the page at version {version} showed another hand"
    for server in (a, b):
        log = server.log_text()
        assert "did not apply" not in log and "could not be rebuilt" not in log, server.log_tail()
        assert "Traceback" not in log, server.log_tail()
    for c in devices:
        await c.close()
