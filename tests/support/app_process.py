"""An app process for tests that need a real server (a browser, two processes on one database):
uvicorn as production runs it (or `gurka serve`), on a free port, its output in a log that a
failed wait shows."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tests.support.waiting import answers, wait_until, watching

ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def uvicorn_args(port: int, *, access_log: bool = False) -> list[str]:
    """`python` arguments that serve the app as production does (websockets-sansio, compression off)."""
    return ["-m", "uvicorn", "app.main:create_app", "--factory", "--host", "127.0.0.1", "--port", str(port),
            *([] if access_log else ["--no-access-log"]),
            "--ws", "websockets-sansio", "--ws-per-message-deflate", "false"]


def without_pytest(**env: str) -> dict[str, str]:
    """This process's environment without pytest's own variables, the app importable from ROOT,
    and `env` on top."""
    return {**{k: v for k, v in os.environ.items() if not k.startswith("PYTEST")}, "PYTHONPATH": str(ROOT), **env}


@contextmanager
def server_process(args: list[str], port: int, log_path: Path, env: dict[str, str], *,
                   start_timeout: float = 30, stop_timeout: float = 10) -> Iterator[str]:
    """Run `python <args>` (a server of the app on `port`, from ROOT, with exactly `env`) until the
    block ends, its output in `log_path`; yields its base address once /healthz answers."""
    with log_path.open("wb") as log:
        proc = subprocess.Popen([sys.executable, *args], cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    try:
        with watching(log_path):
            wait_until(lambda: answers(base, proc), what=f"{base}/healthz to answer", timeout=start_timeout,
                       seen=lambda: f"server exit code {proc.poll()}")
            yield base
    finally:
        proc.terminate()
        try:
            proc.wait(stop_timeout)
        except subprocess.TimeoutExpired:
            proc.kill()


@contextmanager
def app_process(database_url: str, log_path: Path, **env: str) -> Iterator[str]:
    """Serve the app on `database_url` (settings from `env`, e.g. SECRET_KEY, BOT_DELAY) until
    the block ends; yields its base address once /healthz answers."""
    port = free_port()
    with server_process(uvicorn_args(port), port, log_path, without_pytest(DATABASE_URL=database_url, **env)) as base:
        yield base
