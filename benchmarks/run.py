"""Throughput and memory of loo-replay on simulated logs: `python benchmarks/run.py`.

For each ruleset and size it builds a JSON Lines log of 6-player sessions
(simulated once per ruleset, then copied under new session ids up to the
size, and cached in benchmarks/data/), then measures in one run:

- floor: ``orjson.loads`` of every line, one core (what parsing alone costs);
- validate: ``loo-replay validate --format json`` end to end, ``--jobs 1`` and ``2``;
- ingest / report: when those commands exist, into a fresh DuckDB file.

Each figure is printed as deals/s, MB/s, its time relative to the floor and
the peak RSS of the largest process, and all are written to
benchmarks/results/latest.json.  The machine is noisy: compare ratios within
one run.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import orjson

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
    peak_rss_mb: float


def cli(*args: str) -> list[str]:
    return [sys.executable, "-m", "loo_replay", *args]


def build(ruleset: str, deals: int) -> Path:
    """A cached log of ``deals`` deals: 100 simulated sessions copied under new ids."""
    DATA.mkdir(parents=True, exist_ok=True)
    base = DATA / f"{ruleset}-base.jsonl"
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
    target = DATA / f"{ruleset}-{deals}.jsonl"
    if target.exists():
        return target
    lines = base.read_bytes().splitlines()
    with target.open("wb") as out:
        copies = -(-deals // (DEALS_PER_SESSION * len(lines)))
        for copy in range(copies):
            for line in lines:
                doc = orjson.loads(line)
                doc["session"]["id"] += f"-copy{copy}"
                out.write(orjson.dumps(doc) + b"\n")
    return target


def measure(command: list[str]) -> tuple[float, float]:
    """(seconds, peak RSS in MB of the largest process) of one command."""
    start = time.perf_counter()
    proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, cwd=ROOT)
    _, status, usage = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(command)} failed with {proc.returncode}")
    return seconds, usage.ru_maxrss / 1024


def floor(path: Path) -> float:
    start = time.perf_counter()
    with path.open("rb") as f:
        for line in f:
            orjson.loads(line)
    return time.perf_counter() - start


def commands() -> set[str]:
    out = subprocess.run(cli("--help"), capture_output=True, text=True, check=True).stdout
    return {name for name in ("ingest", "report") if f" {name} " in out}


def report(
    ruleset: str, deals: int, step: str, seconds: float, rss: float, mb: float, base: float
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
    )
    print(
        f"{ruleset:11} {deals:>9,} {step:18} {fig.seconds:8.2f}s "
        f"{fig.deals_per_s:>9,} deals/s {fig.mb_per_s:7.1f} MB/s "
        f"x{fig.ratio_to_floor:<6} {fig.peak_rss_mb:7.1f} MB",
        flush=True,
    )
    return fig


def run(rulesets: list[str], sizes: list[int]) -> list[Figure]:
    figures: list[Figure] = []
    available = commands()
    for ruleset in rulesets:
        for deals in sizes:
            log = build(ruleset, deals)
            mb = log.stat().st_size / 1e6
            base = floor(log)

            def add(step: str, seconds: float, rss: float) -> None:
                figures.append(report(ruleset, deals, step, seconds, rss, mb, base))  # noqa: B023

            add("floor (orjson)", base, 0.0)
            for jobs in (1, 2):
                seconds, rss = measure(
                    cli("validate", str(log), "--format", "json", "--jobs", str(jobs))
                )
                add(f"validate --jobs {jobs}", seconds, rss)
            with tempfile.TemporaryDirectory() as tmp:
                db = str(Path(tmp) / "bench.duckdb")
                if "ingest" in available:
                    seconds, rss = measure(cli("ingest", str(log), "--db", db, "--jobs", "2"))
                    add("ingest --jobs 2", seconds, rss)
                if "report" in available and "ingest" in available:
                    out = str(Path(tmp) / "reports")
                    seconds, rss = measure(cli("report", "--db", db, "--out", out))
                    add("report", seconds, rss)
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10000,100000,1000000", help="deals, comma-separated")
    parser.add_argument("--rulesets", default="three-card,five-card")
    parser.add_argument("--results", default="latest.json", help="file name in results/")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    figures = run(args.rulesets.split(","), sizes)
    RESULTS.mkdir(parents=True, exist_ok=True)
    machine = {
        "python": platform.python_version(),
        "machine": platform.machine(),
        "cpus": os.cpu_count(),
        "date": time.strftime("%Y-%m-%d"),
    }
    result = {"machine": machine, "figures": [asdict(f) for f in figures]}
    (RESULTS / args.results).write_text(json.dumps(result, indent=2) + "\n")
    print(f"written {RESULTS / args.results}")


if __name__ == "__main__":
    main()
