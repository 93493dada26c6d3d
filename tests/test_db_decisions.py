"""The judged decisions in the database (docs/database.md, "Judged decisions"): the tables of
migration 11, what ``ingest --decisions`` loads into them against ``analyse --decisions``,
and ``player_stats`` recomputed here from the rows."""

from __future__ import annotations

from pathlib import Path

import pytest
from db_helpers import run, sql

from loo_replay.db import schema


@pytest.fixture(scope="module")
def simulated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two small simulated sessions of three-card Loo, in one JSON Lines file."""
    out = tmp_path_factory.mktemp("decisions") / "games.jsonl"
    done = run(
        "simulate", "--players", "4", "--deals", "6", "--sessions", "2", "--seed", "7",
        "--out", out,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return out


def test_a_load_without_decisions_judges_nothing_and_player_stats_say_null(
    simulated: Path, tmp_path: Path
) -> None:
    db = tmp_path / "loo.duckdb"
    assert run("ingest", simulated, "--db", db, "--no-analysis").returncode == 0
    assert sql(db, "SELECT max(version) FROM schema_version") == [(schema.VERSION,)]
    for table in schema.DECISION_TABLES:
        assert sql(db, f"SELECT count(*) FROM {table}") == [(0,)]
    stats = sql(
        db,
        "SELECT decisions, deals_judged, decision_loss, loss_per_deal, accuracy, inaccuracies, "
        "mistakes, blunders FROM player_stats",
    )
    assert len(stats) == 4 and all(v is None for row in stats for v in row)  # never 0
