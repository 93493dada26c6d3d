"""The database's failures as the commands say them, apart from DuckDB: ``ingest`` starts
its worker processes before it imports DuckDB (a fifth of a second that then overlaps the
audit), and handles these errors all the same."""

from __future__ import annotations

from loo_replay.errors import LooReplayError

# DuckDB's memory (``schema.duckdb_config``): 128 MB, or the variable's value.
MEMORY_LIMIT = "128MB"
MEMORY_ENV = "LOO_REPLAY_DB_MEMORY"


class DatabaseError(LooReplayError):
    """A database that cannot be used as asked; the message is one sentence for the user."""


class DatabaseBusy(DatabaseError):
    """Another process holds the DuckDB file lock."""


def with_remedy(line: str) -> str:
    """DuckDB's message, and when it ran out of the memory loo-replay gives it, how to
    give it more (docs/limits.md, "Databases")."""
    if "Out of Memory" not in line:
        return line
    return (
        f"{line} (loo-replay bounds DuckDB's memory, to {MEMORY_LIMIT} unless told otherwise: "
        f"set {MEMORY_ENV} higher, e.g. {MEMORY_ENV}=1GB, to give it more)"
    )
