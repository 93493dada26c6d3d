"""The ``fairness`` table: the last run's tests, kept for the reports.

``audit`` refreshes it after loading (every test over each session and all
deals, at the default alpha); ``report`` reads it.  Subjects are JSON text.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import duckdb
import orjson

from loo_replay.db.load import replace_rows
from loo_replay.fairness.stats import Verdict
from loo_replay.fairness.verdicts import DEFAULT_BY, Report, fairness

ALPHA = 0.01
COLUMNS = (
    "test", "scope", "grp", "subject", "deals", "min_deals", "statistic", "df", "p_value",
    "p_adjusted", "flagged", "observed", "expected", "band_low", "band_high", "alpha", "message",
)  # fmt: skip


def _row(v: Verdict, alpha: float) -> tuple[Any, ...]:
    low, high = v.band if v.band is not None else (None, None)
    subject = orjson.dumps(dict(v.subject)).decode()
    return (
        v.test, v.scope, v.group, subject, v.deals, v.min_deals, v.statistic, v.df, v.p_value,
        v.p_adjusted, v.flagged, v.observed, v.expected, low, high, alpha, v.message,
    )  # fmt: skip


def store(con: duckdb.DuckDBPyConnection, report: Report) -> None:
    """Replace the table's rows with ``report``'s, in one transaction."""
    replace_rows(con, {"fairness": (COLUMNS, [_row(v, report.alpha) for v in report.verdicts])})


def refresh(db: Path) -> Report:
    """Run the tests over the database at ``db`` and keep them in its ``fairness`` table."""
    from loo_replay.db.schema import open_db

    con = open_db(db)
    try:
        report = fairness(con, DEFAULT_BY, ALPHA)
        store(con, report)
        return report
    finally:
        con.close()


def stored(con: duckdb.DuckDBPyConnection) -> list[dict[str, Any]]:
    """The table's rows as dicts, flagged first, then by test, scope and group."""
    cursor = con.execute(
        f"SELECT {', '.join(COLUMNS)} FROM fairness "
        "ORDER BY flagged DESC, test, scope = 'all' DESC, grp, subject"
    )
    rows = [dict(zip(COLUMNS, r, strict=True)) for r in cursor.fetchall()]
    for r in rows:
        r["subject"] = orjson.loads(r["subject"])
    return rows
