"""Helpers for the explorer's tests: the real ``loo-replay serve`` as a subprocess, in a
process group of its own as a terminal's job, on the free port it chose and printed."""

from __future__ import annotations

import os
import re
import select
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from db_helpers import ROOT, SAMPLES, run
from peak_helpers import WRAPPER

SAMPLE_LOGS = (SAMPLES / "wrong-payouts.json", SAMPLES / "three-card-revokes.json")
_URL = re.compile(r"at (http://\S+/) \(Ctrl-C stops\)")
# peak_helpers' wrapper, which says the command's peak memory as the last line of its
# stderr, but Ctrl-C, sent to the whole process group, is for the command alone: the
# wrapper waits for it to end and then says its peak.
MEASURING = "import signal\nsignal.signal(signal.SIGINT, lambda *_: None)\n" + WRAPPER


class Server:
    """A running ``serve``: its URL, and what it printed on stderr so far."""

    def __init__(self, proc: subprocess.Popen[str]) -> None:
        self.proc = proc
        self.said = ""
        self.url = ""

    def wait_for_url(self, timeout: float = 90) -> str:
        """Read stderr until the server says where it listens (it imports for a while)."""
        assert self.proc.stderr is not None
        deadline = time.monotonic() + timeout
        while not (found := _URL.search(self.said)):
            assert self.proc.poll() is None, self.said + self.proc.stderr.read()
            assert time.monotonic() < deadline, f"serve said no URL: {self.said}"
            # Raw reads: a buffered readline may take two lines at once and leave select()
            # nothing to see.
            ready, _, _ = select.select([self.proc.stderr], [], [], 0.5)
            if ready:
                self.said += os.read(self.proc.stderr.fileno(), 65536).decode()
        self.url = found[1]
        return self.url

    @property
    def port(self) -> int:
        return int(self.url.rsplit(":", 1)[1].strip("/"))

    def interrupt(self, timeout: float = 30) -> tuple[int, str]:
        """Ctrl-C as a terminal sends it: its exit status and the rest of its stderr."""
        os.killpg(self.proc.pid, signal.SIGINT)
        _, rest = self.proc.communicate(timeout=timeout)
        return self.proc.returncode, self.said + rest

    def peak_mb(self, said: str) -> int:
        """The server's peak resident memory in MB, from what a measured server
        (``serving(measured=True)``) said once it ended."""
        return int(said.rstrip("\n").rpartition("\n")[2]) // 1024


def start_serve(words: list[str], cwd: Path, *, measured: bool = False) -> subprocess.Popen[str]:
    """``loo-replay WORDS`` (a ``serve`` line) started in ``cwd``, in a process group of its
    own as a terminal's job, its stderr piped for ``Server``; ``measured``: under a wrapper
    that says its peak memory (``Server.peak_mb``)."""
    wrapper = [sys.executable, "-c", MEASURING] if measured else []
    return subprocess.Popen(
        [*wrapper, sys.executable, "-m", "loo_replay", *words],
        cwd=cwd,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )


@contextmanager
def serving(db: Path, *args: str, measured: bool = False) -> Iterator[Server]:
    """``loo-replay serve --db DB --port 0 ARGS`` until the block ends (then Ctrl-C; killed
    if it is still there); ``measured``: its peak memory said at its end."""
    proc = start_serve(["serve", "--db", str(db), "--port", "0", *args], ROOT, measured=measured)
    server = Server(proc)
    try:
        yield server
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGINT)
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()


def served(db: Path) -> Iterator[Server]:
    """A module's ``server`` fixture: ``serve`` over ``db``, its URL known, until the
    module's tests end."""
    with serving(db) as server:
        server.wait_for_url()
        yield server


def ingested(db: Path, *logs: Path) -> Path:
    """``db``, made by the real ``ingest`` of ``logs`` (no analysis: the explorer's tests
    need none)."""
    result = run("ingest", *logs, "--db", db, "--no-analysis")
    assert result.returncode == 0, result.stderr
    return db
