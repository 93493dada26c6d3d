"""The explorer's server: the socket it listens on, and uvicorn run over it with bounds.

The socket is bound before the app's seconds of imports, so that a port in use is one
sentence at once (``CannotListen``).  uvicorn answers with these bounds
(docs/explorer.md, docs/limits.md): at most ``QUEUE`` connections and requests at once
(past it, 503 at once); a request's headers within ``MAX_HEADER_BYTES``; and a connection
that has not sent a whole request within ``HEADER_SECONDS`` of opening, or of its last
answer, is closed, so that connections that never finish their headers cannot pile up.
The app itself answers one page at a time (``app.Explorer``); the queue is the bound on
those waiting.
"""

from __future__ import annotations

import asyncio
import re
import socket
import threading
from types import FrameType
from typing import Any

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

from loo_replay.errors import LooReplayError

QUEUE = 256  # connections and requests at once, the ones waiting their turn among them
HEADER_SECONDS = 10  # from a connection's start, or its last answer, to a whole request
KEEP_ALIVE_SECONDS = 5  # an idle connection kept for the browser's next request
MAX_HEADER_BYTES = 16_384  # a request line and headers; past it, 431


_HEAD_END = re.compile(rb"\r?\n\r?\n")  # a blank line: the end of the headers (h11 takes bare LFs)
_SAID = b"loo-replay serve takes at most 16,384 bytes of a request line and headers"
TOO_LARGE = (
    b"HTTP/1.1 431 Request Header Fields Too Large\r\nContent-Type: text/plain; charset=utf-8\r\n"
    b"Connection: close\r\nContent-Length: %d\r\n\r\n%s" % (len(_SAID), _SAID)
)


class CannotListen(LooReplayError):
    """The address and port cannot be listened on (a port in use, no such address)."""


def listen(host: str, port: int) -> socket.socket:
    """A socket listening on ``host`` (an address, IPv6 with or without brackets, or a
    name) and ``port`` (0: any free one)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host.removeprefix("[").removesuffix("]"), port))
        sock.listen(QUEUE)
    except (OSError, OverflowError) as exc:
        sock.close()
        why = getattr(exc, "strerror", None) or str(exc)
        raise CannotListen(f"cannot listen on {host} port {port}: {why}") from None
    return sock


def url(host: str, sock: socket.socket) -> str:
    """The address a browser opens for the server listening on ``sock`` where ``--host``
    said (``host``)."""
    bare = host.removeprefix("[").removesuffix("]")
    shown = f"[{bare}]" if sock.family == socket.AF_INET6 else bare
    return f"http://{shown}:{sock.getsockname()[1]}/"


def run(app: Any, sock: socket.socket, stopping: threading.Event) -> None:
    """Serve ``app`` on ``sock`` until Ctrl-C (``KeyboardInterrupt``, or uvicorn's own
    return on the signal); ``stopping`` is set on the signal, so that the app answers the
    requests still waiting their turn at once and uvicorn, which waits for every request
    in hand, stops soon."""
    import uvicorn

    from loo_replay.db.interrupts import interrupt_all

    class Server(uvicorn.Server):
        def handle_exit(self, sig: int, frame: FrameType | None) -> None:
            stopping.set()
            interrupt_all()  # the reads under way stop, not at their time bound
            super().handle_exit(sig, frame)

    config = uvicorn.Config(
        app,
        http=TimedProtocol,
        log_level="warning",
        access_log=False,
        lifespan="off",
        server_header=False,
        limit_concurrency=QUEUE,
        timeout_keep_alive=KEEP_ALIVE_SECONDS,
        h11_max_incomplete_event_size=MAX_HEADER_BYTES,
    )
    Server(config).run(sockets=[sock])


class TimedProtocol(H11Protocol):
    """uvicorn's HTTP/1.1 connection, closed when a whole request has not arrived within
    ``HEADER_SECONDS`` of its start or of its last answer.  uvicorn's own keep-alive
    timeout stops at the first byte of the next request, and it has none before the
    first: a client sending a byte now and then would hold the connection for ever."""

    _late: asyncio.TimerHandle | None = None
    _head = b""  # what came of a request not yet past its headers

    def data_received(self, data: bytes) -> None:
        """As uvicorn's, but a request whose headers run past ``MAX_HEADER_BYTES`` is
        answered 431 and the connection closed: h11 refuses only headers it holds
        incomplete past that size, and takes a longer block that arrives whole."""
        if self.conn.their_state is h11.IDLE:
            head = self._head + data
            end = _HEAD_END.search(head)
            if (end.start() if end else len(head)) > MAX_HEADER_BYTES:
                self._head = b""
                self.transport.write(TOO_LARGE)
                self.transport.close()
                return
            self._head = b"" if end else head
        super().data_received(data)

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._start_clock()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing():
            self._start_clock()

    def connection_lost(self, exc: Exception | None) -> None:
        if self._late is not None:
            self._late.cancel()
        super().connection_lost(exc)

    def _start_clock(self) -> None:
        if self._late is not None:
            self._late.cancel()
        self._late = self.loop.call_later(HEADER_SECONDS, self._too_late)

    def _too_late(self) -> None:
        """Closes the connection if its request is still not whole: waiting for its
        headers (``IDLE``) or for the rest of its body (``SEND_BODY``)."""
        if self.conn.their_state in (h11.IDLE, h11.SEND_BODY) and not self.transport.is_closing():
            self.transport.close()
