"""The fairness calibration table of docs/fairness.md (issue 15, point 3).

Simulated six-player three-card sessions, each loaded and tested on its own
at alpha 0.01 (``loo_replay.fairness.calibrate``):

    .venv/bin/python scripts/fairness_calibration.py > calibration.md

about an hour on one core; ``--cap N`` runs at most N seeds a row (a quick
look), ``--long-cap N`` at most N seeds for the 2,000-deal rows, ``--only TEXT``
the rows whose label holds TEXT.  Progress
goes to stderr, the Markdown table to stdout.
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass

from loo_replay.fairness.calibrate import Dealing, simulated_run
from loo_replay.fairness.verdicts import Report
from loo_replay.simulate import Crooked

CROOK = "dan"


@dataclass(frozen=True)
class Row:
    label: str
    dealing: Dealing
    deals: int
    seeds: int
    goal: str


ROWS = (
    Row("fair dealing", Dealing(), 500, 200, "at most 5 runs with any flag"),
    Row("crooked dealer, rate 0.3", Dealing(Crooked(CROOK, 0.3)), 500, 100, "at least 95"),
    Row("crooked dealer, rate 0.1", Dealing(Crooked(CROOK, 0.1)), 2000, 100, "at least 95"),
    *(
        Row(
            f"{k} riffle{'s' if k > 1 else ''}",
            Dealing(riffles=k),
            deals,
            100,
            "at least 95" if (k, deals) == (1, 300) else "",
        )
        for k in (1, 2, 3, 4, 5, 7)
        for deals in (300, 2000)
    ),
    Row("a deal repeated", Dealing(repeat=True), 100, 20, "every run"),
)


def tally(row: Row, report: Report) -> tuple[bool, bool]:
    """(caught, wrongly named): what counts as caught depends on the unfairness."""
    flags = report.flagged
    named = {dict(v.subject).get("player") for v in flags} - {None}
    if row.dealing.crooked is not None:
        return CROOK in named, bool(named - {CROOK})
    if row.dealing.riffles is not None:
        return any(v.test == "shuffle" for v in flags), False
    if row.dealing.repeat:
        return any(v.test == "repeated-deal" for v in flags), False
    return bool(flags), False


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cap", type=int, default=None, help="at most this many seeds a row")
    parser.add_argument("--long-cap", type=int, default=None, help="the same, 2,000-deal rows")
    parser.add_argument("--only", default="", help="the rows whose label holds this text")
    args = parser.parse_args()
    print("| dealing | deals | runs | flagged | another player named | goal |")
    print("|---|---:|---:|---:|---:|---|")
    for number, row in enumerate(ROWS):
        if args.only not in row.label:
            continue
        seeds = row.seeds
        for cap in (args.cap, args.long_cap if row.deals >= 2000 else None):
            seeds = min(seeds, cap) if cap is not None else seeds
        start = time.monotonic()
        caught = wrong = 0
        for i in range(seeds):
            report = simulated_run(row.dealing, row.deals, 1000 * number + i)
            hit, misnamed = tally(row, report)
            caught += hit
            wrong += misnamed
        took = time.monotonic() - start
        print(f"{row.label}: {caught}/{seeds} in {took:.0f} s", file=sys.stderr, flush=True)
        named = str(wrong) if row.dealing.crooked is not None else ""
        print(f"| {row.label} | {row.deals} | {seeds} | {caught} | {named} | {row.goal} |")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
