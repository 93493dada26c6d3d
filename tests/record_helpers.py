"""Helpers for the recorder's tests: ``loo-replay record`` in a pseudo-terminal, driven as
a scorer drives it."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pexpect


def spawn(*args: str, cwd: Path, transcript: Path | None = None) -> pexpect.spawn:
    """``loo-replay record ARGS`` in a pseudo-terminal; what it shows goes to
    ``transcript`` (``terminal.log`` in ``cwd``)."""
    env = dict(os.environ, PROMPT_TOOLKIT_NO_CPR="1", TERM="xterm", NO_COLOR="1")
    child = pexpect.spawn(
        sys.executable,
        ["-m", "loo_replay", "record", *args],
        cwd=str(cwd),
        env=env,
        encoding="utf-8",
        timeout=30,
        dimensions=(40, 110),
    )
    child.logfile_read = (transcript or cwd / "terminal.log").open("a", encoding="utf-8")
    return child


def answer(child: pexpect.spawn, prompt: str, text: str) -> None:
    """Wait for ``prompt`` (the text before ``>``), then type ``text`` and Enter."""
    child.expect_exact(prompt + ">")
    child.send(text + "\r")
