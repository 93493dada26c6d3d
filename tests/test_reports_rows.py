"""Each report query's rows are what reports/rows.py declares: the same columns in the same
order, of the declared types, null only where the declaration allows (docs/reports.md)."""

from __future__ import annotations

import types
from collections.abc import Callable, Iterator
from typing import Any, Union, get_args, get_origin, get_type_hints

import duckdb
import polars as pl
import pytest
from db_helpers import SAMPLES

from loo_replay.db.ingest import ingest
from loo_replay.reports import queries
from loo_replay.reports import rows as r
from loo_replay.rulesets import RuleChoice

Query = Callable[[duckdb.DuckDBPyConnection, queries.Sessions], pl.DataFrame]
QUERIES: list[tuple[str, Query, type[Any]]] = [
    ("sessions", lambda con, ids: queries.sessions(con), r.SessionSummary),
    ("players", queries.players, r.PlayerTotals),
    ("pool_history", queries.pool_history, r.PoolStep),
    ("rejected_deals", queries.rejected_deals, r.RejectedDeal),
    ("findings", queries.findings, r.SessionFinding),
    ("discrepancies", queries.discrepancies, r.SessionDiscrepancy),
    ("standings", lambda con, ids: queries.standings(con), r.Standing),
    ("all_findings", lambda con, ids: queries.all_findings(con, 1000)[0], r.ListedFinding),
    ("listed_rejects", lambda con, ids: queries.listed_rejects(con, 1000)[0], r.ListedReject),
    (
        "all_discrepancies",
        lambda con, ids: queries.all_discrepancies(con, 1000)[0],
        r.ListedDiscrepancy,
    ),
]
_POLARS: dict[type, tuple[type[pl.DataType], ...]] = {
    str: (pl.String,),
    int: (pl.Int32, pl.Int64),
    bool: (pl.Boolean,),
    list: (pl.List,),
}


@pytest.fixture(scope="module")
def con(tmp_path_factory: pytest.TempPathFactory) -> Iterator[duckdb.DuckDBPyConnection]:
    db = tmp_path_factory.mktemp("rows") / "loo.duckdb"
    result = ingest(sorted(SAMPLES.glob("*.json*")), db, RuleChoice())
    assert result.counts.loaded and result.counts.rejected and not result.conflicts
    connection = duckdb.connect(str(db), read_only=True)
    yield connection
    connection.close()


def _declared(hint: Any) -> tuple[type, bool]:
    """(Python type, may be None) of a TypedDict field."""
    if get_origin(hint) in (Union, types.UnionType):
        (inner,) = [a for a in get_args(hint) if a is not type(None)]
        return _declared(inner)[0], True
    return (get_origin(hint) or hint), False


@pytest.mark.parametrize(("name", "query", "row"), QUERIES, ids=[q[0] for q in QUERIES])
def test_a_querys_columns_are_its_declared_row(
    con: duckdb.DuckDBPyConnection, name: str, query: Query, row: type[Any]
) -> None:
    frame = query(con, queries.sessions_of(con, queries.session_ids(con)))
    assert frame.height > 0, name  # the samples have rows of every kind
    hints = get_type_hints(row)
    assert frame.columns == list(hints), name
    for column, hint in hints.items():
        kind, nullable = _declared(hint)
        assert isinstance(frame.schema[column], _POLARS[kind]), (name, column)
        if not nullable:
            assert frame[column].null_count() == 0, (name, column)
