"""A push service of our own on 127.0.0.1, and a browser's side of a subscription: the tests'
(tests/push, the push browser test) and bench/push_bench.py's.

`PushService` accepts what a real push service does (RFC 8030: a POST of an encrypted message to
a subscription's URL) and checks it as a browser's push service and the browser would: the VAPID
JWT (RFC 8292) must be signed by the app's public key (`k=`), for this service's origin, not
expired, with a subject; the body must decrypt (aes128gcm, RFC 8188 and RFC 8291) with the
subscription's own private key and auth secret, which only `Browser` (the test) holds. Each
message it takes is kept as `Received` (the JSON the service worker would get, and when). A
subscription can be told to answer with other statuses (410: gone; 500: try again later).
"""

from __future__ import annotations

import base64
import json
import os
import struct
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unb64url(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def hkdf(salt: bytes, ikm: bytes, info: bytes, length: int) -> bytes:
    return HKDF(algorithm=hashes.SHA256(), length=length, salt=salt, info=info).derive(ikm)


def point(key: ec.EllipticCurvePublicKey) -> bytes:
    return key.public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)


@dataclass
class Browser:
    """One device's subscription keys, made here as a browser makes them."""

    private: ec.EllipticCurvePrivateKey = field(default_factory=lambda: ec.generate_private_key(ec.SECP256R1()))
    auth: bytes = field(default_factory=lambda: os.urandom(16))

    def subscription(self, endpoint: str) -> dict[str, Any]:
        """What `PushSubscription.toJSON()` gives a page."""
        return {"endpoint": endpoint, "expirationTime": None,
                "keys": {"p256dh": b64url(point(self.private.public_key())), "auth": b64url(self.auth)}}

    def decrypt(self, body: bytes) -> bytes:
        """RFC 8291 on RFC 8188's aes128gcm: the header, then one record."""
        salt, rs, idlen = body[:16], struct.unpack(">I", body[16:20])[0], body[20]
        sender = body[21:21 + idlen]
        records = body[21 + idlen:]
        assert len(sender) == 65 and sender[0] == 4, "keyid must be the sender's public point"
        assert len(records) <= rs, "one record only for a message this small"
        sender_key = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), sender)
        shared = self.private.exchange(ec.ECDH(), sender_key)
        ikm = hkdf(self.auth, shared, b"WebPush: info\0" + point(self.private.public_key()) + sender, 32)
        cek = hkdf(salt, ikm, b"Content-Encoding: aes128gcm\0", 16)
        nonce = hkdf(salt, ikm, b"Content-Encoding: nonce\0", 12)
        padded = AESGCM(cek).decrypt(nonce, records, None)
        text = padded.rstrip(b"\0")
        assert text.endswith(b"\x02"), "the last record ends with the delimiter 2"
        return text[:-1]


@dataclass
class Received:
    device: str
    message: dict[str, Any]
    at: float  # time.monotonic() when it arrived
    headers: dict[str, str]


def verify_vapid(header: str, audience: str, public_key: str) -> dict[str, Any]:
    """The claims of a `vapid t=<jwt>, k=<key>` Authorization header, or AssertionError."""
    assert header.startswith("vapid "), header
    params = dict(part.strip().split("=", 1) for part in header[6:].split(","))
    assert params["k"] == public_key, "signed by another key than the app's"
    head, claims, signature = params["t"].split(".")
    assert json.loads(unb64url(head)) == {"typ": "JWT", "alg": "ES256"}
    raw = unb64url(signature)
    assert len(raw) == 64
    der = encode_dss_signature(int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big"))
    key = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), unb64url(public_key))
    try:
        key.verify(der, f"{head}.{claims}".encode(), ec.ECDSA(hashes.SHA256()))
    except InvalidSignature as exc:
        raise AssertionError("the VAPID signature does not verify") from exc
    found: dict[str, Any] = json.loads(unb64url(claims))
    assert found["aud"] == audience, found
    assert time.time() < found["exp"] <= time.time() + 24 * 3600, found
    assert found["sub"].startswith(("mailto:", "https:")), found
    return found


class PushService:
    def __init__(self, public_key: str) -> None:
        self.public_key = public_key
        self.devices: dict[str, Browser] = {}
        self.answers: dict[str, list[int]] = {}  # device -> statuses to answer first (then 201)
        self.received: list[Received] = []
        self.refused: list[str] = []  # why a POST was refused (a failed check)
        self.posts = 0
        self.lock = threading.Lock()
        self.arrived = threading.Condition(self.lock)
        service = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                return None

            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                status = service.take(self.path, dict(self.headers.items()), body)
                self.send_response(status)
                self.send_header("Content-Length", "0")
                self.end_headers()

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.origin = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def device(self, name: str) -> tuple[Browser, dict[str, Any]]:
        """A new device: its keys (kept here, as the browser keeps them) and its subscription."""
        browser = self.devices[name] = Browser()
        return browser, browser.subscription(f"{self.origin}/push/{name}")

    def take(self, path: str, headers: dict[str, str], body: bytes) -> int:
        with self.lock:
            self.posts += 1
            name = path.rsplit("/", 1)[-1]
            browser = self.devices.get(name)
            if browser is None:
                return 404
            queued = self.answers.get(name)
            if queued:
                return queued.pop(0)
            try:
                lower = {k.lower(): v for k, v in headers.items()}
                verify_vapid(lower.get("authorization", ""), self.origin, self.public_key)
                assert lower.get("content-encoding") == "aes128gcm", lower.get("content-encoding")
                assert int(lower.get("ttl", "-1")) >= 0
                message = json.loads(browser.decrypt(body))
            except (AssertionError, ValueError, KeyError) as exc:
                self.refused.append(f"{name}: {exc!r}")
                return 400
            self.received.append(Received(name, message, time.monotonic(), lower))
            self.arrived.notify_all()
            return 201

    def wait_for(self, count: int, timeout: float = 10.0) -> list[Received]:
        """Wait until `count` messages have arrived (AssertionError after `timeout`)."""
        deadline = time.monotonic() + timeout
        with self.lock:
            while len(self.received) < count:
                left = deadline - time.monotonic()
                assert left > 0, f"{len(self.received)} of {count} push messages arrived; refused: {self.refused}"
                self.arrived.wait(left)
            return list(self.received)

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
