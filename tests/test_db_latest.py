"""The schema kept beside the code (``loo_replay/db/latest.json``) is the one the migrations
make, read out by this DuckDB; a new database is made from it at once, and under a DuckDB
that did not write it the migrations run as before (``loo_replay.db.latest``)."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

from loo_replay.db import latest, migrations, opening, versions

NEW_SCHEMA = "python scripts/latest_schema.py"


def test_the_stored_schema_is_the_one_the_migrations_make() -> None:
    kept = latest.stored()
    assert kept is not None, (
        f"latest.json is not DuckDB {duckdb.__version__}'s at version {migrations.VERSION}: "
        f"run {NEW_SCHEMA}"
    )
    assert kept == latest.made(), f"the migrations changed: run {NEW_SCHEMA}"
    assert [v for v, _ in kept.rows["schema_version"]] == [m.version for m in migrations.MIGRATIONS]


def test_a_new_database_is_made_from_the_stored_schema_without_a_migration(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def refused(*args: object) -> None:
        raise AssertionError("a migration ran")

    monkeypatch.setattr(opening, "migrate", refused)
    with opening.opened(tmp_path / "new.duckdb", write=True) as con:
        assert versions.version_of(con) == migrations.VERSION


def test_under_another_duckdb_the_migrations_make_a_new_database_and_the_reference(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A stored schema DuckDB of another version wrote is not used: its words for a
    definition may not be this one's."""
    kept = latest.stored()
    assert kept is not None
    other = tmp_path / "latest.json"
    text = latest.STORED.read_text("utf-8")
    other.write_text(text.replace(f'"duckdb": "{kept.duckdb}"', '"duckdb": "0.0.1"', 1), "utf-8")
    monkeypatch.setattr(latest, "STORED", other)
    latest.stored.cache_clear()
    latest.schema.cache_clear()
    try:
        assert latest.stored() is None
        assert latest.schema() == latest.made()
        con = duckdb.connect(str(tmp_path / "migrated.duckdb"))
        try:
            assert latest.create(con) is False
            assert versions.migrate(con) == (0, migrations.VERSION)
            assert versions.version_of(con) == migrations.VERSION
        finally:
            con.close()
    finally:
        latest.stored.cache_clear()
        latest.schema.cache_clear()
