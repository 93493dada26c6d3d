"""Where the database records each log: relative to the database's folder, or absolute.

A log under the database's folder is recorded relative to that folder (so the
two can move together), any other log by its absolute path; either way
``report`` finds it again from whatever folder it runs in.  Databases written
before this recorded paths relative to the folder ``ingest`` ran in; such a
path is looked for beside the database first (the usual case: ``ingest`` ran
where the database is) and then in the current folder.  Content is checked
against the digest it was loaded with, so a wrong file is never taken.

A file name is any bytes but ``/`` and NUL; DuckDB keeps only UTF-8 text.  A name
that is UTF-8 is recorded as it is; any other (``bad\xff.jsonl``), and any that
begins with ``file:``, is recorded as ``file:`` and its bytes percent-escaped
(``file:bad%FF.jsonl``), so that every name is kept whole and read back as it was
(``recorded_name``, ``path_text``; docs/database.md, "Where the logs are").
"""

from __future__ import annotations

import os
import urllib.parse
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # ingest names its logs before it imports DuckDB (``db.errors``)
    import duckdb


ESCAPED = "file:"  # the mark of a name recorded percent-escaped


def recorded_name(text: str) -> str:
    """A path's text (bytes that are not UTF-8 held as surrogates, as ``os.fsdecode`` gives
    them) as the database records it: as it is, or ``file:`` and its bytes percent-escaped."""
    if not text.startswith(ESCAPED):
        try:
            text.encode("utf-8")
            return text
        except UnicodeEncodeError:
            pass
    return ESCAPED + urllib.parse.quote(os.fsencode(text), safe="/")


def path_text(recorded: str) -> str:
    """The path's text a recorded name stands for (``recorded_name`` undone)."""
    if recorded.startswith(ESCAPED):
        return os.fsdecode(urllib.parse.unquote_to_bytes(recorded[len(ESCAPED) :]))
    return recorded


def _absolute(path: Path) -> Path:
    return Path(os.path.abspath(path))  # no symlinks resolved: the path as the user sees it


def log_name(log: Path, db: Path) -> str:
    """How the database at ``db`` records the log file ``log``."""
    absolute = _absolute(log)
    try:
        return recorded_name(absolute.relative_to(_absolute(db).parent).as_posix())
    except ValueError:
        return recorded_name(str(absolute))


def log_path(recorded: str, db: Path) -> Path:
    """The file a log recorded as ``recorded`` in the database at ``db`` is read from."""
    path = Path(path_text(recorded))
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
