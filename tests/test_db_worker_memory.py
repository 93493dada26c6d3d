"""Issue 53: the DuckDB pools of a command that works in processes stay small, so that the
process tree of `report --jobs 2` stays within 600 MB at a million deals: a worker's
connection has a pool of 64 MB (or the user's bound, LOO_REPLAY_DB_MEMORY) and one thread,
and the process that works a share beside its workers has a worker's pool and thread
meanwhile, then its own back."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

from loo_replay.db.opening import connect, open_db
from loo_replay.db.settings import as_worker, working


def _setting(con: duckdb.DuckDBPyConnection, name: str) -> str:
    (value,) = con.execute(f"SELECT current_setting('{name}')").fetchone() or ("",)
    return str(value)


def test_a_workers_connection_has_a_small_pool_and_one_thread(tmp_path: Path) -> None:
    db = tmp_path / "loo.duckdb"
    open_db(db).close()  # a new database, at the latest schema
    with as_worker(connect(db, read_only=True)) as con:
        assert _setting(con, "memory_limit") == "61.0 MiB"  # DuckDB's words for 64 MB
        assert _setting(con, "threads") == "1"
        assert con.execute("SELECT count(*) FROM deals").fetchone() == (0,)


def test_a_workers_pool_is_the_users_bound_when_set(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = tmp_path / "loo.duckdb"
    open_db(db).close()
    monkeypatch.setenv("LOO_REPLAY_DB_MEMORY", "256MB")
    with as_worker(connect(db, read_only=True)) as con:
        assert _setting(con, "memory_limit") == "244.1 MiB"


def test_the_working_process_has_a_workers_pool_for_the_block_then_its_own(
    tmp_path: Path,
) -> None:
    db = tmp_path / "loo.duckdb"
    with connect(db) as con:
        before = (_setting(con, "memory_limit"), _setting(con, "threads"))
        assert before[0] == "122.0 MiB"  # every connection's bound, 128 MB
        with working(con):
            assert _setting(con, "memory_limit") == "61.0 MiB"
            assert _setting(con, "threads") == "1"
        assert (_setting(con, "memory_limit"), _setting(con, "threads")) == before
