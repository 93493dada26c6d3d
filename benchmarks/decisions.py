"""Speed of judging decisions (docs/judging-decisions.md): `python benchmarks/decisions.py`.

On simulated sessions of three-card Loo with 6 players and five-card Loo with 5:

- the command: ``loo-replay analyse LOG --decisions --samples K --jobs 2 --format json``
  (K = 100 by default), wall time as deals per second with two worker processes (on a
  shared machine, other processes' load counts against it), and the peak RSS of the
  largest process;
- where the time goes, in this process on one core (CPU time): the declarations, the
  cards, and within them the drawing of worlds; decisions judged, and the nodes of the
  max^n finish per world and option.

Which build ran (compiled or pure Python) is in the results.  Writes
benchmarks/results/<name>.json and the table docs/performance.md carries in <name>.md.
"""

from __future__ import annotations

import argparse
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import orjson

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from saving import both_tables, result_options, save, table_options  # noqa: E402

from loo_replay import build  # noqa: E402
from loo_replay.engine import judging, worlds  # noqa: E402
from loo_replay.logs.reader import Document  # noqa: E402
from loo_replay.rulesets import RuleChoice, builtin  # noqa: E402
from loo_replay.run.audit import SessionReport, audit_document  # noqa: E402
from loo_replay.simulate import Simulator  # noqa: E402

DEALS_PER_SESSION = 10  # many sessions: a task of the command is a session or more


@dataclass
class Figure:
    ruleset: str
    players: int
    deals: int
    samples: int
    wall_seconds: float
    deals_per_s: float  # on two cores (--jobs 2)
    peak_rss_mb: float
    decisions: int
    cpu_seconds: float  # one core, in process
    declarations_share: float  # of that CPU time
    cards_share: float
    worlds_share: float  # drawing the worlds, of both


def sessions(ruleset: str, players: int, deals: int, seed: int) -> list[dict[str, Any]]:
    sim = Simulator(builtin(ruleset).options, ruleset, players, seed)
    return list(sim.sessions(-(-deals // DEALS_PER_SESSION), DEALS_PER_SESSION))


def command(log: Path, samples: int) -> tuple[float, float]:
    """(wall seconds, peak RSS in MB of the largest process) of analyse --decisions."""
    args = [sys.executable, "-m", "loo_replay", "analyse", str(log), "--decisions"]
    args += ["--samples", str(samples), "--jobs", "2", "--format", "json"]
    start = time.perf_counter()
    done = subprocess.run(args, capture_output=True, check=False, cwd=ROOT)
    seconds = time.perf_counter() - start
    assert done.returncode in (0, 1), done.stderr.decode()
    return seconds, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024


def timed(spent: dict[str, float], name: str, f: Callable[..., Any]) -> Callable[..., Any]:
    def wrapper(*args: Any, **kw: Any) -> Any:
        start = time.process_time()
        try:
            return f(*args, **kw)
        finally:
            spent[name] += time.process_time() - start

    return wrapper


def breakdown(docs: list[dict[str, Any]], samples: int) -> tuple[int, float, dict[str, float]]:
    """(decisions, CPU seconds, seconds by part) of judging every deal here, on one core."""
    reports = []
    for i, doc in enumerate(docs):
        report = audit_document(Document("bench", i + 1, orjson.dumps(doc)), RuleChoice())
        assert isinstance(report, SessionReport) and report.options is not None
        reports.append(report)
    spent = dict.fromkeys(("declarations", "cards", "worlds"), 0.0)
    judge, draw = judging._Judge, worlds.Worlds
    saved = judge.declaration, judge.card, draw.draw
    judge.declaration = timed(spent, "declarations", judge.declaration)  # type: ignore[method-assign]
    judge.card = timed(spent, "cards", judge.card)  # type: ignore[method-assign]
    draw.draw = timed(spent, "worlds", draw.draw)  # type: ignore[method-assign]
    decisions = 0
    start = time.process_time()
    try:
        for report in reports:
            assert report.options is not None
            for deal in report.deals:
                decisions += len(
                    judging.judge_deal(deal, report.options, samples, 0, report.id).items
                )
    finally:
        judge.declaration, judge.card, draw.draw = saved  # type: ignore[method-assign]
    return decisions, time.process_time() - start, spent


def measure(ruleset: str, players: int, deals: int, samples: int, seed: int) -> Figure:
    docs = sessions(ruleset, players, deals, seed)
    count = sum(len(d["deals"]) for d in docs)
    with tempfile.TemporaryDirectory() as tmp:
        log = Path(tmp) / "bench.jsonl"
        log.write_bytes(b"".join(orjson.dumps(d) + b"\n" for d in docs))
        wall, rss = command(log, samples)
    decisions, cpu, spent = breakdown(docs, samples)
    return Figure(
        ruleset,
        players,
        count,
        samples,
        round(wall, 2),
        round(count / wall, 2),
        round(rss),
        decisions,
        round(cpu, 2),
        round(spent["declarations"] / cpu, 3),
        round(spent["cards"] / cpu, 3),
        round(spent["worlds"] / cpu, 3),
    )


def table(figures: list[Figure], which: str) -> str:
    lines = [
        "| ruleset | players | deals | K | deals/s, 2 jobs (wall) | deals/s, one core (CPU) "
        "| peak RSS | decisions | declarations | cards | drawing worlds |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for f in figures:
        lines.append(
            f"| {f.ruleset} | {f.players} | {f.deals:,} | {f.samples} | {f.deals_per_s} | "
            f"{f.deals / f.cpu_seconds:.2f} | {f.peak_rss_mb:.0f} MB | {f.decisions:,} | "
            f"{f.declarations_share:.0%} | {f.cards_share:.0%} | {f.worlds_share:.0%} |"
        )
    lines.append("")
    lines.append(f"Build: {which}.")
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    table_options(parser, 1000, 20)  # enough for start-up not to count
    parser.add_argument("--samples", type=int, default=100)
    result_options(parser, "decisions")
    args = parser.parse_args()
    figures = both_tables(args, lambda r, p, d: measure(r, p, d, args.samples, args.seed))
    which = build()
    save(args, {"build": which, "figures": [asdict(f) for f in figures]}, table(figures, which))


if __name__ == "__main__":
    main()
