"""Every command that reads a database, at each size: `python benchmarks/commands.py
[--sizes 40,40000,100000,1000000]`.

The databases: at 40 deals, the start-up log (``simulate --deals 40 --seed 1``,
benchmarks/startup.py's) loaded by ``ingest``; from 10,000 deals, benchmarks/fairness.py's
(10,000 analysed six-player three-card deals copied under new session ids); at any other
size below that, benchmarks/run.py's log of that many deals loaded by ``ingest`` (``make
bench BENCH_SIZES=2000`` tries the benchmark small); all cached in benchmarks/data/.  Each
size runs on two copies of it, both as a load leaves them (the fairness tests and the
collusion screen stale):

- ``report --jobs 2`` after a load (it computes the tests and the screen first);
- on the other copy, ``fairness --db`` and ``collusion --db`` (which compute and keep
  them), ``fairness --db --format json``, then ``report --jobs 2`` with both up to date
  (the report's own part), ``stats``, ``query`` of an aggregate (deals by ruleset),
  ``export --parquet`` and ``serve``: its first page (the first request, then
  ``--samples`` more) and the replays of ``--samples`` deals at random (among the sessions
  whose documents the database keeps: fairness.py copies the rows of a session, not its
  document, so the copies have no replay).

Each command is measured end to end by process_tree.py: wall, CPU seconds of every process
(the figure a busy machine moves least), the peak resident memory of its process tree.  For
``serve`` the server's own CPU a request and its peak are given, the wall of a request its
90th percentile (the first page: the first request).  The ratio divides the wall by the
floor: at 40 deals the import floor (``python -c 'import typer, duckdb, pyarrow'``), at
every other size the one-core ``orjson`` parse of the same deals' log (benchmarks/run.py's).
With valgrind, at ``--instructions-up-to`` deals or fewer, each command (``serve`` aside)
is counted once under callgrind, its processes summed.  Writes
benchmarks/results/<name>.json and <name>.md; benchmarks/table.py puts them in the one
table.
"""

from __future__ import annotations

import argparse
import math
import random
import shutil
import sys
import tempfile
import time
import urllib.parse
from collections.abc import Callable
from dataclasses import asdict, dataclass, replace
from pathlib import Path

import duckdb
from explorer import Served, timed
from fairness import BASE_DEALS, database
from process_tree import Sampled, cpu_seconds
from process_tree import run as measured
from run import build, cli, floor, load_average, measured_build
from saving import result_options, save
from startup import FLOOR, Step, _callgrind, _logs

DATA = Path(__file__).resolve().parent / "data"
ONE_LOG = 40  # deals of the start-up log (startup.py's), the smallest size
AGGREGATE = (
    "SELECT s.ruleset, count(*) AS deals FROM deals d JOIN sessions s USING (session_id) "
    "GROUP BY s.ruleset ORDER BY s.ruleset"
)


@dataclass(frozen=True)
class Row:
    command: str
    deals: int
    wall_s: float
    cpu_s: float
    peak_rss_mb: float  # the process tree's
    ratio_to_floor: float | None
    instructions: int | None = None


def _database(deals: int, data: Path) -> Path:
    """The cached database of ``deals`` deals: below 10,000 the start-up log (40 deals) or
    run.py's log of that many deals (``make bench BENCH_SIZES=2000``), loaded by ``ingest``."""
    if deals >= BASE_DEALS:
        return database(deals, data)
    target = data / f"commands-{deals}.duckdb"
    if not target.exists():
        log = _logs(data)[0] if deals == ONE_LOG else build("three-card", deals, data)
        with tempfile.TemporaryDirectory(dir=data) as tmp:
            partial = Path(tmp) / "db.duckdb"
            if measured(cli("ingest", str(log), "--db", str(partial))).status not in (0, 1):
                raise SystemExit(f"ingest of {log} failed")
            partial.rename(target)
    return target


def _floor(deals: int, data: Path) -> float:
    """The floor a row's wall is divided by (see the module's docstring)."""
    if deals == ONE_LOG:
        walls = [measured([sys.executable, "-c", FLOOR]).wall for _ in range(3)]
        return min(walls)
    return floor(build("three-card", deals, data))


def _serve(db: Path, deals: int, samples: int, seed: int) -> list[Row]:
    """``serve``'s first page and replays, the server's CPU a request and peak memory."""
    with duckdb.connect(str(db), read_only=True) as con:  # the copies have no document
        replayable = con.execute(
            "SELECT session_id, deal FROM deals WHERE session_id IN "
            "(SELECT session_id FROM documents) ORDER BY session_id, deal"
        ).fetchall()
    picked = random.Random(seed).sample(replayable, min(samples, len(replayable)))
    served = Served(db)
    rows = []
    try:
        with Sampled(served.proc.pid) as peak:
            for name, urls in (
                ("serve: first page", [served.url] * (1 + samples)),
                (
                    f"serve: replay, {len(picked)} deals at random (p90)",
                    [
                        served.url + "replay?" + urllib.parse.urlencode({"session": s, "deal": d})
                        for s, d in picked
                    ],
                ),
            ):
                before = cpu_seconds(served.proc.pid)
                times = [timed(url) / 1000 for url in urls]
                cpu = (cpu_seconds(served.proc.pid) - before) / len(urls)
                wall = times[0] if name.endswith("page") else _p90(times)
                rows.append(Row(name, deals, wall, cpu, 0.0, None))
    finally:
        served.stop()
    return [Row(r.command, r.deals, r.wall_s, r.cpu_s, peak.mb, None) for r in rows]


def instructions_of(command: list[str], folder: Path) -> int:
    """``command``'s instructions and its processes', summed, as startup.py counts its
    steps' (a step of its own: no standard input, not at a terminal)."""
    return _callgrind(command, Step(" ".join(command), None, tuple(command)), folder)


def _p90(times: list[float]) -> float:
    return sorted(times)[math.ceil(0.9 * len(times)) - 1]  # nearest rank


def _sequence(source: Path, folder: Path, step: Callable[[str, list[str]], None]) -> None:
    """``step(name, command)`` of every command but ``serve``, on copies of ``source`` in
    ``folder``; the copy the others read is left at ``folder/db.duckdb``."""
    after_load, db = folder / "after-load.duckdb", folder / "db.duckdb"
    shutil.copy(source, after_load)
    step("report --jobs 2 (after a load)",
         cli("report", "--db", str(after_load), "--out", str(folder / "r1"), "--jobs", "2"))  # fmt: skip
    after_load.unlink()
    shutil.copy(source, db)
    d = ("--db", str(db))
    step("fairness --db", cli("fairness", *d))
    step("collusion --db", cli("collusion", *d))
    step("fairness --db --format json", cli("fairness", *d, "--format", "json"))
    step("report --jobs 2 (tests and screen up to date)",
         cli("report", *d, "--out", str(folder / "r2"), "--jobs", "2"))  # fmt: skip
    step("stats", cli("stats", *d))
    step("query (deals by ruleset)", cli("query", *d, AGGREGATE))
    step("export --parquet", cli("export", *d, "--parquet", str(folder / "parquet")))


def measure(
    deals: int, data: Path, samples: int, seed: int, instructions: bool, only: tuple[str, ...] = ()
) -> list[Row]:
    """Every command's row at ``deals`` deals (those whose names start with one of ``only``,
    if given), and with ``instructions`` each counted once more under callgrind, in the same
    order on fresh copies."""
    source = _database(deals, data)
    base = _floor(deals, data)
    rows: list[Row] = []

    def timed_step(name: str, command: list[str]) -> None:
        if only and not name.startswith(only):
            return
        cost = measured(command)
        if cost.status not in (0, 1):
            raise SystemExit(f"{' '.join(command)} failed with {cost.status}")
        rows.append(Row(name, deals, cost.wall, cost.cpu, cost.tree_rss_mb, cost.wall / base))
        print(_line(rows[-1]), flush=True)

    with tempfile.TemporaryDirectory() as tmp:
        _sequence(source, Path(tmp), timed_step)
        if not only or "serve".startswith(only):
            rows += _serve(Path(tmp) / "db.duckdb", deals, samples, seed)
            for row in rows[-2:]:
                print(_line(row), flush=True)
    if instructions:
        counts: dict[str, int] = {}
        with tempfile.TemporaryDirectory() as tmp:

            def counted(name: str, command: list[str]) -> None:
                if only and not name.startswith(only):
                    return
                with tempfile.TemporaryDirectory() as out:
                    counts[name] = instructions_of(command, Path(out))

            _sequence(source, Path(tmp), counted)
        rows = [replace(r, instructions=counts.get(r.command)) for r in rows]
    return rows


def _line(row: Row) -> str:
    ratio = f"x{row.ratio_to_floor:.1f}" if row.ratio_to_floor is not None else ""
    return (
        f"{row.deals:>9,} {row.command:48} {row.wall_s:8.2f}s wall {row.cpu_s:8.2f}s CPU "
        f"{row.peak_rss_mb:7.0f} MB {ratio}"
    )


def table(rows: list[Row], built: str, load: str) -> str:
    lines = [
        f"Commands over a database ({built}; load average before the runs {load}):",
        "",
        "| command | deals | wall s | CPU s | peak RSS (tree) | × floor | instructions |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        ratio = f"{r.ratio_to_floor:,.1f}" if r.ratio_to_floor is not None else ""
        count = f"{r.instructions:,}" if r.instructions is not None else ""
        lines.append(
            f"| `{r.command}` | {r.deals:,} | {r.wall_s:,.3f} | {r.cpu_s:,.3f} | "
            f"{r.peak_rss_mb:,.0f} MB | {ratio} | {count} |"
        )
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="40,40000,100000,1000000", help="deals, comma-separated")
    parser.add_argument("--samples", type=int, default=30, help="serve's requests of each kind")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--data", type=Path, default=DATA, metavar="DIR", help="the cache")
    parser.add_argument(
        "--instructions",
        action=argparse.BooleanOptionalAction,
        default=shutil.which("valgrind") is not None,
        help="count instructions under callgrind (default: with valgrind)",
    )
    parser.add_argument("--instructions-up-to", type=int, default=40, metavar="DEALS")
    parser.add_argument(
        "--only",
        default="",
        metavar="NAMES",
        help="the commands whose names start so (comma-separated)",
    )
    result_options(parser, "commands")
    args = parser.parse_args()
    load = load_average()
    built = measured_build()
    print(f"build: {built}", flush=True)
    rows = []
    for size in (int(s) for s in args.sizes.split(",")):
        counting = args.instructions and size <= args.instructions_up_to
        only = tuple(n for n in args.only.split(",") if n)
        rows += measure(size, args.data, args.samples, args.seed, counting, only)
    fields = {"build": built, "load": load, "rows": [asdict(r) for r in rows]}
    fields["finished"] = time.strftime("%H:%M:%S")
    save(args, fields, table(rows, built, load))


if __name__ == "__main__":
    main()
