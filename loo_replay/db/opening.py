"""Opening a database safely: a file that is not DuckDB's, not loo-replay's (``versions``)
or of a newer schema is refused in one sentence, with its bytes untouched; a new one is made
whole at the latest version; no connection reaches a file but the database's (``settings``);
a server visits it read-only from a kept in-memory DuckDB, each statement bounded in time."""

from __future__ import annotations

import itertools
import os
import re
import stat
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import duckdb

from loo_replay.db.errors import DatabaseBusy, DatabaseError, damage
from loo_replay.db.interrupts import bounded
from loo_replay.db.latest import create
from loo_replay.db.migrations import VERSION
from loo_replay.db.settings import DATABASE_FILES, ROW_GROUP_ROWS, duckdb_config, seal
from loo_replay.db.versions import migrate, newer, version_of
from loo_replay.files import staging

_LOCK = re.compile(r"Conflicting lock is held in (?P<prog>.+?) \(PID (?P<pid>\d+)\)")


def check_file(path: Path) -> bool:
    """Whether a database file is at ``path``; raises ``DatabaseError`` for anything there
    that is not a DuckDB file (a folder, a pipe, an SQLite database, an empty or
    truncated file), read without DuckDB, which would try an extension for some."""
    try:
        info = path.stat()
    except FileNotFoundError:
        return False
    except OSError as exc:
        raise DatabaseError(f"cannot open {path}: {exc.strerror or exc}") from None
    if stat.S_ISDIR(info.st_mode):
        raise DatabaseError(f"cannot open {path}: it is a folder, not a DuckDB database file")
    if not stat.S_ISREG(info.st_mode):
        raise DatabaseError(
            f"cannot open {path}: it is not a regular file, so not a DuckDB database"
        )
    if info.st_size == 0:
        raise DatabaseError(
            f"cannot open {path}: it is an empty file, not a DuckDB database; remove it, or "
            "give --db a new file name, to start a database"
        )
    try:
        with path.open("rb") as stream:
            head = stream.read(_HEADER_BYTES)
    except OSError as exc:
        raise DatabaseError(f"cannot open {path}: {exc.strerror or exc}") from None
    if head.startswith(b"SQLite format 3\0"):
        raise DatabaseError(f"cannot open {path}: it is an SQLite database, not a DuckDB one")
    if head[8:12] != b"DUCK":
        raise DatabaseError(f"cannot open {path}: it is not a valid DuckDB database file")
    if len(head) < _HEADER_BYTES:
        raise DatabaseError(
            f"cannot open {path}: it is a truncated DuckDB file (its headers are cut short)"
        )
    return True


# DuckDB's file starts with three 4 kB headers; its magic bytes ``DUCK`` are at offset 8.
_HEADER_BYTES = 3 * 4096


def connect(
    path: Path, *, read_only: bool = False, sandbox: bool = False, writes: Path | None = None
) -> duckdb.DuckDBPyConnection:
    """A connection, with DuckDB's lock and open failures turned into ``DatabaseError``;
    read-write, the database is attached as ``loo`` with rows in groups of
    ``ROW_GROUP_ROWS``.  No file but the database is reached (``seal``), but the folder
    ``writes`` (an export's, read-only); ``sandbox``: no setting changed either
    (``duckdb_config``)."""
    exists = check_file(path)
    if read_only and not exists:
        raise _missing(path)
    config = duckdb_config(sandbox=sandbox)
    with _opening(path):
        if read_only and writes is None:
            config |= {"enable_external_access": False}
            return duckdb.connect(str(path), read_only=True, config=config)
        kept = _KEPT.pop(str(path), None) if not (read_only or writes) else None
        con = kept or _instance(path, [writes] if writes is not None else [])
        try:
            _attach(con, path, read_only=read_only)
        except BaseException:
            con.close()
            raise
        return con


def _attach(con: duckdb.DuckDBPyConnection, path: Path, *, read_only: bool = False) -> None:
    """The database at ``path`` attached to ``con`` as ``loo``, and in use; read-write, with
    rows in groups of ``ROW_GROUP_ROWS``."""
    literal = str(path).replace("'", "''")
    if read_only:
        con.execute(f"ATTACH '{literal}' AS loo (READ_ONLY)")
    else:
        con.execute(f"ATTACH '{literal}' AS loo (ROW_GROUP_SIZE {ROW_GROUP_ROWS})")
    con.execute("USE loo")


def _detach(con: duckdb.DuckDBPyConnection) -> None:
    """``loo`` detached from ``con``, which keeps no file."""
    con.execute("USE memory")  # the database in use cannot be detached
    con.execute("DETACH loo")


def _missing(path: Path) -> DatabaseError:
    return DatabaseError(f"no database at {path}; load one with `loo-replay ingest --db {path}`")


@contextmanager
def _opening(path: Path) -> Iterator[None]:
    """DuckDB's failures to open the database at ``path``: ``DatabaseBusy`` while another
    process holds its lock, else ``DatabaseError``."""
    try:
        yield
    except duckdb.IOException as exc:
        text = str(exc)
        held = _LOCK.search(text)
        if held or "Could not set lock" in text:
            who = f" (PID {held['pid']})" if held else ""
            raise DatabaseBusy(
                f"{path} is in use by another process{who}; wait for it to finish and try again"
            ) from None
        raise DatabaseError(f"cannot open {path}: {damage(text)}") from None
    except duckdb.Error as exc:
        raise DatabaseError(f"cannot open {path}: {damage(str(exc))}") from None


def visitor(path: Path) -> duckdb.DuckDBPyConnection:
    """An in-memory DuckDB, with every connection's settings, to ``visit`` the database at
    ``path`` from: kept by a server, it holds no file between visits.  Spilled pages go
    beside the database, as a read-only connection of its own would put them."""
    return _instance(path)


def _instance(
    path: Path, folders: Sequence[Path] = (), also: Sequence[Path] = ()
) -> duckdb.DuckDBPyConnection:
    """An in-memory DuckDB, with every connection's settings, sealed to the database at
    ``path`` (``settings.seal``: the databases ``also`` and the ``folders`` allowed too),
    to attach it to.  Spilled pages go beside the database, not in the working folder's
    ``.tmp`` (an in-memory instance's default), as a connection to the file itself would
    put them."""
    con = duckdb.connect(config={**duckdb_config(), "temp_directory": f"{path}.tmp"})
    try:
        return seal(con, path, folders, also)
    except BaseException:
        con.close()
        raise


_VISITS = itertools.count()


@contextmanager
def visit(instance: duckdb.DuckDBPyConnection, path: Path) -> Iterator[duckdb.DuckDBPyConnection]:
    """A connection to the database at ``path``, attached read-only to ``instance`` (a
    ``visitor``) for the block alone, under a name of its own, and detached at its end:
    another process can write once the block is over.  An instance of its own per visit
    (``connect``) costs 15 to 40 ms to start and close; an attachment a few (docs/explorer.md).
    Errors as ``connect``'s."""
    if not check_file(path):
        raise _missing(path)
    with _VISITING:  # one connection made at a time from the instance the threads share
        con = instance.cursor()
    name = f"visit_{next(_VISITS)}"
    try:
        with _opening(path):
            literal = str(path).replace("'", "''")
            con.execute(f"ATTACH '{literal}' AS {name} (READ_ONLY)")
        try:
            con.execute(f"USE {name}")
            with bounded(con) as timed:  # each statement bounded in time
                _checked(timed, path)
                yield timed
        finally:
            con.execute("USE memory")  # the database in use cannot be detached
            con.execute(f"DETACH {name}")
    finally:
        con.close()


_VISITING = threading.Lock()


def _checked(con: duckdb.DuckDBPyConnection, path: Path) -> None:
    """Refuse, as ``version_of`` does, a database that is not loo-replay's, its views and
    macros included (``_looked``: once as long as the file is unchanged)."""
    before = _identities(path)
    if _looked(path, before) is None:
        _remember(path, version_of(con), before)


def _identities(path: Path) -> tuple[tuple[int, ...], ...]:
    """What tells the database at ``path`` and its write-ahead log from another or a changed
    one: device, inode, size, modification and change times of each file DuckDB keeps."""
    return tuple(_identity(Path(f"{path}{suffix}")) for suffix in DATABASE_FILES)


def _identity(path: Path) -> tuple[int, ...]:
    try:
        info = path.stat()
    except OSError:
        return ()
    return (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns)


def _looked(path: Path, identities: tuple[tuple[int, ...], ...] = ()) -> int | None:
    """The schema version ``version_of`` found in the database at ``path`` (it was loo-
    replay's) when this process last looked, if the file and its write-ahead log are
    unchanged since (as they are now, or were: ``identities``); else None.  A look costs
    about 0.2 billion instructions (DuckDB lists every function to find the macros, and the
    first makes the reference database of ``versions``): ingest had looked at one file
    three times and a new one twice; a server looks at each once between writes."""
    found = _LOOKED.get(str(path))
    if found is None or found[0] != (identities or _identities(path)):
        return None
    return found[1]


def _remember(path: Path, version: int, identities: tuple[tuple[int, ...], ...] = ()) -> None:
    """Remember that the database at ``path`` was found loo-replay's at ``version``, as its
    files were (``identities``, taken before it was looked at) or are now."""
    _LOOKED[str(path)] = (identities or _identities(path), version)


_LOOKED: dict[str, tuple[tuple[tuple[int, ...], ...], int]] = {}


@contextmanager
def reading(path: Path, failed: str | None = None) -> Iterator[None]:
    """DuckDB's failures while the database at ``path`` is read (a truncated or damaged
    file shows only when the damaged part is read) as ``DatabaseError``, said as ``failed``
    (else "cannot read PATH") then DuckDB's words; Ctrl-C as ``KeyboardInterrupt``."""
    try:
        yield
    except duckdb.InterruptException:
        raise KeyboardInterrupt from None
    except duckdb.Error as exc:
        raise DatabaseError(f"{failed or f'cannot read {path}'}: {damage(str(exc))}") from None


def _create(path: Path) -> None:
    """A new database at ``path``, made with its tables in a folder of its own beside it and
    linked into place whole: a process killed while DuckDB was starting the file had left an
    empty one, which no later run could open (docs/limits.md, "Databases").  Its tables are
    made at the latest version at once (``latest.create``), not migration by migration.  A
    file another process put there first is left to be opened as it is; the one made here is
    known to be at the latest version, and is not looked at again (``_looked``).  The
    DuckDB that made it, sealed to both files, is kept (``_keep``) with nothing attached
    for the read-write ``connect`` that follows: one DuckDB started where two were, about
    0.12 billion instructions (docs/performance.md, "Start-up")."""
    try:
        with staging(path.parent) as stage:
            made = stage / path.name
            with _opening(made):
                con = _instance(path, also=[made])
            try:
                with _opening(made):
                    _attach(con, made)
                if not create(con):  # no stored schema for this DuckDB
                    migrate(con)
                _detach(con)  # written whole into its file: DuckDB checkpoints
                linked = _link(made, path)
            except BaseException:
                con.close()
                raise
    except OSError as exc:
        raise DatabaseError(f"cannot create {path}: {exc.strerror or exc}") from None
    if linked:  # taken once the staging folder is gone: the file's link count is final
        _remember(path, VERSION)
        _keep(path, con)
    else:  # another process's file: looked at as any other, from a DuckDB sealed to it
        con.close()


def _link(made: Path, path: Path) -> bool:
    """The file ``made`` linked into place at ``path``: False, with nothing done, when
    another process put a file there first."""
    try:
        os.link(made, path)
    except FileExistsError:
        return False
    except OSError:  # a file system without hard links (some network shares)
        if os.path.lexists(path):
            return False
        os.replace(made, path)
    return True


def _look(path: Path) -> int:
    """``version_of`` the database at ``path``, attached read-only to an in-memory DuckDB
    sealed to it (``settings.seal``).  The DuckDB is then kept with nothing attached (it
    holds no file, no lock) for the read-write ``connect`` that usually follows: one
    DuckDB started where two were, about 0.1 billion instructions each (docs/performance.md,
    "Start-up")."""
    with _opening(path):
        con = _instance(path)
    try:
        with _opening(path):
            _attach(con, path, read_only=True)
        with reading(path):
            version = version_of(con)
        _detach(con)
    except BaseException:
        con.close()
        raise
    _keep(path, con)
    return version


def _keep(path: Path, con: duckdb.DuckDBPyConnection) -> None:
    """Keep ``con``, an in-memory DuckDB sealed to the database at ``path`` with nothing
    attached, for the read-write ``connect`` to it that follows; one kept at a time."""
    for other in _KEPT.values():
        if other is not con:
            other.close()
    _KEPT.clear()
    _KEPT[str(path)] = con


# The DuckDB ``_look`` or ``_create`` kept, by the database it is sealed to: taken by
# ``connect``.
_KEPT: dict[str, duckdb.DuckDBPyConnection] = {}


def check_db(path: Path) -> bool:
    """Whether a database is at ``path``; ``DatabaseError`` for a file there that could not
    be loaded into: not a DuckDB file, one loo-replay did not make, or of a newer schema.
    Looked at read-only, nothing made: the commands ask before any work (docs/limits.md).
    A file looked at before by this process, and unchanged since, is not looked at again."""
    if not check_file(path):
        return False
    before = _identities(path)
    version = _looked(path, before)
    if version is None:
        version = _look(path)
        _remember(path, version, before)
    if version > VERSION:
        raise DatabaseError(newer(path, version))
    return True


def open_db(path: Path) -> duckdb.DuckDBPyConnection:
    """A read-write connection to a database at the current schema version.  An existing
    file is looked at read-only first (``check_db``): one that loo-replay did not make, or
    of a newer schema, is refused with its bytes untouched.  One this process made or looked
    at, unchanged since (this connection holds its lock now), is not looked at again."""
    if not check_db(path):
        _create(path)
    con = connect(path)
    try:
        if _looked(path) != VERSION:
            migrate(con)
    except duckdb.Error as exc:
        con.close()
        raise DatabaseError(f"cannot set up the tables in {path}: {damage(str(exc))}") from None
    except BaseException:
        con.close()
        raise
    return con


def open_for_reading(
    path: Path, *, upgrade: bool = True, sandbox: bool = False
) -> duckdb.DuckDBPyConnection:
    """A read-only connection; with ``upgrade``, an older schema is migrated first (the only
    write), so that the views the caller needs exist; ``sandbox``: ``settings.duckdb_config``.
    The caller closes it: ``opened`` does."""
    con = connect(path, read_only=True, sandbox=sandbox)
    try:
        version = version_of(con)
    except BaseException:
        con.close()
        raise
    if version == VERSION or not upgrade:
        return con
    con.close()
    if version == 0:
        raise DatabaseError(f"{path} holds no loo-replay tables; load it with `loo-replay ingest`")
    open_db(path).close()  # raises if the schema is newer than this program
    return connect(path, read_only=True)


@contextmanager
def opened(
    path: Path,
    *,
    write: bool = False,
    upgrade: bool = True,
    sandbox: bool = False,
    timed: bool = False,
    failed: str | None = None,
) -> Iterator[duckdb.DuckDBPyConnection]:
    """The database at ``path`` for the block, closed at its end however the block ends:
    the one way a command opens a database (``tests/test_layers.py`` holds ``cli/`` to it).

    Read-only by default (``open_for_reading``: an older schema upgraded first unless not
    ``upgrade``; ``sandbox`` locks the settings too), or read-write with ``write``
    (``open_db``: made whole if missing, upgraded).  Either way a file that is not
    loo-replay's, or of a newer schema, is refused, and the connection reaches no file but
    the database (``settings.seal``).  With ``timed``, each statement is bounded in time and
    Ctrl-C interrupts it (``interrupts.bounded``: the reads of ``report`` and ``stats``).
    DuckDB's failures, opening or in the block, are ``DatabaseError`` (said as ``failed``,
    else "cannot read PATH", then DuckDB's words), its interrupt ``KeyboardInterrupt``."""
    with reading(path, failed):
        con = open_db(path) if write else open_for_reading(path, upgrade=upgrade, sandbox=sandbox)
        try:
            if timed:
                with bounded(con) as clocked:
                    yield clocked
            else:
                yield con
        finally:
            con.close()


def ready(path: Path) -> None:
    """Check that the database at ``path`` is there and loo-replay's, and upgrade it if it
    is older, holding nothing afterwards (``serve`` and ``export`` before their work)."""
    with opened(path):
        pass
