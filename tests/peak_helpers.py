"""The real command in a subprocess, with the peak resident memory of its whole process tree
(the command and its workers), for the hostile tests' memory ceilings (docs/limits.md)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import IO

from db_helpers import ROOT

# The peak resident memory any attack may take, for the whole process tree.
PEAK_MB = 500
# Runs the command given after it and says, as the last line of its stderr, the peak
# resident memory of its children (in KiB, Linux): a fresh wrapper per command, so the
# peak is that command's and its workers', not an earlier test's.
WRAPPER = (
    "import resource, subprocess, sys\n"
    "status = subprocess.call(sys.argv[1:])\n"
    "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, file=sys.stderr)\n"
    "sys.exit(status)\n"
)


def measured(
    *args: str | Path,
    cwd: Path = ROOT,
    stdin: IO[bytes] | int | None = subprocess.DEVNULL,
    input: str | None = None,
    timeout: float = 120,
    env: dict[str, str] | None = None,
) -> tuple[subprocess.CompletedProcess[str], int]:
    """``loo-replay ARGS`` (its standard input ``stdin``, a file; or a pipe that ``input`` is
    written to) and its peak memory in MB; never a traceback."""
    command = [sys.executable, "-c", WRAPPER, sys.executable, "-m", "loo_replay", *map(str, args)]
    result = subprocess.run(
        command,
        **({"input": input} if input is not None else {"stdin": stdin}),
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=timeout,
        env=env,
    )
    stderr, _, peak = result.stderr.rstrip("\n").rpartition("\n")
    assert "Traceback" not in result.stdout + stderr, stderr
    return subprocess.CompletedProcess(command, result.returncode, result.stdout, stderr), int(
        peak
    ) // 1024
