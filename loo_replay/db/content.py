"""The content version, and which version each result derived over the whole database covers.

Some results are derived from more than one session: the ``fairness``, ``collusion`` and
``collusion_acts`` tables, and the report folder (whose decision summaries and standings
are over every session).  Recomputing them inside every load would make each ``ingest``
pay for the whole database (a million deals' fairness tests take a minute); instead each
load that changes what is stored raises the ``content`` table's version in its own
transaction, and a result whose ``derived`` row records another version is stale.  The
commands that show a result bring it up to date first (``loo_replay.derived``); the
explorer, which writes nothing, says what an out-of-date one covers (docs/database.md,
"Derived results").
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime

import duckdb

from loo_replay.engine import records

FAIRNESS, COLLUSION, COLLUSION_ACTS, REPORTS = "fairness", "collusion", "collusion_acts", "reports"
RESULTS = (FAIRNESS, COLLUSION, COLLUSION_ACTS, REPORTS)  # the rows of ``derived``


@records.record
class Covers:
    """What a result was computed over: the database's sessions and deals at a content
    version.  In the JSON outputs as it is here; no clock time, so that they stay the same
    bytes for the same database."""

    sessions: int
    deals: int
    version: int

    def as_json(self) -> dict[str, int]:
        return {"sessions": self.sessions, "deals": self.deals, "content_version": self.version}


@records.record
class Coverage:
    """A stored result's ``covers`` (None: never computed at a known version) and
    ``computed_at`` (UTC), against the database's content ``now``."""

    covers: Covers | None
    computed_at: datetime | None
    now: Covers

    @property
    def current(self) -> bool:
        return self.covers is not None and self.covers.version == self.now.version


def version(con: duckdb.DuckDBPyConnection) -> int:
    """The content version: 0 for a database nothing was loaded into."""
    ((found,),) = con.execute("SELECT version FROM content").fetchall()
    return int(found)


def raise_version(con: duckdb.DuckDBPyConnection, changed: Sequence[str] = RESULTS) -> None:
    """Mark the derived results of ``changed`` stale, every one by default: called inside the
    transaction that changes what is stored, so that a load and its mark commit together or
    not at all.  A result not in ``changed`` whose inputs the transaction leaves as they were
    (the fairness tests and the collusion screen, when decisions are judged) and that
    covered the content keeps covering it."""
    unchanged = [r for r in RESULTS if r not in changed]
    if unchanged:
        con.execute(
            "UPDATE derived SET version = version + 1 WHERE list_contains(?, result) "
            "AND version = (SELECT version FROM content)",
            [unchanged],
        )
    con.execute("UPDATE content SET version = version + 1")


def covered(con: duckdb.DuckDBPyConnection) -> Covers:
    """The sessions and deals the database holds now, at its content version."""
    ((sessions, deals, at),) = con.execute(
        "SELECT (SELECT count(*) FROM sessions), (SELECT count(*) FROM deals), "
        "(SELECT version FROM content)"
    ).fetchall()
    return Covers(int(sessions), int(deals), int(at))


def coverage(con: duckdb.DuckDBPyConnection, result: str) -> Coverage:
    """What the stored ``result`` covers, against the database now."""
    ((at, sessions, deals, computed),) = con.execute(
        "SELECT version, sessions, deals, computed_at FROM derived WHERE result = ?", [result]
    ).fetchall()
    covers = None if at is None else Covers(int(sessions), int(deals), int(at))
    return Coverage(covers, computed, covered(con))


def live(con: duckdb.DuckDBPyConnection) -> Coverage:
    """The coverage of a result computed now from ``con`` (a page read straight from the
    tables): the whole database, current."""
    covers = covered(con)
    return Coverage(covers, now(), covers)


def stale(con: duckdb.DuckDBPyConnection) -> list[str]:
    """The derived results, of ``RESULTS``, that do not cover the content version now."""
    rows = con.execute(
        "SELECT result FROM derived WHERE version IS DISTINCT FROM (SELECT version FROM content) "
        "ORDER BY list_position(?, result)",
        [list(RESULTS)],
    ).fetchall()
    return [r for (r,) in rows]


def record(
    con: duckdb.DuckDBPyConnection, result: str, covers: Covers, place: str | None = None
) -> None:
    """Record that ``result`` now covers ``covers``, computed now (in the caller's
    transaction, with the rows it stores); ``place``: the reports' folder."""
    con.execute(
        "UPDATE derived SET version = ?, sessions = ?, deals = ?, computed_at = ?, place = ? "
        "WHERE result = ?",
        [covers.version, covers.sessions, covers.deals, now(), place, result],
    )


def now() -> datetime:
    """The time a result is computed at, UTC to the second (as the pages show it)."""
    return datetime.now(UTC).replace(tzinfo=None, microsecond=0)


def computed_when(at: datetime | None) -> str:
    """A ``computed_at`` as the pages show it."""
    return "unknown (before loo-replay recorded it)" if at is None else f"{at:%Y-%m-%d %H:%M} UTC"
