"""How long ``loo-replay collusion`` takes: `python benchmarks/collusion.py
[--deals 4000] [--db-deals 1000000] [--sessions 200]`.

Three figures, end to end in a subprocess with its CPU seconds (user + sys, the figure a
loaded machine moves least), the peak RSS of the largest process and the load average:
``collusion LOG --jobs 2`` on a log of ``--deals`` six-player three-card deals (the
loading, the double-dummy analysis and the screen: benchmarks/run.py's cached log), and
``collusion --db`` on benchmarks/fairness.py's cached database of ``--db-deals`` deals
(10,000 analysed deals copied under new session ids; its first build takes minutes that
are not measured); and ``collusion --db`` on a database of ``--sessions`` simulated sessions
of 100 six-player deals, loaded by ``ingest`` (cached too): the shape on which one statement
once took 9 s for deals none of which could qualify (docs/performance.md, "The collusion
screen").  ``make bench`` runs it.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from fairness import database
from run import DATA, build, cli, measure_cpu


def sessions_database(sessions: int, data: Path) -> Path:
    """The cached database of ``sessions`` simulated sessions of 100 six-player deals."""
    target = data / f"collusion-six-{sessions}x100.duckdb"
    if not target.exists():
        with tempfile.TemporaryDirectory(dir=data) as tmp:
            log, partial = Path(tmp) / "six.jsonl", Path(tmp) / "db.duckdb"
            subprocess.run(cli("simulate", "--players", "6", "--deals", "100", "--sessions",
                               str(sessions), "--seed", "2026", "--out", str(log)), check=True)  # fmt: skip
            subprocess.run(cli("ingest", str(log), "--db", str(partial)), check=True)
            partial.rename(target)
    return target


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=4000)
    parser.add_argument("--db-deals", type=int, default=1_000_000)
    parser.add_argument("--sessions", type=int, default=200)
    parser.add_argument("--data", type=Path, default=DATA, metavar="DIR")
    args = parser.parse_args()
    log = build("three-card", args.deals, args.data)
    seconds, rss, cpu = measure_cpu(cli("collusion", str(log), "--jobs", "2", "--format", "json"))
    print(f"collusion {args.deals:,} deals (log, --jobs 2): {seconds:.1f} s, {cpu:.1f} CPU s, "
          f"peak RSS {rss:.0f} MB, load {os.getloadavg()[0]:.1f}")  # fmt: skip
    db = database(args.db_deals, args.data)
    seconds, rss, cpu = measure_cpu(cli("collusion", "--db", str(db), "--format", "json"))
    print(f"collusion --db {args.db_deals:,} deals: {seconds:.1f} s, {cpu:.1f} CPU s, "
          f"peak RSS {rss:.0f} MB, load {os.getloadavg()[0]:.1f}")  # fmt: skip
    db = sessions_database(args.sessions, args.data)
    seconds, rss, cpu = measure_cpu(cli("collusion", "--db", str(db), "--format", "json"))
    print(f"collusion --db {args.sessions} sessions of 100 six-player deals: {seconds:.1f} s, "
          f"{cpu:.1f} CPU s, peak RSS {rss:.0f} MB, load {os.getloadavg()[0]:.1f}")  # fmt: skip


if __name__ == "__main__":
    main()
