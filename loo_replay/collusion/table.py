"""The ``collusion`` and ``collusion_acts`` tables: the screen's last run, kept for the
reports (docs/database.md, "collusion").

At the default alpha.  A load marks them stale; ``report``, ``audit`` and
``collusion --db`` screen again when they are (``loo_replay.derived``), and ``report``
reads them.  Each tested row carries the band of shares independent play allows; each
flagged test keeps the deals of the acts behind it (those in the strata the test compared),
so that a committee can replay them.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from statistics import NormalDist
from typing import Any

import duckdb
import pyarrow as pa  # type: ignore[import-untyped]

from loo_replay.collusion.opportunities import TESTS, Counts, counted, prepared
from loo_replay.collusion.screen import ACTS_LISTED, NEEDED, TESTED, Report, Test, judge
from loo_replay.collusion.stats import Stratum
from loo_replay.db.content import covered
from loo_replay.db.errors import DatabaseError, damage
from loo_replay.db.load import replace_rows

ALPHA = 0.01
COLUMNS = (
    "player_a", "player_b", "deals", "test", "status", "opportunities", "needed", "statistic",
    "p_value", "p_adjusted", "flagged", "observed", "expected", "band_low", "band_high",
    "alpha", "message",
)  # fmt: skip
ACT_COLUMNS = ("player_a", "player_b", "test", "owner", "session_id", "deal_index", "acts")
# The acts of each flagged test's owners toward the partner, by stratum and deal, in the
# strata the test compared (``loo_replay_compared``, registered): the deals kept in the
# cells (``opportunities.py``) of those strata.  A deal appears once per stratum it has acts
# in.  One query: at a million deals, one scan of the opportunities per owner and tablemate
# took 18 s (benchmarks/results/collusion-speed.md).
_ACTS = """
SELECT player_a, player_b, c.test, c.owner, d.session_id, d.deal_index,
       count(*)::INTEGER AS acts
FROM (
    SELECT c.*, unnest(u.deals) AS deal_id
    FROM (SELECT test::VARCHAR AS test, owner, unnest(targets) AS target, stratum, deals
          FROM collusion_cells WHERE acts > 0) u
    JOIN loo_replay_compared c USING (test, owner, target, stratum)
) c
JOIN collusion_deals d USING (deal_id)
GROUP BY player_a, player_b, c.test, c.owner, c.target, c.stratum, d.session_id,
         d.deal_index
ORDER BY ALL
"""
_COMPARED = "loo_replay_compared"
_COMPARED_SCHEMA = pa.schema(
    [(c, pa.string()) for c in ("player_a", "player_b", "test", "owner", "target", "stratum")]
)
_ACTS_SCHEMA = pa.schema(
    [*((c, pa.string()) for c in ACT_COLUMNS[:5]), ("deal_index", pa.int32()), ("acts", pa.int32())]
)


def band(t: Test, alpha: float) -> tuple[float | None, float | None]:
    """The central 1 - alpha range of the share of acts independent play allows: the null's
    exact law taken as normal (its mean and variance), as a share of the opportunities."""
    r = t.result
    if t.status != TESTED or not r.opportunities:
        return None, None
    half = NormalDist().inv_cdf(1 - alpha / 2) * r.variance**0.5
    n = r.opportunities
    return max(0.0, (r.expected - half) / n), min(1.0, (r.expected + half) / n)


def _row(pair: tuple[str, str], deals: int, t: Test, alpha: float) -> tuple[Any, ...]:
    r = t.result
    tested = t.status == TESTED
    observed = r.acts / r.opportunities if tested else None
    expected = r.expected / r.opportunities if tested else None
    return (
        *pair, deals, t.test, t.status, r.opportunities, NEEDED,
        r.statistic if tested else None, r.p_value if tested else None, t.p_adjusted,
        t.flagged, observed, expected, *band(t, alpha), alpha, t.message,
    )  # fmt: skip


def _acts(con: duckdb.DuckDBPyConnection, counts: Counts, report: Report) -> pa.Table:
    """The deals of each flagged test's acts toward the partner, in the compared strata, as
    the columns of ``collusion_acts`` (a million deals' flags hold a million such rows)."""
    flagged = {(t.test, *p.pair) for p in report.flagged for t in p.tests if t.flagged}
    if not flagged:
        return _ACTS_SCHEMA.empty_table()
    totals = {(t, o, s): (n, k) for t, o, s, n, k in counts.totals}
    compared: dict[str, list[str]] = {name: [] for name in _COMPARED_SCHEMA.names}
    for test, owner, target, stratum, mine, my_acts in counts.by_target:
        a, b = sorted((owner, target))
        if (test, a, b) in flagged:
            total, acts = totals[(test, owner, stratum)]
            if Stratum(total, acts, mine, my_acts).informative:
                for key, value in zip(compared, (a, b, test, owner, target, stratum), strict=True):
                    compared[key].append(value)
    con.register(_COMPARED, pa.table(compared, schema=_COMPARED_SCHEMA))
    try:
        return con.sql(_ACTS).to_arrow_table().cast(_ACTS_SCHEMA)
    finally:
        con.unregister(_COMPARED)


def store(con: duckdb.DuckDBPyConnection, report: Report, acts: pa.Table) -> None:
    """Replace both tables' rows with ``report``'s and ``acts``, and record what they cover,
    in one transaction."""
    rows = [_row(p.pair, p.deals, t, report.alpha) for p in report.pairs for t in p.tests]
    assert report.covers is not None, "refresh counts what it covers"
    replace_rows(
        con,
        {"collusion": (COLUMNS, rows), "collusion_acts": (ACT_COLUMNS, acts)},
        report.covers,
    )


def refresh(con: duckdb.DuckDBPyConnection) -> Report:
    """Screen the database of ``con`` (read-write) and keep the run in its collusion tables
    (``loo_replay.derived`` calls it when they are stale)."""
    try:
        with prepared(con) as computed:
            counts = counted(con, computed)
            report = replace(judge(counts, ALPHA), covers=covered(con))
            acts = _acts(con, counts, report)
    except duckdb.Error as exc:
        raise DatabaseError(f"the collusion counts failed: {damage(str(exc))}") from None
    store(con, report, acts)
    return report


def computed(con: duckdb.DuckDBPyConnection) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The screen run now, as ``stored`` and ``stored_acts`` give the tables' rows, nothing
    written: the explorer's, over a database whose tables are stale."""
    try:
        with prepared(con) as found:
            counts = counted(con, found)
            report = judge(counts, ALPHA)
            acts = _acts(con, counts, report)
        numbers = dict(
            ((sid, index), deal)
            for sid, index, deal in con.execute(
                "SELECT session_id, deal_index, deal FROM deals SEMI JOIN (SELECT "
                "unnest(?::VARCHAR[]) AS session_id, unnest(?::INTEGER[]) AS deal_index) "
                "USING (session_id, deal_index)",
                [acts["session_id"].to_pylist(), acts["deal_index"].to_pylist()],
            ).fetchall()
        )
    except duckdb.Error as exc:
        raise DatabaseError(f"the collusion counts failed: {damage(str(exc))}") from None
    flagged = {p.pair for p in report.flagged}
    rows = sorted(
        (dict(zip(COLUMNS, _row(p.pair, p.deals, t, ALPHA), strict=True)) for p in report.pairs
         for t in p.tests),
        key=lambda r: (
            (r["player_a"], r["player_b"]) not in flagged, r["player_a"], r["player_b"],
            TESTS.index(r["test"]),
        ),
    )  # fmt: skip
    listed = sorted(
        (
            {**a, "deal": numbers.get((a["session_id"], a["deal_index"]))}
            for a in acts.to_pylist()
        ),
        key=lambda a: (a["player_a"], a["player_b"], a["session_id"], a["deal_index"],
                       a["test"], a["owner"]),
    )  # fmt: skip
    of = Counter((a["player_a"], a["player_b"]) for a in listed)
    for a in listed:  # as ``stored_acts`` gives them (a small database: none left out)
        a["of"] = of[a["player_a"], a["player_b"]]
    return rows, listed


def stored(con: duckdb.DuckDBPyConnection) -> list[dict[str, Any]]:
    """The table's rows as dicts: flagged pairs first, then by pair and test."""
    cursor = con.execute(
        f"SELECT {', '.join(COLUMNS)} FROM collusion ORDER BY "
        "bool_or(flagged) OVER (PARTITION BY player_a, player_b) DESC, player_a, player_b, "
        "list_position(?, test)",
        [list(TESTS)],
    )
    return [dict(zip(COLUMNS, r, strict=True)) for r in cursor.fetchall()]


# The first ``ACTS_LISTED`` acts of each pair, each with how many its pair has (``of``): a page
# lists no more, so no more are read (a million deals hold some 660,000 acts, 1.2 GB as dicts).
_LISTED_ACTS = f"""
SELECT * FROM (
    SELECT *, count(*) OVER (PARTITION BY player_a, player_b) AS of,
           row_number() OVER (PARTITION BY player_a, player_b
                              ORDER BY session_id, deal_index, test, owner) AS place
    FROM collusion_acts
) WHERE place <= {ACTS_LISTED}
"""


def stored_acts(con: duckdb.DuckDBPyConnection) -> list[dict[str, Any]]:
    """The deals behind the flags, by pair, session and deal, with each deal's number: the
    first ``ACTS_LISTED`` of each pair, each with how many its pair has (``of``)."""
    columns = (*ACT_COLUMNS, "deal", "of")
    cursor = con.execute(
        f"SELECT {', '.join('a.' + c for c in ACT_COLUMNS)}, d.deal, a.of FROM ({_LISTED_ACTS}) a "
        "LEFT JOIN deals d USING (session_id, deal_index) "
        "ORDER BY a.player_a, a.player_b, a.session_id, a.deal_index, a.test, a.owner"
    )
    return [dict(zip(columns, r, strict=True)) for r in cursor.fetchall()]


def flagged_deals(con: duckdb.DuckDBPyConnection) -> dict[str, tuple[int, ...]]:
    """The deal indexes behind the flags that the page lists, by session: the report gives
    them replay pages where it gives pages only to deals with findings."""
    cursor = con.execute(
        "SELECT session_id, list(DISTINCT deal_index ORDER BY deal_index) "
        f"FROM ({_LISTED_ACTS}) GROUP BY session_id"
    )
    return {sid: tuple(indexes) for sid, indexes in cursor.fetchall()}
