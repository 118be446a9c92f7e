"""An app process for tests that need a real server (a browser, two processes on one database):
uvicorn as production runs it, on a free port, its output in a log that a failed wait shows."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tests.e2e.conftest import free_port
from tests.support.waiting import answers, wait_until, watching

ROOT = Path(__file__).resolve().parents[2]


@contextmanager
def app_process(database_url: str, log_path: Path, **env: str) -> Iterator[str]:
    """Serve the app on `database_url` (settings from `env`, e.g. SECRET_KEY, BOT_DELAY) until
    the block ends; yields its base address once /healthz answers."""
    port = free_port()
    environment = {**{k: v for k, v in os.environ.items() if not k.startswith("PYTEST")},
                   "DATABASE_URL": database_url, "PYTHONPATH": str(ROOT), **env}
    with log_path.open("wb") as log:
        proc = subprocess.Popen(
            [sys.executable, "-m", "uvicorn", "app.main:create_app", "--factory", "--host", "127.0.0.1",
             "--port", str(port), "--no-access-log", "--ws", "websockets-sansio", "--ws-per-message-deflate",
             "false"], cwd=ROOT, env=environment, stdout=log, stderr=subprocess.STDOUT)
        base = f"http://127.0.0.1:{port}"
        try:
            with watching(log_path):
                wait_until(lambda: answers(base, proc), what=f"{base}/healthz to answer", timeout=30,
                           seen=lambda: f"server exit code {proc.poll()}")
                yield base
        finally:
            proc.terminate()
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
