"""The database schema as versioned migrations: each version's SQL, and ``VERSION``, the
latest.

Each migration is frozen once released: a later change is a new migration,
so an older database is upgraded in place by running the ones it lacks, each
in its own transaction together with its ``schema_version`` row (``db/versions.py``).
docs/database.md documents every table, column and view created here.
"""

from __future__ import annotations

import re

from loo_replay.engine.records import record


@record
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

# Each session's key, an integer in the order the sessions were loaded, on ``sessions`` and on
# every table that holds a session's rows (docs/database.md, "Session keys").  DuckDB keeps
# only the first 8 bytes of a text column's smallest and largest value for each group of rows
# it stores, so ids sharing their first 8 bytes (``club-2026-...``) let it skip no group and a
# lookup by id read the whole column (25 to 60 ms a query at a million deals); rows are stored
# in load order, so a key that grows with the loads lets it skip all but one group.  The key
# follows ``sessions``' rows (their load order), copied to the other tables by session id.
# The column is added NOT NULL with a default of 0, filled, and its default dropped (DuckDB
# cannot add NOT NULL to a column it has just filled), so that a row no key was given fails
# to load.  0 is no session's key: a row naming no loaded session keeps it (a database made
# by another program), and ``rejects``, whose rows may name none (an unreadable document has
# no id), keeps NULL there instead.  ``documents`` has an index of its own, which forbids the
# column, and no index is made in a transaction after an UPDATE: it is copied first, as
# migration 12 did, in its order.
# The tables of the migrations before whose first column is ``session_id`` (``rejects``
# aside, its kind first): read from their frozen statements, not from
# db/tables.py, which may change where a released migration never does.
_KEYED_TABLES = tuple(
    table
    for sql in (*_V1_TABLES, *_ANALYSIS_TABLES, *_ANALYSIS_CARDS, *_DECISIONS)
    for table in re.findall(r"CREATE TABLE (\w+) \(\s*session_id ", sql)
)
_KEYS_IN_LOAD_ORDER = "SELECT session_id, row_number() OVER (ORDER BY rowid) AS n FROM sessions"
_SESSION_KEYS = (
    """
    CREATE TABLE documents_keyed (
        session_id VARCHAR NOT NULL,
        line INTEGER,
        digest VARCHAR NOT NULL,
        size BIGINT NOT NULL,
        body BLOB NOT NULL USING COMPRESSION uncompressed,
        session_key BIGINT NOT NULL
    )""",
    "INSERT INTO documents_keyed SELECT d.session_id, d.line, d.digest, d.size, d.body, "
    f"coalesce(k.n, 0) FROM documents d LEFT JOIN ({_KEYS_IN_LOAD_ORDER}) k USING (session_id) "
    "ORDER BY d.rowid",
    "DROP INDEX documents_session",
    "DROP TABLE documents",
    "ALTER TABLE documents_keyed RENAME TO documents",
    "CREATE INDEX documents_session ON documents (session_id)",
    *(
        sql
        for table in _KEYED_TABLES
        for sql in (
            f"ALTER TABLE {table} ADD COLUMN session_key BIGINT NOT NULL DEFAULT 0",
            f"UPDATE sessions SET session_key = k.n FROM ({_KEYS_IN_LOAD_ORDER}) k "
            "WHERE sessions.session_id = k.session_id"
            if table == "sessions"
            else f"UPDATE {table} SET session_key = s.session_key FROM sessions s "
            f"WHERE {table}.session_id = s.session_id",
            f"ALTER TABLE {table} ALTER session_key DROP DEFAULT",
        )
    ),
    "ALTER TABLE rejects ADD COLUMN session_key BIGINT",
    "UPDATE rejects SET session_key = s.session_key FROM sessions s "
    "WHERE rejects.session_id = s.session_id",
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
    Migration(
        14, "columns: session_key (each session's, in load order) where its rows are", _SESSION_KEYS
    ),
)
VERSION = MIGRATIONS[-1].version


# The tables migration 1 made and their columns: every loo-replay database has them.  A table
# named ``schema_version`` alone is no proof: other programs keep one too (``db/versions.py``).
V1_COLUMNS = {
    found[1]: frozenset(re.findall(r"^\s+(\w+) ", found[2], re.MULTILINE))
    for found in (re.search(r"CREATE TABLE (\w+) \((.*)\)", sql, re.DOTALL) for sql in _V1_TABLES)
    if found is not None
}
