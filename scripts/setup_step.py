"""One long step of `make`'s setup, run with its progress shown and the rest kept.

    python scripts/setup_step.py LOG -- COMMAND...

COMMAND's output (standard output and error) goes, line by line as it comes, to the end of
LOG; the lines that say how far it has got are also shown, counted, on the terminal: pip
collecting each dependency and installing them, Cython translating each module, and
setup.py's "compiled module i of N" as gcc finishes each.  A step that fails shows the
last 40 lines of LOG and where the whole is, and exits with COMMAND's status.  Only the
standard library: it runs before anything else is installed.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Callable, Iterable
from pathlib import Path

# pip collects a dependency from an index (its name) or from a file (its path).
_COLLECTING = re.compile(r"^\s*Collecting ([^\s;<>=!~\[(]+)")
_PROCESSING = re.compile(r"^\s*Processing \S*?([^/\s]+?)-\d[^/\s]*\.(?:whl|tar\.gz|zip)\b")
_INSTALLING = re.compile(r"^\s*Installing collected packages: (.+)$")
_INSTALLED = re.compile(r"^\s*Successfully installed (.+)$")
_CYTHON = re.compile(r"^\s*\[\s*(\d+)/(\d+)\] Cythonizing (\S+)")
_COMPILED = re.compile(r"^\s*(compiled module \d+ of \d+: \S+)")
TAIL = 40


class Progress:
    """What a line of the step's output says of its progress, as a line for the terminal,
    or None: the dependencies counted as pip collects them."""

    def __init__(self) -> None:
        self.dependencies = 0

    def __call__(self, line: str) -> str | None:
        if found := _COLLECTING.match(line) or _PROCESSING.match(line):
            self.dependencies += 1
            return f"setup: dependency {self.dependencies}: {found[1]}"
        if found := _INSTALLING.match(line):
            return f"setup: installing {len(found[1].split(','))} package(s)"
        if found := _INSTALLED.match(line):
            return f"setup: installed {len(found[1].split())} package(s)"
        if found := _CYTHON.match(line):
            return f"setup: Cython, module {found[1]} of {found[2]}: {found[3]}"
        if found := _COMPILED.match(line):
            return f"setup: {found[1]}"
        return None


def relay(lines: Iterable[str], log: Path, show: Callable[[str], None]) -> None:
    """Every line to the end of ``log``; its progress, if it says any, to ``show``."""
    progress = Progress()
    with log.open("a", encoding="utf-8") as kept:
        for line in lines:
            kept.write(line)
            kept.flush()
            if (said := progress(line)) is not None:
                show(said)


def main(argv: list[str]) -> int:
    if len(argv) < 3 or argv[1] != "--":
        print("usage: setup_step.py LOG -- COMMAND...", file=sys.stderr)
        return 2
    log, command = Path(argv[0]), argv[2:]
    with subprocess.Popen(
        command,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        errors="replace",
        bufsize=1,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},  # each line as it is written
    ) as proc:
        assert proc.stdout is not None
        relay(proc.stdout, log, lambda said: print(said, flush=True))
    if proc.returncode:
        lines = log.read_text("utf-8", errors="replace").splitlines()
        print("\n".join(lines[-TAIL:]))
        print(f"setup failed: the whole log is {log}")
    return proc.returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
