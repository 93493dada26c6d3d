"""Speed of ``loo-replay serve`` on a database of simulated deals: `python benchmarks/explorer.py`.

Builds (once, cached in benchmarks/data/) a JSON Lines log of 6-player
three-card sessions of 100 deals with violations injected into 5% of the
deals (100 sessions simulated, then copied under new ids up to ``--deals``)
and loads it with ``ingest --jobs 2 --no-analysis``.  Then it starts the real
``loo-replay serve`` on a free port and times, as a browser's request would
take them (request sent to the last byte read, one at a time):

- the first page (the sessions list): the very first request the server
  answers, then ``--samples`` more;
- any deal's replay: ``--samples`` deals drawn at random (seeded) over every
  session, each rendered from the stored document;
- filtered lists: a search with a filter on the sessions, a rule on the
  findings (a later page), a search ordered by loo rate on the players.

The targets (docs/explorer.md): the first page under 300 ms, a replay under
200 ms, a filtered list under 500 ms.  Each figure is the median, the 90th
percentile and the slowest; every request attaches the database anew (the
server holds nothing between requests).  Writes benchmarks/results/<name>.json
and the table docs/performance.md carries in <name>.md.  The machine is shared:
compare within one run.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import re
import select
import signal
import statistics
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from urllib.parse import urlencode

import duckdb
from run import DEALS_PER_SESSION, copy_sessions

from loo_replay.explorer.lists import PAGE_ROWS

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "benchmarks" / "data"
RESULTS = ROOT / "benchmarks" / "results"
BASE_SESSIONS = 100
TARGETS_MS = {"first page": 300, "replay": 200, "filtered list": 500}
_URL = re.compile(r"at (http://\S+/) \(Ctrl-C stops\)")


def cli(*args: str) -> list[str]:
    return [sys.executable, "-m", "loo_replay", *args]


def build_database(deals: int, data: Path) -> Path:
    """The database of ``deals`` deals, made once: simulated with violations, then loaded."""
    data.mkdir(parents=True, exist_ok=True)
    db = data / f"explorer-{deals}.duckdb"
    if db.exists():
        return db
    sessions = min(BASE_SESSIONS, -(-deals // DEALS_PER_SESSION))
    base = data / f"explorer-base-{sessions}.jsonl"
    if not base.exists():
        subprocess.run(
            cli(
                "simulate", "--players", "6", "--deals", str(DEALS_PER_SESSION),
                "--sessions", str(sessions), "--violations", "0.05", "--seed", "2026",
                "--out", str(base),
            ),
            check=True,
        )  # fmt: skip
    log = data / f"explorer-{deals}.jsonl"
    copy_sessions(base, deals, log)
    loading = db.with_suffix(".loading")
    loading.unlink(missing_ok=True)
    ingest = cli("ingest", str(log), "--db", str(loading), "--jobs", "2", "--no-analysis")
    subprocess.run(ingest, check=True, stdout=subprocess.DEVNULL)
    loading.rename(db)
    log.unlink()
    return db


class Served:
    """``loo-replay serve`` on a free port, in a process group of its own."""

    def __init__(self, db: Path) -> None:
        self.proc = subprocess.Popen(
            cli("serve", "--db", str(db), "--port", "0"),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            start_new_session=True,
        )
        said = b""
        assert self.proc.stderr is not None
        while not (found := _URL.search(said.decode())):
            if self.proc.poll() is not None:
                raise SystemExit(f"serve ended: {said.decode()}")
            if select.select([self.proc.stderr], [], [], 0.5)[0]:
                said += os.read(self.proc.stderr.fileno(), 65536)
        self.url = found[1]

    def stop(self) -> None:
        os.killpg(self.proc.pid, signal.SIGINT)
        self.proc.wait(timeout=60)


def timed(url: str) -> float:
    """Milliseconds from the request to the last byte of a 200 answer."""
    start = time.perf_counter()
    with urllib.request.urlopen(url, timeout=60) as answer:
        answer.read()
        assert answer.status == 200, url
    return (time.perf_counter() - start) * 1000


def figure(kind: str, what: str, times: list[float]) -> dict[str, object]:
    ordered = sorted(times)
    return {
        "kind": kind,
        "what": what,
        "requests": len(times),
        "median_ms": round(statistics.median(ordered), 1),
        "p90_ms": round(ordered[math.ceil(0.9 * len(ordered)) - 1], 1),  # nearest rank
        "max_ms": round(ordered[-1], 1),
        "target_ms": TARGETS_MS[kind],
    }


def measure(db: Path, samples: int, seed: int) -> list[dict[str, object]]:
    with duckdb.connect(str(db), read_only=True) as con:
        every = con.execute("SELECT session_id, deal FROM deals ORDER BY ALL").fetchall()
        (code, found), *_ = con.execute(
            "SELECT code, count(*) FROM findings GROUP BY code ORDER BY count(*) DESC LIMIT 1"
        ).fetchall() or [("", 0)]
    page = 2 if found > PAGE_ROWS else 1  # a later page where there is one
    deals = random.Random(seed).sample(every, min(samples, len(every)))
    served = Served(db)
    try:
        u = served.url
        first = [timed(u)]  # the very first request the server answers
        first += [timed(u) for _ in range(samples)]
        replays = [timed(u + "replay?" + urlencode({"session": s, "deal": d})) for s, d in deals]
        lists = {
            "sessions: search, with violations": u + "?" + urlencode({"q": "copy7", "with": "violations"}),
            f"findings: one rule, page {page}": u + "findings?" + urlencode({"code": code, "page": page}),
            "players: search, by loo rate": u + "players?" + urlencode({"q": "a", "sort": "loo-rate"}),
        }  # fmt: skip
        filtered = {what: [timed(url) for _ in range(samples)] for what, url in lists.items()}
    finally:
        served.stop()
    figures = [
        figure("first page", "sessions, page 1 (first request included)", first),
        figure("replay", f"{len(deals)} deals at random", replays),
    ]
    figures += [figure("filtered list", what, times) for what, times in filtered.items()]
    return figures


def table(figures: list[dict[str, object]], deals: int, build: str) -> str:
    lines = [
        f"`loo-replay serve` over {deals:,} simulated deals ({build}), milliseconds a request:",
        "",
        "| page | what | requests | median | p90 | slowest | target |",
        "|---|---|---:|---:|---:|---:|---:|",
    ]
    for f in figures:
        lines.append(
            f"| {f['kind']} | {f['what']} | {f['requests']} | {f['median_ms']} | {f['p90_ms']} "
            f"| {f['max_ms']} | {f['target_ms']} |"
        )
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=100_000)
    parser.add_argument("--samples", type=int, default=30, help="requests of each kind")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--data", type=Path, default=DATA, metavar="DIR")
    parser.add_argument("--results", default="explorer", help="name of the results files")
    parser.add_argument("--results-dir", type=Path, default=RESULTS, metavar="DIR")
    args = parser.parse_args()
    db = build_database(args.deals, args.data)
    build = (
        subprocess.run(cli("--version"), capture_output=True, text=True, check=True)
        .stdout.split(", ", 1)[1]
        .strip()
    )
    figures = measure(db, args.samples, args.seed)
    out: Path = args.results_dir
    out.mkdir(parents=True, exist_ok=True)
    result = {
        "python": sys.version.split()[0],
        "date": time.strftime("%Y-%m-%d"),
        "deals": args.deals,
        "build": build,
        "figures": figures,
    }
    (out / f"{args.results}.json").write_text(json.dumps(result, indent=2) + "\n")
    text = table(figures, args.deals, build)
    (out / f"{args.results}.md").write_text(text)
    print(text, end="")


if __name__ == "__main__":
    main()
