"""Versioned migrations: a new database gets them all, an older one is upgraded in place
(its rows kept), a newer one is refused; the frames the loader builds fit the tables."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa  # type: ignore[import-untyped]
import pytest
from db_helpers import SAMPLES, counts, dump, run, sql

from loo_replay.db import latest, migrations, opening, settings, tables, versions
from loo_replay.db.load import Loader, insert_table
from loo_replay.engine.cards import canonical
from loo_replay.logs.paths import expand
from loo_replay.logs.pieces import plan_pieces
from loo_replay.rulesets import RuleChoice
from loo_replay.run.frames import SCHEMAS
from loo_replay.run.load_work import Auditor
from loo_replay.run.rows import ROWS, DiscrepancyRow, enum_columns
from loo_replay.run.rows import columns as columns_of


class _OlderLoader(Loader):
    """An older loo-replay's loader: it wrote only the tables and columns it had."""

    def _insert(self, name: str, table: pa.Table) -> None:
        if not self.con.execute(
            "SELECT 1 FROM duckdb_tables() WHERE table_name = ?", [name]
        ).fetchall():
            return
        have = {r[0] for r in self.con.execute(f"DESCRIBE {name}").fetchall()}
        # The session keys, kept with the rows, are left out: none before version 14.
        insert_table(self.con, name, table.select([c for c in table.column_names if c in have]))

    def _last_key(self) -> int:
        return 0  # no session keys before migration 14

    def commit(self) -> None:
        self.changed = False  # no content version to raise before migration 13
        super().commit()


def _load_at(db: Path, migrations: tuple[migrations.Migration, ...], paths: list[Path]) -> None:
    """What an older loo-replay did: its migrations, then a load."""
    con = duckdb.connect(str(db))
    try:
        versions.migrate(con, migrations)
        loader = _OlderLoader(con)
        auditor = Auditor(RuleChoice(), {})
        for piece in plan_pieces(expand(paths).files):
            loader.begin()
            for batch in auditor.batches((piece,)):
                loader.load(batch)
            loader.commit()
    finally:
        con.close()


def _keyless(dumped: dict[str, list[tuple[Any, ...]]]) -> dict[str, list[tuple[Any, ...]]]:
    """Each table's rows without ``session_key``, their last column (``dump`` reads them all)."""
    return {table: [r[:-1] for r in rows] for table, rows in dumped.items()}


def test_a_new_database_is_at_the_current_version(tmp_path: Path) -> None:
    db = tmp_path / "loo.duckdb"
    opening.open_db(db).close()
    assert sql(db, "SELECT version FROM schema_version ORDER BY version") == [
        (m.version,) for m in migrations.MIGRATIONS
    ]
    opening.open_db(db).close()  # opening again changes nothing
    assert sql(db, "SELECT count(*) FROM schema_version") == [(len(migrations.MIGRATIONS),)]


def test_a_version_1_database_is_upgraded_in_place_with_its_rows(
    tmp_path: Path, samples_ingested: Path
) -> None:
    # fresh: ``loo-replay ingest sample_logs`` into a new database (conftest.py, read only)
    old, fresh = tmp_path / "old.duckdb", samples_ingested
    _load_at(old, migrations.MIGRATIONS[:1], [SAMPLES / "three-card-revokes.json"])
    assert sql(old, "SELECT max(version) FROM schema_version") == [(1,)]
    with pytest.raises(duckdb.CatalogException):
        sql(old, "SELECT * FROM player_stats")

    result = run("ingest", SAMPLES, "--db", old)
    assert result.returncode == 0, result.stderr
    assert counts(result)["skipped"] == 24  # the rows of version 1 are still there and used
    assert sql(old, "SELECT max(version) FROM schema_version") == [(migrations.VERSION,)]
    # The sessions of version 1 are numbered first, in load order, the others after them.
    keyed = sql(old, "SELECT session_key, file LIKE '%revokes%' FROM sessions ORDER BY rowid")
    assert [k for k, _ in keyed] == list(range(1, len(keyed) + 1))
    assert [early for _, early in keyed] == sorted((e for _, e in keyed), reverse=True)
    for table in tables.PER_DEAL_TABLES:  # each row carries its session's key
        assert sql(
            old,
            f"SELECT count(*) FROM {table} t JOIN sessions s USING (session_id) "
            "WHERE t.session_key != s.session_key",
        ) == [(0,)], table
    # The rest is the same as a new database loaded in another order: all but the keys.
    before, now = _keyless(dump(old)), _keyless(dump(fresh))
    early = {r[0] for r in sql(old, "SELECT session_id FROM sessions WHERE file LIKE '%revokes%'")}
    for table in (*tables.ANALYSIS_TABLES, "documents"):
        # sessions loaded before these tables existed keep none (skipped, not re-audited)
        assert before.pop(table) == [r for r in now.pop(table) if r[0] not in early]
    assert before == now
    assert sql(old, "SELECT * FROM player_stats ORDER BY player") == sql(
        fresh, "SELECT * FROM player_stats ORDER BY player"
    )


def test_cards_upgraded_to_the_card_enum_keep_their_names_and_sort_in_deck_order(
    tmp_path: Path,
) -> None:
    """Version 7 turns the text of every card and declaration column into ENUMs: a database
    loaded at version 6 reads the same values after the upgrade, and cards sort in deck
    order (♠ ♥ ♦ ♣, 2 to A), no longer alphabetically."""
    db = tmp_path / "old.duckdb"
    _load_at(db, migrations.MIGRATIONS[:6], [SAMPLES / "three-card-revokes.json"])
    query = (
        "SELECT session_id, deal_index, trick, position, card::VARCHAR, "
        "legal_cards::VARCHAR[] FROM plays ORDER BY ALL"
    )
    held = "SELECT held::VARCHAR[], card::VARCHAR FROM findings ORDER BY ALL"
    before, findings = sql(db, query), sql(db, held)
    assert sql(db, "SELECT DISTINCT typeof(card) FROM plays") == [("VARCHAR",)]
    con = opening.open_db(db)
    con.close()
    assert sql(db, query) == before and sql(db, held) == findings and findings
    assert sql(db, "SELECT DISTINCT typeof(card) = typeof(NULL::card) FROM plays") == [(True,)]
    assert sql(
        db, "SELECT DISTINCT typeof(declaration) = typeof(NULL::declaration) FROM seats"
    ) == [(True,)]
    order = [c for (c,) in sql(db, "SELECT DISTINCT card::VARCHAR FROM plays ORDER BY card")]
    deck = [c for c in map(canonical, range(52)) if c in order]  # the engine's numbering
    assert order == deck and order != sorted(order)


def test_stats_upgrades_an_older_database_too(tmp_path: Path) -> None:
    db = tmp_path / "old.duckdb"
    _load_at(db, migrations.MIGRATIONS[:1], [SAMPLES / "wrong-payouts.json"])
    result = run("stats", "--db", db)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("player")


def test_a_newer_database_is_refused_in_one_sentence(tmp_path: Path) -> None:
    db = tmp_path / "loo.duckdb"
    future = migrations.Migration(
        migrations.VERSION + 1, "from the future", ("CREATE TABLE later (x INT)",)
    )
    con = duckdb.connect(str(db))
    versions.migrate(con, (*migrations.MIGRATIONS, future))
    con.close()
    result = run("ingest", SAMPLES / "wrong-payouts.json", "--db", db)
    assert result.returncode == 2
    assert f"schema version {migrations.VERSION + 1}, newer than this loo-replay" in result.stderr


def test_a_failed_migration_leaves_the_version_before(tmp_path: Path) -> None:
    db = tmp_path / "loo.duckdb"
    broken = migrations.Migration(
        migrations.VERSION + 1, "broken", ("CREATE TABLE t (x INT)", "NOT SQL")
    )
    con = duckdb.connect(str(db))
    with pytest.raises(duckdb.ParserException):
        versions.migrate(con, (*migrations.MIGRATIONS, broken))
    assert versions.version_of(con) == migrations.VERSION
    assert con.execute(
        "SELECT count(*) FROM information_schema.tables WHERE table_name = 't'"
    ).fetchall() == [(0,)]
    con.close()


_DUCKDB_TYPE = {
    "string": "VARCHAR",
    "int32": "INTEGER",
    "int64": "BIGINT",
    "bool": "BOOLEAN",
    "double": "DOUBLE",
    "binary": "BLOB",
    "list<item: string>": "VARCHAR[]",
    "list<item: struct<path: string, message: string>>": "STRUCT(path VARCHAR, message VARCHAR)[]",
}


def test_declared_rows_are_the_migrated_tables_column_for_column(tmp_path: Path) -> None:
    """run/rows.py declares each table once: the migrations create exactly its columns, in
    order, with its types, nullable where the row's field may be None (and only there),
    then the session's key the loader adds (db/keys.py), NULL only where a reject names no
    loaded session."""
    db = tmp_path / "loo.duckdb"
    opening.open_db(db).close()
    assert set(ROWS) == set(tables.SESSION_TABLES)
    enum_types = {  # as information_schema spells them
        name: sql(db, f"SELECT typeof(NULL::{name})")[0][0]
        for name in ("card", "card[]", "declaration")
    }
    for table, row in ROWS.items():
        columns = sql(
            db,
            "SELECT column_name, data_type, is_nullable = 'YES' FROM information_schema.columns "
            "WHERE table_name = ? ORDER BY ordinal_position",
            table,
        )
        enums = enum_columns(row)
        declared = [
            (n, enum_types[enums[n]] if n in enums else _DUCKDB_TYPE[str(t)], nullable)
            for n, t, nullable in columns_of(row)
        ]
        assert columns == [*declared, ("session_key", "BIGINT", table == "rejects")], table


def test_every_table_column_and_view_is_in_the_docs() -> None:
    page = (Path(__file__).resolve().parents[1] / "docs" / "database.md").read_text("utf-8")
    section = page[page.index("## Schema") :]
    db = duckdb.connect()
    versions.migrate(db)
    for table in (*SCHEMAS, *tables.VIEWS):
        assert f"`{table}`" in section, table
        for (column,) in db.execute(
            "SELECT column_name FROM information_schema.columns WHERE table_name = ?", [table]
        ).fetchall():
            assert f"`{column}`" in section, (table, column)


def test_a_row_takes_its_columns_by_name_only() -> None:
    """Two columns of one type cannot be swapped by position: a row refuses positions."""
    row = DiscrepancyRow(
        session_id="s",
        deal_index=0,
        deal=1,
        field="payouts.ann",
        item="payouts",
        player="ann",
        recorded=3,
        expected=2,
    )
    assert (row.recorded, row.expected) == (3, 2)
    with pytest.raises(TypeError):
        DiscrepancyRow("s", 0, 1, "payouts.ann", "payouts", "ann", 3, 2)  # type: ignore[call-arg]


def test_a_writing_connection_stores_rows_in_groups_of_row_group_rows(tmp_path: Path) -> None:
    """A commit compresses each table's last, partly filled row group: smaller groups leave
    ingest less to do once its workers are done.  DuckDB keeps the size per connection, not
    in the file, so every writing connection attaches the database with it; the file, a
    quote in its name too, reads as any DuckDB file."""
    path = tmp_path / "club's.duckdb"
    rows = 2 * settings.ROW_GROUP_ROWS + 5
    con = opening.connect(path)
    con.execute(f"CREATE TABLE t AS SELECT range AS i FROM range({rows})")
    con.close()
    plain = duckdb.connect(str(path), read_only=True)
    try:
        counts = plain.execute(
            "SELECT count FROM pragma_storage_info('t') WHERE column_id = 0 "
            "GROUP BY row_group_id, count ORDER BY row_group_id"
        ).fetchall()
        assert plain.execute("SELECT sum(i) FROM t").fetchone() == (rows * (rows - 1) // 2,)
    finally:
        plain.close()
    assert counts == [(settings.ROW_GROUP_ROWS,), (settings.ROW_GROUP_ROWS,), (5,)]


def _opened_alone(db: Path) -> None:
    """``open_db`` makes a database at the current version at ``db``, the one file beside it."""
    con = opening.open_db(db)
    try:
        assert versions.version_of(con) == migrations.VERSION
    finally:
        con.close()
    assert [p.name for p in db.parent.iterdir()] == [db.name]


def test_a_new_database_appears_whole_or_not_at_all(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A new file is made with its tables beside its place and linked there whole: a run
    stopped while making it (here, as it makes its tables) leaves no file, where a kill as DuckDB
    started it had left an empty one that no later run could open."""
    db = tmp_path / "loo.duckdb"
    real = latest.create

    def stopped(con: duckdb.DuckDBPyConnection) -> bool:
        con.execute("CREATE TABLE half (x INTEGER)")
        raise KeyboardInterrupt

    monkeypatch.setattr(opening, "create", stopped)
    with pytest.raises(KeyboardInterrupt):
        opening.open_db(db)
    assert list(tmp_path.iterdir()) == []
    monkeypatch.setattr(opening, "create", real)
    _opened_alone(db)


def test_a_new_database_on_a_file_system_without_hard_links_is_moved_into_place(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def no_links(*args: Any, **kwargs: Any) -> None:
        raise PermissionError(1, "Operation not permitted")

    monkeypatch.setattr(opening.os, "link", no_links)
    _opened_alone(tmp_path / "loo.duckdb")
