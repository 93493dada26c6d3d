"""The seat views benchmark (docs/performance.md, "Seat views and judged decisions on a
replay") runs end to end, and the docs carry the table of the latest results it wrote."""

from __future__ import annotations

from pathlib import Path

from bench_helpers import run_benchmark

ROOT = Path(__file__).resolve().parents[1]


def test_the_seat_views_benchmark_measures_both_tables(tmp_path: Path) -> None:
    args = ["--three-card-deals", "6", "--five-card-deals", "4"]
    _, written = run_benchmark("seat_views.py", tmp_path, *args)
    figures = written["figures"]
    assert [(f["ruleset"], f["players"]) for f in figures] == [("three-card", 6), ("five-card", 5)]
    for f in figures:
        assert f["deals"] >= 4
        for spread in (f["steps_ms"], f["views_ms"], f["page_ms"]):
            assert len(spread) == 3 and 0 <= spread[0] <= spread[1] <= spread[2]
    assert (tmp_path / "t.md").read_text().startswith("| ruleset | players | deals |")


def test_the_docs_carry_the_latest_seat_views_results() -> None:
    table = (ROOT / "benchmarks" / "results" / "seat_views.md").read_text()
    assert table in (ROOT / "docs" / "performance.md").read_text()
