"""What the benchmarks of benchmarks/ share: the two tables some measure (three-card Loo at
6 players, five-card Loo at 5), and where a benchmark leaves its results:
``<dir>/<name>.json`` (its figures, with the Python, the date and the build) and
``<dir>/<name>.md`` (the table docs/performance.md carries), the table printed too."""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

RESULTS = Path(__file__).resolve().parent / "results"
F = TypeVar("F")


def table_options(parser: argparse.ArgumentParser, three: int, five: int) -> None:
    """``--three-card-deals``, ``--five-card-deals`` (defaults ``three``, ``five``), ``--seed``."""
    parser.add_argument("--three-card-deals", type=int, default=three, metavar="DEALS")
    parser.add_argument("--five-card-deals", type=int, default=five, metavar="DEALS")
    parser.add_argument("--seed", type=int, default=2026)


def both_tables(args: argparse.Namespace, measure: Callable[[str, int, int], F]) -> list[F]:
    """``measure(ruleset, players, deals)`` of three-card Loo at 6 and five-card Loo at 5,
    each printed as it is done."""
    figures = []
    tables = (("three-card", 6, args.three_card_deals), ("five-card", 5, args.five_card_deals))
    for ruleset, players, deals in tables:
        figure = measure(ruleset, players, deals)
        print(figure, flush=True)
        figures.append(figure)
    return figures


def result_options(parser: argparse.ArgumentParser, name: str) -> None:
    """``--results NAME`` and ``--results-dir DIR`` (benchmarks/results by default)."""
    parser.add_argument("--results", default=name, help="name of the results files")
    parser.add_argument("--results-dir", type=Path, default=RESULTS, metavar="DIR")


def save(args: argparse.Namespace, fields: dict[str, Any], text: str) -> None:
    """The JSON of ``fields`` and the table ``text``, where ``args`` name them."""
    out: Path = args.results_dir
    out.mkdir(parents=True, exist_ok=True)
    result = {"python": sys.version.split()[0], "date": time.strftime("%Y-%m-%d"), **fields}
    (out / f"{args.results}.json").write_text(json.dumps(result, indent=2) + "\n")
    (out / f"{args.results}.md").write_text(text)
    print(text)


def timed(*args: str | Path) -> tuple[float, float]:
    """``loo-replay ARGS`` to the end: its CPU seconds (user + system, which another process
    on a busy machine does not inflate the way it inflates the wall clock) and wall seconds."""
    return timed_command([sys.executable, "-m", "loo_replay", *map(str, args)])


def timed_command(command: list[str], stdin: str | None = None) -> tuple[float, float]:
    """``command`` (with ``stdin`` as its standard input, if given) to the end, as ``timed``
    runs loo-replay: its CPU and wall seconds; exit status 0 or 1 (findings) expected."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(
        command,
        input=stdin,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(command)}: {done.stderr}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, wall
