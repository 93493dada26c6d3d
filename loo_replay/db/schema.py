"""The database schema as versioned migrations, and opening a database safely.

Each migration is frozen once released: a later change is a new migration,
so an older database is upgraded in place by running the ones it lacks, each
in its own transaction together with its ``schema_version`` row.  docs/database.md
documents every table, column and view created here.
"""

from __future__ import annotations

import functools
import itertools
import os
import re
import stat
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import duckdb

from loo_replay.db.errors import MEMORY_ENV, MEMORY_LIMIT, DatabaseBusy, DatabaseError, with_remedy
from loo_replay.db.interrupts import bounded
from loo_replay.errors import first_line
from loo_replay.files import staging

ANALYSIS_TABLES = ("analysis_deals", "analysis_players", "analysis_notes", "analysis_cards")
# docs/database.md, "Judged decisions": loaded by ingest --decisions
DECISION_TABLES = ("decision_deals", "decisions")
PER_DEAL_TABLES = (
    "deals",
    "seats",
    "tricks",
    "plays",
    "findings",
    "discrepancies",
    *ANALYSIS_TABLES,
    *DECISION_TABLES,
)
SESSION_TABLES = ("sessions", "players", *PER_DEAL_TABLES, "rejects")  # everything keyed by session
VIEWS = ("player_stats", "pool_history", "violations_by_rule")
ORDER_KEYS: dict[str, tuple[str, ...]] = {  # a total order of each table's rows
    "sessions": ("session_id",),
    "players": ("session_id", "seat"),
    "deals": ("session_id", "deal_index"),
    "seats": ("session_id", "deal_index", "seat"),
    "tricks": ("session_id", "deal_index", "trick"),
    "plays": ("session_id", "deal_index", "trick", "position"),
    "findings": ("session_id", "deal_index", "finding"),
    "discrepancies": ("session_id", "deal_index", "field"),
    "analysis_deals": ("session_id", "deal_index"),
    "analysis_players": ("session_id", "deal_index", "player"),
    "analysis_notes": ("session_id", "deal_index", "note"),
    "analysis_cards": ("session_id", "deal_index", "step"),
    "decision_deals": ("session_id", "deal_index"),
    "decisions": ("session_id", "deal_index", "event", "position"),
    "rejects": ("kind", "session_id", "deal_index", "file", "line", "digest"),
    "documents": ("session_id",),
}


@dataclass(frozen=True)
class Migration:
    version: int
    description: str
    statements: tuple[str, ...]


_V1_TABLES = (
    """
    CREATE TABLE schema_version (
        version INTEGER PRIMARY KEY,
        description VARCHAR NOT NULL
    )""",
    """
    CREATE TABLE sessions (
        session_id VARCHAR PRIMARY KEY,
        digest VARCHAR NOT NULL,
        rules_fingerprint VARCHAR NOT NULL,
        file VARCHAR NOT NULL,
        line INTEGER,
        ruleset VARCHAR,
        rules VARCHAR,
        started_at VARCHAR,
        venue VARCHAR,
        meta VARCHAR,
        deals INTEGER NOT NULL,
        errors STRUCT(path VARCHAR, message VARCHAR)[] NOT NULL
    )""",
    """
    CREATE TABLE players (
        session_id VARCHAR NOT NULL,
        seat INTEGER NOT NULL,
        player VARCHAR NOT NULL,
        name VARCHAR,
        chips BIGINT
    )""",
    """
    CREATE TABLE deals (
        session_id VARCHAR NOT NULL,
        deal_index INTEGER NOT NULL,
        deal BIGINT NOT NULL,
        status VARCHAR NOT NULL,
        dealer VARCHAR NOT NULL,
        seated INTEGER NOT NULL,
        pool VARCHAR,
        pool_start BIGINT,
        must BOOLEAN NOT NULL,
        trump VARCHAR,
        turn_up VARCHAR,
        miss VARCHAR[],
        miss_taker VARCHAR,
        defender VARCHAR,
        outcome VARCHAR,
        pool_next BIGINT,
        violations INTEGER NOT NULL,
        discrepancies INTEGER NOT NULL,
        notes VARCHAR[] NOT NULL
    )""",
    """
    CREATE TABLE seats (
        session_id VARCHAR NOT NULL,
        deal_index INTEGER NOT NULL,
        deal BIGINT NOT NULL,
        seat INTEGER NOT NULL,
        player VARCHAR NOT NULL,
        dealer BOOLEAN NOT NULL,
        declaration VARCHAR,
        active BOOLEAN NOT NULL,
        retired BOOLEAN NOT NULL,
        hand VARCHAR[],
        tricks INTEGER NOT NULL,
        ante BIGINT NOT NULL,
        payout BIGINT,
        loo BIGINT,
        looed BOOLEAN,
        penalties BIGINT,
        net BIGINT,
        stack BIGINT
    )""",
    """
    CREATE TABLE tricks (
        session_id VARCHAR NOT NULL,
        deal_index INTEGER NOT NULL,
        deal BIGINT NOT NULL,
        trick INTEGER NOT NULL,
        leader VARCHAR NOT NULL,
        led VARCHAR,
        winner VARCHAR,
        cards INTEGER NOT NULL,
        dead INTEGER NOT NULL
    )""",
    """
    CREATE TABLE plays (
        session_id VARCHAR NOT NULL,
        deal_index INTEGER NOT NULL,
        deal BIGINT NOT NULL,
        trick INTEGER NOT NULL,
        position INTEGER NOT NULL,
        event INTEGER NOT NULL,
        seat INTEGER NOT NULL,
        player VARCHAR NOT NULL,
        card VARCHAR NOT NULL,
        dead BOOLEAN NOT NULL,
        legal BOOLEAN,
        legal_cards VARCHAR[],
        wins BOOLEAN NOT NULL,
        finding VARCHAR
    )""",
    """
    CREATE TABLE findings (
        session_id VARCHAR NOT NULL,
        deal_index INTEGER NOT NULL,
        deal BIGINT NOT NULL,
        finding INTEGER NOT NULL,
        code VARCHAR NOT NULL,
        family VARCHAR NOT NULL,
        player VARCHAR NOT NULL,
        trick INTEGER,
        card VARCHAR,
        held VARCHAR[] NOT NULL,
        legal VARCHAR[],
        penalized BOOLEAN NOT NULL,
        penalty BIGINT NOT NULL,
        event INTEGER,
        message VARCHAR NOT NULL
    )""",
    """
    CREATE TABLE discrepancies (
        session_id VARCHAR NOT NULL,
        deal_index INTEGER NOT NULL,
        deal BIGINT NOT NULL,
        field VARCHAR NOT NULL,
        item VARCHAR NOT NULL,
        player VARCHAR,
        recorded BIGINT NOT NULL,
        expected BIGINT NOT NULL
    )""",
    """
    CREATE TABLE rejects (
        kind VARCHAR NOT NULL,
        session_id VARCHAR,
        deal_index INTEGER,
        deal BIGINT,
        dealer VARCHAR,
        file VARCHAR NOT NULL,
        line INTEGER,
        path VARCHAR NOT NULL,
        message VARCHAR NOT NULL,
        errors STRUCT(path VARCHAR, message VARCHAR)[] NOT NULL,
        raw BLOB NOT NULL,
        digest VARCHAR NOT NULL
    )""",
)

_V2_VIEWS = (
    """
    CREATE VIEW player_stats AS
    WITH seated AS (
        SELECT
            player,
            count(*) AS deals_seated,
            count(*) FILTER (WHERE active) AS played,
            count(*) FILTER (WHERE declaration = 'pass') AS passed,
            count(*) FILTER (WHERE declaration IN ('take_miss', 'defend')) AS took_miss,
            count(*) FILTER (WHERE looed) AS looed,
            count(*) FILTER (WHERE active AND looed) AS looed_playing,
            count(*) FILTER (WHERE active AND looed IS NOT NULL) AS played_known,
            coalesce(sum(loo), 0) AS loo_chips,
            coalesce(sum(tricks), 0) AS tricks,
            coalesce(sum(net), 0) AS net_chips
        FROM seats
        GROUP BY player
    ),
    by_code AS (
        SELECT player, code, family, count(*) AS n FROM findings GROUP BY player, code, family
    ),
    found AS (
        SELECT
            player,
            sum(n) AS violations,
            coalesce(sum(n) FILTER (WHERE family = 'revoke'), 0) AS revokes,
            map_from_entries(list((code, n) ORDER BY code)) AS violations_by_code
        FROM by_code
        GROUP BY player
    )
    SELECT
        s.player,
        s.deals_seated,
        s.played,
        s.passed,
        s.took_miss,
        s.looed,
        CASE WHEN s.played_known > 0 THEN s.looed_playing / s.played_known END AS loo_rate,
        s.loo_chips,
        s.tricks,
        s.net_chips,
        coalesce(f.violations, 0) AS violations,
        coalesce(f.revokes, 0) AS revokes,
        coalesce(f.violations_by_code, MAP {}::MAP(VARCHAR, BIGINT)) AS violations_by_code
    FROM seated s LEFT JOIN found f USING (player)
    """,
    """
    CREATE VIEW pool_history AS
    SELECT
        d.session_id,
        d.deal_index,
        d.deal,
        d.dealer,
        d.status,
        d.pool,
        d.pool_start,
        d.outcome,
        m.payouts_total,
        m.looed_total,
        m.penalties_total,
        d.pool_next
    FROM deals d
    JOIN (
        SELECT
            session_id,
            deal_index,
            sum(payout) AS payouts_total,
            sum(loo) AS looed_total,
            sum(penalties) AS penalties_total
        FROM seats
        GROUP BY session_id, deal_index
    ) m USING (session_id, deal_index)
    """,
    """
    CREATE VIEW violations_by_rule AS
    SELECT
        f.code,
        f.family,
        s.ruleset,
        count(*) AS violations,
        count(DISTINCT (f.session_id, f.deal_index)) AS deals,
        count(*) FILTER (WHERE f.penalized) AS penalized
    FROM findings f JOIN sessions s USING (session_id)
    GROUP BY f.code, f.family, s.ruleset
    """,
)

_V3_FAIRNESS = (
    """
    CREATE TABLE fairness (
        test VARCHAR NOT NULL,
        scope VARCHAR NOT NULL,
        grp VARCHAR NOT NULL,
        subject VARCHAR NOT NULL,
        deals BIGINT NOT NULL,
        min_deals INTEGER NOT NULL,
        statistic DOUBLE,
        df INTEGER,
        p_value DOUBLE,
        p_adjusted DOUBLE,
        flagged BOOLEAN NOT NULL,
        observed DOUBLE,
        expected DOUBLE,
        band_low DOUBLE,
        band_high DOUBLE,
        alpha DOUBLE NOT NULL,
        message VARCHAR NOT NULL
    )""",
)

_ANALYSIS_TABLES = (  # docs/analysis.md: the double-dummy analysis of each loaded deal
    """
    CREATE TABLE analysis_deals (
        session_id VARCHAR NOT NULL,
        deal_index INTEGER NOT NULL,
        deal BIGINT NOT NULL,
        status VARCHAR NOT NULL,
        reason VARCHAR,
        nodes BIGINT NOT NULL,
        cards INTEGER NOT NULL,
        stopped VARCHAR
    )""",
    """
    CREATE TABLE analysis_players (
        session_id VARCHAR NOT NULL,
        deal_index INTEGER NOT NULL,
        deal BIGINT NOT NULL,
        player VARCHAR NOT NULL,
        guarantee INTEGER NOT NULL,
        tricks INTEGER NOT NULL,
        lost INTEGER NOT NULL
    )""",
    """
    CREATE TABLE analysis_notes (
        session_id VARCHAR NOT NULL,
        deal_index INTEGER NOT NULL,
        deal BIGINT NOT NULL,
        note INTEGER NOT NULL,
        code VARCHAR NOT NULL,
        player VARCHAR NOT NULL,
        trick INTEGER,
        card VARCHAR,
        before INTEGER,
        after INTEGER,
        better VARCHAR[],
        message VARCHAR NOT NULL
    )""",
)

_PARTIAL_HANDS = (  # docs/log-format.md, "Hands left out": deals recorded at a table, with hands left out
    "ALTER TABLE deals ADD COLUMN knowledge VARCHAR NOT NULL DEFAULT 'full'",
    "ALTER TABLE deals ADD COLUMN unchecked VARCHAR[] NOT NULL DEFAULT []",
    "ALTER TABLE findings ADD COLUMN proved_by VARCHAR",
    "ALTER TABLE findings ADD COLUMN proved_trick INTEGER",
)

_ANALYSIS_CARDS = (  # each analysed card's G before and after: the replay pages read it
    """
    CREATE TABLE analysis_cards (
        session_id VARCHAR NOT NULL,
        deal_index INTEGER NOT NULL,
        deal BIGINT NOT NULL,
        step INTEGER NOT NULL,
        seat INTEGER NOT NULL,
        player VARCHAR NOT NULL,
        trick INTEGER NOT NULL,
        card VARCHAR NOT NULL,
        before INTEGER NOT NULL,
        after INTEGER NOT NULL,
        better VARCHAR[] NOT NULL,
        announced BOOLEAN NOT NULL
    )""",
)

# Every card in deck order (the engine's numbering: ♠ ♥ ♦ ♣, 2 to A), as ``TH``.  Spelled here,
# not taken from the engine: a released migration never changes.
_CARDS = tuple(rank + suit for suit in "SHDC" for rank in "23456789TJQKA")

# Cards and declarations as ENUMs: DuckDB keeps a byte per value instead of a string, which
# read back, compare and print as the names did.  Loading 20,000 three-card deals took 10% fewer
# instructions (docs/performance.md); a card column now sorts in deck order.
_ENUMS = (
    "CREATE TYPE card AS ENUM ({})".format(", ".join(f"'{c}'" for c in _CARDS)),
    "CREATE TYPE declaration AS ENUM ('play', 'pass', 'take_miss', 'defend')",
    *(
        f"ALTER TABLE {table} ALTER {column} TYPE {kind}"
        for table, column, kind in (
            ("deals", "turn_up", "card"),
            ("deals", "miss", "card[]"),
            ("seats", "declaration", "declaration"),
            ("seats", "hand", "card[]"),
            ("tricks", "led", "card"),
            ("plays", "card", "card"),
            ("plays", "legal_cards", "card[]"),
            ("findings", "card", "card"),
            ("findings", "held", "card[]"),
            ("findings", "legal", "card[]"),
            ("findings", "proved_by", "card"),
            ("analysis_notes", "card", "card"),
            ("analysis_notes", "better", "card[]"),
            ("analysis_cards", "card", "card"),
            ("analysis_cards", "better", "card[]"),
        )
    ),
)

# Each loaded session's document, LZ4-compressed: every deal replays from the database alone
# (db/documents.py; docs/explorer.md).
_DOCUMENTS = (
    """
    CREATE TABLE documents (
        session_id VARCHAR NOT NULL,
        line INTEGER,
        digest VARCHAR NOT NULL,
        size BIGINT NOT NULL,
        body BLOB NOT NULL
    )""",
)

# A replay reads one document: found by this index, its bytes alone are read (10 ms), where a
# scan read every document's (23 MB and 120 ms at 100,000 deals; docs/performance.md).
_DOCUMENTS_INDEX = ("CREATE INDEX documents_session ON documents (session_id)",)

COLLUSION_TABLES = ("collusion", "collusion_acts")

# The collusion screen's last run (docs/database.md, "collusion"), refreshed by ingest and
# audit: one row per pair and test, and the deals behind each flagged test.
_COLLUSION = (
    """
    CREATE TABLE collusion (
        player_a VARCHAR NOT NULL,
        player_b VARCHAR NOT NULL,
        deals BIGINT NOT NULL,
        test VARCHAR NOT NULL,
        status VARCHAR NOT NULL,
        opportunities BIGINT NOT NULL,
        needed INTEGER NOT NULL,
        statistic DOUBLE,
        p_value DOUBLE,
        p_adjusted DOUBLE,
        flagged BOOLEAN NOT NULL,
        observed DOUBLE,
        expected DOUBLE,
        band_low DOUBLE,
        band_high DOUBLE,
        alpha DOUBLE NOT NULL,
        message VARCHAR NOT NULL
    )""",
    """
    CREATE TABLE collusion_acts (
        player_a VARCHAR NOT NULL,
        player_b VARCHAR NOT NULL,
        test VARCHAR NOT NULL,
        owner VARCHAR NOT NULL,
        session_id VARCHAR NOT NULL,
        deal_index INTEGER NOT NULL,
        acts INTEGER NOT NULL
    )""",
)

# The judged decisions of ``ingest --decisions`` (docs/judging-decisions.md; docs/database.md,
# "decisions"), and player_stats with each player's figures over them.  The view is the one of
# version 2 with the decisions joined: its text is taken from there, which never changes.
_DECISION_STATS = """
    WITH base AS ({base}),
    judged AS (
        SELECT
            player,
            count(*) AS decisions,
            sum(loss) AS decision_loss,
            avg(accuracy) AS accuracy,
            count(*) FILTER (WHERE severity = 'inaccuracy') AS inaccuracies,
            count(*) FILTER (WHERE severity = 'mistake') AS mistakes,
            count(*) FILTER (WHERE severity = 'blunder') AS blunders
        FROM decisions
        WHERE chosen
        GROUP BY player
    ),
    sat AS (
        SELECT s.player, count(*) AS deals_judged
        FROM seats s JOIN decision_deals d USING (session_id, deal_index)
        WHERE d.status = 'judged'
        GROUP BY s.player
    )
    SELECT
        b.*,
        j.decisions,
        CASE WHEN j.player IS NOT NULL THEN t.deals_judged END AS deals_judged,
        j.decision_loss,
        j.decision_loss / t.deals_judged AS loss_per_deal,
        j.accuracy,
        j.inaccuracies,
        j.mistakes,
        j.blunders
    FROM base b LEFT JOIN judged j USING (player) LEFT JOIN sat t USING (player)
    """
_DECISIONS = (
    """
    CREATE TABLE decision_deals (
        session_id VARCHAR NOT NULL,
        deal_index INTEGER NOT NULL,
        deal BIGINT NOT NULL,
        status VARCHAR NOT NULL,
        reason VARCHAR,
        samples INTEGER NOT NULL,
        seed BIGINT NOT NULL,
        unit BIGINT NOT NULL,
        declarations VARCHAR
    )""",
    """
    CREATE TABLE decisions (
        session_id VARCHAR NOT NULL,
        deal_index INTEGER NOT NULL,
        deal BIGINT NOT NULL,
        event INTEGER NOT NULL,
        seat INTEGER NOT NULL,
        player VARCHAR NOT NULL,
        kind VARCHAR NOT NULL,
        trick INTEGER,
        option VARCHAR,
        position INTEGER,
        value DOUBLE,
        se DOUBLE,
        chosen BOOLEAN,
        best BOOLEAN,
        loss DOUBLE,
        loss_se DOUBLE,
        severity VARCHAR,
        accuracy DOUBLE,
        samples INTEGER NOT NULL,
        reason VARCHAR,
        message VARCHAR
    )""",
    "CREATE OR REPLACE VIEW player_stats AS"
    + _DECISION_STATS.format(base=_V2_VIEWS[0].split("player_stats AS", 1)[1]),
)

# The documents again, with DuckDB's own compression of ``body`` turned off.  A checkpoint
# chose ZSTD for it, which compresses a vector of up to 2,048 values together: the index
# found the one row, and DuckDB still read and decompressed every document of its vector to
# return it (40 to 90 ms of a replay at 100,000 deals).  The bytes are LZ4 already; stored
# as they are, a row is read alone (2 ms).  The rows are copied: a column's compression is
# set only where the table is created (docs/performance.md, "The explorer").
_DOCUMENTS_UNCOMPRESSED = (
    """
    CREATE TABLE documents_stored (
        session_id VARCHAR NOT NULL,
        line INTEGER,
        digest VARCHAR NOT NULL,
        size BIGINT NOT NULL,
        body BLOB NOT NULL USING COMPRESSION uncompressed
    )""",
    "INSERT INTO documents_stored SELECT session_id, line, digest, size, body FROM documents",
    "DROP INDEX documents_session",
    "DROP TABLE documents",
    "ALTER TABLE documents_stored RENAME TO documents",
    "CREATE INDEX documents_session ON documents (session_id)",
)

# The content version and the derived results (docs/database.md, "Derived results";
# db/content.py): each load that changes what is stored raises ``content.version`` in its
# transaction, and ``derived`` records which version each result computed over the whole
# database covers, so that a load marks them stale instead of computing them again.  A
# database upgraded with rows in it starts at version 1, its results of unknown coverage.
_DERIVED = (
    "CREATE TABLE content (version BIGINT NOT NULL)",
    "INSERT INTO content SELECT CASE WHEN EXISTS (SELECT 1 FROM sessions) "
    "OR EXISTS (SELECT 1 FROM rejects) THEN 1 ELSE 0 END",
    """
    CREATE TABLE derived (
        result VARCHAR NOT NULL,
        version BIGINT,
        sessions BIGINT,
        deals BIGINT,
        computed_at TIMESTAMP,
        place VARCHAR
    )""",
    "INSERT INTO derived (result) VALUES "
    "('fairness'), ('collusion'), ('collusion_acts'), ('reports')",
)

MIGRATIONS: tuple[Migration, ...] = (
    Migration(
        1,
        "tables: sessions, players, deals, seats, tricks, plays, findings, discrepancies, rejects",
        _V1_TABLES,
    ),
    Migration(2, "views: player_stats, pool_history, violations_by_rule", _V2_VIEWS),
    Migration(3, "table: fairness (the fairness tests, refreshed by audit)", _V3_FAIRNESS),
    Migration(4, "tables: analysis_deals, analysis_players, analysis_notes", _ANALYSIS_TABLES),
    Migration(5, "columns: deals.knowledge, deals.unchecked, findings.proved_*", _PARTIAL_HANDS),
    Migration(6, "table: analysis_cards", _ANALYSIS_CARDS),
    Migration(7, "types: card, declaration (ENUMs) for every card and declaration column", _ENUMS),
    Migration(8, "table: documents (each session's document, compressed)", _DOCUMENTS),
    Migration(9, "index: documents by session", _DOCUMENTS_INDEX),
    Migration(
        10, "tables: collusion, collusion_acts (the collusion screen, refreshed)", _COLLUSION
    ),
    Migration(11, "tables: decision_deals, decisions; player_stats with the decisions", _DECISIONS),
    Migration(12, "column: documents.body stored as it is (no zstd)", _DOCUMENTS_UNCOMPRESSED),
    Migration(
        13, "tables: content, derived (the content version, what each result covers)", _DERIVED
    ),
)
VERSION = MIGRATIONS[-1].version


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


def seal(
    con: duckdb.DuckDBPyConnection, path: Path, folders: Sequence[Path] = ()
) -> duckdb.DuckDBPyConnection:
    """``con`` shut off from every file, folder and address but the database at ``path``
    (its write-ahead log, its spill folder) and ``folders`` (an export's): a database is
    data, never code, and a view or macro a stranger wrote into it can read nothing else
    (docs/database.md, "A database from someone else").  DuckDB refuses to turn external
    access back on, or to widen what is allowed, while the connection lives."""
    files = [f"{path}{suffix}" for suffix in _DATABASE_FILES]
    con.execute("SET allowed_paths = ?", [files])
    con.execute(
        "SET allowed_directories = ?", [[os.path.join(os.path.abspath(f), "") for f in folders]]
    )
    con.execute("SET enable_external_access = false")
    return con


# The database and what DuckDB keeps beside it: the write-ahead log, and its copies while a
# checkpoint or a recovery runs.
_DATABASE_FILES = ("", ".wal", ".wal.checkpoint", ".wal.recovery")


_LOCK = re.compile(r"Conflicting lock is held in (?P<prog>.+?) \(PID (?P<pid>\d+)\)")


# Rows a row group holds, in the row groups a writing connection makes (DuckDB's default is
# 122,880).  A commit compresses the last, partly filled row group of every table it added
# to; at ingest's end that is all the work left, with the workers done: over 100,000
# three-card deals the final commit and close took 0.18 s against 0.4, for no more CPU in
# all and a file 5% larger (docs/performance.md).  DuckDB does not keep the size in the
# file: each writing connection attaches the database with it.
ROW_GROUP_ROWS = 16_384


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
        con = duckdb.connect(config=duckdb_config())
        try:
            seal(con, path, [writes] if writes is not None else [])
            literal = str(path).replace("'", "''")
            if read_only:
                con.execute(f"ATTACH '{literal}' AS loo (READ_ONLY)")
            else:
                con.execute(f"ATTACH '{literal}' AS loo (ROW_GROUP_SIZE {ROW_GROUP_ROWS})")
            con.execute("USE loo")
        except BaseException:
            con.close()
            raise
        return con


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
    instance = duckdb.connect(config={**duckdb_config(), "temp_directory": f"{path}.tmp"})
    return seal(instance, path)


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
    macros included.  Looking costs 30 ms or so (DuckDB lists every function to find the
    macros): a file is looked at once as long as it and its write-ahead log are unchanged."""
    key = tuple(_identity(Path(f"{path}{suffix}")) for suffix in _DATABASE_FILES)
    if _LOOKED.get(str(path)) != key:
        version_of(con)
        _LOOKED[str(path)] = key


def _identity(path: Path) -> tuple[int, ...]:
    try:
        info = path.stat()
    except OSError:
        return ()
    return (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns)


_LOOKED: dict[str, tuple[tuple[int, ...], ...]] = {}


def damage(text: str, said: Callable[[str], str] = first_line) -> str:
    """DuckDB's message as ``said`` tells it (its first line), and what it means when the
    file is damaged, or how to give it more memory (``with_remedy``)."""
    line = with_remedy(said(text))
    if any(sign in line for sign in _DAMAGE):
        return f"{line} (the file is truncated or damaged)"
    return line


_DAMAGE = ("Could not read enough bytes", "Corrupt database file", "not a valid DuckDB")


@contextmanager
def reading(path: Path) -> Iterator[None]:
    """DuckDB's failures while the database at ``path`` is read (a truncated or damaged
    file shows only when the damaged part is read) as ``DatabaseError``; Ctrl-C as
    ``KeyboardInterrupt``."""
    try:
        yield
    except duckdb.InterruptException:
        raise KeyboardInterrupt from None
    except duckdb.Error as exc:
        raise DatabaseError(f"cannot read {path}: {damage(str(exc))}") from None


def with_hints(text: str) -> str:
    """DuckDB's message and the hints under it (``Did you mean "deals"?``, candidate
    columns), on one line; the echo of the SQL after the blank line is left out."""
    head = text.strip().split("\n\n", 1)[0]
    return " ".join(line.strip() for line in head.splitlines() if line.strip())


def version_of(con: duckdb.DuckDBPyConnection) -> int:
    """The schema version of the database: 0 for a new (empty) one.  A database that
    loo-replay did not make is refused (``DatabaseError``), whatever its tables are called."""
    foreign = _foreign(con)
    if foreign is not None:
        ((path,),) = con.execute(
            "SELECT path FROM duckdb_databases() WHERE database_name = current_database()"
        ).fetchall()
        raise DatabaseError(
            f"{path or 'the database'} is a DuckDB database that loo-replay did not make "
            f"({foreign}); give --db a new file, or one loo-replay made"
        )
    if not _columns(con, "schema_version"):
        return 0
    ((version,),) = con.execute("SELECT coalesce(max(version), 0) FROM schema_version").fetchall()
    return int(version)


def _columns(con: duckdb.DuckDBPyConnection, table: str) -> dict[str, str]:
    """The columns of ``table`` in the database's ``main`` schema, and their types."""
    rows = con.execute(
        "SELECT column_name, data_type FROM duckdb_columns() WHERE database_name = "
        "current_database() AND schema_name = 'main' AND table_name = ? ORDER BY column_index",
        [table],
    ).fetchall()
    return dict(rows)


# The tables migration 1 made and their columns: every loo-replay database has them.  A table
# named ``schema_version`` alone is no proof: other programs keep one too.
_V1_COLUMNS = {
    found[1]: frozenset(re.findall(r"^\s+(\w+) ", found[2], re.MULTILINE))
    for found in (re.search(r"CREATE TABLE (\w+) \((.*)\)", sql, re.DOTALL) for sql in _V1_TABLES)
    if found is not None
}


def _foreign(con: duckdb.DuckDBPyConnection) -> str | None:
    """Why the database is not one loo-replay made, or None: it has no tables at all (a new
    one), or its migration records and the tables of migration 1 are loo-replay's."""
    names = [
        name
        for (name,) in con.execute(
            "SELECT table_name FROM duckdb_tables() WHERE database_name = current_database() "
            "UNION ALL SELECT view_name FROM duckdb_views() WHERE NOT internal "
            "AND database_name = current_database() ORDER BY 1"
        ).fetchall()
    ]
    if not names:
        return None
    if _columns(con, "schema_version") != {"version": "INTEGER", "description": "VARCHAR"}:
        shown = ", ".join(names[:3]) + (", ..." if len(names) > 3 else "")
        return f"its tables: {shown}"
    ((low, high, rows),) = con.execute(
        "SELECT min(version), max(version), count(*) FROM schema_version"
    ).fetchall()
    if low != 1 or high != rows:
        return "its schema_version table is not a record of loo-replay's migrations"
    for table, columns in _V1_COLUMNS.items():
        if table != "schema_version" and not columns <= _columns(con, table).keys():
            return f"its table {table} is not loo-replay's"
    return _unlike(con, high) if high <= VERSION else None  # a newer one is refused as such


def _unlike(con: duckdb.DuckDBPyConnection, version: int) -> str | None:
    """How the database differs from one its migrations up to ``version`` made, or None: a
    view, or a table loo-replay defines, that is not as they define it, compared as DuckDB
    writes each definition out (normalised); any macro (loo-replay defines none).  A
    database is data, never code: a view or macro of someone else's would run as the
    commands read (docs/database.md, "A database from someone else").  Other tables are
    data and left alone."""
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
    ((macro,),) = con.execute(
        "SELECT min(function_name) FROM duckdb_functions() WHERE database_name = "
        "current_database() AND function_type IN ('macro', 'table_macro')"
    ).fetchall()
    if macro is not None:
        return f"it defines a macro ({macro[:60]!r}), and loo-replay defines none"
    tables = con.execute(
        "SELECT table_name, sql FROM duckdb_tables() WHERE database_name = current_database() "
        "AND schema_name = 'main'"
    ).fetchall()
    for name, sql in tables:
        if name in expected.tables and _normal(sql) != expected.tables[name]:
            return f"its table {name!r} is not the one loo-replay defines"
    return None


@dataclass(frozen=True)
class _Definitions:
    views: dict[str, str]
    tables: dict[str, str]


@functools.cache
def _reference(version: int) -> _Definitions:
    """The views and tables, as DuckDB writes them out, of a database made by the
    migrations up to ``version``: made in memory, once a process (about 0.1 s)."""
    con = duckdb.connect(config={**duckdb_config(), "enable_external_access": False})
    try:
        for migration in MIGRATIONS[:version]:
            for statement in migration.statements:
                con.execute(statement)
        views = con.execute("SELECT view_name, sql FROM duckdb_views() WHERE NOT internal")
        found = {name: _normal(sql) for name, sql in views.fetchall()}
        tables = con.execute("SELECT table_name, sql FROM duckdb_tables()").fetchall()
        return _Definitions(found, {name: _normal(sql) for name, sql in tables})
    finally:
        con.close()


def _normal(sql: str) -> str:
    """A definition with its spacing made one: DuckDB writes out the parsed statement,
    whatever its spacing was when it was made."""
    return " ".join(sql.split())


def migrate(
    con: duckdb.DuckDBPyConnection, migrations: Sequence[Migration] = MIGRATIONS
) -> tuple[int, int]:
    """Bring the database to the last of ``migrations``; returns (version before, after).

    Each migration runs in one transaction with its ``schema_version`` row, so a
    process killed while upgrading leaves the database at a whole version.
    """
    before = version_of(con)
    newest = migrations[-1].version if migrations else 0
    if before > newest:
        raise DatabaseError(_newer("the database", before, newest))
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
    return before, version_of(con)


def _newer(name: object, version: int, newest: int = VERSION) -> str:
    return (
        f"{name} is at schema version {version}, newer than this loo-replay understands "
        f"({newest}); upgrade loo-replay"
    )


def _create(path: Path) -> None:
    """A new database at ``path``, made with its tables in a folder of its own beside it and
    linked into place whole: a process killed while DuckDB was starting the file had left an
    empty one, which no later run could open (docs/limits.md, "Databases").  A file another
    process put there first is left to be opened as it is."""
    try:
        with staging(path.parent) as stage:
            made = stage / path.name
            con = connect(made)
            try:
                migrate(con)
            finally:
                con.close()
            try:
                os.link(made, path)
            except FileExistsError:
                pass
            except OSError:  # a file system without hard links (some network shares)
                if not os.path.lexists(path):
                    os.replace(made, path)
    except OSError as exc:
        raise DatabaseError(f"cannot create {path}: {exc.strerror or exc}") from None


def check_db(path: Path) -> bool:
    """Whether a database is at ``path``; ``DatabaseError`` for a file there that could not
    be loaded into: not a DuckDB file, one loo-replay did not make, or of a newer schema.
    Looked at read-only, nothing made: the commands ask before any work (docs/limits.md)."""
    if not check_file(path):
        return False
    con = connect(path, read_only=True)
    try:
        with reading(path):
            version = version_of(con)
    finally:
        con.close()
    if version > VERSION:
        raise DatabaseError(_newer(path, version))
    return True


def open_db(path: Path) -> duckdb.DuckDBPyConnection:
    """A read-write connection to a database at the current schema version.  An existing
    file is looked at read-only first (``check_db``): one that loo-replay did not make, or
    of a newer schema, is refused with its bytes untouched."""
    if not check_db(path):
        _create(path)
    con = connect(path)
    try:
        migrate(con)
    except duckdb.Error as exc:
        con.close()
        raise DatabaseError(f"cannot set up the tables in {path}: {damage(str(exc))}") from None
    except BaseException:
        con.close()
        raise
    return con
