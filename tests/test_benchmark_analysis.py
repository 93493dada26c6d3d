"""The analysis benchmark (docs/analysis.md "Speed") runs end to end, and the docs carry
the table of the latest results it wrote."""

from __future__ import annotations

from pathlib import Path

from bench_helpers import run_benchmark

ROOT = Path(__file__).resolve().parents[1]


def test_the_analysis_benchmark_measures_both_tables_and_the_audit_cost(tmp_path: Path) -> None:
    args = ["--deals", "100", "--audit-deals", "100", "--rounds", "1"]
    args += ["--command-deals", "100", "--large-deals", "200", "--large-rounds", "1"]
    _, written = run_benchmark("analysis.py", tmp_path, *args)
    figures = written["figures"]
    assert [(f["ruleset"], f["players"]) for f in figures] == [("three-card", 6), ("five-card", 5)]
    for f in figures:
        assert f["deals"] == 100 == f["solved"] + f["skipped"] + f["unsolved"]
        assert f["cpu_seconds"] > 0 and f["nodes_median"] <= f["nodes_p99"] <= f["nodes_max"]
    audit = written["audit"]
    assert audit["deals"] == 100
    assert audit["audit_with_analysis_ms_per_deal"] > audit["audit_ms_per_deal"] > 0
    command = written["audit_command"]
    assert command["deals"] == 100
    for pages in ("replays", "no_replays"):
        assert command[f"{pages}_with_s"] > 0 and command[f"{pages}_without_s"] > 0
    large = written["audit_command_large"]
    assert large["deals"] == 200 and large["replays_with_s"] > 0 < large["replays_without_s"]
    assert "no_replays_ratio" not in large
    assert written["build"] == command["build"]
    assert written["build"] == "pure Python" or written["build"].startswith("compiled (")
    assert (tmp_path / "t.md").read_text().startswith("| ruleset | players |")


def test_the_docs_carry_the_latest_analysis_results() -> None:
    table = (ROOT / "benchmarks" / "results" / "analysis.md").read_text()
    assert table in (ROOT / "docs" / "analysis.md").read_text()
