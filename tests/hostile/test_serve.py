"""Attacks on the explorer (docs/explorer.md, "Safety"; docs/limits.md, "The explorer"),
each through the real ``loo-replay serve`` on port 0 and real HTTP on the loopback alone
(127.0.0.1 and ::1): another origin's name in the Host header (DNS rebinding), on IPv4 and
IPv6; numbers no list knows; 200 requests at once; connections that never finish their
headers, and more of them than the queue holds; Ctrl-C while requests wait.  Each asserts
the status of every answer, that the server never answers 500 nor prints a traceback,
and, where it carries the load, the peak memory of its process tree."""

from __future__ import annotations

import http.client
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from db_helpers import run
from explorer_helpers import SAMPLE_LOGS, Server, ingested, served, serving
from peak_helpers import PEAK_MB

from loo_replay.explorer.origin import REFUSED
from loo_replay.explorer.server import HEADER_SECONDS, MAX_HEADER_BYTES, QUEUE

SESSION = "wrong-payouts-2026-11-27"  # sample_logs/wrong-payouts.json's, 16 deals
PAGES = (  # what a browser asks for, each a page that reads the database
    "/",
    "/players?sort=violations",
    "/findings?code=revoke",
    f"/session?id={SESSION}",
    f"/replay?session={SESSION}&deal=3",
    "/?q=revokes&page=1",
)


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return ingested(tmp_path_factory.mktemp("serve") / "loo.duckdb", *SAMPLE_LOGS)


@pytest.fixture(scope="module")
def server(db: Path) -> Iterator[Server]:
    yield from served(db)


def ask(
    port: int, path: str, host: str | None, *, at: str = "127.0.0.1", timeout: float = 60
) -> tuple[int, str]:
    """GET ``path`` from the server at ``at`` (a loopback address) with the Host header
    ``host`` (None: none at all, as HTTP/1.0 allows): the status and the body."""
    connection = http.client.HTTPConnection(at, port, timeout=timeout)
    try:
        connection.putrequest("GET", path, skip_host=True, skip_accept_encoding=True)
        if host is not None:
            connection.putheader("Host", host)
        connection.endheaders()
        answer = connection.getresponse()
        return answer.status, answer.read().decode()
    finally:
        connection.close()


def can_listen_on_ipv6_loopback() -> bool:
    try:
        with socket.socket(socket.AF_INET6, socket.SOCK_STREAM) as sock:
            sock.bind(("::1", 0))
    except OSError:
        return False
    return True


@pytest.mark.skipif(not can_listen_on_ipv6_loopback(), reason="no IPv6 loopback here")
def test_on_the_ipv6_loopback_a_name_of_another_origin_is_refused(db: Path) -> None:
    """``serve --host ::1`` answered ``Host: evil.example`` with the database's pages."""
    with serving(db, "--host", "::1") as server:
        server.wait_for_url()
        assert server.url.startswith("http://[::1]:")
        port = server.port
        for host in ("evil.example", f"evil.example:{port}", "[::2]", "localhost.evil.example"):
            status, body = ask(port, "/players", host, at="::1")
            assert (status, body) == (400, REFUSED), host
        assert ask(port, "/", None, at="::1")[0] == 400  # no Host: no browser's request
        for host in (f"[::1]:{port}", "[::1]", f"localhost:{port}", "LOCALHOST", "127.0.0.1"):
            status, body = ask(port, "/players", host, at="::1")
            assert status == 200 and "<table" in body, host
        status, said = server.interrupt()
    assert status == 130 and "warning" not in said and "Traceback" not in said


def test_on_127_0_0_1_every_loopback_address_is_its_own_and_no_other_name(
    server: Server,
) -> None:
    """``serve --host 127.0.0.2`` refused its own address as foreign; every loopback address,
    IPv4 or IPv6, is this machine's, so none can be another site's."""
    port = server.port
    for host in (f"127.0.0.2:{port}", "127.255.0.9", f"[::1]:{port}", "[::ffff:127.0.0.1]"):
        status, body = ask(port, "/findings", host)
        assert status == 200 and "<table" in body, host
    refused = (
        "evil.example",
        "127.0.0.1.evil.example",
        f"localhost.evil.example:{port}",
        "[127.0.0.1]",
        "10.0.0.1",  # an address, but not this server's
        "127.0.0.1:80:80",
        "",
    )
    for host in refused:
        assert ask(port, "/findings", host) == (400, REFUSED), host


@pytest.mark.parametrize("host", ["192.0.2.1", "2001:db8::1"])
def test_a_host_that_is_not_the_loopback_gets_the_warning(db: Path, host: str) -> None:
    """Documentation addresses (RFC 5737, RFC 3849), on no interface here: the warning comes
    before the address is tried, which then fails in one sentence, and nothing listens."""
    result = run("serve", "--db", db, "--host", host, "--port", "0", timeout=120)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert f"warning: listening on {host}, not the loopback" in result.stderr
    assert "there is no login" in result.stderr
    assert f"loo-replay: cannot listen on {host} port 0: " in result.stderr


def test_numbers_no_list_knows_are_not_found(server: Server) -> None:
    """``page=²`` or ``deal=²`` passed ``str.isdigit`` and failed ``int``, and 5,000 digits
    are past ``int``'s limit: each was a 500 with a traceback."""
    port = server.port
    for number in ("%C2%B2", "9" * 5000, "%EF%BC%91", "%D9%A3", "+1", "-1", "1e3", "0x1", ""):
        for path in (f"/?page={number}", f"/players?page={number}", f"/findings?page={number}"):
            status, body = ask(port, path, "127.0.0.1")
            assert status == 404 and "is not a page number" in body, path
        status, body = ask(port, f"/replay?session={SESSION}&deal={number}", "127.0.0.1")
        assert status == 404 and "is not a deal number" in body, number
    assert ask(port, f"/replay?session={SESSION}&deal=3", "127.0.0.1")[0] == 200
    assert server.proc.poll() is None
    assert "Traceback" not in server.said


def test_headers_past_the_bound_are_refused_whole_or_in_pieces(server: Server) -> None:
    """h11 alone refused only headers it held incomplete past 16 KB: a block of a megabyte
    sent at once was read whole."""
    head = b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n"
    for size, pieces in ((1_000_000, 1), (MAX_HEADER_BYTES, 1), (40_000, 40)):
        piece = b"X-Big: " + b"a" * (size // pieces) + b"\r\n"
        with socket.create_connection(("127.0.0.1", server.port), timeout=30) as sock:
            try:
                sock.sendall(head)
                for _ in range(pieces):
                    sock.sendall(piece)
                sock.sendall(b"\r\n")
            except OSError:
                pass  # closed before the rest was sent
            said = sock.recv(100)
        assert said.startswith(b"HTTP/1.1 431 Request Header Fields Too Large"), (size, said)
    just = b"X-Big: " + b"a" * (MAX_HEADER_BYTES - len(head) - 20) + b"\r\n\r\n"
    with socket.create_connection(("127.0.0.1", server.port), timeout=30) as sock:
        sock.sendall(head + just)
        assert sock.recv(100).startswith(b"HTTP/1.1 200 OK")
    assert "Traceback" not in server.said


def test_200_requests_at_once_each_get_their_page_within_the_memory_ceiling(db: Path) -> None:
    """200 requests at once got 30 answers of 500 "Out of Memory" in 800: one in-memory
    DuckDB of 128 MB served all of them at once.  One page at a time, the others waiting
    their turn, every one is answered with its page."""
    with serving(db, measured=True) as server:
        server.wait_for_url()
        port = server.port
        answers: list[tuple[int, str]] = []
        ready = threading.Barrier(200)

        def one(i: int) -> None:
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
            connection.connect()
            ready.wait()
            connection.request("GET", PAGES[i % len(PAGES)])
            answer = connection.getresponse()
            answers.append((answer.status, answer.read().decode()))
            connection.close()

        threads = [threading.Thread(target=one, args=(i,)) for i in range(200)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=180)
        assert len(answers) == 200
        assert sorted({status for status, _ in answers}) == [200]
        assert all("</html>" in body for _, body in answers)
        status, said = server.interrupt()
    assert status == 130 and "Traceback" not in said
    assert server.peak_mb(said) < PEAK_MB, said


def test_connections_that_never_finish_their_headers_are_closed_and_the_queue_is_bounded(
    db: Path,
) -> None:
    """``QUEUE`` connections opened and left without a whole request: the next request is
    told 503 at once, not kept waiting, nor answered 500.  Each silent one is closed after
    ``HEADER_SECONDS``, as is one that sends half its headers and then a header every second
    (uvicorn alone would keep it for ever); the server then answers again."""
    with serving(db) as server:
        server.wait_for_url()
        port = server.port
        silent = [socket.create_connection(("127.0.0.1", port)) for _ in range(QUEUE)]
        opened = time.monotonic()
        dripping = socket.create_connection(("127.0.0.1", port))
        dripping.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        time.sleep(1)
        assert ask(port, "/", "127.0.0.1")[0] == 503
        dripping.settimeout(1)
        while True:  # a header a second, never the blank line that ends them
            try:
                assert dripping.recv(100) == b""  # closed, and nothing answered
                break
            except TimeoutError:
                assert time.monotonic() - opened < HEADER_SECONDS + 10
                dripping.sendall(b"X-Still-There: yes\r\n")
        assert time.monotonic() - opened > HEADER_SECONDS - 1
        for sock in silent:
            sock.settimeout(max(1.0, opened + HEADER_SECONDS + 10 - time.monotonic()))
            assert sock.recv(100) == b""
            sock.close()
        dripping.close()
        status, body = ask(port, "/", "127.0.0.1")
        assert status == 200 and "</html>" in body
        status, said = server.interrupt()
    assert status == 130 and "Traceback" not in said


def test_ctrl_c_while_requests_wait_their_turn_exits_at_once(db: Path) -> None:
    """uvicorn waits for every request in hand before it stops: with a hundred waiting
    their turn, Ctrl-C answers them at once (503, the busy page) and exits 130."""
    with serving(db) as server:
        server.wait_for_url()
        port = server.port
        statuses: list[int | str] = []

        def one(i: int) -> None:
            try:
                statuses.append(ask(port, PAGES[i % len(PAGES)], "127.0.0.1")[0])
            except OSError as exc:  # not yet taken when the socket closed
                statuses.append(type(exc).__name__)

        threads = [threading.Thread(target=one, args=(i,)) for i in range(100)]
        for thread in threads:
            thread.start()
        while not statuses:
            time.sleep(0.05)
        asked = time.monotonic()
        status, said = server.interrupt()
        took = time.monotonic() - asked
        for thread in threads:
            thread.join(timeout=60)
    assert status == 130 and "Traceback" not in said
    assert took < 15, f"{took:.1f} s"
    assert 500 not in statuses and 503 in statuses, statuses
