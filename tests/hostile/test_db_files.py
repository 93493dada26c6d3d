"""Database files loo-replay did not make, or that are broken: every command that opens one
says so in one line and exits 2, and a file it refuses keeps every byte (docs/limits.md,
"Databases")."""

from __future__ import annotations

import hashlib
import os
import sqlite3
from pathlib import Path

import duckdb
import pytest
from db_helpers import SAMPLES, run, sql

from loo_replay.db import migrations, versions
from loo_replay.db.ingest import ingest
from loo_replay.rulesets import RuleChoice

LOG = SAMPLES / "wrong-payouts.json"


def _commands(db: Path, tmp: Path) -> dict[str, list[str | Path]]:
    """Every command that opens a database, reading or writing."""
    return {
        "ingest": ["ingest", LOG, "--db", db],
        "audit": ["audit", LOG, "--db", db, "--out", tmp / "audit-out", "--no-replays"],
        "report": ["report", "--db", db, "--out", tmp / "report-out", "--no-replays"],
        "stats": ["stats", "--db", db],
        "query": ["query", "SELECT count(*) FROM deals", "--db", db],
        "export": ["export", "--parquet", tmp / "export-out", "--db", db],
        "fairness": ["fairness", "--db", db],
    }


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _refused(args: list[str | Path], expected: str) -> str:
    result = run(*args)
    assert result.returncode == 2, (args, result.stdout, result.stderr)
    lines = result.stderr.splitlines()
    said = [line for line in lines if "running as pure Python" not in line]
    assert len(said) == 1 and said[0].startswith("loo-replay: "), result.stderr
    assert expected in said[0], said[0]
    return said[0]


def _foreign(path: Path, columns: str, rows: str) -> None:
    """A DuckDB file of another program, which keeps a ``schema_version`` table of its own."""
    con = duckdb.connect(str(path))
    con.execute(f"CREATE TABLE schema_version ({columns})")
    con.execute(f"INSERT INTO schema_version VALUES {rows}")
    con.execute("CREATE TABLE sessions (id INTEGER, token VARCHAR)")
    con.execute("INSERT INTO sessions VALUES (1, 'secret')")
    con.close()


@pytest.mark.parametrize(
    ("columns", "rows"),
    [
        ("version INTEGER, applied_at TIMESTAMP", "(1, now())"),
        # our columns and a version 1, but not our tables
        ("version INTEGER PRIMARY KEY, description VARCHAR NOT NULL", "(1, 'init')"),
    ],
    ids=["own-columns", "lookalike"],
)
def test_a_foreign_duckdb_file_is_refused_by_ingest_with_every_byte_kept(
    tmp_path: Path, columns: str, rows: str
) -> None:
    db = tmp_path / "theirs.duckdb"
    _foreign(db, columns, rows)
    before = _digest(db)
    _refused(_commands(db, tmp_path)["ingest"], "is a DuckDB database that loo-replay did not make")
    assert _digest(db) == before
    assert sorted(os.listdir(tmp_path)) == ["theirs.duckdb"]  # no WAL, no tables added


@pytest.mark.parametrize("command", ["audit", "report", "stats", "query", "export", "fairness"])
def test_a_foreign_duckdb_file_is_refused_by_every_other_command(
    tmp_path: Path, command: str
) -> None:
    db = tmp_path / "theirs.duckdb"
    _foreign(db, "version INTEGER, applied_at TIMESTAMP", "(1, now())")
    before = _digest(db)
    _refused(_commands(db, tmp_path)[command], "did not make")
    assert _digest(db) == before
    assert not (tmp_path / "export-out").exists()


def test_a_database_of_an_earlier_loo_replay_is_still_upgraded(tmp_path: Path) -> None:
    """Its migration records and the tables of migration 1 make it ours."""
    db = tmp_path / "old.duckdb"
    con = duckdb.connect(str(db))
    versions.migrate(con, migrations.MIGRATIONS[:2])
    con.close()
    result = run("ingest", LOG, "--db", db)
    assert result.returncode == 0, result.stderr
    assert sql(db, "SELECT max(version) FROM schema_version") == [(migrations.VERSION,)]
    assert sql(db, "SELECT count(*) FROM deals")[0][0] > 0


def _sqlite(path: Path) -> None:
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE notes (body TEXT)")
    con.commit()
    con.close()


def _truncated_header(path: Path) -> None:
    con = duckdb.connect(str(path))
    con.execute("CREATE TABLE t AS SELECT 1 AS x")
    con.close()
    path.write_bytes(path.read_bytes()[:5000])


_NOT_DUCKDB = {
    "sqlite": (_sqlite, "it is an SQLite database, not a DuckDB one"),
    "random": (
        lambda p: p.write_bytes(os.urandom(20_000)),
        "it is not a valid DuckDB database file",
    ),
    "empty": (lambda p: p.write_bytes(b""), "it is an empty file"),
    "truncated-header": (_truncated_header, "it is a truncated DuckDB file"),
    "folder": (lambda p: p.mkdir(), "it is a folder"),
    "fifo": (os.mkfifo, "it is not a regular file"),
}


@pytest.mark.parametrize("kind", list(_NOT_DUCKDB))
@pytest.mark.parametrize("command", ["ingest", "query"])
def test_a_file_that_is_not_a_duckdb_database_gets_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kind: str, command: str
) -> None:
    """Never a traceback, never an extension fetched: DuckDB would try to install one to
    read an SQLite file (its extensions live under HOME)."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    db = tmp_path / "given.db"
    make, expected = _NOT_DUCKDB[kind]
    make(db)
    before = _digest(db) if db.is_file() else None
    _refused(_commands(db, tmp_path)[command], f"cannot open {db}: {expected}")
    assert (_digest(db) if db.is_file() else None) == before
    assert list(home.iterdir()) == []


def test_no_extension_is_ever_installed_or_loaded(tmp_path: Path) -> None:
    db = tmp_path / "loo.duckdb"
    assert run("ingest", LOG, "--db", db).returncode == 0
    result = run(
        "query",
        "SELECT current_setting('autoinstall_known_extensions'), "
        "current_setting('autoload_known_extensions'), current_setting('memory_limit')",
        "--db",
        db,
        "--format",
        "csv",
    )
    assert result.returncode == 0, result.stderr
    off, off_too, memory = result.stdout.splitlines()[1].split(",")
    assert (off, off_too) == ("false", "false")
    assert memory == "122.0 MiB"  # 128MB, as DuckDB counts it


@pytest.fixture(scope="module")
def loaded(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    """The bytes of a small database loaded by loo-replay."""
    db = tmp_path_factory.mktemp("loaded") / "loo.duckdb"
    result = ingest([LOG, SAMPLES / "three-card-revokes.json"], db, RuleChoice())
    assert result.counts.loaded > 0
    return db.read_bytes()


def _cut(data: bytes) -> bytes:
    return data[: len(data) // 2 // 4096 * 4096]


def _scrambled(data: bytes) -> bytes:
    """Every data block past the headers overwritten in its middle."""
    out = bytearray(data)
    for start in range(3 * 4096, len(out), 64 * 1024):
        out[start + 100 : start + 300] = bytes(range(200))
    return bytes(out)


@pytest.mark.parametrize("damage", [_cut, _scrambled], ids=["truncated", "corrupt"])
@pytest.mark.parametrize("command", ["stats", "report", "query", "ingest"])
def test_a_truncated_or_corrupt_database_gets_one_line(
    tmp_path: Path, loaded: bytes, damage: object, command: str
) -> None:
    db = tmp_path / "loo.duckdb"
    assert callable(damage)
    db.write_bytes(damage(loaded))
    args = _commands(db, tmp_path)[command]
    if command == "query":
        args = ["query", "SELECT * FROM plays JOIN seats USING (session_id, deal_index)"]
        args += ["--db", db]
    _refused(args, "(the file is truncated or damaged)")
