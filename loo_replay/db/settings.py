"""The settings of every DuckDB connection loo-replay makes: bounded memory, no extension
installed or loaded, and no file reached but the database's own (``seal``)."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, suppress
from pathlib import Path

import duckdb

from loo_replay.db.errors import MEMORY_ENV, MEMORY_LIMIT, DatabaseError

# DuckDB keeps up to 80% of RAM in its buffer pool by default; a bound keeps an ingest of
# any size in constant memory (pages past it are written out and evicted), and a session
# too big for it fails alone (``db.ingest``).  With it, an ingest stays under 500 MB in all
# (docs/limits.md#databases); the variable sets another bound, for a smaller machine.
_SIZE = re.compile(r"\d+(\.\d+)?\s*([KMGT]i?)?B", re.IGNORECASE)


def duckdb_config(*, sandbox: bool = False) -> dict[str, str | bool | int | float | list[str]]:
    """The settings of every connection: bounded memory, and no extension ever installed or
    loaded behind the user's back (opening an SQLite file would fetch one).  ``sandbox``
    (``query``) also locks the settings, so that the user's SQL cannot lift a bound.  No
    connection reaches a file but its own (``seal``)."""
    memory = os.environ.get(MEMORY_ENV, MEMORY_LIMIT).strip()
    if not _SIZE.fullmatch(memory):
        raise DatabaseError(f"{MEMORY_ENV}={memory!r} is not a size such as 128MB or 1GB")
    config: dict[str, str | bool | int | float | list[str]] = {
        "memory_limit": memory,
        "autoinstall_known_extensions": False,
        "autoload_known_extensions": False,
        # A full row group of a bulk insert is compressed and written at once, not held
        # until five are (DuckDB's default): an ingest's commit, with the workers done,
        # then has at most one row group a table left to write, and fewer fresh pages
        # are faulted in (docs/performance.md, "The loader").
        "write_buffer_row_group_count": 1,
    }
    if sandbox:
        config |= {"enable_external_access": False, "lock_configuration": True}
    return config


# A process that works beside its workers, and each of those workers, need far less than the
# bound above: `report --jobs 2` held three pools of up to 128 MB beside three sets of imports
# (about 110 MB each), 830 MB in all over a million deals (issue 53: 600 MB).  A batch of
# sessions is a few filtered scans, one thread enough (the processes are the parallelism).
# A report's batch of 10,000 six-player deals (reports.build.BATCH_DEALS) needs about 31 MB
# of it, but one batch of the million-deal benchmark ran out of 48 MB in the main process's
# analysis_by_player (the report stopped at its 3,504th page; benchmarks/results/million.md).
WORKER_MEMORY = "64MB"


def as_worker(con: duckdb.DuckDBPyConnection) -> duckdb.DuckDBPyConnection:
    """``con`` with a worker's pool (``sized``: ``WORKER_MEMORY``) and one thread."""
    sized(con, WORKER_MEMORY)
    con.execute("SET threads = 1")
    return con


def sized(con: duckdb.DuckDBPyConnection, memory: str) -> None:
    """``con``'s pool set to ``memory`` for a kind of work that needs another than every
    connection's, or to the variable's bound where it is set: the user's remedy for work that
    needs more, which an out-of-memory message names (checked by ``duckdb_config`` as ``con``
    connected)."""
    memory = os.environ.get(MEMORY_ENV, "").strip() or memory
    con.execute(f"SET memory_limit = '{memory}'")


@contextmanager
def working(con: duckdb.DuckDBPyConnection) -> Iterator[None]:
    """While the block runs, ``con`` as a worker's (``as_worker``): the process that holds it
    works a share beside its workers (``run.workers.ordered_map``'s ``here``) with no larger
    a pool than theirs, its cached blocks past it let go; its bound and threads as they were
    (to DuckDB's rounding) again after.  A pool that cannot shrink now (blocks in use) is
    left as it is."""
    before, threads = con.execute(
        "SELECT current_setting('memory_limit'), current_setting('threads')"
    ).fetchone() or ("", 1)
    try:
        as_worker(con)
    except duckdb.Error:
        yield
        return
    try:
        yield
    finally:
        con.execute(f"SET memory_limit = '{before}'")  # DuckDB's own words for its size
        con.execute(f"SET threads = {int(threads)}")


@contextmanager
def widened(con: duckdb.DuckDBPyConnection) -> Iterator[None]:
    """While the block runs, ``con``'s pool at every connection's bound (``sized``:
    ``MEMORY_LIMIT``, or the variable's), then as it was: for a worker's piece of work that
    ran out of its small pool, done once more (``reports.build``'s batches of pages)."""
    (before,) = con.execute("SELECT current_setting('memory_limit')").fetchone() or ("",)
    sized(con, MEMORY_LIMIT)
    try:
        yield
    finally:
        with suppress(duckdb.Error):  # blocks still in use: left at the bound, as ``working``
            con.execute(f"SET memory_limit = '{before}'")


def seal(
    con: duckdb.DuckDBPyConnection,
    path: Path,
    folders: Sequence[Path] = (),
    also: Sequence[Path] = (),
) -> duckdb.DuckDBPyConnection:
    """``con`` shut off from every file, folder and address but the database at ``path``
    (its write-ahead log, its spill folder), the databases ``also`` (a new one's, made
    beside it before it is linked into place) and ``folders`` (an export's): a database is
    data, never code, and a view or macro a stranger wrote into it can read nothing else
    (docs/database.md, "A database from someone else").  DuckDB refuses to turn external
    access back on, or to widen what is allowed, while the connection lives."""
    files = [f"{database}{suffix}" for database in (path, *also) for suffix in DATABASE_FILES]
    con.execute("SET allowed_paths = ?", [files])
    con.execute(
        "SET allowed_directories = ?", [[os.path.join(os.path.abspath(f), "") for f in folders]]
    )
    con.execute("SET enable_external_access = false")
    return con


# The database and what DuckDB keeps beside it: the write-ahead log, and its copies while a
# checkpoint or a recovery runs.
DATABASE_FILES = ("", ".wal", ".wal.checkpoint", ".wal.recovery")


# Rows a row group holds, in the row groups a writing connection makes (DuckDB's default is
# 122,880).  A commit compresses the last, partly filled row group of every table it added
# to; at ingest's end that is all the work left, with the workers done: over 100,000
# three-card deals the final commit and close took 0.18 s against 0.4, for no more CPU in
# all and a file 5% larger (docs/performance.md).  DuckDB does not keep the size in the
# file: each writing connection attaches the database with it.
ROW_GROUP_ROWS = 16_384
