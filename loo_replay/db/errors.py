"""The database's failures as the commands say them, apart from DuckDB: ``ingest`` starts
its worker processes before it imports DuckDB (a fifth of a second that then overlaps the
audit), and handles these errors all the same."""

from __future__ import annotations

from collections.abc import Callable

from loo_replay.errors import LooReplayError, first_line

# DuckDB's memory (``settings.duckdb_config``): 128 MB, or the variable's value.
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


def damage(text: str, said: Callable[[str], str] = first_line) -> str:
    """DuckDB's message as ``said`` tells it (its first line), and what it means when the
    file is damaged, or how to give it more memory (``with_remedy``)."""
    line = with_remedy(said(text))
    if any(sign in line for sign in _DAMAGE):
        return f"{line} (the file is truncated or damaged)"
    return line


_DAMAGE = ("Could not read enough bytes", "Corrupt database file", "not a valid DuckDB")


def with_hints(text: str) -> str:
    """DuckDB's message and the hints under it (``Did you mean "deals"?``, candidate
    columns), on one line; the echo of the SQL after the blank line is left out."""
    head = text.strip().split("\n\n", 1)[0]
    return " ".join(line.strip() for line in head.splitlines() if line.strip())
