"""The decisions benchmark (docs/performance.md, "Judging decisions") runs end to end, and
the docs carry the table of the latest results it wrote."""

from __future__ import annotations

from pathlib import Path

from bench_helpers import run_benchmark

ROOT = Path(__file__).resolve().parents[1]


def test_the_decisions_benchmark_measures_both_tables(tmp_path: Path) -> None:
    args = ["--three-card-deals", "4", "--five-card-deals", "2", "--samples", "3"]
    _, written = run_benchmark("decisions.py", tmp_path, *args)
    figures = written["figures"]
    assert [(f["ruleset"], f["players"]) for f in figures] == [("three-card", 6), ("five-card", 5)]
    for f in figures:
        assert f["samples"] == 3 and f["deals"] >= 2
        assert f["deals_per_s"] > 0 and f["peak_rss_mb"] > 0 and f["cpu_seconds"] > 0
        assert 0 <= f["worlds_share"] <= f["declarations_share"] + f["cards_share"] <= 1.01
    assert (tmp_path / "t.md").read_text().startswith("| ruleset | players |")


def test_the_docs_carry_the_latest_decisions_results() -> None:
    table = (ROOT / "benchmarks" / "results" / "decisions.md").read_text()
    assert table in (ROOT / "docs" / "performance.md").read_text()
