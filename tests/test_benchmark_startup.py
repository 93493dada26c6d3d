"""The start-up benchmark (docs/performance.md, "Start-up"; ``make bench`` and ``make
bench-quick``) runs end to end: every command of the issue's table timed in the same rounds
as the import floor, ingest counted over that floor, ``record`` at a terminal timed until its
prompt takes input, and docs/performance.md links the latest table it wrote."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from bench_helpers import bench_module, run_benchmark

ROOT = Path(__file__).resolve().parents[1]


def test_the_startup_benchmark_times_each_command_and_the_floor(tmp_path: Path) -> None:
    data = tmp_path / "data"
    args = ("--runs", "1", "--no-instructions", "--data", str(data))
    _, written = run_benchmark("startup.py", tmp_path, *args)
    figures = {f["step"]: f for f in written["figures"]}
    floor = figures["python -c 'import typer, duckdb, pyarrow' (the floor)"]
    assert {
        "--version",
        "--help",
        "validate LOG",
        "replay LOG --deal 20",
        "record, q at the first prompt",
        "record at a terminal, ready for the first entry",
        "ingest LOG into 40 deals",
        "ingest LOG into a new database",
    } < set(figures)
    for f in figures.values():
        assert f["runs"] == 1 and f["wall_ms"] > 0 and f["cpu_ms"] > 0
        assert f["instructions"] is None
        if f["step"].startswith("ingest"):
            assert abs(f["over_floor_ms"] - (f["wall_ms"] - floor["wall_ms"])) < 1e-6
        else:
            assert f["over_floor_ms"] is None
    assert figures["--version"]["target_ms"] == 150
    assert figures["record at a terminal, ready for the first entry"]["target_ms"] == 300
    assert sorted(p.name for p in data.iterdir()) == [
        "startup-40-seed1.json",
        "startup-40-seed1.truth.json",
        "startup-40-seed2.json",
        "startup-40-seed2.truth.json",
    ]
    assert "| command | wall ms | CPU ms |" in (tmp_path / "t.md").read_text()


def test_the_docs_link_the_latest_startup_results() -> None:
    assert (ROOT / "benchmarks" / "results" / "startup.md").exists()
    page = (ROOT / "docs" / "performance.md").read_text()
    assert "](../benchmarks/results/startup.md)" in page


# A command that behaves as prompt_toolkit does at a terminal: it asks where the cursor is,
# waits for the answer, takes its time, turns bracketed paste on as its prompt takes input,
# and exits 0 only if it was then typed ``q``.
_PROMPTER = r"""
import os, sys, time, tty
tty.setraw(0)
os.write(1, b"starting\x1b[6n")
answer = b""
while not answer.endswith(b"R"):
    answer += os.read(0, 1)
assert answer == b"\x1b[1;1R", answer
time.sleep(0.3)
os.write(1, b"deal 1> \x1b[?2004h")
sys.exit(0 if os.read(0, 1) == b"q" else 3)
"""


def test_a_command_at_a_terminal_is_timed_until_its_prompt_takes_input(tmp_path: Path) -> None:
    startup = bench_module("startup")
    cpu, ready = startup.at_terminal([sys.executable, "-c", _PROMPTER], tmp_path)
    assert 0.3 <= ready < 10  # the answer to the cursor's place came, then the prompt
    assert cpu > 0


def test_a_command_that_never_prompts_is_a_failure_not_a_figure(tmp_path: Path) -> None:
    startup = bench_module("startup")
    with pytest.raises(SystemExit, match="at a terminal"):
        startup.at_terminal([sys.executable, "-c", "print('no prompt')"], tmp_path)
