"""The deployment the README promises, without Docker (issue 24, item 16): Debian's nginx with the
project's own `deploy/nginx.conf` in front of two app processes on one Postgres. A person plays
in a real browser through nginx; the process serving the room is killed (`kill -9`); the page
reconnects through nginx to the other process and the game goes on.

Only the deployment's names are rewritten: the upstream servers `app1:8000`/`app2:8000` become
the two local processes and `listen 80` a free loopback port; everything else in the file is
used as it is, wrapped in the smallest nginx.conf that can run it (its own prefix, pid, logs and
temp folders in a temporary directory, so no system nginx is touched). nginx's access log names
the upstream that answered each request: that is how the test knows which process serves the
room, with nothing added to the app.
"""

from __future__ import annotations

import grp
import os
import pwd
import re
import shutil
import signal
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest

from tests.resilience.conftest import ROOT, ServerProcess
from tests.support.app_process import free_port
from tests.support.waiting import wait_page, wait_selector, wait_until, watch_page, watching

CHROMIUM = "/usr/bin/chromium"
NGINX = shutil.which("nginx") or ("/usr/sbin/nginx" if os.path.exists("/usr/sbin/nginx") else None)

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.postgres,
    pytest.mark.skipif(NGINX is None, reason="nginx is not installed (apt-get install -y nginx; .ci/run installs it)"),
    pytest.mark.skipif(not os.path.exists(CHROMIUM),
                       reason="Debian's chromium is not installed (apt-get install -y chromium)"),
]
DEPLOY_CONF = ROOT / "deploy" / "nginx.conf"
ONLINE = "() => !document.documentElement.classList.contains('offline')"
OFFLINE = "() => document.documentElement.classList.contains('offline')"
ACCESS = re.compile(r"^(\S+) (.+) (\d{3})$")  # request URI, upstream address(es), status


def deployed_conf(workdir: Path, port: int, app_ports: list[int]) -> str:
    """deploy/nginx.conf with its upstreams and listen port pointed here, in a minimal nginx.conf."""
    site = DEPLOY_CONF.read_text()
    for name, app_port in zip(("app1", "app2"), app_ports, strict=True):
        site, n = re.subn(rf"(?m)^(\s*server\s+){name}:8000\b", rf"\g<1>127.0.0.1:{app_port}", site)
        assert n == 1, f"deploy/nginx.conf should name upstream {name}:8000 once"
    site, n = re.subn(r"(?m)^(\s*listen\s+)80;", rf"\g<1>127.0.0.1:{port};", site)
    assert n == 1, "deploy/nginx.conf should listen on port 80 once"
    temp = "\n".join(f"    {kind}_temp_path {workdir / kind};" for kind in
                     ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"))
    # as root, nginx's workers would run as nobody, who may not enter the test's private folder
    # (where a large response is buffered): run them as whoever runs the test
    user = f"user {pwd.getpwuid(os.geteuid()).pw_name} {grp.getgrgid(os.getegid()).gr_name};" if os.geteuid() == 0 else ""
    return f"""daemon off;
{user}
worker_processes 1;
pid {workdir / 'nginx.pid'};
error_log {workdir / 'error.log'} info;
events {{ worker_connections 256; }}
http {{
    log_format upstreams '$request_uri $upstream_addr $status';
    access_log {workdir / 'access.log'} upstreams;
{temp}
    # ---- deploy/nginx.conf ----
{site}
}}
"""


@contextmanager
def nginx_in_front(workdir: Path, app_ports: list[int]) -> Iterator[str]:
    """Debian's nginx on a free loopback port in front of `app_ports`; yields its URL."""
    assert NGINX is not None
    port = free_port()
    conf = workdir / "nginx.conf"
    conf.write_text(deployed_conf(workdir, port, app_ports))
    tested = subprocess.run([NGINX, "-t", "-p", str(workdir), "-c", str(conf), "-e", str(workdir / "error.log")],
                            capture_output=True, text=True, check=False)
    assert tested.returncode == 0, tested.stderr
    proc = subprocess.Popen([NGINX, "-p", str(workdir), "-c", str(conf), "-e", str(workdir / "error.log")],
                            stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"

    def healthy() -> bool:
        assert proc.poll() is None, (workdir / "error.log").read_text()
        try:
            return httpx.get(f"{base}/healthz", timeout=2).status_code == 200
        except httpx.HTTPError:
            return False

    try:
        with watching(workdir / "error.log"):
            wait_until(healthy, what="nginx to answer /healthz from an app", timeout=20)
        yield base
    finally:
        proc.send_signal(signal.SIGQUIT)  # graceful: the access log is complete
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)


def access_lines(workdir: Path) -> list[tuple[str, str, int]]:
    lines = []
    for line in (workdir / "access.log").read_text().splitlines():
        found = ACCESS.match(line)
        if found:
            lines.append((found.group(1), found.group(2), int(found.group(3))))
    return lines


def my_turn(page) -> bool:  # type: ignore[no-untyped-def]
    return page.locator("#table[data-my-turn=true]").count() > 0


def version(page) -> int:  # type: ignore[no-untyped-def]
    return int(page.locator("#table").get_attribute("data-version"))


def move(page) -> None:  # type: ignore[no-untyped-def]
    """One legal move, as a person makes it."""
    mode = page.locator("#table").get_attribute("data-mode")
    if mode == "play":
        page.locator(".cardbtn.playable").first.click()
    elif mode == "select":
        if page.locator(".cardbtn[aria-pressed=true]").count() == 0:
            page.locator(".cardbtn.playable").first.click()
        page.locator("[data-send-selection]:visible").click()
    elif mode == "exchange":
        page.locator("[data-key=keep]").click()


def play_my_moves(page, moves: int) -> None:  # type: ignore[no-untyped-def]
    """Make `moves` moves of our own, each when it is our turn (the bots play between them)."""
    for n in range(moves):
        wait_page(page, "() => document.getElementById('table').dataset.myTurn === 'true'", what=f"our turn (move {n + 1})",
                  timeout=20)
        before = version(page)
        move(page)
        wait_page(page, "v => +document.getElementById('table').dataset.version > v", before,
                  what=f"our move {n + 1} taken (version above {before})")


def test_a_game_through_nginx_survives_the_kill_of_the_process_serving_it(
    postgres_url: str, browser, tmp_path: Path, shots: Path  # type: ignore[no-untyped-def]
) -> None:
    env = {"BOT_DELAY": "0.05", "DEAL_PAUSE": "0", "FORWARDED_ALLOW_IPS": "127.0.0.1"}
    apps = [ServerProcess(postgres_url, log_path=tmp_path / f"app{i}.log", env=env) for i in (1, 2)]
    web = tmp_path / "nginx"
    web.mkdir()
    try:
        for app in apps:  # one after the other: the first upgrades the fresh database's schema
            app.start()
        with nginx_in_front(web, [app.port for app in apps]) as base:
            ctx = browser.new_context(viewport={"width": 1280, "height": 860})
            page = watch_page(ctx.new_page())
            page.goto(base + "/")
            page.fill("#name", "Anna")
            page.select_option("#seats", "3")
            page.select_option("#bots", "2")
            page.get_by_role("button", name="Create room").click()
            wait_selector(page, ".seat.me .dot.on", what="our seat, the socket up through nginx")
            slug = page.url.rstrip("/").rsplit("/", 1)[-1]
            page.get_by_role("button", name="Start the game").click()
            wait_selector(page, ".hand .cardbtn", what="a hand dealt")
            play_my_moves(page, 2)

            # nginx's log says which process served the room's page (its socket hashes the same)
            served = {upstream for uri, upstream, status in access_lines(web) if uri == f"/r/{slug}" and status == 200}
            assert len(served) == 1, served
            serving = next(app for app in apps if served == {f"127.0.0.1:{app.port}"})
            other = next(app for app in apps if app is not serving)
            before = version(page)
            serving.kill()
            assert not serving.alive()
            with watching(other.log_path):
                wait_page(page, OFFLINE, what="the page to notice its process died")
                wait_page(page, ONLINE, what="the page back online through nginx", timeout=30)
                wait_page(page, "v => +document.getElementById('table').dataset.version >= v", before,
                          what=f"the table at version {before} or later")
                play_my_moves(page, 3)  # the game goes on: our moves and the bots' between them
                page.screenshot(path=str(shots / "deploy-nginx-after-kill.png"))
            assert version(page) > before
            ctx.close()  # the socket closes: nginx logs which upstream carried it

            carried = f"127.0.0.1:{other.port}"
            wait_until(lambda: any(uri == f"/r/{slug}/ws" and upstream.endswith(carried) and status == 101
                                   for uri, upstream, status in access_lines(web)),
                       what=f"nginx's log of the room's socket through the other process ({carried})",
                       seen=lambda: [line for line in access_lines(web) if "/ws" in line[0]])
    finally:
        for app in apps:
            app.kill()
