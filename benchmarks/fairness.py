"""How long ``loo-replay fairness --db`` takes over a big database:
`python benchmarks/fairness.py [--deals 1000000]`.

The database is built once and cached in benchmarks/data/: 10,000 simulated
six-player three-card deals (100 sessions) are ingested, then their rows are
copied in SQL under new session ids and keys up to ``--deals``, copy after copy as
ingest would store them (auditing a million
deals takes minutes that this benchmark does not measure; the copies repeat
deals, which the repeated-deal test duly flags).  Measured end to end in a
subprocess, with the peak RSS: the default scopes (each session and all deals),
and ``--by all``.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

import duckdb

sys.path.insert(0, str(Path(__file__).resolve().parent))
from run import DATA, build, cli, measure

from loo_replay.db.tables import SESSION_TABLES

BASE_DEALS = 10_000


def database(deals: int, data: Path) -> Path:
    """The cached database of ``deals`` deals (whole copies of the 10,000-deal base)."""
    target = data / f"fairness-three-card-{deals}.duckdb"
    if target.exists():
        return target
    log = build("three-card", BASE_DEALS, data)
    with tempfile.TemporaryDirectory(dir=data) as tmp:
        partial = Path(tmp) / "db.duckdb"
        subprocess.run(cli("ingest", str(log), "--db", str(partial)), check=True)
        con = duckdb.connect(str(partial))
        try:  # every copy of a table in one statement: a million deals in minutes, not half an hour
            con.execute("SET memory_limit = '400MB'")
            copies = -(-deals // BASE_DEALS)
            ((keys,),) = con.execute("SELECT max(session_key) FROM sessions").fetchall()
            for table in SESSION_TABLES:  # each copy a load after the last: its keys, its rows
                con.execute(
                    f"INSERT INTO {table} SELECT t.* REPLACE (t.session_id || '-x' || r.copy "
                    f"AS session_id, t.session_key + r.copy * {keys} AS session_key) "
                    f"FROM {table} t, range(1, {copies}) r(copy) ORDER BY r.copy, t.rowid"
                )
                con.execute("CHECKPOINT")
        finally:
            con.close()
        partial.rename(target)
    return target


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=1_000_000)
    parser.add_argument("--data", type=Path, default=DATA, metavar="DIR")
    args = parser.parse_args()
    db = database(args.deals, args.data)
    for by in ((), ("--by", "all")):
        seconds, rss = measure(cli("fairness", "--db", str(db), "--format", "json", *by))
        shown = " ".join(by) or "(each session and all)"
        print(f"fairness {args.deals:,} deals {shown}: {seconds:.1f} s, peak RSS {rss:.0f} MB")


if __name__ == "__main__":
    main()
