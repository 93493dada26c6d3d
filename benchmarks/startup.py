"""Start-up: `python benchmarks/startup.py`.

The commands a user starts most, on one evening's log: 40 deals of ``simulate --deals 40
--seed 1``, cached in benchmarks/data/ (``--data``).  Each command runs ``--runs`` times (10),
in rounds that run every command once, so that a change of the machine's load falls on all
of them alike; the figures are the medians of the wall clock, and of the CPU time (user +
system), which a busy machine inflates less.  In the same rounds: the import floor,
``python -c 'import typer, duckdb, pyarrow'``, which ``ingest``'s targets are counted over,
and the interpreter alone (``python -c pass``).  ``ingest`` loads the log into a new database
and into a copy of one that holds 40 other deals (``--seed 2``).  ``record`` is started on a
new file and answered ``q`` at its first prompt: piped, and at a terminal (a pseudo-terminal, as
a scorer at a table types; prompt_toolkit's line editor is imported only there), where its
figure is the wall time until the prompt takes input (prompt_toolkit asks for bracketed paste,
after answering its request for the cursor's place), its CPU the whole run's.  With valgrind, ``--instructions`` counts
each command once under callgrind (its processes summed): the figure that does not move
with the machine's load.  Writes benchmarks/results/<name>.json and the table
docs/performance.md carries in <name>.md, with the build that ran (compiled or pure Python).
``--runs 0`` counts the instructions alone, the one figure a busy machine leaves as it is.

The environment may set ``PYTHONDONTWRITEBYTECODE``: then no command writes the bytecode of
the sources it imports, and each would compile them again, every run.  The package's
bytecode is written first (``compileall``), so that no figure counts compiling; where it
cannot be written, the table says so.
"""

from __future__ import annotations

import argparse
import compileall
import os
import pty
import re
import resource
import select
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from run import cli, measured_build
from saving import result_options, save, timed_command

DATA = Path(__file__).resolve().parent / "data"
FLOOR = "import typer, duckdb, pyarrow"


@dataclass(frozen=True)
class Step:
    """A command measured: its row's name, its target in ms (over the floor for ingest),
    and its words (LOG: the log; DB: a database of 40 deals; NEW.json, NEW.duckdb: a new
    file)."""

    name: str
    target_ms: int | None
    words: tuple[str, ...]
    over_floor: bool = False
    stdin: str | None = None
    terminal: bool = False  # run at a pseudo-terminal, timed until its prompt takes input


STEPS = (
    Step("python -c pass", None, ("-c", "pass")),
    Step(f"python -c '{FLOOR}' (the floor)", None, ("-c", FLOOR)),
    Step("--version", 150, ("--version",)),
    Step("--help", 200, ("--help",)),
    Step("validate LOG", 200, ("validate", "LOG")),
    Step("replay LOG --deal 20", 250, ("replay", "LOG", "--deal", "20")),
    Step(
        "record, q at the first prompt",
        300,
        ("record", "NEW.json", "--players", "a,b,c"),
        False,
        "q\n",
    ),
    Step(
        "record at a terminal, ready for the first entry",
        300,
        ("record", "NEW.json", "--players", "a,b,c"),
        terminal=True,
    ),
    Step("ingest LOG into 40 deals", 150, ("ingest", "LOG", "--db", "DB"), True),
    Step("ingest LOG into a new database", 250, ("ingest", "LOG", "--db", "NEW.duckdb"), True),
)


@dataclass(frozen=True)
class Figure:
    step: str
    runs: int
    wall_ms: float | None  # median; None when only instructions were counted (--runs 0)
    cpu_ms: float | None  # median
    over_floor_ms: float | None  # the median wall over the floor's, for ingest
    target_ms: int | None
    instructions: int | None


def _command(step: Step, log: Path, folder: Path) -> list[str]:
    """``step``'s command line, its new files and its database in ``folder``."""
    places = {"LOG": log, "DB": folder / "forty.duckdb"}
    words = [str(places.get(w, w)).replace("NEW", str(folder / "new")) for w in step.words]
    if step.words[0] == "-c":
        return [sys.executable, *words]
    return cli(*words)


def _logs(data: Path) -> tuple[Path, Path]:
    """The 40-deal log, and the 40 other deals the existing database holds."""
    data.mkdir(parents=True, exist_ok=True)
    logs = []
    for seed in (1, 2):
        log = data / f"startup-40-seed{seed}.json"
        if not log.exists():
            words = ("simulate", "--deals", "40", "--seed", seed, "--out", log)
            timed_command(cli(*map(str, words)))
        logs.append(log)
    return logs[0], logs[1]


# What a terminal's prompt_toolkit is sent and answers: its request for the cursor's place
# (answered, as a terminal would: else it waits, then warns), and bracketed paste turned on
# as the prompt starts taking input.
_WHERE, _HERE, _TAKING = b"\x1b[6n", b"\x1b[1;1R", b"\x1b[?2004h"
_QUIET_SECONDS = 600  # under callgrind, a minute can pass without a word


def at_terminal(command: list[str], cwd: Path) -> tuple[float, float]:
    """``command`` run at a pseudo-terminal, ``q`` typed at its first prompt: the CPU seconds
    of the whole run, and the wall seconds until the prompt took input."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    pid, fd = pty.fork()
    if pid == 0:  # the child: the command, nothing else
        os.chdir(cwd)
        os.execvp(command[0], command)
    seen, ready = b"", None
    try:
        while True:
            if not select.select([fd], [], [], _QUIET_SECONDS)[0]:
                os.kill(pid, signal.SIGKILL)
                raise SystemExit(f"{' '.join(command)} at a terminal said nothing for a while")
            try:
                chunk = os.read(fd, 65536)
            except OSError:  # the command ended
                break
            if not chunk:
                break
            seen += chunk
            if _WHERE in chunk:
                os.write(fd, _HERE)
            if ready is None and _TAKING in seen:
                ready = time.perf_counter() - start
                os.write(fd, b"q\r")
    finally:
        _, status = os.waitpid(pid, 0)
        os.close(fd)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if ready is None or os.waitstatus_to_exitcode(status) not in (0, 1):
        raise SystemExit(f"{' '.join(command)} at a terminal: {seen[-2000:]!r}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, ready


def _callgrind(command: list[str], step: Step, folder: Path) -> int:
    """Instructions of ``command`` and every process it starts, counted by callgrind."""
    out = folder / "callgrind"
    out.mkdir()
    traced = [
        "valgrind",
        "--tool=callgrind",
        "--trace-children=yes",
        f"--callgrind-out-file={out}/%p",
        *command,
    ]
    if step.terminal:
        at_terminal(traced, folder)
    else:
        stdin = None if step.stdin is None else step.stdin.encode()
        done = subprocess.run(traced, input=stdin, capture_output=True, cwd=folder)
        if done.returncode not in (0, 1):
            raise SystemExit(f"callgrind of {' '.join(command)} failed: {done.stderr[-2000:]!r}")
    totals = [re.search(rb"^totals: (\d+)", f.read_bytes(), re.MULTILINE) for f in out.iterdir()]
    if not totals or None in totals:
        raise SystemExit(f"callgrind of {' '.join(command)} counted nothing")
    return sum(int(t.group(1)) for t in totals if t)


def bytecode() -> str | None:
    """Write the bytecode of the package and of the packages the commands import, as a first
    import would where bytecode is written; None when it is all there, else what is not."""
    import loo_replay

    folders = {Path(loo_replay.__file__).parent}
    for name in ("typer", "click", "duckdb", "pyarrow", "orjson", "prompt_toolkit"):
        try:
            module = __import__(name)
        except ImportError:
            continue
        if getattr(module, "__file__", None):
            folders.add(Path(module.__file__).parent)
    failed = [str(f) for f in sorted(folders) if not compileall.compile_dir(f, quiet=2)]
    return f"bytecode not written in {', '.join(failed)}: compiling counted" if failed else None


def measure(runs: int, data: Path, instructions: bool) -> list[Figure]:
    log, other = _logs(data)
    times: dict[str, list[tuple[float, float]]] = {s.name: [] for s in STEPS}
    counts: dict[str, int] = {}
    with tempfile.TemporaryDirectory() as temporary:
        loaded, work = Path(temporary) / "forty.duckdb", Path(temporary) / "work"
        timed_command(cli("ingest", str(other), "--db", str(loaded)))
        for run in range(runs + instructions):
            for step in STEPS:
                work.mkdir()
                shutil.copy(loaded, work / loaded.name)
                command = _command(step, log, work)
                if run == runs:  # a last round, under callgrind
                    counts[step.name] = _callgrind(command, step, work)
                elif step.terminal:
                    times[step.name].append(at_terminal(command, work))
                else:
                    times[step.name].append(timed_command(command, step.stdin))
                shutil.rmtree(work)
            print(f"round {run + 1} of {runs + instructions} done", flush=True)
    figures = []
    for step in STEPS:
        count = counts.get(step.name)
        if not runs:  # instructions alone
            figures.append(Figure(step.name, 0, None, None, None, step.target_ms, count))
            continue
        floor = statistics.median(wall for _, wall in times[STEPS[1].name])
        wall = statistics.median(w for _, w in times[step.name])
        cpu = statistics.median(c for c, _ in times[step.name])
        over = 1000 * (wall - floor) if step.over_floor else None
        figures.append(
            Figure(step.name, runs, 1000 * wall, 1000 * cpu, over, step.target_ms, count)
        )
    return figures


def _ms(value: float | None) -> str:
    return "" if value is None else f"{value:.0f}"


def table(figures: list[Figure], built: str, load: str, compiling: str | None = None) -> str:
    runs = figures[0].runs
    timed = f"medians of {runs} runs, in rounds" if runs else "instructions alone"
    lines = [
        f"Start-up on the 40-deal log ({built}; {timed}; load average before the runs "
        f"{load}{'; ' + compiling if compiling else ''}):",
        "",
        "| command | wall ms | CPU ms | over the floor ms | target ms | instructions |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for f in figures:
        over = f.over_floor_ms is not None or f.step.startswith("ingest")
        target = "" if f.target_ms is None else f"{f.target_ms}" + (" over" if over else "")
        count = f"{f.instructions:,}" if f.instructions is not None else ""
        lines.append(
            f"| `{f.step}` | {_ms(f.wall_ms)} | {_ms(f.cpu_ms)} | {_ms(f.over_floor_ms)} "
            f"| {target} | {count} |"
        )
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--runs", type=int, default=10, help="timed runs of each command (0: instructions alone)"
    )
    parser.add_argument("--data", type=Path, default=DATA, metavar="DIR", help="the logs' cache")
    parser.add_argument(
        "--instructions",
        action=argparse.BooleanOptionalAction,
        default=shutil.which("valgrind") is not None,
        help="count each command's instructions once under callgrind (default: with valgrind)",
    )
    result_options(parser, "startup")
    args = parser.parse_args()
    if not (args.runs or args.instructions):
        parser.error("--runs 0 counts instructions alone: it needs valgrind")
    compiling = bytecode()
    load = ", ".join(f"{n:.1f}" for n in os.getloadavg())
    figures = measure(args.runs, args.data, args.instructions)
    built = measured_build()
    fields = {
        "build": built,
        "load": load,
        "compiling": compiling,
        "figures": [asdict(f) for f in figures],
    }
    save(args, fields, table(figures, built, load, compiling))


if __name__ == "__main__":
    main()
