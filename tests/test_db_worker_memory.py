"""Issue 53: the DuckDB pools of a command that works in processes stay small, so that the
process tree of `report --jobs 2` stays within 600 MB at a million deals: a worker's
connection has a pool of 64 MB (or the user's bound, LOO_REPLAY_DB_MEMORY) and one thread,
and the process that works a share beside its workers has a worker's pool and thread
meanwhile, then its own back."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest
from db_helpers import SAMPLES

from loo_replay.db import settings
from loo_replay.db.ingest import ingest
from loo_replay.db.opening import connect, open_db, opened
from loo_replay.db.settings import as_worker, working
from loo_replay.reports import build, queries
from loo_replay.reports.build import SessionSummary, as_rows
from loo_replay.rulesets import RuleChoice


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


def test_a_batch_of_pages_out_of_a_workers_pool_is_written_again_with_the_bound(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A batch of session pages is counted in deals, and a table of more seats has more rows
    a deal: one that runs out of a worker's pool is written once more with every connection's
    bound (docs/limits.md, "Databases"), the same pages, and the pool is small again after.
    At a million deals the report had stopped at its 3,504th page so (48 MB pools)."""
    db = tmp_path / "loo.duckdb"
    ingest([SAMPLES / "three-card-club-night.json"], db, RuleChoice(None, {}))
    monkeypatch.setattr(settings, "WORKER_MEMORY", "2MB")  # far too small a pool for a batch
    folders = {name: tmp_path / name for name in ("small", "again", "roomy")}
    for folder in folders.values():
        folder.mkdir()
    with opened(db, timed=True) as con:
        rows = as_rows(queries.sessions(con), SessionSummary)
        with working(con):
            small = _setting(con, "memory_limit")
            with pytest.raises(duckdb.OutOfMemoryException):
                build._batch_pages(con, build.Shared(folders["small"], {}, ""), rows, {})
            assert build._pages_of(con, build.Shared(folders["again"], {}, ""), rows, {}) == 1
            # the small pool again (to DuckDB's rounding of its own words: 1.9 MiB, 1.8 MiB)
            assert abs(_mib(_setting(con, "memory_limit")) - _mib(small)) < 0.2
        assert build._pages_of(con, build.Shared(folders["roomy"], {}, ""), rows, {}) == 1
    again = {p.name: p.read_bytes() for p in folders["again"].iterdir()}
    assert again and again == {p.name: p.read_bytes() for p in folders["roomy"].iterdir()}


def _mib(setting: str) -> float:
    number, unit = setting.split()
    return float(number) / (1024 if unit == "KiB" else 1) * (1024 if unit == "GiB" else 1)
