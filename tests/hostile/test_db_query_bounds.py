"""``query`` within its bounds, through the real command with the peak memory of its process
(docs/limits.md, "``query`` is read-only and sandboxed"): a table of a hundred million rows
holds ten thousand and says so, CSV streams every row, and a string of a gigabyte, which
DuckDB's memory limit does not count, is stopped in one line naming the bound."""

from __future__ import annotations

import os
from pathlib import Path

import orjson
import pytest
from db_helpers import hand_worked_doc, run
from peak_helpers import PEAK_MB, measured


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("bounds")
    log = tmp / "game.json"
    log.write_bytes(orjson.dumps(hand_worked_doc("game")))
    path = tmp / "loo.duckdb"
    result = run("ingest", log, "--db", path, "--no-analysis")
    assert result.returncode == 0, result.stderr
    return path


def test_a_table_holds_ten_thousand_rows_and_says_csv_gives_them_all(db: Path) -> None:
    result, peak = measured(
        "query", "SELECT x, repeat('y', 40) AS y FROM range(100000000) t(x)", "--db", db
    )
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert len(lines) == 2 + 10_000 + 1
    assert lines[-2].split() == ["9999", "y" * 40]
    assert lines[-1] == (
        "(the first 10,000 rows: a table shows no more; --format csv or --format json "
        "gives every row)"
    )
    assert peak < PEAK_MB, f"{peak} MB"


def test_csv_streams_every_row(db: Path) -> None:
    result, peak = measured(
        "query", "SELECT x FROM range(300000) t(x)", "--db", db, "--format", "csv"
    )
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == "x" and len(lines) == 300_001 and lines[-1] == "299999"
    assert peak < PEAK_MB, f"{peak} MB"


@pytest.mark.parametrize("fmt", ["table", "csv"])
def test_a_statement_past_the_memory_bound_is_stopped_naming_it(db: Path, fmt: str) -> None:
    """One string of a gigabyte, made inside DuckDB, which its own limit does not count."""
    sql = "SELECT length(repeat('x', 1000000000))"
    result, peak = measured("query", sql, "--db", db, "--format", fmt)
    said = [line for line in result.stderr.splitlines() if "pure Python" not in line]
    assert result.returncode == 2 and len(said) == 1, result.stderr
    assert said[0].startswith("loo-replay: the query needs more memory than `loo-replay query`")
    assert "LOO_REPLAY_QUERY_MEMORY" in said[0]
    assert peak < 1000, f"{peak} MB"


def test_the_bound_is_raised_by_its_variable_and_a_bad_value_refused(db: Path) -> None:
    """A string of 400 MB within a bound of 2 GB; a bound that is not a size, one line."""
    sql = "SELECT length(repeat('x', 400000000)) AS n"
    env = dict(os.environ, LOO_REPLAY_QUERY_MEMORY="2GB")
    result, _ = measured("query", sql, "--db", db, "--format", "csv", env=env)
    assert result.returncode == 0 and result.stdout == "n\n400000000\n", result.stderr
    env["LOO_REPLAY_QUERY_MEMORY"] = "lots"
    result, _ = measured("query", sql, "--db", db, env=env)
    assert result.returncode == 2
    assert "LOO_REPLAY_QUERY_MEMORY='lots' is not a size such as 640MB or 2GB" in result.stderr
