"""The ``documents`` table: every loaded session's bytes, as ingest read them, through the
real CLI; what a replay from the database alone needs (docs/database.md)."""

from __future__ import annotations

import hashlib
from pathlib import Path

import orjson
import pyarrow as pa  # type: ignore[import-untyped]
import pytest
from db_helpers import SAMPLES, counts, dump, hand_worked_doc, run, sql

from loo_replay.db import load
from loo_replay.db.ingest import ingest
from loo_replay.rulesets import RuleChoice


def _documents(db: Path) -> dict[str, bytes]:
    return {
        sid: pa.decompress(body, size, "lz4", asbytes=True)
        for sid, body, size in sql(
            db, "SELECT session_id, body, size FROM documents ORDER BY session_id"
        )
    }


def test_every_loaded_session_keeps_its_document_as_read(tmp_path: Path) -> None:
    db = tmp_path / "loo.duckdb"
    result = run("ingest", SAMPLES, "--db", db, "--no-analysis")
    assert result.returncode in (0, 2), result.stderr
    stored = _documents(db)
    sessions = dict(sql(db, "SELECT session_id, digest FROM sessions"))
    assert stored.keys() == sessions.keys() and len(stored) > 5
    for sid, raw in stored.items():
        assert hashlib.sha256(raw).hexdigest() == sessions[sid], sid
    # A JSON document's bytes are the file's; a JSON Lines one's its line's.
    whole = (SAMPLES / "wrong-payouts.json").read_bytes()
    assert whole in stored.values()
    sizes = sql(db, "SELECT sum(size), sum(octet_length(body)) FROM documents")[0]
    assert sizes[0] == sum(map(len, stored.values())) and sizes[1] < sizes[0] / 2


def test_jobs_load_the_same_documents_and_replace_swaps_them(tmp_path: Path) -> None:
    log = tmp_path / "game.json"
    doc = hand_worked_doc("night")
    log.write_bytes(orjson.dumps(doc))
    one, two = tmp_path / "one.duckdb", tmp_path / "two.duckdb"
    files = (log, SAMPLES / "wrong-payouts.json", SAMPLES / "three-card-revokes.json")
    assert run("ingest", *files, "--db", one, "--no-analysis").returncode == 0
    assert run("ingest", *files, "--db", two, "--no-analysis", "--jobs", "2").returncode == 0
    assert dump(one)["documents"] == dump(two)["documents"]

    doc["session"]["venue"] = "the back room"
    log.write_bytes(orjson.dumps(doc, option=orjson.OPT_INDENT_2))
    again = run("ingest", log, "--db", one, "--no-analysis")
    assert again.returncode == 1 and counts(again)["conflicts"] > 0
    assert _documents(one)["night"] != log.read_bytes()  # a conflict changes nothing
    replaced = run("ingest", log, "--db", one, "--no-analysis", "--replace")
    assert replaced.returncode == 0, replaced.stderr
    assert _documents(one)["night"] == log.read_bytes()
    assert sql(db := one, "SELECT count(*) FROM documents WHERE session_id = 'night'") == [(1,)]
    assert run("ingest", log, "--db", db, "--no-analysis").returncode == 0  # skipped: same
    assert sql(db, "SELECT count(*) FROM documents") == sql(db, "SELECT count(*) FROM sessions")


def _wal_after_each_commit(
    monkeypatch: pytest.MonkeyPatch, db: Path, threshold: int
) -> tuple[list[bool], list[str]]:
    """Loads the samples in this process with ``load.CHECKPOINT_BYTES`` at ``threshold``;
    whether DuckDB's write-ahead log holds anything after each file's commit, and the
    connection's ``checkpoint_threshold`` then."""
    monkeypatch.setattr(load, "CHECKPOINT_BYTES", threshold)
    logged: list[bool] = []
    lasts: list[bool] = []
    settings: list[str] = []
    commit = load.Loader.commit

    def watched(self: load.Loader, last: bool = False) -> None:
        commit(self, last)
        wal = db.with_name(db.name + ".wal")
        logged.append(wal.exists() and wal.stat().st_size > 0)
        lasts.append(last)
        ((setting,),) = self.con.execute(
            "SELECT current_setting('checkpoint_threshold')"
        ).fetchall()
        settings.append(setting)

    monkeypatch.setattr(load.Loader, "commit", watched)
    ingest([SAMPLES], db, RuleChoice(), analyse=False)
    assert lasts == [False] * (len(lasts) - 1) + [True]  # the load's last commit says so
    return logged, settings


def test_a_commit_bringing_many_documents_skips_the_log_and_loads_the_same(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A transaction whose documents pass ``load.CHECKPOINT_BYTES`` is written straight into
    the file (a checkpoint), not first into DuckDB's log, which a checkpoint would copy into
    the file again (docs/performance.md, "The loader"): the same rows, the setting restored."""
    logged, settings = _wal_after_each_commit(monkeypatch, tmp_path / "big.duckdb", 0)
    assert logged and not any(logged)
    small, default = _wal_after_each_commit(monkeypatch, tmp_path / "small.duckdb", 1 << 40)
    # small commits go to the log, as DuckDB makes them, but the load's last (here its only
    # one) is checkpointed whatever it holds (tests/test_db_big_files.py has several)
    assert all(small[:-1]) and not small[-1]
    assert set(settings) == set(default) == {"16.0 MiB"}
    assert dump(tmp_path / "big.duckdb") == dump(tmp_path / "small.duckdb")
