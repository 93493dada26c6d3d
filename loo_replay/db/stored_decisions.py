"""A loaded session's judged decisions read back from the database, for its replay pages.

``ingest --decisions`` and ``audit --decisions`` store each deal's decisions as
``judge_deal`` gave them (``decision_deals``, ``decisions``: docs/database.md, "Judged
decisions"); the replay pages of ``report`` and ``serve`` show them from here instead of
judging again.  A deal loaded without ``--decisions`` has no row and is left out: its
page shows no decisions.  The players' summary of ``DealDecisions`` is left empty:
no page reads it.
"""

from __future__ import annotations

from itertools import groupby

import duckdb

from loo_replay.db.keys import BY_KEY, session_rows
from loo_replay.engine.judging import JUDGED, DealDecisions, Decision, OptionValue, Unjudged


def stored_decisions(
    con: duckdb.DuckDBPyConnection,
    session_id: str,
    deal_index: int | None = None,
    session_key: int | None = None,
) -> dict[int, DealDecisions]:
    """Each deal of ``session_id`` loaded with its decisions, by deal index (only
    ``deal_index``'s, if given: one replay served).  Its rows are found by the session's
    key (``db/keys.py``; looked up unless given)."""
    key = session_rows(con, session_id, deal_index, session_key)
    if key is None:
        return {}
    one = "" if deal_index is None else " AND deal_index = ?"
    items: dict[int, list[Decision]] = {}
    unjudged: dict[int, list[Unjudged]] = {}
    rows = con.execute(
        f"""
        SELECT deal_index, event, player, kind, trick, option, value, se, chosen, best,
               loss, loss_se, severity, accuracy, reason, message
        FROM decisions WHERE {BY_KEY}{one}
        ORDER BY deal_index, event, position NULLS LAST
        """,
        key,
    ).fetchall()
    for row in rows:
        if row[5] is None:  # a decision that could not be valued, and why
            unjudged.setdefault(row[0], []).append(Unjudged(row[2], row[1], row[14]))
    valued = (r for r in rows if r[5] is not None)
    for (index, event), group in groupby(valued, key=lambda r: (r[0], r[1])):
        opts = list(group)  # in option order; what is one per decision is on each row
        chosen = next(r for r in opts if r[8])
        best = next(r for r in opts if r[9])
        player, kind, trick = opts[0][2:5]
        items.setdefault(index, []).append(
            Decision(
                player,
                kind,
                trick,
                event,
                chosen[5],
                best[5],
                tuple(OptionValue(r[5], r[6], r[7]) for r in opts),
                chosen[10],
                chosen[11],
                chosen[12],
                chosen[13],
                chosen[15] or "",
            )
        )
    out: dict[int, DealDecisions] = {}
    for index, status, reason, samples, unit, declarations in con.execute(
        f"""
        SELECT deal_index, status, reason, samples, unit, declarations
        FROM decision_deals WHERE {BY_KEY}{one} ORDER BY deal_index
        """,
        key,
    ).fetchall():
        out[index] = DealDecisions(
            status,
            reason,
            samples,
            unit,
            declarations,
            tuple(items.get(index, ())) if status == JUDGED else (),
            tuple(unjudged.get(index, ())),
        )
    return out


def decision_loads(con: duckdb.DuckDBPyConnection) -> dict[str, str]:
    """How each session's decisions were judged, as ``K/seed`` (several, comma-separated, if
    its deals differ), for the sessions loaded with ``--decisions``: a replay page written
    before them, or with other figures, is out of date."""
    return dict(
        con.execute(
            """
            SELECT session_id, string_agg(DISTINCT samples || '/' || seed, ',')
            FROM decision_deals GROUP BY session_id
            """
        ).fetchall()
    )
