"""The schema at the latest version as DuckDB writes it out, kept beside this module in
``latest.json``: a process compares a database with it (``versions``) and makes a new one
from it (``opening``) without running the migrations.  Running them all in an in-memory
DuckDB, to have something to compare with, cost about 0.2 billion instructions a process,
and running them on a new file a tenth of a second more than making its tables directly
(docs/performance.md, "Start-up").

The file is what the migrations make, read out (``made``); tests/test_db_latest.py holds
the two equal and ``scripts/latest_schema.py`` writes it again after a new migration.
DuckDB writes a definition out in its own words, which may change with its version: the
file is used only under the DuckDB that wrote it, and under another the migrations run as
before."""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

import duckdb

from loo_replay.db.migrations import MIGRATIONS, VERSION, Migration
from loo_replay.db.settings import duckdb_config
from loo_replay.engine.records import record

STORED = Path(__file__).with_name("latest.json")

# The kinds of definition, in the order a database is made from them: a table's columns may
# be of a type, an index is on a table, a view reads tables.
KINDS = ("types", "tables", "indexes", "views")


@record
class Schema:
    """A database made by the migrations up to ``version``, read out by the DuckDB of
    version ``duckdb``: each kind's definitions (name and statement, in the order they were
    made) and the rows of every table that has any."""

    version: int
    duckdb: str
    types: tuple[tuple[str, str], ...]
    tables: tuple[tuple[str, str], ...]
    indexes: tuple[tuple[str, str], ...]
    views: tuple[tuple[str, str], ...]
    rows: dict[str, list[list[Any]]]

    def statements(self) -> list[str]:
        """Every definition, in the order that makes the database."""
        return [sql for kind in KINDS for _, sql in getattr(self, kind)]

    def as_json(self) -> dict[str, Any]:
        return {
            "version": self.version,
            "duckdb": self.duckdb,
            **{kind: [list(d) for d in getattr(self, kind)] for kind in KINDS},
            "rows": self.rows,
        }


def _read(data: dict[str, Any]) -> Schema:
    return Schema(
        version=data["version"],
        duckdb=data["duckdb"],
        **{kind: tuple((name, sql) for name, sql in data[kind]) for kind in KINDS},
        rows=data["rows"],
    )


@functools.cache
def stored() -> Schema | None:
    """The schema kept in ``latest.json``, if it is this version's and was written by this
    DuckDB; else None (then ``made`` gives it)."""
    try:
        schema = _read(json.loads(STORED.read_bytes()))
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if schema.version != VERSION or schema.duckdb != duckdb.__version__:
        return None
    return schema


@functools.cache
def schema(version: int = VERSION) -> Schema:
    """The schema of a database the migrations up to ``version`` made: the stored one for
    the latest, else read out of one made in memory (about 0.2 billion instructions)."""
    kept = stored() if version == VERSION else None
    return kept if kept is not None else made(MIGRATIONS[:version])


def made(migrations: tuple[Migration, ...] = MIGRATIONS) -> Schema:
    """Run ``migrations`` on an in-memory database and read out what they made."""
    con = duckdb.connect(config={**duckdb_config(), "enable_external_access": False})
    try:
        for migration in migrations:
            for statement in migration.statements:
                con.execute(statement)
            con.execute(
                "INSERT INTO schema_version VALUES (?, ?)",
                [migration.version, migration.description],
            )
        return _read_out(con, migrations[-1].version if migrations else 0)
    finally:
        con.close()


def _read_out(con: duckdb.DuckDBPyConnection, version: int) -> Schema:
    types = con.execute(
        "SELECT type_name FROM duckdb_types() WHERE NOT internal AND database_name = "
        "current_database() AND schema_name = 'main' ORDER BY type_oid"
    ).fetchall()
    definitions = {
        "types": [(name, f"CREATE TYPE {name} AS {_spelled(con, name)};") for (name,) in types],
        "tables": con.execute(
            "SELECT table_name, sql FROM duckdb_tables() WHERE database_name = "
            "current_database() AND schema_name = 'main' ORDER BY table_oid"
        ).fetchall(),
        "indexes": con.execute(
            "SELECT index_name, sql FROM duckdb_indexes() WHERE database_name = "
            "current_database() AND schema_name = 'main' ORDER BY index_oid"
        ).fetchall(),
        "views": con.execute(
            "SELECT view_name, sql FROM duckdb_views() WHERE NOT internal AND database_name = "
            "current_database() AND schema_name = 'main' ORDER BY view_oid"
        ).fetchall(),
    }
    rows = {}
    for name, _ in definitions["tables"]:  # in the order they were inserted
        found = con.execute(f"SELECT * FROM {name} ORDER BY rowid").fetchall()
        if found:
            rows[name] = [list(row) for row in found]
    return Schema(
        version,
        duckdb.__version__,
        **{kind: tuple((n, s) for n, s in found) for kind, found in definitions.items()},
        rows=rows,
    )


def _spelled(con: duckdb.DuckDBPyConnection, name: str) -> str:
    """The type ``name`` is, as DuckDB writes it (an ENUM with its labels)."""
    ((spelled,),) = con.execute(f"SELECT typeof(NULL::{name})").fetchall()
    return str(spelled)


def create(con: duckdb.DuckDBPyConnection) -> bool:
    """Make the latest schema in the new, empty database of ``con``, in one transaction,
    from the stored schema; False, with nothing done, when there is none for this DuckDB
    (the caller runs the migrations)."""
    kept = stored()
    if kept is None:
        return False
    con.begin()
    try:
        for statement in kept.statements():
            con.execute(statement)
        for table, rows in kept.rows.items():  # a statement a table, not a row
            marks = ", ".join([f"({', '.join('?' * len(rows[0]))})"] * len(rows))
            con.execute(f"INSERT INTO {table} VALUES {marks}", [v for row in rows for v in row])
        con.commit()
    except BaseException:
        con.rollback()
        raise
    return True


def write(path: Path = STORED) -> Schema:
    """Write the schema the migrations make to ``path`` (``scripts/latest_schema.py``)."""
    schema = made()
    path.write_text(_lines(schema.as_json()))
    return schema


def _lines(data: dict[str, Any]) -> str:
    """``data`` as JSON with a line for each definition and row, to be read in a diff."""

    def listed(items: list[Any], depth: int = 1) -> str:
        inner = ",\n".join(
            " " * (depth + 1) + json.dumps(item, ensure_ascii=False) for item in items
        )
        return f"[\n{inner}\n{' ' * depth}]" if items else "[]"

    fields = []
    for key, value in data.items():
        if isinstance(value, list):
            shown = listed(value)
        elif isinstance(value, dict):
            tables = ",\n".join(f"  {json.dumps(t)}: {listed(r, 2)}" for t, r in value.items())
            shown = f"{{\n{tables}\n }}"
        else:
            shown = json.dumps(value)
        fields.append(f" {json.dumps(key)}: {shown}")
    return "{\n" + ",\n".join(fields) + "\n}\n"
