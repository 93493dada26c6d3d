"""Running the docs' command lines as a user types them (tests/test_docs.py, "Every example
runs"): ``loo-replay`` for ``.venv/bin/loo-replay``, in the folder given; ``serve`` for one
request on a free port, then Ctrl-C; ``record`` in a pseudo-terminal, stopped at its first
prompt."""

from __future__ import annotations

import os
import re
import shlex
import signal
import subprocess
import sys
import urllib.request
from dataclasses import dataclass
from pathlib import Path

import pexpect
from explorer_helpers import Server, start_serve
from record_helpers import spawn

_COMMENT = re.compile(r"\s+#\s.*$")
# A placeholder the docs mark as the reader's to supply: `<your-logs>/`, `<your-log>.json`.
PLACEHOLDER = re.compile(r"<your-[a-z-]+>")


@dataclass(frozen=True)
class Ran:
    """What an example did: its exit status and all it showed (stdout and stderr)."""

    status: int
    said: str


def key(line: str) -> str:
    """A command line as the tests name it: its comment and the ``.venv/bin/`` of
    ``loo-replay`` dropped, spaces collapsed."""
    line = _COMMENT.sub("", line).replace(".venv/bin/loo-replay", "loo-replay")
    return " ".join(line.split())


def argv(line: str) -> list[str]:
    """The words of a ``loo-replay`` line, as the shell splits them."""
    words = shlex.split(key(line))
    assert words[0] == "loo-replay", line
    return words[1:]


def run_example(line: str, folder: Path) -> Ran:
    """``line`` (a ``loo-replay`` command line of the docs) run in ``folder``."""
    words = argv(line)
    if words[0] == "serve":
        return _serve(words, folder)
    if words[0] == "record":
        return _record(words, folder)
    done = subprocess.run(
        [sys.executable, "-m", "loo_replay", *words],
        cwd=folder,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=300,
    )
    return Ran(done.returncode, done.stdout + done.stderr)


def _serve(words: list[str], folder: Path) -> Ran:
    """``serve`` on a free port (``--port 0`` added where the line has no port): one
    request for its front page, then Ctrl-C; what it said, and the page."""
    if "--port" not in words:
        words = [*words, "--port", "0"]
    proc = start_serve(words, folder)
    server = Server(proc)
    try:
        url = server.wait_for_url()
        with urllib.request.urlopen(url, timeout=60) as response:
            page = f"HTTP {response.status}\n" + response.read().decode("utf-8")
        status, said = server.interrupt()
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    return Ran(status, said + page)


def _record(words: list[str], folder: Path) -> Ran:
    """``record`` in a pseudo-terminal, stopped (``q``) at its first prompt."""
    transcript = folder.parent / f"{folder.name}.terminal"  # this run's alone
    transcript.unlink(missing_ok=True)
    child = spawn(*words[1:], cwd=folder, transcript=transcript)
    try:
        child.expect(r"dealer \[\w+\]>")
        child.send("q\r")
        child.expect(pexpect.EOF)
    finally:
        child.close(force=True)
    said = transcript.read_text("utf-8")
    return Ran(child.exitstatus if child.exitstatus is not None else -1, said)
