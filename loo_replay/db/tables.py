"""The tables of a loo-replay database grouped by what they hold, and a total order of each
table's rows: what the loader, the export and the tests walk over.  The tables themselves
are made by the migrations (``db/migrations.py``)."""

from __future__ import annotations

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
COLLUSION_TABLES = ("collusion", "collusion_acts")
