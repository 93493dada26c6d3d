"""Many small files against one: `python benchmarks/small_files.py`.

Simulates ``--files`` sessions of one deal each (3,000 by default), writes them as one file
and as a file each, then ingests the one file and the folder into a new database each
time, interleaved, ``--runs`` times, with the double-dummy analysis (the command as a user
runs it) and without (``--no-analysis``: the loading alone, where a file's own cost shows
most).  Each run is timed by the CPU time its processes used and by the wall clock; the
figure is the ratio of the medians, files over one file: the target is at most 3
(docs/database.md, "ingest": small files share a transaction).  Writes
benchmarks/results/<name>.json and the table docs/performance.md carries in <name>.md,
with the build that ran (compiled or pure Python).
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path

from saving import result_options, save, timed

from loo_replay import build


@dataclass(frozen=True)
class Figure:
    mode: str
    files: int
    one_cpu_s: float
    many_cpu_s: float
    cpu_ratio: float
    one_wall_s: float
    many_wall_s: float
    wall_ratio: float


def _logs(folder: Path, files: int, seed: int) -> tuple[Path, Path]:
    """The sessions in one file, and the same sessions a file each."""
    whole = folder / "all.jsonl"
    timed("simulate", "--sessions", files, "--deals", "1", "--seed", seed, "--out", whole)
    many = folder / "many"
    many.mkdir()
    for k, line in enumerate(whole.read_bytes().splitlines(keepends=True)):
        (many / f"s{k:05d}.jsonl").write_bytes(line)
    return whole, many


def table(figures: list[Figure], built: str) -> str:
    lines = [
        f"Sessions of one deal, a file each over all in one file ({built}; median of the runs):",
        "",
        "| ingest | files | one file CPU s | files CPU s | CPU ratio "
        "| one file wall s | files wall s | wall ratio |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for f in figures:
        lines.append(
            f"| {f.mode} | {f.files:,} | {f.one_cpu_s:.2f} | {f.many_cpu_s:.2f} | "
            f"{f.cpu_ratio:.2f} | {f.one_wall_s:.2f} | {f.many_wall_s:.2f} | {f.wall_ratio:.2f} |"
        )
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=3000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--seed", type=int, default=2026)
    result_options(parser, "small_files")
    args = parser.parse_args()
    modes = {"with analysis": [], "`--no-analysis`": ["--no-analysis"]}
    times: dict[tuple[str, str], list[tuple[float, float]]] = {}
    with tempfile.TemporaryDirectory() as temporary:
        folder = Path(temporary)
        logs = dict(zip(("one", "many"), _logs(folder, args.files, args.seed), strict=True))
        for run in range(args.runs):
            for mode, options in modes.items():
                for kind, log in logs.items():
                    db = folder / f"{kind}-{run}.duckdb"
                    times.setdefault((mode, kind), []).append(
                        timed("ingest", log, "--db", db, *options)
                    )
                    db.unlink()
    figures = []
    for mode in modes:
        one, many = times[(mode, "one")], times[(mode, "many")]
        cpu = [statistics.median(t[0] for t in runs) for runs in (one, many)]
        wall = [statistics.median(t[1] for t in runs) for runs in (one, many)]
        figures.append(Figure(mode, args.files, *cpu, cpu[1] / cpu[0], *wall, wall[1] / wall[0]))
    built = build()
    fields = {"build": built, "runs": args.runs, "figures": [asdict(f) for f in figures]}
    save(args, fields, table(figures, built))


if __name__ == "__main__":
    main()
