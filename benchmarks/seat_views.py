"""What the seat views and the judged decisions add to a replay page (docs/replay.md, "Seat
views"): `python benchmarks/seat_views.py`.

On simulated sessions of three-card Loo with 6 players and five-card Loo with 5, in this
process on one core (CPU time per deal, median, 90th percentile and slowest): the replay's
steps (``build_replay`` without the analysis), what every step's plays revealed
(``revealed_by_step``: every report and explorer page has it), and the page drawn from
both (``render_page``).  The judged decisions a report or ``serve`` shows are read from the
database (one query a deal), not judged again.  Which build ran is in the results.  Writes
benchmarks/results/<name>.json and the table docs/performance.md carries in <name>.md.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, TypeVar

import orjson

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from saving import both_tables, result_options, save, table_options  # noqa: E402

from loo_replay import build  # noqa: E402
from loo_replay.logs.reader import Document  # noqa: E402
from loo_replay.replayer.html import render_page  # noqa: E402
from loo_replay.replayer.judged import with_views  # noqa: E402
from loo_replay.replayer.steps import build_replay  # noqa: E402
from loo_replay.rulesets import RuleChoice, builtin  # noqa: E402
from loo_replay.run.audit import SessionReport, audit_document  # noqa: E402
from loo_replay.simulate import Simulator  # noqa: E402

T = TypeVar("T")
DEALS_PER_SESSION = 20


@dataclass
class Figure:
    ruleset: str
    players: int
    deals: int
    steps_ms: list[float]  # median, 90th percentile, slowest: build_replay
    views_ms: list[float]  # revealed_by_step
    page_ms: list[float]  # render_page with the views


def _spread(seconds: list[float]) -> list[float]:
    ordered = sorted(seconds)
    at90 = ordered[min(len(ordered) - 1, int(0.9 * len(ordered)))]
    return [round(1000 * x, 2) for x in (statistics.median(ordered), at90, ordered[-1])]


def _cpu(f: Callable[..., T], *args: Any, **kw: Any) -> tuple[float, T]:
    start = time.process_time()
    out = f(*args, **kw)
    return time.process_time() - start, out


def measure(ruleset: str, players: int, deals: int, seed: int) -> Figure:
    sim = Simulator(builtin(ruleset).options, ruleset, players, seed)
    docs = list(sim.sessions(-(-deals // DEALS_PER_SESSION), DEALS_PER_SESSION))
    steps: list[float] = []
    views: list[float] = []
    pages: list[float] = []
    for i, doc in enumerate(docs):
        report = audit_document(Document("bench", i + 1, orjson.dumps(doc)), RuleChoice())
        assert isinstance(report, SessionReport)
        for deal in report.deals:
            if deal.result is None or deal.context is None:
                continue
            spent, rp = _cpu(build_replay, report, deal, analyse=False)
            steps.append(spent)
            spent, seen = _cpu(with_views, rp)
            views.append(spent)
            pages.append(_cpu(render_page, seen)[0])
    return Figure(ruleset, players, len(steps), _spread(steps), _spread(views), _spread(pages))


def table(figures: list[Figure], which: str) -> str:
    lines = [
        "| ruleset | players | deals | steps (ms) | seat views (ms) | page (ms) |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for f in figures:
        cells = [" / ".join(f"{x:g}" for x in ms) for ms in (f.steps_ms, f.views_ms, f.page_ms)]
        lines.append(f"| {f.ruleset} | {f.players} | {f.deals:,} | " + " | ".join(cells) + " |")
    lines.append("")
    lines.append(f"CPU time a deal, median / 90th percentile / slowest, one core. Build: {which}.")
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    table_options(parser, 400, 200)
    result_options(parser, "seat_views")
    args = parser.parse_args()
    figures = both_tables(args, lambda r, p, d: measure(r, p, d, args.seed))
    which = build()
    save(args, {"build": which, "figures": [asdict(f) for f in figures]}, table(figures, which))


if __name__ == "__main__":
    main()
