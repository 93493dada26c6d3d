"""Reading the database: player statistics, ad-hoc SQL (read-only) and Parquet export.

Functions here return figures (columns and rows) or the files written; the
command line decides how they are shown.  Every connection is read-only, so
a query cannot change the database whatever it says.
"""

from __future__ import annotations

import datetime
import decimal
import os
import re
import uuid
from collections.abc import Iterator, Sequence
from contextlib import closing, contextmanager
from itertools import pairwise
from pathlib import Path
from typing import Any

import duckdb
import orjson

from loo_replay.db.errors import DatabaseError, damage, with_hints
from loo_replay.db.interrupts import interruptible
from loo_replay.db.opening import connect, ready
from loo_replay.db.tables import ORDER_KEYS, PER_DEAL_TABLES
from loo_replay.engine.records import record
from loo_replay.errors import first_line
from loo_replay.files import OutputRefused, claim, move_tree, staging
from loo_replay.run.audit import Summary

WHOLE_TABLES = ("sessions", "players", "rejects")  # exported as one file each
# A per-deal table's partition of a session: a folder named by the first 16 hex digits of the
# SHA-256 of its id, which fits any file system whatever the id (128 characters of anything:
# URL-escaped CJK or slashes are past 255 bytes); the id itself is a column of the files.
PARTITION = "session"
_PARTITION_KEY = f"substr(sha256(session_id), 1, 16) AS {PARTITION}"
# Every name an export's files get (what a folder without a finished manifest may hold),
# those of earlier versions' exports (``session_id=ID``) included.
EXPORT_NAMES = tuple(
    pattern
    for name in PER_DEAL_TABLES
    for pattern in (
        f"{name}/{PARTITION}=*/*.parquet",
        f"{name}/session_id=*/*.parquet",
        f"{name}/*.parquet",
    )
) + tuple(f"{name}.parquet" for name in WHOLE_TABLES)


class QueryError(DatabaseError):
    """SQL that DuckDB refused, in one sentence."""


# What a query may allocate beyond what the process holds as it starts the statement.
# DuckDB's memory limit bounds its buffers, not every allocation (``repeat('x', 1e9)`` is
# one string of a gigabyte), so the operating system's bound on the process's data is set
# too, and a statement past it fails as out of memory (docs/limits.md).
QUERY_MEMORY_ENV = "LOO_REPLAY_QUERY_MEMORY"
QUERY_MEMORY_MB = 640
_MB = re.compile(r"(?P<n>\d+)\s*(?P<unit>[MG])i?B", re.IGNORECASE)


def query_memory() -> int:
    """The bytes a query may allocate: ``LOO_REPLAY_QUERY_MEMORY`` (``640MB``, ``2GB``) or
    640 MB."""
    text = os.environ.get(QUERY_MEMORY_ENV, f"{QUERY_MEMORY_MB}MB").strip()
    size = _MB.fullmatch(text)
    if size is None:
        raise DatabaseError(f"{QUERY_MEMORY_ENV}={text!r} is not a size such as 640MB or 2GB")
    return int(size["n"]) << (20 if size["unit"].upper() == "M" else 30)


def over_memory(limit: int) -> QueryError:
    """What a query past ``bounded_memory``'s bound says: the bound and how to raise it."""
    return QueryError(
        f"the query needs more memory than `loo-replay query` allows it "
        f"({limit >> 20:,} MB beyond what the command holds to start; "
        f"{QUERY_MEMORY_ENV}=2GB raises it)"
    )


@contextmanager
def bounded_memory(limit: int) -> Iterator[None]:
    """Within the block, the process's data (heap and private mappings) may grow by at most
    ``limit`` bytes: past it an allocation fails (DuckDB's out of memory, Python's
    ``MemoryError``, which leaves as ``over_memory``'s ``QueryError``), not the machine.  Linux's ``RLIMIT_DATA``, from the data the process
    holds now (``/proc/self/status``); elsewhere no bound is set.  The soft limit is put
    back after."""
    import resource

    try:
        with open("/proc/self/status", "rb") as status:
            held = next(
                int(line.split()[1]) << 10 for line in status if line.startswith(b"VmData:")
            )
    except (OSError, StopIteration, ValueError, IndexError):
        yield
        return
    soft, hard = resource.getrlimit(resource.RLIMIT_DATA)
    bound = held + limit
    if hard != resource.RLIM_INFINITY:
        bound = min(bound, hard)
    resource.setrlimit(resource.RLIMIT_DATA, (bound, hard))
    try:
        yield
    except MemoryError:  # Python's own allocation past the bound (a row, a cell)
        raise over_memory(limit) from None
    finally:
        resource.setrlimit(resource.RLIMIT_DATA, (soft, hard))


@record(frozen=False)
class Rows:
    columns: list[str]
    rows: Iterator[tuple[Any, ...]]


STATS_COLUMNS = (
    "player",
    "deals_seated",
    "played",
    "passed",
    "took_miss",
    "looed",
    "loo_rate",
    "tricks",
    "net_chips",
    "violations",
    "revokes",
    "thrown_per_100",
    "avoidable_loos",
    "decisions",
    "deals_judged",
    "accuracy",
    "tricks_lost_a_deal",
    "inaccuracies",
    "mistakes",
    "blunders",
)
JUDGED_COLUMNS = 7  # the last columns: the judged decisions, NULL for a player with none

# Each player's judged decisions (docs/judging-decisions.md, "Output"): their number; the
# accuracy's mean, how many decisions it averages and its standard error (the spread over
# the root of their number); the loss in units, each decision's chips over its deal's
# worth of a trick, so that unlike stakes add up, with its standard error (the root of the
# summed squared standard errors); and per judged deal the player sat in.  The stats and
# the decisions page read it.
PLAYER_DECISIONS = """
    WITH judged AS (
        SELECT c.player, count(*) AS decisions,
               count(c.accuracy) AS accuracy_n, avg(c.accuracy) AS accuracy,
               stddev_samp(c.accuracy) / sqrt(count(c.accuracy)) AS accuracy_se,
               sum(c.loss / j.unit) AS loss_units,
               sqrt(sum(power(c.loss_se / j.unit, 2))) AS loss_units_se,
               count(*) FILTER (WHERE c.severity = 'inaccuracy') AS inaccuracies,
               count(*) FILTER (WHERE c.severity = 'mistake') AS mistakes,
               count(*) FILTER (WHERE c.severity = 'blunder') AS blunders
        FROM decisions c JOIN decision_deals j USING (session_id, deal_index)
        WHERE c.chosen GROUP BY c.player
    ),
    sat AS (
        SELECT s.player, count(*) AS deals_judged
        FROM seats s JOIN decision_deals d USING (session_id, deal_index)
        WHERE d.status = 'judged' GROUP BY s.player
    )
    SELECT j.player, j.decisions, t.deals_judged, j.accuracy, j.accuracy_n, j.accuracy_se,
           j.loss_units, j.loss_units_se, j.loss_units / t.deals_judged AS loss_a_deal,
           j.loss_units_se / t.deals_judged AS loss_a_deal_se,
           j.inaccuracies, j.mistakes, j.blunders
    FROM judged j JOIN sat t USING (player)
"""


def judged_sessions(con: duckdb.DuckDBPyConnection) -> int:
    """The sessions with judged decisions loaded (docs/database.md, "Judged decisions")."""
    ((n,),) = con.execute("SELECT count(DISTINCT session_id) FROM decision_deals").fetchall()
    return int(n)


def loaded_counts(con: duckdb.DuckDBPyConnection, session_ids: Sequence[str]) -> Summary:
    """What the loaded audits of ``session_ids`` found (an id listed twice counts twice):
    for sessions an ingest recognised as loaded with the same content, rules and version,
    whose audit would come out the same, so every count the audit's summary gives (a rerun
    of ``audit`` prints the same summary line as the run that loaded them)."""
    counts = Summary()
    if not session_ids:
        return counts
    rows = con.execute(
        """
        WITH d AS (
            SELECT
                session_id,
                count(*) FILTER (WHERE status = 'audited') AS audited,
                count(*) FILTER (WHERE status = 'misdeal') AS misdeals,
                sum(violations) AS violations,
                sum(discrepancies) AS discrepancies,
                count(*) FILTER (WHERE knowledge = 'partial') AS partial
            FROM deals GROUP BY session_id
        ),
        r AS (
            SELECT session_id, count(*) AS rejected FROM rejects
            WHERE kind = 'deal' GROUP BY session_id
        )
        SELECT
            s.session_id, s.deals, coalesce(d.audited, 0), coalesce(d.misdeals, 0),
            coalesce(r.rejected, 0), coalesce(d.violations, 0), coalesce(d.discrepancies, 0),
            coalesce(d.partial, 0), len(s.errors) > 0
        FROM sessions s LEFT JOIN d USING (session_id) LEFT JOIN r USING (session_id)
        WHERE s.session_id IN (SELECT unnest(?::VARCHAR[]))
        """,
        [list(set(session_ids))],
    ).fetchall()
    found = {sid: rest for sid, *rest in rows}
    for sid in session_ids:
        if sid in found:
            deals, audited, misdeals, rejected, violations, discrepancies, partial, errors = found[
                sid
            ]
            loaded = Summary(1, deals, audited, misdeals, rejected, violations, discrepancies)
            loaded.partial = int(partial)  # the summary line's "with hands left out" (issue 55)
            loaded.session_errors = int(errors)
            counts.merge(loaded)
    return counts


def player_stats(con: duckdb.DuckDBPyConnection) -> Rows:
    """The ``player_stats`` view, highest loo rate first, with the deals its loo rate is
    of (``played_known``); the double-dummy analysis: tricks thrown away per 100 analysed
    deals played, and avoidable loos (NULL for a player with no analysed deal); then the
    judged decisions of ``PLAYER_DECISIONS`` (NULL for a player with none judged).  The
    columns are named as the query gives them; ``stats`` shows ``STATS_COLUMNS``."""
    cursor = con.execute(
        f"""
        WITH thrown AS (
            SELECT player, 100.0 * sum(lost) / count(*) AS thrown_per_100
            FROM analysis_players GROUP BY player
        ),
        avoidable AS (
            SELECT player, count(*) AS avoidable_loos FROM analysis_notes
            WHERE code = 'avoidable-loo' GROUP BY player
        ),
        known AS (
            SELECT player, count(*) FILTER (WHERE active AND looed) AS looed_playing,
                   count(*) FILTER (WHERE active AND looed IS NOT NULL) AS played_known
            FROM seats GROUP BY player
        ),
        judged AS ({PLAYER_DECISIONS})
        SELECT player, deals_seated, played, passed, took_miss, looed, loo_rate,
            k.looed_playing, k.played_known, tricks, net_chips, violations, revokes, t.thrown_per_100,
            CASE WHEN t.player IS NOT NULL THEN coalesce(a.avoidable_loos, 0) END
                AS avoidable_loos,
            j.* EXCLUDE (player)
        FROM player_stats LEFT JOIN thrown t USING (player) LEFT JOIN avoidable a USING (player)
        LEFT JOIN known k USING (player) LEFT JOIN judged j USING (player)
        ORDER BY loo_rate DESC NULLS LAST, player
        """
    )
    return Rows([d[0] for d in cursor.description or ()], iter(cursor.fetchall()))


_READ_ONLY = re.compile(r'Cannot execute statement of type "(?P<kind>[^"]+)"')
_LOCKED = re.compile(r'Cannot change configuration option "(?P<name>[^"]+)"')


def run_query(con: duckdb.DuckDBPyConnection, sql: str) -> Rows:
    """Run the user's SQL on a read-only, sandboxed connection (``opening.opened``); rows
    are fetched as they are read."""
    try:
        with interruptible(con):
            cursor = con.execute(sql)
    except duckdb.InterruptException:
        raise KeyboardInterrupt from None
    except duckdb.OutOfMemoryException as exc:
        raise _out_of_memory(exc) from None
    except duckdb.PermissionException as exc:
        raise QueryError(
            "`loo-replay query` reads the database and nothing else: no other file, folder, "
            f"database or address, and no extension ({first_line(str(exc))})"
        ) from None
    except duckdb.Error as exc:
        text = str(exc)
        refused = _READ_ONLY.search(text)
        if refused and "read-only" in text:
            raise QueryError(
                f"`loo-replay query` opens the database read-only, so {refused['kind']} "
                "statements cannot run; the database is changed only by `loo-replay ingest`"
            ) from None
        locked = _LOCKED.search(text)
        if locked:
            raise QueryError(
                f"`loo-replay query` cannot change DuckDB's settings ({locked['name']})"
            ) from None
        raise QueryError(f"the query failed: {damage(text, with_hints)}") from None
    if cursor.description is None:
        return Rows([], iter(()))
    columns = [d[0] for d in cursor.description]

    def fetch() -> Iterator[tuple[Any, ...]]:
        try:
            while chunk := cursor.fetchmany(2048):
                yield from chunk
        except duckdb.InterruptException:
            raise KeyboardInterrupt from None
        except duckdb.OutOfMemoryException as exc:
            raise _out_of_memory(exc) from None
        except duckdb.Error as exc:
            raise QueryError(f"the query failed: {damage(str(exc), with_hints)}") from None

    return Rows(columns, fetch())


def _out_of_memory(exc: duckdb.OutOfMemoryException) -> QueryError:
    """DuckDB out of memory: past ``bounded_memory`` when an allocation itself failed (``bad
    allocation``), else past DuckDB's own limit, said as any other failure is."""
    text = str(exc)
    if "bad allocation" in text:
        return over_memory(query_memory())
    return QueryError(f"the query failed: {damage(text, with_hints)}")


def export_parquet(db: Path, out: Path, *, overwrite: bool = False) -> list[tuple[Path, int]]:
    """Every table of the database at ``db`` as Parquet under ``out``: per-deal tables as
    directories partitioned by session (``deals/session=<16 hex digits>/data_0.parquet``,
    ``PARTITION``), the others as single files.

    Refuses to write over an earlier export unless ``overwrite``, and a folder that holds
    anything an export did not write (``files.claim``); DuckDB writes into a private
    folder inside ``out``, whose files then replace the earlier export's one by one.  The
    connection that writes may reach that folder and the database, nothing else
    (``settings.seal``): it is opened once the folder is there.
    """
    ready(db)  # loo-replay's, and upgraded if it was older
    targets = [(name, out / name, True) for name in PER_DEAL_TABLES]
    targets += [(name, out / f"{name}.parquet", False) for name in WHOLE_TABLES]
    try:
        claimed = claim(out, EXPORT_NAMES, "the export")
    except OutputRefused as exc:
        raise DatabaseError(str(exc)) from None
    if claimed.earlier and not overwrite:
        first = sorted(claimed.earlier)[0]
        raise DatabaseError(
            f"{out / first} already exists; export to an empty directory or pass --overwrite"
        )
    written: list[tuple[Path, int]] = []
    try:
        with staging(out) as stage:
            with closing(connect(db, read_only=True, writes=stage)) as con:
                bounds = _session_bounds(con)
                for name, path, partitioned in targets:
                    rows = _export_table(con, name, stage / path.name, partitioned, bounds)
                    written.append((path, rows))
            claimed.finish(move_tree(stage, out))
    except OSError as exc:
        raise DatabaseError(f"cannot write to {out}: {exc.strerror or exc}") from None
    return written


# Sessions a statement of an export writes at most (about ``partitioned_write_max_open_files``,
# DuckDB's writers kept open).  One statement for a whole table held a partition for every
# session: over a million deals (10,000 sessions) it ran out of 128 MB on ``seats``, and
# ``deals`` alone took 100 CPU seconds against 24 in statements of 100 sessions (issue 53).
# A statement's rows are a range of session ids, sorted within it: memory bound by a batch,
# not by the database, and each session's folder written once (``data_0.parquet``).
EXPORT_SESSIONS = 100


def _session_bounds(con: duckdb.DuckDBPyConnection) -> list[str]:
    """The ids that start each batch of ``EXPORT_SESSIONS`` sessions but the first, in order:
    with no bound below the first and none above the last, the ranges cover every row."""
    ids = con.execute("SELECT session_id FROM sessions ORDER BY session_id").fetchall()
    return [sid for (sid,) in ids[EXPORT_SESSIONS::EXPORT_SESSIONS]]


def _export_table(
    con: duckdb.DuckDBPyConnection, name: str, path: Path, partitioned: bool, bounds: list[str]
) -> int:
    """Write table ``name`` to ``path`` (a partitioned table in a statement a range of
    sessions between ``bounds``); its number of rows."""
    ((rows,),) = con.execute(f"SELECT count(*) FROM {name}").fetchall()  # constants only
    order = ", ".join(ORDER_KEYS[name])
    try:
        if partitioned and rows:
            edges: list[str | None] = [None, *bounds, None]
            for low, high in pairwise(edges):
                _export_sessions(con, name, order, path, low, high)
        elif partitioned:
            path.mkdir()  # no sessions: one empty file keeps the table readable
            con.sql(f"SELECT * FROM {name} ORDER BY {order}").write_parquet(
                str(path / "data_0.parquet")
            )
        else:
            con.sql(f"SELECT * FROM {name} ORDER BY {order}").write_parquet(str(path))
    except duckdb.Error as exc:
        raise DatabaseError(f"cannot export {name}: {damage(str(exc))}") from None
    return int(rows)


def _export_sessions(
    con: duckdb.DuckDBPyConnection,
    name: str,
    order: str,
    path: Path,
    low: str | None,
    high: str | None,
) -> None:
    """The rows of ``name`` whose session id is from ``low`` up to, not including, ``high``
    (no bound for None) into ``path``'s session folders, beside the earlier ranges'."""
    where = " AND ".join(
        [*(["session_id >= $low"] if low is not None else []),
         *(["session_id < $high"] if high is not None else [])]
    )  # fmt: skip
    params = {key: v for key, v in (("low", low), ("high", high)) if v is not None}
    folder = "'" + str(path).replace("'", "''") + "'"  # a literal: COPY takes no parameter
    con.execute(
        f"COPY (SELECT *, {_PARTITION_KEY} FROM {name} WHERE {where or 'true'} "
        f"ORDER BY {order}) TO {folder} "
        f"(FORMAT parquet, PARTITION_BY ({PARTITION}), OVERWRITE_OR_IGNORE)",
        params,
    )


# -- values for people and programs -------------------------------------------------


def text_of(value: Any) -> str:
    """A value as one line of text, for CSV and a table's text columns: NULL empty, a float
    in full (the shortest text that reads back the same: a program's value, not
    ``numbers.column``'s rounding), lists and maps as JSON, bytes decoded."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, bytes | bytearray | memoryview):
        return bytes(value).decode("utf-8", "backslashreplace")
    if isinstance(value, list | dict | tuple):
        return orjson.dumps(value, default=json_default, option=orjson.OPT_NON_STR_KEYS).decode()
    return str(value)


def json_default(value: Any) -> Any:
    """orjson's fallback for DuckDB's Python values."""
    if isinstance(value, decimal.Decimal):
        return float(value)
    if isinstance(value, bytes | bytearray | memoryview):
        return bytes(value).decode("utf-8", "backslashreplace")
    if isinstance(value, datetime.timedelta):
        return value.total_seconds()
    if isinstance(value, uuid.UUID | datetime.date | datetime.time):
        return str(value)
    if isinstance(value, int):
        return str(value)  # beyond 64 bits
    raise TypeError(f"cannot show a {type(value).__name__} as JSON")
