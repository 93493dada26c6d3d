"""The ``fairness`` table: the last run's tests, kept for the reports.

Every test over each session and all deals, at the default alpha.  A load marks it
stale; ``report``, ``audit`` and ``fairness --db`` run the tests again when it is
(``loo_replay.derived``), and ``report`` reads it.  Subjects are JSON text.
"""

from __future__ import annotations

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
    """Replace the table's rows with ``report``'s, and record what they cover, in one
    transaction."""
    rows = (_row(v, report.alpha) for v in report.verdicts)
    replace_rows(con, {"fairness": (COLUMNS, rows)}, report.covers)


def refresh(con: duckdb.DuckDBPyConnection) -> Report:
    """Run the tests over the database of ``con`` (read-write) and keep them in its
    ``fairness`` table (``loo_replay.derived`` calls it when the table is stale)."""
    report = fairness(con, DEFAULT_BY, ALPHA)
    store(con, report)
    return report


def computed(con: duckdb.DuckDBPyConnection) -> list[dict[str, Any]]:
    """The tests run now, as ``stored`` gives the table's rows, nothing written: the
    explorer's, over a database whose table is stale."""
    report = fairness(con, DEFAULT_BY, ALPHA)
    return _as_dicts([_row(v, report.alpha) for v in _ordered(report)])


def _ordered(report: Report) -> list[Verdict]:
    """The verdicts in ``stored``'s order."""
    return sorted(
        report.verdicts,
        key=lambda v: (
            not v.flagged, v.test, v.scope != "all", v.group,
            orjson.dumps(dict(v.subject)).decode(),
        ),
    )  # fmt: skip


def _as_dicts(rows: list[tuple[Any, ...]]) -> list[dict[str, Any]]:
    found = [dict(zip(COLUMNS, r, strict=True)) for r in rows]
    for r in found:
        r["subject"] = orjson.loads(r["subject"])
    return found


def stored(con: duckdb.DuckDBPyConnection) -> list[dict[str, Any]]:
    """The table's rows as dicts, flagged first, then by test, scope and group."""
    cursor = con.execute(
        f"SELECT {', '.join(COLUMNS)} FROM fairness "
        "ORDER BY flagged DESC, test, scope = 'all' DESC, grp, subject"
    )
    return _as_dicts(cursor.fetchall())
