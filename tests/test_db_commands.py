"""``loo-replay query`` (read-only, three formats) and ``loo-replay export`` (Parquet
partitioned by session, readable by polars), through the real CLI."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import orjson
import polars as pl
import pytest
from db_helpers import SAMPLES, dump, hand_worked_doc, run

from loo_replay.db.tables import PER_DEAL_TABLES

ODD_ID = "club/night #1 — ünïcode"


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("commands")
    (tmp / "odd.json").write_bytes(orjson.dumps(hand_worked_doc(ODD_ID)))
    db = tmp / "loo.duckdb"
    result = run(
        "ingest",
        tmp / "odd.json",
        SAMPLES / "wrong-payouts.json",
        SAMPLES / "broken-deals.json",
        "--db",
        db,
    )
    assert result.returncode == 0, result.stderr
    return db


def test_query_prints_a_table_csv_or_json(db: Path) -> None:
    sql = "SELECT session_id, deal, outcome, pool_next FROM pool_history ORDER BY session_id, deal"
    table = run("query", "--db", db, sql)
    assert table.returncode == 0, table.stderr
    lines = table.stdout.splitlines()
    assert lines[0].split() == ["session_id", "deal", "outcome", "pool_next"]
    assert lines[-1] == "(26 rows)"

    as_csv = run("query", "--db", db, sql, "--format", "csv")
    rows = list(csv.reader(io.StringIO(as_csv.stdout)))
    assert rows[0] == ["session_id", "deal", "outcome", "pool_next"]
    assert len(rows) == 27

    as_json = run("query", "--db", db, sql, "--format", "json")
    records = json.loads(as_json.stdout)
    assert len(records) == 26
    assert {"session_id": ODD_ID, "deal": 4, "outcome": "played", "pool_next": 17} in records
    nested = run(
        "query", "--db", db, "SELECT hand, raw FROM seats, rejects LIMIT 1", "--format", "json"
    )
    assert nested.returncode == 0, nested.stderr
    (record,) = json.loads(nested.stdout)
    assert isinstance(record["hand"], list) and record["raw"].startswith("{")


def test_query_opens_the_database_read_only(db: Path) -> None:
    before = dump(db)
    result = run("query", "--db", db, "INSERT INTO sessions (session_id) VALUES ('x')")
    assert result.returncode == 2
    message = " ".join(result.stderr.split())
    assert "opens the database read-only, so INSERT statements cannot run" in message
    assert len(result.stderr.strip().splitlines()) == 1
    assert run("query", "--db", db, "DROP TABLE plays").returncode == 2
    assert dump(db) == before


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["SELEC 1"], "the query failed: Parser Error"),
        (["SELECT * FROM nowhere"], "the query failed: Catalog Error"),
        (["SELECT 1", "--db", "missing.duckdb"], "no database at missing.duckdb"),
    ],
)
def test_query_errors_are_one_sentence(db: Path, args: list[str], words: str) -> None:
    full = [*args] if "--db" in args else [*args, "--db", str(db)]
    result = run("query", *full)
    assert result.returncode == 2
    assert words in result.stderr


def test_export_writes_parquet_partitioned_by_session(db: Path, tmp_path: Path) -> None:
    out = tmp_path / "parquet"
    result = run("export", "--db", db, "--parquet", out)
    assert result.returncode == 0, result.stderr
    content = dump(db)
    for table in PER_DEAL_TABLES:
        frame = pl.read_parquet(out / table / "**" / "*.parquet", hive_partitioning=True)
        assert frame.height == len(content[table]), table
        if frame.height:
            assert set(frame["session_id"]) == {row[0] for row in content[table]}, table
        assert f"{out / table}: {len(content[table])} row(s)" in result.stdout
    assert (out / "deals").is_dir() and len(list((out / "deals").iterdir())) == 3
    deals = pl.read_parquet(out / "deals" / "**" / "*.parquet", hive_partitioning=True)
    odd = deals.filter(pl.col("session_id") == ODD_ID).sort("deal")
    assert odd["pool_next"].to_list() == [0, 3, 2, 17]
    sessions = pl.read_parquet(out / "sessions.parquet")
    assert sessions.height == 3 and sessions.columns[0] == "session_id"
    rejects = pl.read_parquet(out / "rejects.parquet")
    assert rejects.height == len(content["rejects"])

    again = run("export", "--db", db, "--parquet", out)
    assert (
        again.returncode == 2 and "already exists" in again.stderr and "--overwrite" in again.stderr
    )
    assert run("export", "--db", db, "--parquet", out, "--overwrite").returncode == 0


def test_an_export_in_batches_of_sessions_writes_the_same_files(
    db: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A per-deal table is written a range of sessions a statement (issue 53: one statement
    for 10,000 sessions ran out of memory): a session a statement, each range's folders
    beside the others', gives the files of one statement for all three sessions."""
    from loo_replay.db import queries

    whole, by_one = tmp_path / "whole", tmp_path / "by-one"
    assert run("export", "--db", db, "--parquet", whole).returncode == 0  # one batch
    monkeypatch.setattr(queries, "EXPORT_SESSIONS", 1)
    queries.export_parquet(db, by_one)

    def files(root: Path) -> list[Path]:
        return sorted(p.relative_to(root) for p in root.rglob("*.parquet"))

    assert files(by_one) == files(whole)
    assert len([p for p in files(whole) if p.parts[0] == "deals"]) == 3
    assert all(p.name == "data_0.parquet" for p in files(whole) if len(p.parts) == 3)
    for p in files(whole):
        assert pl.read_parquet(by_one / p).equals(pl.read_parquet(whole / p)), p


def test_an_empty_table_still_exports_a_readable_file(tmp_path: Path) -> None:
    db = tmp_path / "loo.duckdb"
    assert run("ingest", SAMPLES / "three-card-club-night.json", "--db", db).returncode == 0
    out = tmp_path / "parquet"
    assert run("export", "--db", db, "--parquet", out).returncode == 0
    assert pl.read_parquet(out / "discrepancies" / "**" / "*.parquet").height == 0


def test_ingest_rejects_bad_usage_in_one_sentence(tmp_path: Path) -> None:
    result = run("ingest", SAMPLES, "--db", tmp_path / "x.duckdb", "--jobs", "0")
    assert result.returncode == 2
    not_db = tmp_path / "notes.duckdb"
    not_db.write_text("not a database\n" * 100)
    result = run("ingest", SAMPLES / "wrong-payouts.json", "--db", not_db)
    assert result.returncode == 2
    assert f"cannot open {not_db}" in result.stderr


def test_ingest_makes_the_database_folder(tmp_path: Path) -> None:
    target = tmp_path / "new" / "folder" / "loo.duckdb"
    result = run("ingest", SAMPLES / "wrong-payouts.json", "--db", target)
    assert result.returncode == 0, result.stderr
    assert target.is_file()
    table = run("query", "--db", target, "SELECT count(*) AS n FROM sessions", "--format", "csv")
    assert table.stdout.splitlines() == ["n", "1"]


def test_ingest_into_a_folder_that_cannot_be_made_exits_2_with_a_sentence(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    result = run("ingest", SAMPLES / "wrong-payouts.json", "--db", blocker / "loo.duckdb")
    assert result.returncode == 2
    assert result.stderr.startswith("loo-replay: cannot create the folder of ")
    assert "Traceback" not in result.stderr
