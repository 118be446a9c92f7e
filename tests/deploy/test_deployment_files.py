"""Docker cannot run here: check what can be checked of the deployment files."""

from __future__ import annotations

import ipaddress
import json
import re
from pathlib import Path

import yaml

from app.main import serve
from app.settings import Settings

ROOT = Path(__file__).resolve().parents[2]


def compose() -> dict:  # type: ignore[type-arg]
    return yaml.safe_load((ROOT / "docker-compose.yml").read_text())


def docker_command() -> list[str]:
    text = (ROOT / "Dockerfile").read_text()
    cmd = re.search(r"^CMD (\[.*\])$", text, re.MULTILINE)
    assert cmd, "the Dockerfile should have a CMD"
    return json.loads(cmd.group(1))


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


def test_dockerfile_runs_gurka_serve_with_its_settings(monkeypatch) -> None:
    assert docker_command() == ["python", "-m", "app.main", "serve"]
    assert "forwarded-allow-ips" not in (ROOT / "Dockerfile").read_text()
    seen: dict[str, object] = {}
    monkeypatch.setattr("uvicorn.run", lambda app, **kwargs: seen.update(app=app, **kwargs))
    serve(Settings(forwarded_allow_ips="172.30.87.10"))
    assert seen["app"] == "app.main:create_app" and seen["factory"]
    assert seen["ws"] == "websockets-sansio" and seen["ws_per_message_deflate"] is False
    assert seen["ws_max_size"] == 65536
    assert seen["proxy_headers"] is True and seen["forwarded_allow_ips"] == "172.30.87.10"
    serve(Settings(forwarded_allow_ips=""))  # no proxy in front: no header is believed
    assert seen["proxy_headers"] is False


def test_compose_believes_only_nginx_about_who_the_client_is() -> None:
    spec = compose()
    services = spec["services"]
    nginx_ip = services["nginx"]["networks"]["default"]["ipv4_address"]
    subnet = spec["networks"]["default"]["ipam"]["config"][0]["subnet"]
    assert ipaddress.ip_address(nginx_ip) in ipaddress.ip_network(subnet)
    for app in ("app1", "app2"):
        assert services[app]["environment"]["FORWARDED_ALLOW_IPS"] == nginx_ip


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


def test_nginx_replaces_the_clients_x_forwarded_for_with_the_address_it_saw() -> None:
    conf = (ROOT / "deploy" / "nginx.conf").read_text()
    assert re.search(r"^\s*proxy_set_header X-Forwarded-For \$remote_addr;", conf, re.MULTILINE)
    assert "$proxy_add_x_forwarded_for" not in conf


def test_compose_carries_no_default_secret() -> None:
    for app in ("app1", "app2"):
        secret = compose()["services"][app]["environment"]["SECRET_KEY"]
        assert secret.startswith("${SECRET_KEY:?"), secret  # compose stops and says why when unset
    assert "change-me" not in (ROOT / "docker-compose.yml").read_text()
