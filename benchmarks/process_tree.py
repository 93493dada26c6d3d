"""A command's cost as a user's machine pays it: its wall time, the CPU seconds of every
process it started (user + system, which another process on a busy machine inflates less
than the wall clock), and the peak resident memory of its whole process tree, summed over
the processes alive at each moment (workers counted with the process that forked them,
their shared pages once in each, as ``top`` would add them).

The tree is sampled from /proc every ``interval`` seconds (50 ms by default): a peak shorter
than that can be missed, so the largest single process's own peak (``ru_maxrss``, exact) is
kept too and the tree's figure is never below it.
"""

from __future__ import annotations

import os
import subprocess
import threading
import time
from dataclasses import dataclass
from pathlib import Path

PAGE = os.sysconf("SC_PAGE_SIZE")


@dataclass(frozen=True)
class Cost:
    wall: float  # seconds
    cpu: float  # seconds, user + system, of the command and every process it waited for
    tree_rss_mb: float  # the largest sum over the tree's processes, sampled
    largest_rss_mb: float  # the largest one process's own peak (ru_maxrss)
    status: int


def _read(path: str) -> bytes:
    """A small /proc file's bytes, read in one call: ``Path.read_bytes`` costs three times as
    much, and the sampler reads every process's stat 20 times a second (5.5 ms of CPU a
    sample with 82 processes, a tenth of a core taken from the command it measures; 1.9 ms
    so, on a busy machine)."""
    fd = os.open(path, os.O_RDONLY)
    try:
        return os.read(fd, 4096)
    finally:
        os.close(fd)


def _parents() -> dict[int, int]:
    """Every process's parent, from /proc."""
    parents = {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                stat = _read(f"/proc/{name}/stat")
            except OSError:
                continue  # ended meanwhile
            parents[int(name)] = int(stat[stat.rindex(b")") + 2 :].split(None, 2)[1])
    return parents


def tree_rss(root: int) -> int:
    """Bytes resident now in ``root`` and all its descendants."""
    parents = _parents()
    members, grew = {root}, True
    while grew:
        more = {pid for pid, parent in parents.items() if parent in members} - members
        members |= more
        grew = bool(more)
    total = 0
    for pid in members:
        try:
            total += int(_read(f"/proc/{pid}/statm").split()[1]) * PAGE
        except (OSError, IndexError, ValueError):
            continue
    return total


class Sampled:
    """The peak of ``tree_rss(pid)``, sampled in a thread while the block runs (``mb``)."""

    def __init__(self, pid: int, interval: float = 0.05) -> None:
        self.pid, self.interval, self.peak = pid, interval, 0
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)

    def _sample(self) -> None:
        while not self._done.is_set():
            self.peak = max(self.peak, tree_rss(self.pid))
            self._done.wait(self.interval)

    def __enter__(self) -> Sampled:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._done.set()
        self._thread.join()

    @property
    def mb(self) -> float:
        return self.peak / 2**20


def cpu_seconds(pid: int) -> float:
    """User + system seconds ``pid`` has run so far, its threads included (not its
    children's: a server's own)."""
    stat = Path(f"/proc/{pid}/stat").read_bytes()
    fields = stat[stat.rindex(b")") + 2 :].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def run(
    command: list[str],
    *,
    stdin: str | None = None,
    cwd: Path | None = None,
    env: dict[str, str] | None = None,
    stdout: int | None = subprocess.DEVNULL,
    interval: float = 0.05,
) -> Cost:
    """``command`` to its end, measured (its output to ``stdout``, discarded by default)."""
    start = time.perf_counter()
    proc = subprocess.Popen(
        command,
        stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
        stdout=stdout,
        cwd=cwd,
        env=env,
    )
    with Sampled(proc.pid, interval) as sampled:
        if stdin is not None:
            assert proc.stdin is not None
            proc.stdin.write(stdin.encode())
            proc.stdin.close()
        # wait4: the child's usage with that of every process it waited for (its workers)
        _, waited, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
    proc.returncode = status = os.waitstatus_to_exitcode(waited)
    cpu = usage.ru_utime + usage.ru_stime
    largest = usage.ru_maxrss / 1024
    return Cost(wall, cpu, max(sampled.mb, largest), largest, status)
