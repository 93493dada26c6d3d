"""The ``fairness`` table: the last run's tests, kept for the reports.

Every test over each session and all deals, at the default alpha.  A load marks it
stale; ``report``, ``audit`` and ``fairness --db`` run the tests again when it is
(``loo_replay.derived``), and ``report`` reads it.  Subjects are JSON text.

A page reads a ``Listing`` of it, never every row: a million deals make 720,000 tests, 2.5 GB
as dicts and a page of 167 MB (docs/fairness.md, "In the database and the reports").
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import duckdb
import orjson
import pyarrow as pa  # type: ignore[import-untyped]

from loo_replay.db.load import replace_rows
from loo_replay.fairness.stats import Verdict
from loo_replay.fairness.verdicts import DEFAULT_BY, Report, fairness

ALPHA = 0.01
COLUMNS = (
    "test", "scope", "grp", "subject", "deals", "min_deals", "statistic", "df", "p_value",
    "p_adjusted", "flagged", "observed", "expected", "band_low", "band_high", "alpha", "message",
)  # fmt: skip
LISTED = 2_000  # the tests a page lists, flagged first, and the players its funnel draws
SHOWN = 40  # the least likely tests a page's figure draws
_ORDER = "flagged DESC, test, scope = 'all' DESC, grp, subject"  # ``_ordered``'s, in SQL


@dataclass(frozen=True)
class Listing:
    """What a page shows of the table: how many tests, tested and flagged; the first
    ``LISTED`` rows (flagged first); the ``SHOWN`` least likely rows with a rate (the
    repeated-deal counts have none); the players' tested rates of holding the top trump when
    dealing, up to ``LISTED``, for the funnel.  Rows are as ``_as_dicts`` makes them."""

    tests: int
    tested: int
    flagged: int
    alpha: float
    rows: list[dict[str, Any]]
    least_likely: list[dict[str, Any]]
    dealing: list[dict[str, Any]]

    @property
    def unlisted(self) -> int:
        return self.tests - len(self.rows)


def _row(v: Verdict, alpha: float) -> tuple[Any, ...]:
    low, high = v.band if v.band is not None else (None, None)
    subject = _subject(v.subject)
    return (
        v.test, v.scope, v.group, subject, v.deals, v.min_deals, v.statistic, v.df, v.p_value,
        v.p_adjusted, v.flagged, v.observed, v.expected, low, high, alpha, v.message,
    )  # fmt: skip


@functools.lru_cache(maxsize=4096)  # a run's 720,000 tests name a few hundred subjects
def _subject(subject: tuple[tuple[str, str], ...]) -> str:
    return orjson.dumps(dict(subject)).decode()


_SCHEMA = pa.schema(
    [
        *((name, pa.string()) for name in ("test", "scope", "grp", "subject")),
        ("deals", pa.int64()),
        ("min_deals", pa.int32()),
        ("statistic", pa.float64()),
        ("df", pa.int32()),
        *((name, pa.float64()) for name in ("p_value", "p_adjusted")),
        ("flagged", pa.bool_()),
        *((name, pa.float64()) for name in ("observed", "expected", "band_low", "band_high")),
        ("alpha", pa.float64()),
        ("message", pa.string()),
    ]
)


def store(con: duckdb.DuckDBPyConnection, report: Report) -> None:
    """Replace the table's rows with ``report``'s, and record what they cover, in one
    transaction: streamed to DuckDB a spooled batch at a time, as Arrow columns."""
    batches = pa.RecordBatchReader.from_batches(_SCHEMA, _batches(report))
    replace_rows(con, {"fairness": (COLUMNS, batches)}, report.covers)


def _batches(report: Report) -> Iterator[pa.RecordBatch]:
    """The table's rows, ``_row`` by ``_row`` the same, as a record batch a spooled batch."""
    for c in report.spool.columns():
        bands = c["band"]
        values = {
            **c,
            "grp": c["group"],
            "subject": [_subject(s) for s in c["subject"]],
            "band_low": [None if b is None else b[0] for b in bands],
            "band_high": [None if b is None else b[1] for b in bands],
            "alpha": [report.alpha] * len(bands),
        }
        yield pa.record_batch([values[name] for name in COLUMNS], schema=_SCHEMA)


def refresh(con: duckdb.DuckDBPyConnection) -> Report:
    """Run the tests over the database of ``con`` (read-write) and keep them in its
    ``fairness`` table (``loo_replay.derived`` calls it when the table is stale)."""
    report = fairness(con, DEFAULT_BY, ALPHA)
    store(con, report)
    return report


def computed(con: duckdb.DuckDBPyConnection) -> Listing:
    """The tests run now, listed as ``stored`` lists the table's rows, nothing written: the
    explorer's, over a database whose table is stale (and small: ``loo_replay.derived``)."""
    report = fairness(con, DEFAULT_BY, ALPHA)
    return listing(_as_dicts([_row(v, report.alpha) for v in _ordered(report)]))


def _ordered(report: Report) -> list[Verdict]:
    """The verdicts in ``stored``'s order."""
    return sorted(
        report.verdicts,
        key=lambda v: (
            not v.flagged, v.test, v.scope != "all", v.group,
            _subject(v.subject),
        ),
    )  # fmt: skip


def _as_dicts(rows: list[tuple[Any, ...]]) -> list[dict[str, Any]]:
    found = [dict(zip(COLUMNS, r, strict=True)) for r in rows]
    for r in found:
        r["subject"] = orjson.loads(r["subject"])
    return found


def _dealing(row: dict[str, Any]) -> bool:
    return bool(row["test"] == "dealer-hand" and row["subject"].get("measure") == "top trump")


def listing(rows: list[dict[str, Any]], limit: int = LISTED) -> Listing:
    """The ``Listing`` of ``rows``, every test in ``stored``'s order."""
    tested = [r for r in rows if r["p_value"] is not None]
    rated = (r for r in tested if r["test"] != "repeated-deal")
    return Listing(
        len(rows),
        len(tested),
        sum(1 for r in rows if r["flagged"]),
        float(rows[0]["alpha"]) if rows else ALPHA,
        rows[:limit],
        sorted(rated, key=lambda r: r["p_value"])[:SHOWN],  # ties in stored order
        [r for r in tested if _dealing(r)][:limit],
    )


def stored(con: duckdb.DuckDBPyConnection, limit: int = LISTED) -> Listing:
    """The table's ``Listing``, as ``listing`` would make it of every row, read by parts."""
    ((tests, tested, flagged, alpha),) = con.execute(
        "SELECT count(*), count(p_value), count(*) FILTER (WHERE flagged), any_value(alpha) "
        "FROM fairness"
    ).fetchall()
    columns = ", ".join(COLUMNS)

    def rows(where: str, order: str, most: int) -> list[dict[str, Any]]:
        return _as_dicts(
            con.execute(
                f"SELECT {columns} FROM fairness WHERE {where} ORDER BY {order} LIMIT {most}"
            ).fetchall()
        )

    return Listing(
        int(tests),
        int(tested),
        int(flagged),
        float(alpha) if alpha is not None else ALPHA,
        rows("true", _ORDER, limit),
        rows("p_value IS NOT NULL AND test <> 'repeated-deal'", f"p_value, {_ORDER}", SHOWN),
        rows(
            "p_value IS NOT NULL AND test = 'dealer-hand' "
            "AND json_extract_string(subject, '$.measure') = 'top trump'",
            _ORDER,
            limit,
        ),
    )
