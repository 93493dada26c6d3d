"""Opening a database through ``db.opening.opened``, the one way a command opens one: the
safety settings hold on the connection it gives, whatever it was opened for, a database
that is not loo-replay's is refused, and the connection is closed however the block ends.
And a new database is the same as one migrated version by version (issue 53)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import duckdb
import pytest
from db_helpers import SAMPLES, run

from loo_replay.db import migrations, opening, versions
from loo_replay.db.errors import MEMORY_ENV, MEMORY_LIMIT, DatabaseError
from loo_replay.db.interrupts import SECONDS_ENV, StatementTooLong

SAFETY = (
    "SELECT current_setting('enable_external_access'), "
    "current_setting('autoload_known_extensions'), "
    "current_setting('autoinstall_known_extensions'), current_setting('memory_limit')"
)


@pytest.fixture(scope="module")
def loaded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    db = tmp_path_factory.mktemp("opening") / "loo.duckdb"
    run("ingest", str(SAMPLES / "three-card-revokes.json"), "--db", str(db), "--no-analysis")
    return db


def _bound() -> str:
    """The memory bound as DuckDB shows it, of ``MEMORY_LIMIT``."""
    plain = duckdb.connect(config={"memory_limit": MEMORY_LIMIT})
    try:
        ((shown,),) = plain.execute("SELECT current_setting('memory_limit')").fetchall()
    finally:
        plain.close()
    return str(shown)


def _closed(con: duckdb.DuckDBPyConnection) -> bool:
    try:
        con.execute("SELECT 1")
    except duckdb.ConnectionException as exc:
        return "closed" in str(exc)
    return False


@pytest.mark.parametrize(
    "how",
    [{}, {"write": True}, {"timed": True}, {"sandbox": True, "upgrade": False}],
    ids=["read", "write", "timed", "sandbox"],
)
def test_every_way_of_opening_is_sealed_and_closed_at_the_end(
    loaded: Path, tmp_path: Path, how: dict[str, Any]
) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("not for the database")
    with opening.opened(loaded, **how) as con:
        assert con.execute(SAFETY).fetchall() == [(False, False, False, _bound())]
        with pytest.raises(duckdb.PermissionException):
            con.execute(f"SELECT content FROM read_text('{secret}')").fetchall()
        with pytest.raises(duckdb.Error):
            con.execute("SET enable_external_access = true")
        assert con.execute("SELECT count(*) FROM sessions").fetchall() == [(1,)]
    assert _closed(con)


def test_a_read_only_opening_cannot_write_and_a_writing_one_can(loaded: Path) -> None:
    with opening.opened(loaded) as con, pytest.raises(duckdb.Error, match="read-only"):
        con.execute("CREATE TABLE mine (x INT)")
    with opening.opened(loaded, write=True) as con:
        con.execute("CREATE TEMP TABLE mine (x INT)")  # writes, and leaves nothing behind


def test_a_failure_in_the_block_closes_the_connection_and_is_one_sentence(loaded: Path) -> None:
    with (
        pytest.raises(DatabaseError, match=r"^cannot read .*loo\.duckdb: Catalog Error"),
        opening.opened(loaded) as con,
    ):
        con.execute("SELECT * FROM no_such_table")
    assert _closed(con)
    failed = f"cannot bring it up to date in {loaded}"
    with (
        pytest.raises(DatabaseError, match=r"^cannot bring it up to date in .*: a made-up"),
        opening.opened(loaded, write=True, failed=failed),
    ):
        raise duckdb.ConversionException("a made-up failure")


def test_any_other_error_goes_through_unchanged_and_the_connection_is_closed(
    loaded: Path,
) -> None:
    for how in ({}, {"write": True}, {"timed": True}):
        with (
            pytest.raises(ValueError, match="the caller's own"),
            opening.opened(loaded, **how) as con,
        ):
            raise ValueError("the caller's own")
        assert _closed(con)
    with pytest.raises(KeyboardInterrupt), opening.opened(loaded, write=True) as con:
        raise KeyboardInterrupt
    assert _closed(con)
    # Closed, so that another connection of another configuration may open the file.
    plain = duckdb.connect(str(loaded), read_only=True)
    plain.close()


def test_a_timed_opening_stops_a_slow_read_at_its_bound(
    loaded: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(SECONDS_ENV, "0.3")
    slow = "SELECT count(*) FROM range(100000) a, range(100000) b WHERE a.range * b.range = -1"
    with (
        pytest.raises(StatementTooLong, match=r"ran longer than 0\.3 s"),
        opening.opened(loaded, timed=True) as con,
    ):
        con.execute(slow).fetchall()  # 10,000,000,000 pairs
    assert _closed(con)


def test_a_database_with_something_not_loo_replays_is_refused_untouched(
    loaded: Path, tmp_path: Path
) -> None:
    db = tmp_path / "changed.duckdb"
    db.write_bytes(loaded.read_bytes())
    con = duckdb.connect(str(db))
    con.execute("CREATE MACRO mine(x) AS x + 1")
    con.close()
    before = db.read_bytes()
    for how in ({}, {"write": True}):
        with (
            pytest.raises(DatabaseError, match=r"did not make \(it defines a macro \('mine'\)"),
            opening.opened(db, **how),
        ):
            pass
    assert db.read_bytes() == before


def test_a_missing_database_is_made_only_for_writing(tmp_path: Path) -> None:
    db = tmp_path / "new.duckdb"
    with pytest.raises(DatabaseError, match="no database at"), opening.opened(db):
        pass
    assert not db.exists()
    with opening.opened(db, write=True) as con:
        assert versions.version_of(con) == migrations.VERSION
    assert [p.name for p in tmp_path.iterdir()] == ["new.duckdb"]


def test_a_database_is_looked_at_once_while_unchanged_and_again_once_changed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Looking at a database (``version_of``: its tables, views and macros) is most of the
    cost of opening one: ``ingest`` had looked at one file three times.  A process looks
    at a file once while it and its write-ahead log are unchanged, and not at all at the
    one it has just made whole; once another connection changes it, it is looked at again,
    and a macro put in is refused."""
    looks: list[Path] = []
    real = versions.version_of

    def counted(con: duckdb.DuckDBPyConnection) -> int:
        ((path,),) = con.execute(
            "SELECT path FROM duckdb_databases() WHERE database_name = current_database()"
        ).fetchall()
        looks.append(Path(path))
        return real(con)

    monkeypatch.setattr(versions, "version_of", counted)
    monkeypatch.setattr(opening, "version_of", counted)
    db = tmp_path / "loo.duckdb"
    opening.open_db(db).close()
    assert looks == []  # made whole at the latest version: nothing to look at
    assert opening.check_db(db)
    opening.open_db(db).close()
    with opening.opened(db, write=True):
        pass
    assert looks == []
    other = tmp_path / "other.duckdb"
    other.write_bytes(db.read_bytes())
    assert opening.check_db(other)
    opening.open_db(other).close()
    assert looks == [other]
    con = duckdb.connect(str(db))
    con.execute("CREATE MACRO mine(x) AS x + 1")
    con.close()
    with pytest.raises(DatabaseError, match=r"it defines a macro \('mine'\)"):
        opening.check_db(db)
    with pytest.raises(DatabaseError, match=r"it defines a macro \('mine'\)"):
        opening.open_db(db)
    assert looks[1:] == [db, db]


# -- a new database is one migrated version by version ------------------------------

CATALOG = {
    "tables": "SELECT table_name, sql FROM duckdb_tables() ORDER BY 1",
    "columns": "SELECT table_name, column_name, column_index, data_type, column_default, "
    "is_nullable FROM duckdb_columns() ORDER BY 1, 3",
    "views": "SELECT view_name, sql FROM duckdb_views() WHERE NOT internal ORDER BY 1",
    "macros": "SELECT function_name FROM duckdb_functions() WHERE function_type IN "
    "('macro', 'table_macro') AND NOT internal ORDER BY 1",
    "types": "SELECT type_name, logical_type, labels FROM duckdb_types() WHERE NOT internal "
    "ORDER BY 1",
    "indexes": "SELECT index_name, table_name, sql FROM duckdb_indexes() ORDER BY 1",
    "schema_version": "SELECT version, description FROM schema_version ORDER BY 1",
    "content": "SELECT * FROM content",
    "derived": "SELECT * FROM derived ORDER BY result",
}


def _catalog(db: Path) -> dict[str, list[tuple[Any, ...]]]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        return {name: con.execute(sql).fetchall() for name, sql in CATALOG.items()}
    finally:
        con.close()


def test_a_new_database_is_the_same_as_one_migrated_version_by_version(tmp_path: Path) -> None:
    """``opened(write=True)`` on no file makes the database at the latest version; one that
    an older loo-replay made at version 1 and each later one upgraded by a version, in a
    process (here, a connection) of its own, has the same tables, columns, views, macros,
    types (their labels), indexes and rows."""
    new = tmp_path / "new.duckdb"
    with opening.opened(new, write=True):
        pass
    stepped = tmp_path / "stepped.duckdb"
    for version in range(1, migrations.VERSION + 1):
        con = duckdb.connect(str(stepped))
        try:
            assert versions.migrate(con, migrations.MIGRATIONS[:version]) == (version - 1, version)
        finally:
            con.close()
    made, upgraded = _catalog(new), _catalog(stepped)
    assert made == upgraded
    assert [v for v, _ in made["schema_version"]] == list(range(1, migrations.VERSION + 1))
    assert {"sessions", "documents", "decisions", "derived"} <= {t for t, _ in made["tables"]}
    assert len(made["views"]) == 3 and made["macros"] == []
    assert "body BLOB USING COMPRESSION Uncompressed" in dict(made["tables"])["documents"]


def test_a_writing_connection_spills_beside_the_database_not_in_the_working_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    monkeypatch.setenv(MEMORY_ENV, "64MB")
    db = tmp_path / "data" / "loo.duckdb"
    db.parent.mkdir()
    with opening.opened(db, write=True) as con:
        spill = con.execute("SELECT current_setting('temp_directory')").fetchone()
        # a sort of 320 MB against a bound of 64: DuckDB must spill to finish it
        sorted_ = "SELECT hash(range) AS h, range AS i FROM range(20000000) ORDER BY h"
        most = con.execute(f"SELECT max(h) FROM ({sorted_})").fetchone()
        assert most == con.execute("SELECT max(hash(range)) FROM range(20000000)").fetchone()
        assert Path(f"{db}.tmp").is_dir()  # it spilled there (DuckDB removes it at the end)
    assert spill == (f"{db}.tmp",)
    assert not (work / ".tmp").exists()


def test_a_database_looked_at_then_written_starts_one_duckdb(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``check_db`` then ``open_db`` (ingest into an existing database) start one DuckDB,
    not one to look and another to write: the first is kept, with nothing attached, for the
    second (a DuckDB costs about 0.1 billion instructions to start)."""
    db = tmp_path / "loo.duckdb"
    opening.open_db(db).close()
    opening._LOOKED.clear()  # as in a new process
    started: list[object] = []
    real = duckdb.connect

    def counted(*args: Any, **kwargs: Any) -> duckdb.DuckDBPyConnection:
        started.append(args)
        return real(*args, **kwargs)

    monkeypatch.setattr(opening.duckdb, "connect", counted)
    assert opening.check_db(db)
    other = real(str(db))  # the look holds no lock: another process may write
    other.close()
    opening._LOOKED.clear()
    assert opening.check_db(db)
    con = opening.open_db(db)
    try:
        assert versions.version_of(con) == migrations.VERSION
        con.execute("CREATE TABLE mine (x INTEGER)")  # read-write
    finally:
        con.close()
    assert len(started) == 2  # one per look; the second one's taken by open_db
    assert opening._KEPT == {}
