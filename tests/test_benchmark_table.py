"""`make bench`'s one table (benchmarks/commands.py, benchmarks/table.py, issue 53) at the
smallest size: every command that reads a database measured end to end (a real database,
a real `serve` answering real requests), the rows put in one table with the build and the
install, and the table docs/performance.md links is the one benchmarks/table.py writes."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest
from bench_helpers import bench_module, run_benchmark

ROOT = Path(__file__).resolve().parents[1]
# A few commands, each a process or two: make bench runs every one (the report, the tests
# and the export each take seconds at 40 deals, minutes on a loaded machine).
COMMANDS = [
    "stats",
    "query (deals by ruleset)",
    "serve: first page",
    "serve: replay, 2 deals at random (p90)",
]


def test_every_database_command_is_measured_and_put_in_the_one_table(tmp_path: Path) -> None:
    args = ["--sizes", "40", "--samples", "2", "--no-instructions", "--data", str(tmp_path / "d")]
    args += ["--only", "stats,query,serve"]
    result, written = run_benchmark("commands.py", tmp_path, *args)
    rows = written["rows"]
    assert [r["command"] for r in rows] == COMMANDS
    for r in rows:
        assert r["deals"] == 40 and r["wall_s"] > 0 and r["cpu_s"] > 0, r
        assert 20 < r["peak_rss_mb"] < 2000, r  # the process tree's, summed
    assert all(r["ratio_to_floor"] > 0 for r in rows[:-2])  # serve's rows: no floor
    assert f"build: {written['build']}" in result.stdout.splitlines()
    # the one table, from these rows alone (no start-up or throughput results in the folder)
    (tmp_path / "commands.json").write_text(json.dumps(written))
    _, table = run_benchmark(
        "table.py", tmp_path, "--from-dir", str(tmp_path), "--commands", "commands"
    )
    assert [r["command"] for r in table["rows"]] == COMMANDS
    assert table["install"].startswith(
        ("a checkout on PYTHONPATH", "an editable install", "installed from")
    )
    text = (tmp_path / "t.md").read_text()
    assert text.count("\n| 40 | `") == len(COMMANDS) and table["install"] in text.splitlines()[0]
    said = f"commands: {written['build']}, {written['date']}, load {written['load']}, one run"
    assert said in text.splitlines()[0]  # the build, and how the figures were taken


def test_a_size_below_the_copied_databases_loads_run_py_log_and_divides_by_its_floor(
    tmp_path: Path,
) -> None:
    """`make bench BENCH_SIZES=2000`: below 10,000 deals (fairness.py's copies) and above
    the one log, the database is run.py's log of that size loaded by ingest, and each wall
    is divided by the one-core orjson floor of that log (about a millisecond here), not by
    the import floor (half a second): main stopped on an assert there."""
    data = tmp_path / "d"
    data.mkdir()
    log = data / "three-card-200.jsonl"  # run.py's cached log of 200 deals, made beforehand
    simulated = [sys.executable, "-m", "loo_replay", "simulate", "--players", "6"]
    simulated += ["--deals", "100", "--sessions", "2", "--seed", "3", "--out", str(log)]
    assert subprocess.run(simulated, capture_output=True, cwd=ROOT).returncode == 0
    args = ["--sizes", "200", "--no-instructions", "--data", str(data), "--only", "stats,query"]
    _, written = run_benchmark("commands.py", tmp_path, *args)
    rows = written["rows"]
    assert [r["command"] for r in rows] == COMMANDS[:2]
    for r in rows:
        assert r["deals"] == 200 and r["wall_s"] > 0.05, r  # a process: its start-up at least
        assert r["ratio_to_floor"] > 20, r  # over orjson's few ms, not the imports' 0.5 s
    with duckdb.connect(str(data / "commands-200.duckdb"), read_only=True) as con:
        assert con.execute("SELECT count(*) FROM deals").fetchone() == (200,)


def test_the_latest_table_is_the_one_table_py_writes_and_the_performance_page_links_it() -> None:
    results = ROOT / "benchmarks" / "results"
    written = json.loads((results / "latest.json").read_text())
    table = bench_module("table")
    rows = [table.Row(**r) for r in written["rows"]]
    assert (results / "latest.md").read_text() == table.table(rows, written["head"])
    assert {r.deals for r in rows} >= {40}  # the one log, at least
    assert "](../benchmarks/results/latest.md)" in (ROOT / "docs" / "performance.md").read_text()


@pytest.mark.skipif(shutil.which("valgrind") is None, reason="valgrind counts the instructions")
def test_a_database_command_is_counted_as_the_start_up_counts_its_steps(tmp_path: Path) -> None:
    """commands.py counts each command under callgrind at 40 deals with startup.py's counter:
    when startup.py's took a step for its standard input, commands.py stopped there (make
    bench's 40-deal rows, with valgrind), on an attribute of None."""
    commands = bench_module("commands")
    true = shutil.which("true")
    assert true is not None
    count = commands.instructions_of([true], tmp_path)  # the cheapest real process
    assert 10_000 < count < 10_000_000, count  # the loader's and libc's start: about 130,000


def test_start_up_results_of_instructions_alone_make_rows_without_times() -> None:
    """startup.py --runs 0 (a busy machine: instructions alone) leaves its times empty; the
    one table shows its counts and leaves wall, CPU and ratio blank (it stopped on None)."""
    table = bench_module("table")
    steps = ["python -c pass", "python -c 'import typer, duckdb, pyarrow' (the floor)"]
    figures = [
        {"step": s, "runs": 0, "wall_ms": None, "cpu_ms": None, "over_floor_ms": None,
         "target_ms": None, "instructions": n}
        for s, n in zip(steps, (89_768_279, 881_974_623), strict=True)
    ]  # fmt: skip
    startup = {"build": "compiled", "date": "2026-12-07", "load": "4.0, 3.0, 2.0"}
    rows = table.rows({**startup, "figures": figures}, None, None)
    text = table.table(rows, table.head({"startup": {**startup, "figures": figures}}, "x"))
    assert text.splitlines()[4] == "| 40 | `python -c pass` |  |  |  |  | 89,768,279 |"
    assert "startup: compiled, 2026-12-07, load 4.0, 3.0, 2.0, no timed run)" in text
