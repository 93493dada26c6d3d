"""The start-up benchmark (docs/performance.md, "Start-up"; ``make bench`` and ``make
bench-quick``) runs end to end: every command of the issue's table timed in the same rounds
as the import floor, ingest counted over that floor, and docs/performance.md links the
latest table it wrote."""

from __future__ import annotations

from pathlib import Path

from bench_helpers import run_benchmark

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
