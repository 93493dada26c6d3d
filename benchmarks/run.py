"""Throughput and memory of loo-replay on simulated logs: `python benchmarks/run.py`.

For each ruleset and size it builds a JSON Lines log of 6-player sessions
(simulated once per ruleset, then copied under new session ids up to the
size, and cached in benchmarks/data/), then measures in one run:

- floor: ``orjson.loads`` of every line, one core, the garbage collector off, the best
  of three runs and of one more before each run of the steps the targets name (what
  parsing alone costs, given the same chances as the steps it is compared with);
- validate: ``loo-replay validate --format json`` end to end, ``--jobs 2``, and
  ``--jobs 1`` up to ``--single-core-up-to`` deals (the cost a deal is the same at
  every size, and one core over a million five-card deals takes 12 minutes);
- ingest: ``ingest --jobs 2 --no-analysis`` into a fresh DuckDB file (the audit and the
  load alone); these three, the steps the targets name, are timed as the floor is, the
  fastest of ``--runs`` runs (3), with the largest peak RSS among them; then, up to
  ``--analysis-up-to`` deals, ``ingest --jobs 2`` into another (with the double-dummy
  analysis, on by default: six-handed five-card deals take it to about 100 deals/s);
- instructions: ``validate --format json --jobs 1`` under callgrind (valgrind), on the first
  ``--callgrind-deals`` deals, in the compiled build and in pure Python
  (``LOO_REPLAY_PURE=1``): the instructions a deal takes on one core, less the start-up (a
  run of the first half of those deals subtracted).  Counts are stable where times are not;
  without valgrind they are left out.

Each figure is printed as deals/s, MB/s, its time relative to the floor, the
peak RSS of the process tree and its CPU seconds (process_tree.py), and all are written to
benchmarks/results/<name>.json, with the table docs/performance.md carries in
<name>.md.  The machine is noisy: compare ratios within one run.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parent))  # as a module of the tests too
import process_tree

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "benchmarks" / "data"
RESULTS = ROOT / "benchmarks" / "results"
DEALS_PER_SESSION = 100
BASE_SESSIONS = 100  # simulated once: 10,000 deals, then copied


@dataclass
class Figure:
    ruleset: str
    deals: int
    step: str
    seconds: float
    deals_per_s: float
    mb_per_s: float
    ratio_to_floor: float
    peak_rss_mb: float  # the process tree's (summed over its processes), sampled
    cpu_s: float | None = None  # user + system, every process of the command


@dataclass
class Instructions:
    ruleset: str
    build: str  # "compiled" or "pure Python"
    deals: int
    instructions: int  # callgrind's total for the whole command
    per_deal: int  # what the second half of the deals adds, a deal


def cli(*args: str) -> list[str]:
    return [sys.executable, "-m", "loo_replay", *args]


def build(ruleset: str, deals: int, data: Path) -> Path:
    """A cached log of ``deals`` deals (in whole sessions): 100 simulated sessions, copied
    under new ids as often as it takes."""
    data.mkdir(parents=True, exist_ok=True)
    base = data / f"{ruleset}-base.jsonl"
    if not base.exists():
        subprocess.run(
            cli(
                "simulate",
                "--ruleset",
                ruleset,
                "--players",
                "6",
                "--deals",
                str(DEALS_PER_SESSION),
                "--sessions",
                str(BASE_SESSIONS),
                "--seed",
                "2026",
                "--out",
                str(base),
            ),
            check=True,
        )
    target = data / f"{ruleset}-{deals}.jsonl"
    if not target.exists():
        copy_sessions(base, deals, target)
    return target


def copy_sessions(base: Path, deals: int, target: Path) -> None:
    """``target``: the sessions of ``base`` (of DEALS_PER_SESSION deals each) copied under
    new ids until they hold ``deals`` deals."""
    lines = base.read_bytes().splitlines()
    with target.open("wb") as out:
        for n in range(-(-deals // DEALS_PER_SESSION)):
            copy, line = divmod(n, len(lines))
            doc = orjson.loads(lines[line])
            doc["session"]["id"] += f"-copy{copy}"
            out.write(orjson.dumps(doc) + b"\n")


def measure(command: list[str]) -> tuple[float, float]:
    """(seconds, peak RSS in MB of the process tree) of one command."""
    seconds, rss, _ = measure_cpu(command)
    return seconds, rss


def measure_cpu(command: list[str]) -> tuple[float, float, float]:
    """``measure``, and the CPU seconds (user + sys) of the command's processes and their
    threads: on a shared machine, the figure the load changes least (process_tree.py)."""
    cost = process_tree.run(command, cwd=ROOT)
    if cost.status not in (0, 1):
        raise SystemExit(f"{' '.join(command)} failed with {cost.status}")
    return cost.wall, cost.tree_rss_mb, cost.cpu


def best(
    command: Callable[[], list[str]], runs: int, log: Path, floors: list[float]
) -> tuple[float, float, float]:
    """The fastest of ``runs`` runs of ``command()`` (called afresh each run), the
    largest peak RSS among them and the least CPU seconds; before each run the floor of ``log`` is timed once more
    into ``floors``, so that the floor a ratio divides by had the same chances as the
    command, at the same moments (the machine's speed moves by half within minutes)."""
    times, peaks, cpus = [], [], []
    for _ in range(runs):
        floors.append(floor(log, 1))
        seconds, rss, cpu = measure_cpu(command())
        times.append(seconds)
        peaks.append(rss)
        cpus.append(cpu)
    return min(times), max(peaks), min(cpus)


def floor(path: Path, runs: int = 3) -> float:
    """Seconds ``orjson.loads`` takes over every line, on one core, with the cyclic garbage
    collector off (the floor as the issue that set the targets defines it): the best of
    ``runs``, so that a run the machine's load slowed does not flatter every ratio."""
    best = float("inf")
    gc.disable()
    try:
        for _ in range(runs):
            start = time.perf_counter()
            with path.open("rb") as f:
                for line in f:
                    orjson.loads(line)
            best = min(best, time.perf_counter() - start)
    finally:
        gc.enable()
    return best


def callgrind(log: Path, pure: bool) -> int:
    """Instructions callgrind counts for ``validate LOG --format json --jobs 1``."""
    env = {k: v for k, v in os.environ.items() if k != "LOO_REPLAY_PURE"}
    if pure:
        env["LOO_REPLAY_PURE"] = "1"
    with tempfile.TemporaryDirectory() as tmp:
        command = [
            "valgrind",
            "--tool=callgrind",
            f"--callgrind-out-file={Path(tmp) / 'out'}",
            *cli("validate", str(log), "--format", "json", "--jobs", "1"),
        ]
        done = subprocess.run(command, capture_output=True, text=True, cwd=ROOT, env=env)
    found = re.search(r"Collected : (\d+)", done.stderr)
    if done.returncode not in (0, 1) or found is None:
        raise SystemExit(f"callgrind of {log} failed: {done.stderr[-2000:]}")
    return int(found.group(1))


def instructions(ruleset: str, log: Path, deals: int) -> list[Instructions]:
    """The instructions of ``validate --jobs 1`` over the first ``deals`` deals of ``log``,
    compiled and pure, each as a deal's share of what the second half of them adds to a
    run of the first half (start-up, and any cost of a first run, cancel out)."""
    lines = log.read_bytes().splitlines(keepends=True)
    sessions = max(2, -(-deals // DEALS_PER_SESSION) // 2 * 2)
    out = []
    with tempfile.TemporaryDirectory() as tmp:
        many, half = Path(tmp) / "many.jsonl", Path(tmp) / "half.jsonl"
        many.write_bytes(b"".join(lines[:sessions]))
        half.write_bytes(b"".join(lines[: sessions // 2]))
        deals = sessions * DEALS_PER_SESSION
        for pure in (False, True):
            total, start = callgrind(many, pure), callgrind(half, pure)
            per_deal = round((total - start) / (deals // 2))
            which = "pure Python" if pure else "compiled"
            out.append(Instructions(ruleset, which, deals, total, per_deal))
            print(f"{ruleset:11} {deals:>9,} callgrind {which:11} {per_deal:>12,} a deal")
    return out


def instructions_table(counts: list[Instructions]) -> str:
    lines = [
        "| ruleset | build | deals | instructions | a deal |",
        "|---|---|---:|---:|---:|",
    ]
    for c in counts:
        lines.append(
            f"| {c.ruleset} | {c.build} | {c.deals:,} | {c.instructions:,} | {c.per_deal:,} |"
        )
    return "\n".join(lines) + "\n"


def report(
    ruleset: str,
    deals: int,
    step: str,
    seconds: float,
    rss: float,
    mb: float,
    base: float,
    cpu: float | None = None,
) -> Figure:
    fig = Figure(
        ruleset,
        deals,
        step,
        round(seconds, 3),
        round(deals / seconds),
        round(mb / seconds, 1),
        round(seconds / base, 2),
        round(rss, 1),
        None if cpu is None else round(cpu, 3),
    )
    print(
        f"{ruleset:11} {deals:>9,} {step:29} {fig.seconds:8.2f}s "
        f"{fig.deals_per_s:>9,} deals/s {fig.mb_per_s:7.1f} MB/s "
        f"x{fig.ratio_to_floor:<6} {fig.peak_rss_mb:7.1f} MB",
        flush=True,
    )
    return fig


def run(
    rulesets: list[str],
    sizes: list[int],
    single_core_up_to: int,
    analysis_up_to: int,
    data: Path,
    runs: int = 3,
) -> list[Figure]:
    figures: list[Figure] = []
    for ruleset in rulesets:
        for size in sizes:
            deals = -(-size // DEALS_PER_SESSION) * DEALS_PER_SESSION  # whole sessions
            log = build(ruleset, deals, data)
            mb = log.stat().st_size / 1e6
            floors = [floor(log)]
            steps: list[tuple[str, float, float, float]] = []  # ratios once every floor is in
            for jobs in (1, 2) if deals <= single_core_up_to else (2,):
                command = cli("validate", str(log), "--format", "json", "--jobs", str(jobs))
                steps.append((f"validate --jobs {jobs}", *best(lambda: command, runs, log, floors)))  # noqa: B023
            with tempfile.TemporaryDirectory() as tmp:
                db = str(Path(tmp) / "bench.duckdb")
                bare = str(Path(tmp) / "bare.duckdb")

                def bare_ingest() -> list[str]:
                    for stale in Path(tmp).glob("bare.duckdb*"):
                        stale.unlink()  # each run loads into a fresh file
                    return cli("ingest", str(log), "--db", bare, "--jobs", "2", "--no-analysis")  # noqa: B023

                steps.append(
                    ("ingest --jobs 2 --no-analysis", *best(bare_ingest, runs, log, floors))
                )
                if deals <= analysis_up_to:
                    command = cli("ingest", str(log), "--db", db, "--jobs", "2")
                    steps.append(("ingest --jobs 2", *measure_cpu(command)))
            base = min(floors)
            figures.append(report(ruleset, deals, "floor (orjson, 1 core)", base, 0.0, mb, base))
            for step, seconds, rss, cpu in steps:
                figures.append(report(ruleset, deals, step, seconds, rss, mb, base, cpu))
    return figures


def table(figures: list[Figure]) -> str:
    """The table of ``figures`` (Markdown) that docs/performance.md carries."""
    lines = [
        "| ruleset | deals | step | seconds | deals/s | MB/s | × floor | peak RSS |",
        "|---|---:|---|---:|---:|---:|---:|---:|",
    ]
    for f in figures:
        rss = f"{f.peak_rss_mb:,.0f} MB" if f.peak_rss_mb else "—"
        lines.append(
            f"| {f.ruleset} | {f.deals:,} | {f.step} | {f.seconds:,.2f} | {f.deals_per_s:,} | "
            f"{f.mb_per_s:,.1f} | {f.ratio_to_floor:,.1f} | {rss} |"
        )
    return "\n".join(lines) + "\n"


def measured_build() -> str:
    """Which build the figures are of, as ``--version`` says it without the module list:
    ``compiled``, ``compiled, with its profile`` (or a partly stale one: make pgo) or
    ``pure Python (why)``."""
    version = subprocess.run(cli("--version"), capture_output=True, text=True, check=True).stdout
    which = version.strip().partition(", ")[2]
    if which.startswith("compiled ("):
        _, profiled, profile = which.rstrip(")").rpartition(", with ")
        return f"compiled, with {profile}" if profiled else "compiled"
    return which


def load_average() -> str:
    """The load averages over 1, 5 and 15 minutes, as the results say them beside figures."""
    return ", ".join(f"{n:.1f}" for n in os.getloadavg())


def machine() -> dict[str, object]:
    """What the figures were measured on."""
    cpu = next(
        (
            line.split(":", 1)[1].strip()
            for line in Path("/proc/cpuinfo").read_text().splitlines()
            if line.startswith("model name")
        ),
        platform.processor(),
    )
    memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    return {
        "python": platform.python_version(),
        "machine": platform.machine(),
        "cpu": cpu,
        "cpus": os.cpu_count(),
        "memory_gib": round(memory, 1),
        "date": time.strftime("%Y-%m-%d"),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10000,100000,1000000", help="deals, comma-separated")
    parser.add_argument("--rulesets", default="three-card,five-card")
    parser.add_argument("--single-core-up-to", type=int, default=100_000, metavar="DEALS")
    parser.add_argument("--analysis-up-to", type=int, default=10_000, metavar="DEALS")
    parser.add_argument(
        "--runs", type=int, default=3, help="runs of validate and ingest, the fastest kept"
    )
    parser.add_argument("--results", default="throughput", help="name of the results files")
    parser.add_argument("--results-dir", type=Path, default=RESULTS, metavar="DIR")
    parser.add_argument("--data", type=Path, default=DATA, metavar="DIR", help="the logs' cache")
    parser.add_argument(
        "--callgrind-deals",
        type=int,
        default=10_000,
        metavar="DEALS",
        help="deals counted under callgrind per ruleset and build (0: none)",
    )
    args = parser.parse_args()
    which = measured_build()
    load = load_average()
    print(f"build: {which}", flush=True)
    sizes = [int(s) for s in args.sizes.split(",")]
    rulesets = args.rulesets.split(",")
    figures = run(
        rulesets, sizes, args.single_core_up_to, args.analysis_up_to, args.data, args.runs
    )
    counts: list[Instructions] = []
    if args.callgrind_deals and shutil.which("valgrind") is None:
        print("valgrind not found: no instruction counts")
    elif args.callgrind_deals:
        for ruleset in rulesets:
            deals = -(-args.callgrind_deals // DEALS_PER_SESSION) * DEALS_PER_SESSION
            counts += instructions(ruleset, build(ruleset, deals, args.data), deals)
    results: Path = args.results_dir
    results.mkdir(parents=True, exist_ok=True)
    result = {
        "machine": machine(),
        "build": which,
        "load": load,
        "runs": args.runs,
        "figures": [asdict(f) for f in figures],
        "instructions": [asdict(c) for c in counts],
    }
    (results / f"{args.results}.json").write_text(json.dumps(result, indent=2) + "\n")
    (results / f"{args.results}.md").write_text(table(figures))
    if counts:
        (results / f"{args.results}-instructions.md").write_text(instructions_table(counts))
    print(f"written {results / args.results}.json and .md")


if __name__ == "__main__":
    main()
