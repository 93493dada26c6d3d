"""Writes loo_replay/db/latest.json, the schema at the latest version as the migrations make
it (``loo_replay.db.latest``): run it after adding a migration, or under a new DuckDB, and
commit the file.  tests/test_db_latest.py fails until it is run."""

from __future__ import annotations

from loo_replay.db.latest import STORED, write


def main() -> None:
    schema = write()
    print(f"wrote {STORED}: version {schema.version}, DuckDB {schema.duckdb}")


if __name__ == "__main__":
    main()
