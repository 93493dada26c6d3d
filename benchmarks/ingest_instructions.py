"""Instructions a deal of ``ingest --jobs 1 --no-analysis``, counted by callgrind.

    python benchmarks/ingest_instructions.py [--checkout DIR] [--deals 2000]

Simulates ``--deals`` six-player three-card deals (sessions of 100; the same seed, the same
log, whichever checkout runs), then loads all of them, and the first half of the sessions,
each into a new database under ``valgrind --tool=callgrind --trace-children=yes`` (the two
at once), summing the instructions of every process.  A deal costs
(total(N) - total(N/2)) / (N/2): start-up and anything paid once cancel out, and a busy
machine does not change the count, as it does the seconds.  ``--command validate`` counts
``validate --format json --jobs 1`` the same way.
The checkout (this one by default) runs from its own folder, on ``PYTHONPATH``, in the build
it has (``--version`` is saved with the figures), with ``PYTHONHASHSEED=0`` so that two runs
of one build count alike.  Writes benchmarks/results/ingest-instructions-latest.json and .md
(``--results``); benchmarks/results/ingest-instructions.md gathers the runs kept.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from saving import result_options, save

ROOT = Path(__file__).resolve().parents[1]
PER_SESSION = 100


def _cli(checkout: Path, *args: str) -> tuple[list[str], dict[str, str]]:
    env = {k: v for k, v in os.environ.items() if k != "LOO_REPLAY_PURE"}
    env.update(PYTHONPATH=str(checkout), PYTHONHASHSEED="0")
    return [sys.executable, "-m", "loo_replay", *args], env


def _log(checkout: Path, folder: Path, deals: int, seed: int) -> Path:
    log = folder / f"three-card-6-{deals}-{seed}.jsonl"
    if not log.exists():
        sessions = str(-(-deals // PER_SESSION))
        words = ("simulate", "--players", "6", "--deals", str(PER_SESSION))
        command, env = _cli(checkout, *words, "--sessions", sessions, "--seed", str(seed))
        subprocess.run([*command, "--out", str(log)], env=env, check=True, cwd=checkout)
    return log


def _callgrind(checkout: Path, command: str, log: Path, work: Path) -> int:
    """The instructions of every process of ``command`` over ``log``, summed."""
    out = work / "callgrind"
    out.mkdir()
    if command == "ingest":
        args = ("ingest", str(log), "--db", str(work / "new.duckdb"), "--jobs", "1")
        args = (*args, "--no-analysis")
    else:
        args = ("validate", str(log), "--format", "json", "--jobs", "1")
    words, env = _cli(checkout, *args)
    traced = [
        "valgrind",
        "--tool=callgrind",
        "--trace-children=yes",
        f"--callgrind-out-file={out}/%p",
        *words,
    ]
    done = subprocess.run(
        traced, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env, cwd=checkout
    )
    counts = [int(n) for n in re.findall(r"Collected : (\d+)", done.stderr)]
    if done.returncode not in (0, 1) or not counts:
        raise SystemExit(f"callgrind of {' '.join(args)} failed: {done.stderr[-2000:]}")
    return sum(counts)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--checkout", type=Path, default=ROOT, help="the checkout to count")
    parser.add_argument("--deals", type=int, default=2000, help="N, a multiple of 200")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--command", choices=("ingest", "validate"), default="ingest")
    parser.add_argument("--data", type=Path, default=ROOT / "benchmarks" / "data")
    result_options(parser, "ingest-instructions-latest")
    args = parser.parse_args()
    checkout = args.checkout.resolve()
    args.data.mkdir(parents=True, exist_ok=True)
    log = _log(checkout, args.data, args.deals, args.seed)
    lines = log.read_bytes().splitlines(keepends=True)
    version, env = _cli(checkout, "--version")
    built = subprocess.run(version, env=env, capture_output=True, text=True, cwd=checkout)
    with tempfile.TemporaryDirectory() as tmp:
        half = Path(tmp) / "half.jsonl"
        half.write_bytes(b"".join(lines[: len(lines) // 2]))
        runs = {"all": log, "half": half}
        for name in runs:
            (Path(tmp) / name).mkdir()
        with ThreadPoolExecutor(2) as pool:  # both at once: the count does not mind
            started = {
                name: pool.submit(_callgrind, checkout, args.command, path, Path(tmp) / name)
                for name, path in runs.items()
            }
            counts = {name: run.result() for name, run in started.items()}
        for name, count in counts.items():
            print(f"{name}: {count:,} instructions", file=sys.stderr)
    per_deal = round((counts["all"] - counts["half"]) / (args.deals // 2))
    build = built.stdout.strip()
    which = "compiled" if ", compiled" in build else "pure Python"
    text = (
        f"`{args.command} --jobs 1{' --no-analysis' if args.command == 'ingest' else ''}`, "
        f"{args.deals:,} six-player three-card deals against the first {args.deals // 2:,} "
        f"(callgrind, every process; {which}):\n\n"
        "| deals | instructions | half | a deal |\n|---:|---:|---:|---:|\n"
        f"| {args.deals:,} | {counts['all']:,} | {counts['half']:,} | {per_deal:,} |\n"
    )
    fields = {"command": args.command, "build": build, "deals": args.deals, **counts}
    save(args, {**fields, "per_deal": per_deal}, text)


if __name__ == "__main__":
    main()
