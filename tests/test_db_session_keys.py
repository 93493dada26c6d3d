"""Each session's key (loo_replay/db/keys.py; docs/database.md, "Session keys"): given in
load order by ingest, carried by every row of the session, a new one on ``--replace``,
numbered in load order when an older database is upgraded; a lookup by key and id finds the
rows a lookup by id alone finds."""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
import pyarrow as pa  # type: ignore[import-untyped]
import pytest
from db_helpers import SAMPLES, run, sql
from test_db_schema import _load_at

from loo_replay.db import keys, migrations, opening, tables
from loo_replay.db.stored_analysis import stored_analyses
from loo_replay.explorer import deals
from loo_replay.reports import queries as rq

KEYED = (*tables.SESSION_TABLES, "documents")


def _rows_off_their_key(db: Path) -> dict[str, int]:
    """Per table, its rows whose key is not their session's (rejects without a session
    aside): none, in a database loo-replay wrote."""
    return {
        table: sql(
            db,
            f"SELECT count(*) FROM {table} t LEFT JOIN sessions s USING (session_id) "
            "WHERE t.session_key IS DISTINCT FROM s.session_key"
            + (" AND s.session_id IS NOT NULL" if table == "rejects" else ""),
        )[0][0]
        for table in KEYED
    }


def _keys(db: Path) -> list[tuple[str, int]]:
    """(session id, key) in the order of ``sessions``' rows: the order they were loaded."""
    return sql(db, "SELECT session_id, session_key FROM sessions ORDER BY rowid")


def test_ingest_keys_the_sessions_in_load_order_on_every_row(tmp_path: Path) -> None:
    db = tmp_path / "loo.duckdb"
    # Loaded in an order that is not the ids': the keys follow the loads.
    for name in ("wrong-payouts.json", "hoyle-evening.jsonl", "broken-deals.json"):
        result = run("ingest", SAMPLES / name, "--db", db)
        assert result.returncode in (0, 1), result.stderr
    loaded = _keys(db)
    assert [k for _, k in loaded] == list(range(1, len(loaded) + 1))
    assert loaded[0][0].startswith("wrong-payouts") and loaded[-1][0].startswith("broken-deals")
    assert sorted(loaded) != loaded  # the ids sort otherwise
    assert _rows_off_their_key(db) == dict.fromkeys(KEYED, 0)
    for table in KEYED:  # along each table's rows, the keys never go back
        assert sql(
            db,
            f"SELECT count(*) FROM (SELECT session_key < lag(session_key) OVER (ORDER BY rowid) "
            f"AS back FROM {table}) WHERE back",
        ) == [(0,)], table
    # The rejected deals of broken-deals carry its key; a document that is no session none.
    assert sql(db, "SELECT count(*) FROM rejects WHERE session_key IS NOT NULL") != [(0,)]


def test_replace_gives_the_session_the_next_key_and_deletes_its_old_rows(
    tmp_path: Path,
) -> None:
    db = tmp_path / "loo.duckdb"
    for name in ("wrong-payouts.json", "three-card-revokes.json"):
        assert run("ingest", SAMPLES / name, "--db", db).returncode == 0
    before = dict(_keys(db))
    doc = json.loads((SAMPLES / "wrong-payouts.json").read_text())
    doc["deals"][0].setdefault("recorded", {})["pool_next"] = 99  # other content, same id
    changed = tmp_path / "changed.json"
    changed.write_text(json.dumps(doc))
    sid = doc["session"]["id"]
    old = before[sid]
    counted = {t: sql(db, f"SELECT count(*) FROM {t} WHERE session_id = ?", sid) for t in KEYED}

    result = run("ingest", changed, "--db", db, "--replace")
    assert result.returncode == 0, result.stderr
    after = dict(_keys(db))
    assert after[sid] == max(before.values()) + 1 != old
    assert {s: k for s, k in after.items() if s != sid} == {
        s: k for s, k in before.items() if s != sid
    }
    for table in KEYED:  # its new rows, all under the new key, none under the old
        assert sql(db, f"SELECT count(*) FROM {table} WHERE session_key = ?", old) == [(0,)]
        assert sql(db, f"SELECT count(*) FROM {table} WHERE session_key = ?", after[sid]) == sql(
            db, f"SELECT count(*) FROM {table} WHERE session_id = ?", sid
        ), table
    for table in ("sessions", "players", "deals", "seats", "plays", "documents"):
        assert (
            sql(db, f"SELECT count(*) FROM {table} WHERE session_id = ?", sid)
            == counted[table]
            != [(0,)]
        ), table
    assert _rows_off_their_key(db) == dict.fromkeys(KEYED, 0)
    # Its replay reads the new content under the new key.
    with opening.opened(db) as con:
        loaded = deals.read(con, sid, 1)
    assert loaded.raw is not None and b'"pool_next": 99' in loaded.raw


def test_an_upgraded_database_numbers_its_sessions_in_the_order_they_were_loaded(
    tmp_path: Path,
) -> None:
    db = tmp_path / "old.duckdb"
    loads = [SAMPLES / "wrong-payouts.json", SAMPLES / "broken-deals.json"]
    for log in loads:  # two loads at version 13, the later id sorting first
        _load_at(db, migrations.MIGRATIONS[:13], [log])
    assert sql(db, "SELECT max(version) FROM schema_version") == [(13,)]
    ids = [r[0] for r in sql(db, "SELECT session_id FROM sessions ORDER BY rowid")]
    opening.open_db(db).close()
    assert sql(db, "SELECT max(version) FROM schema_version") == [(migrations.VERSION,)]
    assert _keys(db) == [(sid, n) for n, sid in enumerate(ids, 1)]
    assert ids != sorted(ids)
    assert _rows_off_their_key(db) == dict.fromkeys(KEYED, 0)
    # The next session loaded takes the next key.
    assert run("ingest", SAMPLES / "three-card-revokes.json", "--db", db).returncode == 0
    assert _keys(db)[-1][1] == len(ids) + 1


def test_a_lookup_by_key_finds_the_rows_of_the_id_alone(tmp_path: Path) -> None:
    db = tmp_path / "loo.duckdb"
    assert run("ingest", SAMPLES, "--db", db).returncode in (0, 1)
    with opening.opened(db) as con:
        ids = [r[0] for r in con.execute("SELECT session_id FROM sessions").fetchall()]
        assert len(ids) > 3
        for sid in ids:
            key = keys.key_of(con, sid)
            assert key is not None
            for table in KEYED:
                by_id = con.execute(
                    f"SELECT * FROM {table} WHERE session_id = ? ORDER BY ALL", [sid]
                ).fetchall()
                by_key = con.execute(
                    f"SELECT * FROM {table} WHERE {keys.BY_KEY} ORDER BY ALL", [key, sid]
                ).fetchall()
                assert by_key == by_id, (sid, table)
            analysed = con.execute(
                "SELECT count(*) FROM analysis_deals WHERE session_id = ?", [sid]
            ).fetchall()[0][0]
            # what the replay pages read: looked up, or given the key
            found = stored_analyses(con, sid)
            assert found == stored_analyses(con, sid, session_key=key)
            assert len(found) <= analysed and (found or not analysed)
        assert keys.key_of(con, "no such session") is None
        assert stored_analyses(con, "no such session") == {}


def test_keys_are_added_to_a_batch_by_runs_of_rows_null_where_there_is_none() -> None:
    frame = pa.table({"session_id": ["b", "b", None, "a", "c"], "x": [1, 2, 3, 4, 5]})
    keyed = keys.keyed(frame, [(8, 2), (None, 1), (7, 1), (None, 0), (9, 1)])
    assert keyed.column("session_key").to_pylist() == [8, 8, None, 7, 9]
    assert keyed.column("x").to_pylist() == [1, 2, 3, 4, 5]
    assert keys.keyed(frame.slice(0, 0), []).column("session_key").to_pylist() == []
    with pytest.raises(RuntimeError):  # runs that do not cover the rows: nothing is keyed
        keys.keyed(frame, [(8, 4)])


BATCH_QUERIES = (
    rq.players,
    rq.pool_history,
    rq.rejected_deals,
    rq.loo_by_declaration,
    rq.loo_by_position,
    rq.chips,
    rq.violations,
    rq.findings,
    rq.discrepancies,
    rq.analysis_by_player,
    rq.thrown_tricks,
)


def test_a_reports_batch_reads_by_its_keys_the_rows_it_read_by_id(tmp_path: Path) -> None:
    """The report's queries of a batch name the range of its keys beside its ids: the same
    rows as by the ids alone (every key allowed), for batches whose keys are not one run,
    in a database loaded out of the ids' order and with a session replaced (a new key)."""
    db = tmp_path / "loo.duckdb"
    for path in sorted(SAMPLES.iterdir(), reverse=True):
        assert run("ingest", path, "--db", db).returncode in (0, 1)
    doc = json.loads((SAMPLES / "three-card-revokes.json").read_text())
    doc["deals"][0].setdefault("recorded", {})["pool_next"] = 99  # other content, same id
    changed = tmp_path / "changed.json"
    changed.write_text(json.dumps(doc))
    assert run("ingest", changed, "--db", db, "--replace").returncode in (0, 1)
    loaded = [r[0] for r in sql(db, "SELECT session_id FROM sessions ORDER BY session_key")]
    assert loaded[-1] == doc["session"]["id"] and len(loaded) > 4
    con = duckdb.connect(str(db), read_only=True)
    try:
        for ids in (loaded, loaded[::2], [loaded[0], loaded[-1]], loaded[1:3], [loaded[-2]]):
            batch = rq.sessions_of(con, ids)
            by_id = rq.Sessions(batch.ids, 0, 2**62)
            assert (batch.lo, batch.hi) != (None, None)
            for query in BATCH_QUERIES:
                got = query(con, batch)
                assert got.equals(query(con, by_id)), (query.__name__, ids)
        # A session not loaded: its batch reads nothing, with the columns.
        none = rq.sessions_of(con, ["no-such-session"])
        assert (none.lo, none.hi) == (None, None)
        assert rq.findings(con, none).is_empty()
    finally:
        con.close()
