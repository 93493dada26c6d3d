"""Many small files share a transaction (docs/database.md, "ingest"): 300 files of one deal
each, through the real command, load exactly what the same sessions in one file load, each
file said as its transaction commits, within the memory of the hostile tests; a second run
skips them all."""

from __future__ import annotations

from pathlib import Path

from db_helpers import counts, dump, run
from peak_helpers import PEAK_MB, measured

from loo_replay.db.ingest import GROUP_FILES
from loo_replay.db.schema import PER_DEAL_TABLES

FILES = 300


def test_small_files_load_as_the_same_sessions_in_one_file(tmp_path: Path) -> None:
    assert GROUP_FILES < FILES  # two transactions: one full, one closed by the input's end
    whole = tmp_path / "all.jsonl"
    made = run("simulate", "--sessions", FILES, "--deals", "1", "--seed", "5", "--out", whole)
    assert made.returncode == 0, made.stderr
    folder = tmp_path / "many"
    folder.mkdir()
    for k, line in enumerate(whole.read_text().splitlines(keepends=True)):
        (folder / f"s{k:03d}.jsonl").write_text(line)
    one = run("ingest", whole, "--db", tmp_path / "one.duckdb", "--no-analysis")
    assert one.returncode == 0, one.stderr
    many, peak = measured(
        "ingest", folder, "--db", tmp_path / "many.duckdb", "--no-analysis", "--verbose"
    )
    assert many.returncode == 0, many.stderr
    assert peak < PEAK_MB, f"{peak} MB"
    assert counts(many)["loaded"] == counts(one)["loaded"] == FILES
    said = [line for line in many.stderr.splitlines() if line.startswith("loaded ")]
    assert len(said) == FILES and all(": 1 deal(s), 0 rejected" in line for line in said)
    assert "s000.jsonl:" in said[0] and "s299.jsonl:" in said[-1]
    single, split = dump(tmp_path / "one.duckdb"), dump(tmp_path / "many.duckdb")
    for table in PER_DEAL_TABLES:
        assert single[table] == split[table], table
    again = run("ingest", folder, "--db", tmp_path / "many.duckdb", "--no-analysis")
    assert counts(again)["skipped"] == FILES
