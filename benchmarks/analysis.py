"""Speed of the double-dummy analysis on simulated sessions: `python benchmarks/analysis.py`.

One core, in this process, CPU time (``time.process_time``: the machine is
shared, and other processes' load does not count against us):

- three-card with 6 players and five-card with 5 players: deals analysed per
  second, nodes per deal (median, p99, max), the share of deals over the node
  budget (unsolved);
- three-card: what ``audit`` costs per deal without and with the analysis (the
  audit of the documents, then the same plus ``analyse_deal`` for every deal),
  measured alternately and the best of each kept, as a ratio.

Writes benchmarks/results/<name>.json and the table docs/analysis.md carries
in <name>.md.  Compare ratios within one run.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import orjson

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from loo_replay.audit import SessionReport, audit_document  # noqa: E402
from loo_replay.engine.analysis import (  # noqa: E402
    DEFAULT_MAX_NODES,
    SOLVED,
    UNSOLVED,
    DealAnalysis,
    analyse_deal,
)
from loo_replay.logs.reader import Document  # noqa: E402
from loo_replay.rulesets import RuleChoice, builtin  # noqa: E402
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


def audited(docs: list[Document]) -> list[SessionReport]:
    out = []
    for doc in docs:
        report = audit_document(doc, RuleChoice())
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
        analyse_all(audited(docs), max_nodes)
        with_analysis.append(time.process_time() - start)
    count = len(docs) * DEALS_PER_SESSION
    return {
        "deals": count,
        "audit_ms_per_deal": round(min(without) / count * 1000, 4),
        "audit_with_analysis_ms_per_deal": round(min(with_analysis) / count * 1000, 4),
        "ratio": round(min(with_analysis) / min(without), 2),
    }


def table(figures: list[Figure], cost: dict[str, float]) -> str:
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
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=2000, help="deals per table")
    parser.add_argument("--audit-deals", type=int, default=1000, metavar="DEALS")
    parser.add_argument("--rounds", type=int, default=3, help="alternating audit runs")
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
    out: Path = args.results_dir
    out.mkdir(parents=True, exist_ok=True)
    result = {
        "python": sys.version.split()[0],
        "date": time.strftime("%Y-%m-%d"),
        "max_nodes": args.max_nodes,
        "figures": [asdict(f) for f in figures],
        "audit": cost,
    }
    (out / f"{args.results}.json").write_text(json.dumps(result, indent=2) + "\n")
    (out / f"{args.results}.md").write_text(table(figures, cost))
    print(table(figures, cost))


if __name__ == "__main__":
    main()
