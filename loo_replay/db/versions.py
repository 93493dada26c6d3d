"""A database's schema version: whether loo-replay made it (its migration records and
tables, and every view and macro as its migrations define them, else it is refused as
foreign), and its upgrade by the migrations it lacks."""

from __future__ import annotations

import functools
from collections.abc import Sequence

import duckdb

from loo_replay.db.errors import DatabaseError
from loo_replay.db.latest import schema
from loo_replay.db.migrations import MIGRATIONS, V1_COLUMNS, VERSION, Migration
from loo_replay.engine.records import record


def version_of(con: duckdb.DuckDBPyConnection) -> int:
    """The schema version of the database: 0 for a new (empty) one.  A database that
    loo-replay did not make is refused (``DatabaseError``), whatever its tables are called."""
    foreign, version = _foreign(con)
    if foreign is not None:
        ((path,),) = con.execute(
            "SELECT path FROM duckdb_databases() WHERE database_name = current_database()"
        ).fetchall()
        raise DatabaseError(
            f"{path or 'the database'} is a DuckDB database that loo-replay did not make "
            f"({foreign}); give --db a new file, or one loo-replay made"
        )
    return version


def _columns(con: duckdb.DuckDBPyConnection) -> dict[str, dict[str, str]]:
    """The columns of each table (and view) in the database's ``main`` schema, and their
    types: one statement, not one a table (each statement DuckDB parses costs about 2
    million instructions, docs/performance.md, "Start-up")."""
    columns: dict[str, dict[str, str]] = {}
    for table, column, kind in con.execute(
        "SELECT table_name, column_name, data_type FROM duckdb_columns() WHERE database_name "
        "= current_database() AND schema_name = 'main' ORDER BY table_name, column_index"
    ).fetchall():
        columns.setdefault(table, {})[column] = kind
    return columns


def _foreign(con: duckdb.DuckDBPyConnection) -> tuple[str | None, int]:
    """Why the database is not one loo-replay made, or None: it has no tables at all (a new
    one, at version 0), or its migration records and the tables of migration 1 are
    loo-replay's (its version the last of them)."""
    names = [
        name
        for (name,) in con.execute(
            "SELECT table_name FROM duckdb_tables() WHERE database_name = current_database() "
            "UNION ALL SELECT view_name FROM duckdb_views() WHERE NOT internal "
            "AND database_name = current_database() ORDER BY 1"
        ).fetchall()
    ]
    if not names:
        return None, 0
    columns = _columns(con)
    if columns.get("schema_version") != {"version": "INTEGER", "description": "VARCHAR"}:
        shown = ", ".join(names[:3]) + (", ..." if len(names) > 3 else "")
        return f"its tables: {shown}", 0
    ((low, high, rows),) = con.execute(
        "SELECT min(version), max(version), count(*) FROM schema_version"
    ).fetchall()
    if low != 1 or high != rows:
        return "its schema_version table is not a record of loo-replay's migrations", 0
    for table, wanted in V1_COLUMNS.items():
        if table != "schema_version" and not wanted <= columns.get(table, {}).keys():
            return f"its table {table} is not loo-replay's", 0
    # A newer one is refused as such, by the caller.
    return (_unlike(con, high) if high <= VERSION else None), int(high)


def _unlike(con: duckdb.DuckDBPyConnection, version: int) -> str | None:
    """How the database differs from one its migrations up to ``version`` made, or None: a
    view, or a table loo-replay defines, that is not as they define it, compared as DuckDB
    writes each definition out (normalised); any macro or trigger (loo-replay defines
    none).  A database is data, never code: a view or macro of someone else's would run as
    the commands read, a trigger as they write (docs/database.md, "A database from someone
    else").  Other tables are data and left alone."""
    expected = _reference(version)
    views = con.execute(
        "SELECT schema_name, view_name, sql FROM duckdb_views() WHERE NOT internal "
        "AND database_name = current_database() ORDER BY 1, 2"
    ).fetchall()
    found = {}
    for schema_name, name, sql in views:
        if schema_name != "main" or name not in expected.views:
            return f"its view {name[:60]!r} is not one of loo-replay's"
        found[name] = sql
    for name, sql in expected.views.items():
        if name not in found:
            return f"its view {name!r} is missing"
        if _normal(found[name]) != sql:
            return f"its view {name!r} is not the one loo-replay defines"
    ((macro, trigger),) = con.execute(  # a trigger's SQL runs as rows are written
        "SELECT (SELECT min(function_name) FROM duckdb_functions() WHERE database_name = "
        "current_database() AND function_type IN ('macro', 'table_macro')), "
        "(SELECT min(trigger_name) FROM duckdb_triggers() WHERE database_name = "
        "current_database())"
    ).fetchall()
    if macro is not None:
        return f"it defines a macro ({macro[:60]!r}), and loo-replay defines none"
    if trigger is not None:
        return f"it defines a trigger ({trigger[:60]!r}), and loo-replay defines none"
    tables = con.execute(
        "SELECT table_name, sql FROM duckdb_tables() WHERE database_name = current_database() "
        "AND schema_name = 'main'"
    ).fetchall()
    for name, sql in tables:
        if name in expected.tables and _normal(sql) != expected.tables[name]:
            return f"its table {name!r} is not the one loo-replay defines"
    return None


@record
class _Definitions:
    views: dict[str, str]
    tables: dict[str, str]


@functools.cache
def _reference(version: int) -> _Definitions:
    """The views and tables, as DuckDB writes them out, of a database made by the
    migrations up to ``version`` (``latest.schema``: the latest kept beside the code, an
    older one made in memory), spacing made one."""
    made = schema(version)
    return _Definitions(
        {name: _normal(sql) for name, sql in made.views},
        {name: _normal(sql) for name, sql in made.tables},
    )


def _normal(sql: str) -> str:
    """A definition with its spacing made one: DuckDB writes out the parsed statement,
    whatever its spacing was when it was made."""
    return " ".join(sql.split())


def migrate(
    con: duckdb.DuckDBPyConnection, migrations: Sequence[Migration] = MIGRATIONS
) -> tuple[int, int]:
    """Bring the database to the last of ``migrations``; returns (version before, after).

    Each migration runs in one transaction with its ``schema_version`` row, so a
    process killed while upgrading leaves the database at a whole version.  The database
    is looked at before (``version_of``), not again after: each migration's row is in.
    """
    before = version_of(con)
    newest = migrations[-1].version if migrations else 0
    if before > newest:
        raise DatabaseError(newer("the database", before, newest))
    if before == newest:  # nothing to run: looked at once, not again (each check costs 40 ms)
        return before, before
    for migration in migrations:
        if migration.version <= before:
            continue
        con.begin()
        try:
            for statement in migration.statements:
                con.execute(statement)
            con.execute(
                "INSERT INTO schema_version VALUES (?, ?)",
                [migration.version, migration.description],
            )
            con.commit()
        except BaseException:
            con.rollback()
            raise
    return before, newest


def newer(name: object, version: int, newest: int = VERSION) -> str:
    return (
        f"{name} is at schema version {version}, newer than this loo-replay understands "
        f"({newest}); upgrade loo-replay"
    )
