"""A subscription is a URL the server will POST to, so it is checked before it is kept and again
before each message: https only, no credentials in it, and its host must resolve to public
addresses only (never loopback, private, link-local, multicast or reserved ones), so that nobody
can make the server send requests into its own network through a subscription.

`allow_loopback` (the setting PUSH_ALLOW_LOOPBACK, for the tests' own push service) also accepts
http:// and loopback addresses, and nothing else.
"""

from __future__ import annotations

import ipaddress
import socket
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from app.i18n import N_
from app.push.keys import unb64url

MAX_ENDPOINT = 1000


class BadSubscription(ValueError):
    """A subscription refused; its text (in the catalogs) says why."""


@dataclass(frozen=True, slots=True)
class Subscription:
    endpoint: str
    p256dh: str  # the browser's public key (base64url, an uncompressed P-256 point)
    auth: str  # its authentication secret (base64url, 16 bytes)


def parse(data: Any) -> Subscription:
    """A browser's `PushSubscription.toJSON()`, checked for shape (not yet for where it points)."""
    if not isinstance(data, dict) or not isinstance(data.get("keys"), dict):
        raise BadSubscription(N_("This is not a push subscription."))
    endpoint, keys = data.get("endpoint"), data["keys"]
    p256dh, auth = keys.get("p256dh"), keys.get("auth")
    if not all(isinstance(v, str) for v in (endpoint, p256dh, auth)):
        raise BadSubscription(N_("This is not a push subscription."))
    assert isinstance(endpoint, str) and isinstance(p256dh, str) and isinstance(auth, str)
    if len(endpoint) > MAX_ENDPOINT or len(p256dh) > 100 or len(auth) > 40:
        raise BadSubscription(N_("This push subscription is too long."))
    try:
        point, secret = unb64url(p256dh), unb64url(auth)
    except ValueError as exc:
        raise BadSubscription(N_("This push subscription's keys are not valid.")) from exc
    if len(point) != 65 or point[0] != 4 or len(secret) != 16:
        raise BadSubscription(N_("This push subscription's keys are not valid."))
    return Subscription(endpoint, p256dh, auth)


def _allowed(address: str, allow_loopback: bool) -> bool:
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    if allow_loopback and ip.is_loopback:
        return True
    return ip.is_global and not ip.is_multicast


def check_endpoint(url: str, *, allow_loopback: bool = False) -> None:
    """Refuse (BadSubscription) an endpoint the server must not POST to. Resolves its host name:
    blocking, so call it off the event loop."""
    parts = urlsplit(url)
    schemes = ("https", "http") if allow_loopback else ("https",)
    if parts.scheme not in schemes:
        raise BadSubscription(N_("A push service must be reached over https."))
    if not parts.hostname or parts.username or parts.password:
        raise BadSubscription(N_("This push service's address is not valid."))
    try:
        port = parts.port or (443 if parts.scheme == "https" else 80)
        found = socket.getaddrinfo(parts.hostname, port, proto=socket.IPPROTO_TCP)
    except (OSError, ValueError, UnicodeError) as exc:
        raise BadSubscription(N_("This push service's address cannot be found.")) from exc
    addresses = {info[4][0] for info in found}
    if not addresses or not all(_allowed(str(a), allow_loopback) for a in addresses):
        raise BadSubscription(N_("This push service's address is not a public one."))
    if parts.scheme == "http" and not all(ipaddress.ip_address(str(a).split("%", 1)[0]).is_loopback for a in addresses):
        raise BadSubscription(N_("A push service must be reached over https."))
