"""What checking seals costs `validate` and `ingest`: `python benchmarks/seals.py`.

Simulates one session of ``--deals`` deals for each size asked (40 and 2,000 by default,
5 players, three-card), seals a copy with ``loo-replay seal --out``, then runs the whole
command on the unsealed log and on the sealed one, interleaved, ``--runs`` times: ``validate``
(its text audit to a pipe) and ``ingest`` into a new database each time (``--no-analysis``).
Each run is timed by the CPU time its process used (user + system, from
``getrusage(RUSAGE_CHILDREN)``), which another process on a busy machine does not inflate
the way it inflates the wall clock; the wall time is kept too.  The figure is the ratio of
the medians, sealed over unsealed: the target is at most 1.20 (docs/evidence.md).  Writes
benchmarks/results/<name>.json and the table docs/performance.md carries in <name>.md,
with the build that ran (compiled or pure Python).
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path

from saving import result_options, save
from saving import timed as _run

from loo_replay import build


@dataclass(frozen=True)
class Figure:
    command: str
    deals: int
    unsealed_cpu_s: float
    sealed_cpu_s: float
    ratio: float
    unsealed_wall_s: float
    sealed_wall_s: float


def _logs(folder: Path, deals: int, seed: int) -> tuple[Path, Path]:
    plain, sealed = folder / f"night-{deals}.json", folder / f"night-{deals}-sealed.json"
    _run("simulate", "--players", "5", "--deals", str(deals), "--seed", str(seed), "--out", plain)
    _run("seal", plain, "--out", sealed)
    return plain, sealed


def table(figures: list[Figure], built: str) -> str:
    lines = [
        f"Seals checked, sealed over unsealed ({built}; CPU seconds, median of the runs):",
        "",
        "| command | deals | unsealed CPU s | sealed CPU s | ratio | unsealed wall s | sealed wall s |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for f in figures:
        lines.append(
            f"| `{f.command}` | {f.deals:,} | {f.unsealed_cpu_s:.2f} | {f.sealed_cpu_s:.2f} | "
            f"{f.ratio:.3f} | {f.unsealed_wall_s:.2f} | {f.sealed_wall_s:.2f} |"
        )
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, nargs="+", default=[40, 2000])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--seed", type=int, default=2026)
    result_options(parser, "seals")
    args = parser.parse_args()
    times: dict[tuple[str, int, str], list[tuple[float, float]]] = {}
    with tempfile.TemporaryDirectory() as temporary:
        folder = Path(temporary)
        logs = {deals: _logs(folder, deals, args.seed) for deals in args.deals}
        for run in range(args.runs):
            for deals, (plain, sealed) in logs.items():
                for kind, log in (("unsealed", plain), ("sealed", sealed)):
                    key = ("validate", deals, kind)
                    times.setdefault(key, []).append(_run("validate", log))
                    db = folder / f"{kind}-{deals}-{run}.duckdb"
                    key = ("ingest", deals, kind)
                    times.setdefault(key, []).append(
                        _run("ingest", log, "--db", db, "--no-analysis")
                    )
                    db.unlink()
    figures = []
    for command in ("validate", "ingest"):
        for deals in args.deals:
            plain = times[(command, deals, "unsealed")]
            sealed = times[(command, deals, "sealed")]
            cpu = [statistics.median(t[0] for t in runs) for runs in (plain, sealed)]
            wall = [statistics.median(t[1] for t in runs) for runs in (plain, sealed)]
            figures.append(
                Figure(command, deals, cpu[0], cpu[1], cpu[1] / cpu[0], wall[0], wall[1])
            )
    built = build()
    fields = {"build": built, "runs": args.runs, "figures": [asdict(f) for f in figures]}
    save(args, fields, table(figures, built))


if __name__ == "__main__":
    main()
