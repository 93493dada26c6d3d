"""The database's failures as the commands say them, apart from DuckDB: ``ingest`` starts
its worker processes before it imports DuckDB (a fifth of a second that then overlaps the
audit), and handles these errors all the same."""

from __future__ import annotations

from loo_replay.errors import LooReplayError


class DatabaseError(LooReplayError):
    """A database that cannot be used as asked; the message is one sentence for the user."""


class DatabaseBusy(DatabaseError):
    """Another process holds the DuckDB file lock."""
