"""Where the database records each log: relative to the database's folder, or absolute.

A log under the database's folder is recorded relative to that folder (so the
two can move together), any other log by its absolute path; either way
``report`` finds it again from whatever folder it runs in.  Databases written
before this recorded paths relative to the folder ``ingest`` ran in; such a
path is looked for beside the database first (the usual case: ``ingest`` ran
where the database is) and then in the current folder.  Content is checked
against the digest it was loaded with, so a wrong file is never taken.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # ingest names its logs before it imports DuckDB (``db.errors``)
    import duckdb


def _absolute(path: Path) -> Path:
    return Path(os.path.abspath(path))  # no symlinks resolved: the path as the user sees it


def log_name(log: Path, db: Path) -> str:
    """How the database at ``db`` records the log file ``log``."""
    absolute = _absolute(log)
    try:
        return absolute.relative_to(_absolute(db).parent).as_posix()
    except ValueError:
        return str(absolute)


def log_path(recorded: str, db: Path) -> Path:
    """The file a log recorded as ``recorded`` in the database at ``db`` is read from."""
    path = Path(recorded)
    if path.is_absolute():
        return path
    beside = _absolute(db).parent / path
    if beside.exists() or not path.exists():
        return beside
    return path  # recorded relative to where an older ingest ran: the current folder


def shown(recorded: str, db: Path) -> str:
    """A recorded log as a message names it: relative to the current folder when under it
    (as the user typed it), else absolute."""
    path = _absolute(log_path(recorded, db))
    try:
        return path.relative_to(Path.cwd()).as_posix()
    except ValueError:
        return str(path)


def database_file(con: duckdb.DuckDBPyConnection) -> Path:
    """The file of the database ``con`` is connected to."""
    ((path,),) = con.execute(
        "SELECT path FROM duckdb_databases() WHERE database_name = current_database()"
    ).fetchall()
    return Path(path)
