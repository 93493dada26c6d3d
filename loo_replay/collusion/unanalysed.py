"""The thrown tricks of deals loaded without the double-dummy analysis (``ingest
--no-analysis``), computed from the stored documents, so that the gift and loo tests
count them as they count analysed deals (docs/collusion.md, "The behaviours").

Each such session's document is read back from the ``documents`` table, audited under
exactly the rules it was loaded under (``sessions.rules``), and its deals that have no
analysis are analysed as ``ingest`` would have; only their ``lost-trick`` notes are kept,
in memory, registered beside the data.  Nothing is written to the database.  A session
whose document the database does not hold (loaded before documents were kept), or whose
document no longer audits to what was loaded, is counted in ``missing``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import duckdb
import pyarrow as pa  # type: ignore[import-untyped]

from loo_replay.db.documents import DocumentDamaged, read_document
from loo_replay.engine.analysis import analyse_deal
from loo_replay.engine.options import OptionError
from loo_replay.logs.reader import Document
from loo_replay.rulesets import loaded_choice
from loo_replay.run.audit import SessionReport, audit_document

TABLE = "collusion_lost_extra"  # (session_id, deal_index, player, trick)

_LACKING = """
SELECT d.session_id, any_value(s.ruleset), any_value(s.rules), list(d.deal_index)
FROM deals d
JOIN sessions s USING (session_id)
ANTI JOIN analysis_deals a USING (session_id, deal_index)
WHERE d.status = 'audited' AND d.knowledge = 'full'
GROUP BY d.session_id ORDER BY d.session_id
"""


@dataclass
class Computed:
    rows: dict[str, list[Any]] = field(
        default_factory=lambda: {"session_id": [], "deal_index": [], "player": [], "trick": []}
    )
    deals: int = 0  # deals analysed here
    missing: int = 0  # deals without an analysis that could not be analysed here


def compute(con: duckdb.DuckDBPyConnection) -> Computed:
    out = Computed()
    for session_id, ruleset, rules, indexes in con.execute(_LACKING).fetchall():
        report = _audited(con, session_id, ruleset, rules)
        if report is None or report.options is None:
            out.missing += len(indexes)
            continue
        for index in indexes:
            analysis = analyse_deal(report.deals[index], report.options)
            out.deals += 1
            for note in analysis.notes:
                if note.code == "lost-trick":
                    for key, value in zip(
                        out.rows, (session_id, index, note.player, note.trick), strict=True
                    ):
                        out.rows[key].append(value)
    return out


def _audited(
    con: duckdb.DuckDBPyConnection, session_id: str, ruleset: str | None, rules: str | None
) -> SessionReport | None:
    try:
        stored = read_document(con, session_id)
        choice = loaded_choice(ruleset, rules)
    except (DocumentDamaged, OptionError, ValueError):
        return None
    if stored is None:
        return None
    report = audit_document(Document("", None, stored.raw), choice)
    if not isinstance(report, SessionReport) or report.id != session_id:
        return None
    return report


def register(con: duckdb.DuckDBPyConnection) -> Computed:
    """Compute, and register the rows as ``TABLE`` (empty when every deal was analysed)."""
    computed = compute(con)
    schema = pa.schema(
        [("session_id", pa.string()), ("deal_index", pa.int32()), ("player", pa.string()),
         ("trick", pa.int32())]
    )  # fmt: skip
    con.register(TABLE, pa.table(computed.rows, schema=schema))
    return computed
