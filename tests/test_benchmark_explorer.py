"""The explorer's benchmark (benchmarks/explorer.py, run by ``make bench``) end to end at a
small scale: it loads a database, serves it with the real ``serve``, times every kind of
page and writes the JSON and the table docs/performance.md carries."""

from __future__ import annotations

from pathlib import Path

from bench_helpers import run_benchmark


def test_the_explorer_benchmark_times_every_kind_of_page(tmp_path: Path) -> None:
    args = ["--deals", "300", "--samples", "2", "--data", str(tmp_path / "data")]
    result, written = run_benchmark("explorer.py", tmp_path, *args)
    assert written["deals"] == 300
    kinds = [f["kind"] for f in written["figures"]]
    assert kinds == ["first page", "replay", *["filtered list"] * 3]
    for f in written["figures"]:
        assert 0 < f["median_ms"] <= f["p90_ms"] <= f["max_ms"], f
    assert [f["requests"] for f in written["figures"]] == [3, 2, 2, 2, 2]
    table = (tmp_path / "t.md").read_text()
    assert table.count("\n| ") == 1 + 5 and result.stdout == table  # the head, a row each
