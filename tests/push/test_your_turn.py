""""Your turn" for real (issue 39): a device subscribes as a browser would (its keys made here),
its seat's page says whether it is visible, and when it has been the seat's turn for a while with
no page visible the app's message arrives at the tests' push service, signed with the app's VAPID
key and decrypted with the device's own key: once per turn, in the device's language, nothing
secret in it."""

from __future__ import annotations

import re
import time
from typing import Any

from fastapi.testclient import TestClient

from app.store import push as store
from app.store.db import session_scope
from bench.push_service import PushService
from tests.support.waiting import wait_until

CARD = re.compile(r"\b(?:[2-9]|10|[JQKA]|X1|X2)[CDHS]?\b|[♠♥♦♣]|Joker", re.IGNORECASE)


def practice(web: TestClient) -> str:
    answer = web.post("/practice", data={"level": "easy"}, follow_redirects=False)
    assert answer.status_code == 303, answer.text
    return str(answer.headers["location"].rsplit("/", 1)[-1])


def my_turn(web: TestClient, slug: str) -> bool:
    room = web.app.state.rooms.get(slug)  # type: ignore[attr-defined]
    game = room.state.game
    return game is not None and game.to_act == 0 and not game.over


def seen(web: TestClient, slug: str, *, visible: bool, page: str = "page-1") -> None:
    answer = web.post(f"/r/{slug}/visible", json={"page": page, "visible": visible})
    assert answer.status_code == 204


def test_a_hidden_seat_gets_one_your_turn_per_turn_and_a_visible_one_none(
        pushing: TestClient, push_service: PushService) -> None:
    web = pushing
    web.headers["Accept-Language"] = "da"
    _browser, subscription = push_service.device("phone")
    answer = web.post("/push/subscriptions", json={"subscription": subscription})
    assert answer.status_code == 200 and answer.json()["ok"], answer.text
    assert "gurka_push" in answer.cookies and "httponly" in answer.headers["set-cookie"].lower()

    slug = practice(web)
    seen(web, slug, visible=True)  # the table is open and looked at
    wait_until(lambda: my_turn(web, slug), what="the player's turn")
    time.sleep(1.0)  # three times the delay: a visible page gets no message
    assert push_service.received == []
    sender = web.app.state.push.sender  # type: ignore[attr-defined]
    wait_until(lambda: sender.warm.done(), what="the sender's process started", timeout=60)

    started = time.monotonic()
    seen(web, slug, visible=False)  # the page is hidden now
    [got] = push_service.wait_for(1, timeout=5)
    assert got.at - started < 3.0
    message: dict[str, Any] = got.message
    assert set(message) == {"title", "body", "url", "tag"}
    assert message["url"] == f"/r/{slug}" and message["tag"] == f"turn-{slug}"
    assert message["title"] == "Din tur"  # the device's language (it subscribed in Danish)
    assert not CARD.search(message["title"] + " " + message["body"]), message
    assert got.headers["urgency"] == "high"
    assert push_service.refused == []

    time.sleep(1.0)  # the same turn goes on: no second message
    assert my_turn(web, slug) and len(push_service.received) == 1


def test_a_subscription_must_point_to_a_public_https_push_service(tmp_path: Any, vapid_key: str,
                                                                   push_service: PushService) -> None:
    from app.main import create_app
    from tests.push.conftest import push_settings

    settings = push_settings(f"sqlite:///{tmp_path / 'strict.db'}", vapid_key).model_copy(
        update={"push_allow_loopback": False})
    with TestClient(create_app(settings)) as web:
        _browser, subscription = push_service.device("phone")
        answer = web.post("/push/subscriptions", json={"subscription": subscription})
        assert answer.status_code == 400 and "https" in answer.json()["message"]
        for endpoint in ("https://127.0.0.1/push/x", "https://10.1.2.3/x", "https://169.254.169.254/latest",
                         "https://[::1]/x", "https://localhost/x"):
            sub = {**subscription, "endpoint": endpoint}
            answer = web.post("/push/subscriptions", json={"subscription": sub})
            assert answer.status_code == 400, endpoint
            assert "public" in answer.json()["message"], (endpoint, answer.json())
        answer = web.post("/push/subscriptions", json={"subscription": {"endpoint": "https://8.8.8.8/x",
                                                                        "keys": {"p256dh": "AAAA", "auth": "x"}}})
        assert answer.status_code == 400 and "keys" in answer.json()["message"]
        answer = web.post("/push/subscriptions", content=b"{not json")
        assert answer.status_code == 400
        with session_scope(web.app.state.engine) as session:  # type: ignore[attr-defined]
            assert session.exec(store.select(store.PushSubscription)).all() == []


def test_the_settings_panel_chooses_and_turns_everything_off(pushing: TestClient, push_service: PushService) -> None:
    web = pushing
    page = web.get("/push", headers={"Accept-Language": "fi"}).text
    assert "Ilmoitukset tässä laitteessa" in page and "Ota ilmoitukset käyttöön tässä laitteessa" in page
    assert 'name="topic"' not in page  # no choices before the device is subscribed
    _browser, subscription = push_service.device("phone")
    assert web.post("/push/subscriptions", json={"subscription": subscription}).status_code == 200
    answer = web.post("/push/settings", data={"topic": ["dates", "nonsense"]}, follow_redirects=False)
    assert answer.status_code == 303 and answer.headers["location"] == "/push?saved=1"
    with session_scope(web.app.state.engine) as session:  # type: ignore[attr-defined]
        [row] = session.exec(store.select(store.PushSubscription)).all()
        assert row.topic_set == {"dates"}
    page = web.get("/push").text
    assert 'value="dates" checked' in page and 'value="turn" checked' not in page
    answer = web.post("/push/off", follow_redirects=False)
    assert answer.status_code == 303 and 'gurka_push=""' in answer.headers["set-cookie"]
    with session_scope(web.app.state.engine) as session:  # type: ignore[attr-defined]
        assert session.exec(store.select(store.PushSubscription)).all() == []
    assert "This device gets no notifications yet." in web.get("/push").text


def test_oversized_bodies_are_refused_unread(pushing: TestClient) -> None:
    answer = pushing.post("/push/subscriptions", content=b"{" + b" " * 100_000 + b"}",
                          headers={"Content-Type": "application/json"})
    assert answer.status_code == 413 and "too long" in answer.json()["message"]
    slug = practice(pushing)
    big = b'{"page": "p", "n": 1, "visible": true, "pad": "' + b"x" * 10_000 + b'"}'
    assert pushing.post(f"/r/{slug}/visible", content=big).status_code == 204
    visibility = pushing.app.state.push.visibility  # type: ignore[attr-defined]
    assert visibility.pages == {}  # not taken
    seen(pushing, slug, visible=True)
    assert len(visibility.pages) == 1  # a report of a normal size is
