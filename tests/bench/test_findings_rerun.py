"""bench/findings_rerun.py must keep working: its light findings (frames, headers) against a live
server it starts itself, as the lead runs it after a merge; the heavy ones (login, churn,
spectators: tens of seconds each) are left to the script's own full run."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "bench" / "findings_rerun.py"


def rerun(*args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(SCRIPT), *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=timeout, check=False)


def test_the_light_findings_rerun_against_a_live_server_and_pass() -> None:
    done = rerun("--only", "frames,headers", "--json")
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    results = json.loads(done.stdout)
    assert [r["key"] for r in results] == ["frames", "headers"]
    assert {r["verdict"] for r in results} == {"PASS"}, results
    frames, headers = results
    assert "2,000 nested [" in frames["observed"] and "0 tracebacks" in frames["observed"]
    assert "the room's host still syncs: yes" in frames["observed"]
    assert "POST /rooms 403" in headers["observed"] and "accepted" in headers["observed"]


def test_the_script_refuses_unknown_findings_and_remote_databases_before_starting_anything() -> None:
    unknown = rerun("--only", "frames,nonsense", timeout=20)
    assert unknown.returncode != 0 and "unknown findings ['nonsense']" in unknown.stderr
    remote = rerun("--database-url", "postgresql+psycopg://postgres@db.example:5432/x", timeout=20)
    assert remote.returncode != 0 and "loopback Postgres servers only" in remote.stderr


def test_the_forged_cookie_and_spoofed_header_findings_come_out_fixed() -> None:
    done = rerun("--only", "forged-cookie,spoofed-xff", "--json", timeout=120)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    forged, spoofed = json.loads(done.stdout)
    assert (forged["key"], spoofed["key"]) == ("forged-cookie", "spoofed-xff")
    assert forged["verdict"] == spoofed["verdict"] == "PASS", (forged, spoofed)
    assert "'change-me-in-production' 303" in forged["observed"] and "exit 2" in forged["observed"]
    assert "×429" in spoofed["observed"] and "closed 1008" in spoofed["observed"]
