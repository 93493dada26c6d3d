"""Each loaded session's key: an integer in the order the sessions were loaded, on ``sessions``
and on every table that holds a session's rows (migration 14; docs/database.md, "Session
keys").

A session's rows are stored in load order, and DuckDB keeps each column's smallest and
largest value for every group of about 122,880 rows it stores: a query that names the key
reads the one or two groups that hold the session and skips the rest.  The id alone cannot
do that, since DuckDB keeps only a text's first 8 bytes there and ids like
``club-2026-...`` share them: a lookup by id read the whole column of its table (25 to 60 ms
a query at a million deals; docs/performance.md, "The explorer").  So a lookup by id finds
the key once, in ``sessions`` (by its primary key's index), and names both.
"""

from __future__ import annotations

from collections.abc import Iterable

import duckdb
import pyarrow as pa  # type: ignore[import-untyped]

COLUMN = "session_key"

# A session's rows, by key and id: the key skips the groups of rows of other sessions, the id
# keeps the answer the one it was by id alone.
BY_KEY = "session_key = ? AND session_id = ?"

_INT64 = pa.int64()


def key_of(con: duckdb.DuckDBPyConnection, session_id: str) -> int | None:
    """The key of the loaded session ``session_id``; None when there is none."""
    found = con.execute(
        "SELECT session_key FROM sessions WHERE session_id = ?", [session_id]
    ).fetchall()
    return int(found[0][0]) if found else None


def session_rows(
    con: duckdb.DuckDBPyConnection,
    session_id: str,
    deal_index: int | None = None,
    session_key: int | None = None,
) -> list[object] | None:
    """The parameters that find the rows of ``session_id`` (only deal ``deal_index``'s, if
    given): ``BY_KEY``'s, then the deal index's; the key looked up unless given.  None when
    the session is not loaded."""
    if session_key is None:
        session_key = key_of(con, session_id)
        if session_key is None:
            return None
    return [session_key, session_id, *([] if deal_index is None else [deal_index])]


def last_key(con: duckdb.DuckDBPyConnection) -> int:
    """The largest key given so far (0 in an empty database): the next session's is one more."""
    ((last,),) = con.execute("SELECT coalesce(max(session_key), 0) FROM sessions").fetchall()
    return int(last)


def keyed(frame: pa.Table, runs: Iterable[tuple[int | None, int]]) -> pa.Table:
    """``frame`` with each row's session key beside its ``session_id``, from ``runs``: in
    the order of the rows, a key (None where there is none: a rejected document names no
    session) and how many rows in a row have it, as the loader knows them from the items
    it keeps (``frames.SessionItem.rows``).  Each run is one value repeated, not an id
    matched row by row: that hashed every row's id with Arrow's kernels, whose extension
    imports NumPy (docs/performance.md, "Targets: met and missed")."""
    if COLUMN in frame.column_names or "session_id" not in frame.column_names:
        return frame
    column = pa.concat_arrays(
        [pa.repeat(pa.scalar(key, _INT64), rows) for key, rows in runs if rows > 0]
        or [pa.array([], _INT64)]
    )
    if len(column) != frame.num_rows:  # never load a key beside another session's rows
        raise RuntimeError(f"{len(column)} session keys for {frame.num_rows} rows")
    return frame.append_column(COLUMN, column)
