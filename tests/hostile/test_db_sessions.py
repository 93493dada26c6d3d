"""One session that DuckDB cannot store costs that session alone: the rest of its file is
loaded, and it is kept in rejects with DuckDB's reason (docs/limits.md, "Databases").

DuckDB's memory is bounded (``LOO_REPLAY_DB_MEMORY``, 128MB by default); the attack is a
session whose ``meta`` holds more text than that bound, built small against a small bound.
"""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest
from db_helpers import SAMPLES, hand_worked_doc, run, sql

from loo_replay.db import load
from loo_replay.db.ingest import ingest
from loo_replay.rulesets import RuleChoice

BOUND = "16MB"  # DuckDB's memory for these runs: the big session needs more


def _log(tmp: Path) -> Path:
    """good-1, a session with 10.8 MB of text in its ``meta`` (each string under the
    reader's length limit), good-2: one JSON Lines file, one transaction."""
    docs = []
    for sid in ("good-1", "too-big", "good-2"):
        doc = hand_worked_doc(sid)
        if sid == "too-big":
            doc["session"]["meta"] = {f"note{k}": "x" * 900_000 for k in range(12)}
        docs.append(orjson.dumps(doc))
    log = tmp / "night.jsonl"
    log.write_bytes(b"\n".join(docs) + b"\n")
    return log


def _not_loaded(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if "'too-big'" in line]


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_session_duckdb_cannot_store_costs_itself_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, jobs: str
) -> None:
    monkeypatch.setenv("LOO_REPLAY_DB_MEMORY", BOUND)
    log, db = _log(tmp_path), tmp_path / "loo.duckdb"
    result = run("ingest", log, "--db", db, "--jobs", jobs)
    assert result.returncode == 2, result.stderr
    (said,) = _not_loaded(result.stderr)
    assert said.startswith(f"loo-replay: session 'too-big' in {log.name} line 2 was not loaded")
    assert "DuckDB could not store it" in said and said.endswith("it is kept in rejects")
    assert sql(db, "SELECT session_id FROM sessions ORDER BY 1") == [("good-1",), ("good-2",)]
    assert sql(db, "SELECT count(*) FROM deals WHERE session_id = 'too-big'") == [(0,)]
    ((kind, sid, file, line, message, raw),) = sql(
        db, "SELECT kind, session_id, file, line, message, raw FROM rejects WHERE kind <> 'deal'"
    )
    assert (kind, sid, file, line, raw) == ("session", "too-big", log.name, 2, b"")
    assert message.startswith("DuckDB could not store it: ") and "MiB" in message
    if jobs == "1":  # the report's index lists it among the rejects
        out = tmp_path / "reports"
        assert run("report", "--db", db, "--out", out, "--no-replays").returncode == 0
        index = (out / "index.html").read_text("utf-8")
        rejects = index[index.index("<h2>Rejects</h2>") :]
        assert "too-big" in rejects and "DuckDB could not store it" in rejects
        assert f"{log.name} line 2" in rejects


def test_a_rerun_tries_the_session_again_and_keeps_it_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LOO_REPLAY_DB_MEMORY", BOUND)
    log, db = _log(tmp_path), tmp_path / "loo.duckdb"
    assert run("ingest", log, "--db", db).returncode == 2
    again = run("ingest", log, "--db", db)
    assert again.returncode == 2 and len(_not_loaded(again.stderr)) == 1
    assert "10 skipped (already loaded)" in again.stdout
    assert sql(db, "SELECT count(*) FROM rejects WHERE kind = 'session'") == [(1,)]
    monkeypatch.setenv("LOO_REPLAY_DB_MEMORY", "128MB")  # with room enough, it loads
    fixed = run("ingest", log, "--db", db)
    assert fixed.returncode == 0, fixed.stderr
    assert sql(db, "SELECT count(*) FROM sessions") == [(3,)]


def test_a_memory_bound_that_is_not_a_size_is_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LOO_REPLAY_DB_MEMORY", "plenty")
    db = tmp_path / "loo.duckdb"
    result = run("ingest", SAMPLES / "wrong-payouts.json", "--db", db)
    assert result.returncode == 2
    assert "LOO_REPLAY_DB_MEMORY='plenty' is not a size such as 128MB or 1GB" in result.stderr
    assert not db.exists()


def test_with_every_commit_by_checkpoint_a_session_duckdb_cannot_store_costs_itself_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``load.CHECKPOINT_BYTES`` at 0: every commit by a checkpoint, as a file bringing many
    documents commits.  The session DuckDB cannot store is rolled back and kept in rejects
    with DuckDB's reason, and the rest of the file is loaded, as through the log."""
    monkeypatch.setenv("LOO_REPLAY_DB_MEMORY", BOUND)
    monkeypatch.setattr(load, "CHECKPOINT_BYTES", 0)
    log, db = _log(tmp_path), tmp_path / "loo.duckdb"
    result = ingest([log], db, RuleChoice())
    assert (result.counts.loaded, result.counts.unloaded) == (8, 1)
    assert sql(db, "SELECT session_id FROM sessions ORDER BY 1") == [("good-1",), ("good-2",)]
    ((message,),) = sql(db, "SELECT message FROM rejects WHERE kind = 'session'")
    assert message.startswith("DuckDB could not store it: ") and "MiB" in message
