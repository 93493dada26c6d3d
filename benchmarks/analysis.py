"""Speed of the double-dummy analysis on simulated sessions: `python benchmarks/analysis.py`.

One core, in this process, CPU time (``time.process_time``: the machine is
shared, and other processes' load does not count against us):

- three-card with 6 players and five-card with 5 players: deals analysed per
  second (each analysis replays its deal to the start of play, as for an audit
  that kept nothing), nodes per deal (median, p99, max), the share of deals over
  the node budget (unsolved);
- three-card: what auditing costs per deal without and with the analysis (the
  audit of the documents, then the same keeping the start of play, as ``ingest``
  does, plus ``analyse_deal`` for every deal), measured alternately and the best
  of each kept, as a ratio;
- three-card: the ``loo-replay audit`` command itself (load into DuckDB, reports,
  replay pages, ``--jobs 1``) with the analysis and with ``--no-analysis``, CPU of the
  child processes, alternately, best of each, with and without the replay pages;
- the same command on a larger log (``--large-deals``, past ``REPLAY_ALL_LIMIT``): there
  only deals with findings get a replay page, so the analysis weighs most.

Which build ran (compiled or pure Python, ``LOO_REPLAY_PURE=1``) is in the results.

Writes benchmarks/results/<name>.json and the table docs/analysis.md carries
in <name>.md.  Compare ratios within one run.
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import orjson

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from loo_replay import build  # noqa: E402
from loo_replay.engine.analysis import (  # noqa: E402
    DEFAULT_MAX_NODES,
    SOLVED,
    UNSOLVED,
    DealAnalysis,
    analyse_deal,
    start_of_play,
)
from loo_replay.engine.replay import AtPlay  # noqa: E402
from loo_replay.logs.reader import Document  # noqa: E402
from loo_replay.reports.build import REPLAY_ALL_LIMIT  # noqa: E402
from loo_replay.rulesets import RuleChoice, builtin  # noqa: E402
from loo_replay.run.audit import SessionReport, audit_document  # noqa: E402
from loo_replay.simulate import Simulator  # noqa: E402

RESULTS = ROOT / "benchmarks" / "results"
DEALS_PER_SESSION = 100
TABLES = (("three-card", 6), ("five-card", 5))


@dataclass
class Figure:
    ruleset: str
    players: int
    deals: int
    solved: int
    skipped: int
    unsolved: int
    cpu_seconds: float
    deals_per_s: float  # every deal, skipped ones included
    analysed_per_s: float  # solved deals per second of the whole run
    nodes_median: int
    nodes_p99: int
    nodes_max: int
    unsolved_share: float


def documents(ruleset: str, players: int, deals: int, seed: int) -> list[Document]:
    """Simulated sessions of ``deals`` deals (whole sessions) as raw documents."""
    sim = Simulator(builtin(ruleset).options, ruleset, players, seed)
    sessions = -(-deals // DEALS_PER_SESSION)
    return [
        Document("bench", i + 1, orjson.dumps(doc))
        for i, doc in enumerate(sim.sessions(sessions, DEALS_PER_SESSION))
    ]


def audited(docs: list[Document], at_play: AtPlay | None = None) -> list[SessionReport]:
    out = []
    for doc in docs:
        report = audit_document(doc, RuleChoice(), at_play)
        assert isinstance(report, SessionReport)
        out.append(report)
    return out


def analyse_all(reports: list[SessionReport], max_nodes: int) -> list[DealAnalysis]:
    out = []
    for report in reports:
        assert report.options is not None
        out.extend(analyse_deal(d, report.options, max_nodes) for d in report.deals)
    return out


def speed(ruleset: str, players: int, deals: int, seed: int, max_nodes: int) -> Figure:
    reports = audited(documents(ruleset, players, deals, seed))
    start = time.process_time()
    analyses = analyse_all(reports, max_nodes)
    seconds = time.process_time() - start
    solved = [a for a in analyses if a.status == SOLVED]
    unsolved = sum(a.status == UNSOLVED for a in analyses)
    nodes = sorted(a.nodes for a in analyses if a.status != "skipped")
    tried = len(solved) + unsolved
    return Figure(
        ruleset,
        players,
        len(analyses),
        len(solved),
        len(analyses) - tried,
        unsolved,
        round(seconds, 3),
        round(len(analyses) / seconds),
        round(len(solved) / seconds),
        int(statistics.median(nodes)),
        nodes[min(len(nodes) - 1, int(len(nodes) * 0.99))],
        nodes[-1],
        round(unsolved / tried, 4) if tried else 0.0,
    )


def audit_cost(deals: int, seed: int, max_nodes: int, rounds: int) -> dict[str, float]:
    """CPU seconds per deal of the audit of three-card documents, without and with the
    analysis, best of ``rounds`` alternating runs."""
    docs = documents("three-card", 6, deals, seed)
    without, with_analysis = [], []
    for _ in range(rounds):
        start = time.process_time()
        audited(docs)
        without.append(time.process_time() - start)
        start = time.process_time()
        analyse_all(audited(docs, start_of_play), max_nodes)  # as ingest does
        with_analysis.append(time.process_time() - start)
    count = len(docs) * DEALS_PER_SESSION
    return {
        "deals": count,
        "audit_ms_per_deal": round(min(without) / count * 1000, 4),
        "audit_with_analysis_ms_per_deal": round(min(with_analysis) / count * 1000, 4),
        "ratio": round(min(with_analysis) / min(without), 2),
    }


def _child_cpu(args: list[str]) -> float:
    """CPU seconds (user + system) of ``loo-replay ARGS`` and the processes it waits for;
    a run that fails (exit status 2) is an error, not a figure."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(
        [sys.executable, "-m", "loo_replay", *args], check=False, capture_output=True, cwd=ROOT
    )
    assert done.returncode in (0, 1), done.stderr.decode()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime


def audit_command(
    deals: int,
    seed: int,
    rounds: int,
    pages_options: tuple[str, ...] = ("--replays", "--no-replays"),
) -> dict[str, float]:
    """CPU seconds of ``loo-replay audit --jobs 1`` on three-card sessions with the analysis
    and with ``--no-analysis``, for each of ``pages_options``, best of ``rounds``."""
    docs = documents("three-card", 6, deals, seed)
    out: dict[str, float] = {"deals": len(docs) * DEALS_PER_SESSION}
    with tempfile.TemporaryDirectory() as tmp:
        log = Path(tmp) / "three.jsonl"
        log.write_bytes(b"".join(doc.raw + b"\n" for doc in docs))
        for pages in pages_options:
            seconds: dict[str, list[float]] = {"with": [], "without": []}
            for i in range(rounds * 2):
                kind = ("with", "without")[i % 2]
                run = Path(tmp) / f"run{i}{pages}"  # the reports' own folder: the database
                db = Path(tmp) / f"run{i}{pages}.duckdb"  # beside it, not a file in it
                args = ["audit", str(log), "--db", str(db), "--out", str(run)]
                args += ["--jobs", "1", pages] + (["--no-analysis"] if kind == "without" else [])
                seconds[kind].append(_child_cpu(args))
            key = pages.removeprefix("--").replace("-", "_")
            out[f"{key}_with_s"] = round(min(seconds["with"]), 2)
            out[f"{key}_without_s"] = round(min(seconds["without"]), 2)
            out[f"{key}_ratio"] = round(min(seconds["with"]) / min(seconds["without"]), 2)
    return out


def table(
    figures: list[Figure],
    cost: dict[str, float],
    command: dict[str, float | str],
    large: dict[str, float],
) -> str:
    lines = [
        "| ruleset | players | deals | analysed/s | all deals/s | nodes median | p99 | max "
        "| unsolved |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for f in figures:
        lines.append(
            f"| {f.ruleset} | {f.players} | {f.deals:,} | {f.analysed_per_s:,} | "
            f"{f.deals_per_s:,} | {f.nodes_median:,} | {f.nodes_p99:,} | {f.nodes_max:,} | "
            f"{f.unsolved_share:.2%} |"
        )
    lines.append("")
    lines.append(
        f"Audit of three-card sessions ({cost['deals']:,} deals), CPU per deal: "
        f"{cost['audit_ms_per_deal']} ms without the analysis, "
        f"{cost['audit_with_analysis_ms_per_deal']} ms with it (× {cost['ratio']})."
    )
    lines.append("")
    lines.append(
        f"`loo-replay audit --jobs 1` of the same kind of sessions ({command['deals']:,} deals), "
        f"CPU seconds with the analysis against `--no-analysis`: with replay pages "
        f"{command['replays_with_s']} s vs {command['replays_without_s']} s "
        f"(× {command['replays_ratio']}), `--no-replays` {command['no_replays_with_s']} s vs "
        f"{command['no_replays_without_s']} s (× {command['no_replays_ratio']})."
    )
    lines.append("")
    pages = "for every deal" if large["deals"] <= REPLAY_ALL_LIMIT else "for deals with findings"
    lines.append(
        f"The same command on a larger log ({large['deals']:,} deals, replay pages {pages}): "
        f"{large['replays_with_s']} s vs {large['replays_without_s']} s "
        f"(× {large['replays_ratio']})."
    )
    lines.append("")
    lines.append(f"Build: {command['build']}.")
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=2000, help="deals per table")
    parser.add_argument("--audit-deals", type=int, default=1000, metavar="DEALS")
    parser.add_argument("--rounds", type=int, default=3, help="alternating audit runs")
    parser.add_argument("--command-deals", type=int, default=3000, metavar="DEALS")
    parser.add_argument("--large-deals", type=int, default=20000, metavar="DEALS")
    parser.add_argument("--large-rounds", type=int, default=2, metavar="N")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--max-nodes", type=int, default=DEFAULT_MAX_NODES)
    parser.add_argument("--results", default="analysis", help="name of the results files")
    parser.add_argument("--results-dir", type=Path, default=RESULTS, metavar="DIR")
    args = parser.parse_args()
    figures = []
    for ruleset, players in TABLES:
        fig = speed(ruleset, players, args.deals, args.seed, args.max_nodes)
        print(fig, flush=True)
        figures.append(fig)
    cost = audit_cost(args.audit_deals, args.seed, args.max_nodes, args.rounds)
    print(cost, flush=True)
    command: dict[str, float | str] = {"build": build()}
    command.update(audit_command(args.command_deals, args.seed, args.rounds))
    print(command, flush=True)
    large = audit_command(args.large_deals, args.seed, args.large_rounds, ("--replays",))
    print(large, flush=True)
    out: Path = args.results_dir
    out.mkdir(parents=True, exist_ok=True)
    result = {
        "python": sys.version.split()[0],
        "date": time.strftime("%Y-%m-%d"),
        "max_nodes": args.max_nodes,
        "figures": [asdict(f) for f in figures],
        "build": build(),
        "audit": cost,
        "audit_command": command,
        "audit_command_large": large,
    }
    (out / f"{args.results}.json").write_text(json.dumps(result, indent=2) + "\n")
    (out / f"{args.results}.md").write_text(table(figures, cost, command, large))
    print(table(figures, cost, command, large))


if __name__ == "__main__":
    main()
