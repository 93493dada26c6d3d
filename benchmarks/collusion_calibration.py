"""The collusion calibration table of docs/collusion.md: `python benchmarks/collusion_calibration.py`.

Simulated six-player three-card sessions, each loaded with its analysis and screened on
its own at alpha 0.01 (``loo_replay.collusion.calibrate``): ann and bob collude at each
RATE for each number of deals, and fair sessions (nobody colludes) give the false alarms.
A run *detects* the pair when it flags ann and bob; it names *only* them when no other
pair is flagged beside them.  ``--seeds N`` runs N seeds a colluding row (the issue's
targets are 100), ``--fair N`` fair runs of ``--fair-deals`` deals (200 of 1,000),
``--jobs N`` runs them in N processes, seed by seed (a SIGINT stops the run early, and
the table counts the runs that finished).  Progress goes to stderr, the Markdown table to
stdout; ``make bench`` runs it with a few seeds.
"""

from __future__ import annotations

import argparse
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass

from loo_replay.collusion.calibrate import named, simulated_run
from loo_replay.simulate import Colluders

PAIR = ("ann", "bob")
RATES = (0.1, 0.2, 0.5, 1.0)
SIZES = (500, 1000, 4000)


@dataclass(frozen=True)
class Run:
    rate: float | None  # None: a fair run
    deals: int
    seed: int


def flagged(run: Run) -> set[tuple[str, str]]:
    pairs = () if run.rate is None else (Colluders(*PAIR, run.rate),)
    return named(simulated_run(pairs, run.deals, run.seed))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=100, help="seeds a colluding row")
    parser.add_argument("--fair", type=int, default=200, help="fair runs")
    parser.add_argument("--fair-deals", type=int, default=1000)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--rates", default=",".join(map(str, RATES)))
    parser.add_argument("--sizes", default=",".join(map(str, SIZES)))
    args = parser.parse_args()
    rates = [float(r) for r in args.rates.split(",")]
    sizes = [int(s) for s in args.sizes.split(",")]
    # Seed by seed, so that a run stopped early has as many seeds in every row.
    colluding = [[Run(r, d, seed) for r in rates for d in sizes] for seed in range(args.seeds)]
    fair_runs = [[Run(None, args.fair_deals, seed)] for seed in range(args.fair)]
    runs = [run for seed in range(max(args.seeds, args.fair)) for part in (colluding, fair_runs)
            if seed < len(part) for run in part[seed]]  # fmt: skip
    start = time.monotonic()
    results: dict[Run, set[tuple[str, str]]] = {}
    pool = ProcessPoolExecutor(args.jobs)
    try:  # Ctrl-C (SIGINT) stops early: the table then counts the runs that finished
        for i, (run, found) in enumerate(zip(runs, pool.map(flagged, runs), strict=False), 1):
            results[run] = found
            print(f"{i}/{len(runs)} {run}: {sorted(found)} "
                  f"({time.monotonic() - start:.0f} s)", file=sys.stderr)  # fmt: skip
    except KeyboardInterrupt:
        print(f"stopped after {len(results)} of {len(runs)} runs", file=sys.stderr)
    finally:
        # Waits for the runs under way (cancelled ones never start): without the wait,
        # Python 3.11's exit hook writes to the pool's closed pipe (OSError, errno 9).
        pool.shutdown(wait=True, cancel_futures=True)
    runs = [r for r in runs if r in results]
    fair = [results[r] for r in runs if r.rate is None]
    print(f"Fair play: {sum(bool(f) for f in fair)} of {len(fair)} runs of "
          f"{args.fair_deals:,} deals flagged a pair (alpha 0.01).\n")  # fmt: skip
    print("| rate | deals | runs | ann and bob flagged | and no other pair | "
          "other pairs flagged beside them |")  # fmt: skip
    print("|---|---|---|---|---|---|")
    for rate in rates:
        for deals in sizes:
            cell = [results[r] for r in runs if r.rate == rate and r.deals == deals]
            hit = sum(PAIR in f for f in cell)
            only = sum(f == {PAIR} for f in cell)
            third = sum(len(f - {PAIR}) for f in cell)
            print(f"| {rate} | {deals:,} | {len(cell)} | {hit} | {only} | {third} |")
    print(f"\n{len(runs)} runs in {time.monotonic() - start:.0f} s, --jobs {args.jobs}.")


if __name__ == "__main__":
    main()
