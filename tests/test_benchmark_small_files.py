"""The small files benchmark (docs/performance.md, "The loader") runs end to end: the same
sessions ingested from one file and from a file each, with and without the analysis, and
docs/performance.md links the table of the latest results it wrote."""

from __future__ import annotations

from pathlib import Path

from bench_helpers import run_benchmark

ROOT = Path(__file__).resolve().parents[1]


def test_the_small_files_benchmark_measures_both_modes(tmp_path: Path) -> None:
    _, written = run_benchmark("small_files.py", tmp_path, "--files", "6", "--runs", "1")
    figures = written["figures"]
    assert [f["mode"] for f in figures] == ["with analysis", "`--no-analysis`"]
    for f in figures:
        assert f["files"] == 6
        assert f["one_cpu_s"] > 0 and f["many_cpu_s"] > 0
        assert abs(f["cpu_ratio"] - f["many_cpu_s"] / f["one_cpu_s"]) < 1e-9
        assert abs(f["wall_ratio"] - f["many_wall_s"] / f["one_wall_s"]) < 1e-9
    assert "| ingest | files |" in (tmp_path / "t.md").read_text()


def test_the_docs_link_the_latest_small_files_results() -> None:
    assert (ROOT / "benchmarks" / "results" / "small_files.md").exists()
    page = (ROOT / "docs" / "performance.md").read_text()
    assert "](../benchmarks/results/small_files.md)" in page
