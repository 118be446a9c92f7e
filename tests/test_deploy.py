"""Docker cannot run here: check what can be checked of the deployment files."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import yaml
from uvicorn.main import main as uvicorn_cli

from app.settings import Settings

ROOT = Path(__file__).resolve().parent.parent


def compose() -> dict:  # type: ignore[type-arg]
    return yaml.safe_load((ROOT / "docker-compose.yml").read_text())


def uvicorn_command() -> list[str]:
    text = (ROOT / "Dockerfile").read_text()
    cmd = re.search(r'^CMD \["sh", "-c", "exec (.*)"\]$', text, re.MULTILINE)
    assert cmd, "the Dockerfile's CMD should exec uvicorn"
    return shlex.split(cmd.group(1).replace('\\"', '"'))


def test_compose_runs_postgres_two_apps_and_nginx() -> None:
    services = compose()["services"]
    assert set(services) == {"db", "app1", "app2", "nginx"}
    assert "healthcheck" in services["db"]
    for app in ("app1", "app2"):
        env = services[app]["environment"]
        assert env["DATABASE_URL"].startswith("postgresql+psycopg://")
        assert services[app]["depends_on"]["db"]["condition"] == "service_healthy"
    assert services["nginx"]["depends_on"]["app1"]["condition"] == "service_healthy"


def test_compose_sets_only_real_settings() -> None:
    env = compose()["services"]["app1"]["environment"]
    known = {name.upper() for name in Settings.model_fields}
    assert set(env) <= known, set(env) - known


def test_dockerfile_command_is_a_valid_uvicorn_command() -> None:
    args = uvicorn_command()
    assert args[0] == "uvicorn"
    values = {"$HOST": "0.0.0.0", "$PORT": "8000"}
    argv = [values.get(a, a) for a in args[1:]]
    ctx = uvicorn_cli.make_context("uvicorn", argv)
    assert ctx.params["app"] == "app.main:create_app" and ctx.params["factory"]
    assert ctx.params["ws"] == "websockets-sansio"
    assert ctx.params["ws_per_message_deflate"] is False
    assert ctx.params["ws_max_size"] == 65536


def test_dockerfile_runs_as_non_root_with_a_health_check() -> None:
    text = (ROOT / "Dockerfile").read_text()
    assert re.search(r"^USER gurka$", text, re.MULTILINE)
    assert "HEALTHCHECK" in text and "/healthz" in text


def test_nginx_keeps_a_room_on_one_process_and_passes_websockets() -> None:
    conf = (ROOT / "deploy" / "nginx.conf").read_text()
    assert "hash $room consistent" in conf
    assert "server app1:8000" in conf and "server app2:8000" in conf
    slug = re.search(r"~\^(/r/\(\?<slug>[^ ]+)", conf)
    assert slug, "nginx should pick the room from /r/<slug>"
    assert re.match(slug.group(1).replace("(?<slug>", "(?P<slug>"), "/r/AbC_12-x/ws")
    assert "proxy_set_header Upgrade $http_upgrade" in conf


def test_compose_carries_no_default_secret() -> None:
    for app in ("app1", "app2"):
        secret = compose()["services"][app]["environment"]["SECRET_KEY"]
        assert secret.startswith("${SECRET_KEY:?"), secret  # compose stops and says why when unset
    assert "change-me" not in (ROOT / "docker-compose.yml").read_text()
