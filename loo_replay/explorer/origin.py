"""Which Host a request may name: the explorer answers only its own origin.

A web page elsewhere can make the browser of someone running the explorer ask it for a
page, under a name of the page's own that resolves to the explorer's address (DNS
rebinding); the browser then lets that page read the answer.  The one thing such a request
cannot choose is its ``Host`` header: it carries the attacker's name.  So a request is
answered only when its Host is an address written as numbers that reaches this server
(any loopback address, IPv4 or IPv6, or the address it is bound to; any address at all
when bound to every address), ``localhost``, or the name given to ``--host``: none of
these can be another site's.  Anything else is refused with 400 (docs/explorer.md).
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Mapping

from starlette.datastructures import Headers
from starlette.responses import PlainTextResponse
from starlette.types import ASGIApp, Receive, Scope, Send

Address = ipaddress.IPv4Address | ipaddress.IPv6Address


def address(text: str) -> Address | None:
    """``text`` as an IP address (IPv6 with or without its brackets), an IPv4 address
    mapped into IPv6 as the IPv4 one; None for a name."""
    try:
        ip = ipaddress.ip_address(text.removeprefix("[").removesuffix("]"))
    except ValueError:
        return None
    mapped = ip.ipv4_mapped if isinstance(ip, ipaddress.IPv6Address) else None
    return mapped or ip


def is_loopback(host: str) -> bool:
    """Whether only this machine can reach ``host``: ``localhost`` or a loopback address."""
    ip = address(host)
    return host.lower() == "localhost" if ip is None else ip.is_loopback


class Origin:
    """The Hosts a server answers: bound to the address ``bound`` (its socket's), listening
    where ``--host`` said (``given``, an address or a name)."""

    def __init__(self, given: str, bound: str) -> None:
        self.bound = address(bound)
        self.given = None if address(given) else given.lower()

    def answers(self, host_header: str) -> bool:
        """Whether a request whose Host header is ``host_header`` (a name or an address,
        and a port or none) is answered."""
        found = _HOST.fullmatch(host_header.strip())
        if found is None:
            return False
        host = found["host"]
        ip = address(host)
        if ip is None:
            return host.lower() in ("localhost", self.given)
        if host.startswith("[") and ":" not in host:
            return False  # an IPv4 address in brackets: no Host a browser sends
        anywhere = self.bound is not None and self.bound.is_unspecified
        return ip.is_loopback or ip == self.bound or anywhere


# A Host header: an IPv6 address in brackets, or an IPv4 address or a name, then a port or
# none (RFC 9110, 7.2).
_HOST = re.compile(r"(?P<host>\[[0-9A-Fa-f:.]+\]|[^\[\]:/@\s]+)(?::[0-9]{0,5})?")


class OwnOrigin:
    """ASGI middleware: a request whose Host ``origin`` does not answer gets 400."""

    def __init__(self, app: ASGIApp, origin: Origin, headers: Mapping[str, str]) -> None:
        self.app = app
        self.origin = origin
        self.headers = headers

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and not self.origin.answers(
            Headers(scope=scope).get("host", "")
        ):
            refused = PlainTextResponse(REFUSED, 400, dict(self.headers))
            await refused(scope, receive, send)
            return
        await self.app(scope, receive, send)


REFUSED = (
    "loo-replay serve answers only requests addressed to its own address, a loopback "
    "address or localhost (the Host header), so that no web page elsewhere can read it "
    "under a name of its own."
)
