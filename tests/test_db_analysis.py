"""The double-dummy analysis in the database (docs/analysis.md, "The notes"-§5): ``ingest`` loads what
``analyse`` reports, ``--no-analysis`` loads none and nothing else changes, ``stats`` sums
it per player, and a rerun adds nothing."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import duckdb
import pytest
from db_helpers import SAMPLES, dump, run, sql

from loo_replay.db.stored_analysis import stored_analyses
from loo_replay.db.tables import ANALYSIS_TABLES
from loo_replay.engine.analysis import SOLVED, analyse_deal
from loo_replay.engine.vocab import Status
from loo_replay.replayer.marks import marks_of
from loo_replay.run.audit import SessionReport
from tests.loo_helpers import audited


@pytest.fixture(scope="module")
def analysed(samples_ingested: Path) -> tuple[Path, dict[str, Any]]:
    """The samples ingested (analysis on by default; once a worker, conftest.py, read only),
    and ``analyse --format json`` of them."""
    out = run("analyse", SAMPLES, "--format", "json")
    return samples_ingested, json.loads(out.stdout)


def _deals(doc: dict[str, Any]) -> dict[tuple[str, int], dict[str, Any]]:
    return {
        (s["id"], i): d["analysis"]
        for s in doc["sessions"]
        for i, d in enumerate(s["deals"])
        if d["analysis"].get("reason") != "rejected"  # a rejected deal is in ``rejects``
    }


def test_ingest_loads_each_deals_analysis_as_analyse_reports_it(
    analysed: tuple[Path, dict[str, Any]],
) -> None:
    """docs/analysis.md, "Budget and honesty"-§5: status, guarantees and notes in the tables are those of the JSON."""
    db, doc = analysed
    want = _deals(doc)
    rows = sql(db, "SELECT session_id, deal_index, status, reason, nodes FROM analysis_deals")
    assert {(s, i): st for s, i, st, _, _ in rows} == {k: a["status"] for k, a in want.items()}
    assert sql(db, "SELECT count(*) FROM deals") == [(len(rows),)]  # every loaded deal
    players = sql(
        db, "SELECT session_id, deal_index, player, guarantee, tricks, lost FROM analysis_players"
    )
    assert {(s, i, p): (g, t, lo) for s, i, p, g, t, lo in players} == {
        (s, i, p): (v["guarantee"], v["tricks"], v["lost"])
        for (s, i), a in want.items()
        for p, v in a.get("players", {}).items()
    }
    notes = sql(
        db,
        "SELECT session_id, deal_index, code, player, trick, card, better, message "
        "FROM analysis_notes ORDER BY session_id, deal_index, note",
    )
    assert notes == [
        (s, i, n["code"], n["player"], n.get("trick"), n.get("card"), n.get("better"), n["message"])
        for (s, i), a in sorted(want.items())
        for n in a.get("notes", [])
    ]
    summary = doc["summary"]
    assert sql(db, "SELECT sum(lost) FROM analysis_players") == [(summary["lost_tricks"],)]
    avoidable = "SELECT count(*) FROM analysis_notes WHERE code = 'avoidable-loo'"
    assert sql(db, avoidable) == [(summary["avoidable_loos"],)]


def test_no_analysis_loads_the_same_audit_and_no_analysis(
    analysed: tuple[Path, dict[str, Any]], tmp_path: Path
) -> None:
    db, _ = analysed
    bare = tmp_path / "bare.duckdb"
    assert run("ingest", SAMPLES, "--db", bare, "--no-analysis").returncode == 0
    with_it, without = dump(db), dump(bare)
    for table in ANALYSIS_TABLES:
        assert without.pop(table) == []
        assert with_it.pop(table)
    assert with_it == without


def test_stats_gives_thrown_tricks_per_100_deals_played_and_avoidable_loos(
    analysed: tuple[Path, dict[str, Any]],
) -> None:
    """Per player: 100 × tricks their cards threw away / analysed deals they played."""
    db, doc = analysed
    played: dict[str, int] = {}
    lost: dict[str, int] = {}
    avoidable: dict[str, int] = {}
    for a in _deals(doc).values():
        for p, v in a.get("players", {}).items():
            played[p] = played.get(p, 0) + 1
            lost[p] = lost.get(p, 0) + v["lost"]
        for n in a.get("notes", []):
            if n["code"] == "avoidable-loo":
                avoidable[n["player"]] = avoidable.get(n["player"], 0) + 1
    result = run("stats", "--db", db)
    assert result.returncode == 0, result.stderr
    head, _rule, *rows = result.stdout.splitlines()[:-1]
    columns = head.split()
    assert columns[-2:] == ["thrown_per_100", "avoidable_loos"]
    seen = {}
    for line in rows:
        cells = line.split()
        seen[cells[0]] = (cells[-2], int(cells[-1]))
    assert seen == {p: (f"{100 * lost[p] / played[p]:.1f}", avoidable.get(p, 0)) for p in played}


def test_the_replay_pages_read_each_deals_analysis_back_as_analyse_deal_gave_it(
    analysed: tuple[Path, dict[str, Any]],
) -> None:
    """docs/analysis.md, "What a player can make sure of"-§3: what ``analysis_cards`` and the other tables hold gives the replay
    the same guarantees, marks and notes as analysing the deal again (so the pages of
    ``audit`` need no second search)."""
    db, _ = analysed
    con = duckdb.connect(str(db), read_only=True)
    checked = 0
    for report in audited([SAMPLES]):
        if not isinstance(report, SessionReport) or report.options is None:
            continue
        stored = stored_analyses(con, report.id)
        for index, deal in enumerate(report.deals):
            if deal.status == Status.REJECTED or deal.result is None:
                continue  # in ``rejects``
            fresh = analyse_deal(deal, report.options)
            back = stored[index]
            assert replace(back, total=fresh.total) == fresh
            seats = deal.result.record.seats
            assert marks_of(back, seats) == marks_of(fresh, seats)
            checked += bool(fresh.steps)
    assert checked > 50


def test_a_deal_loaded_without_its_cards_is_analysed_again_for_its_page(tmp_path: Path) -> None:
    """A database loaded before ``analysis_cards`` existed has no card rows: the pages
    analyse such a deal anew rather than show it without its marks."""
    db = tmp_path / "loo.duckdb"
    assert run("ingest", SAMPLES / "three-card-club-night.json", "--db", db).returncode == 0
    with duckdb.connect(str(db)) as con:
        con.execute("DELETE FROM analysis_cards")
        (session,) = con.execute("SELECT session_id FROM sessions").fetchone() or ("",)
        solved = con.execute(
            "SELECT count(*) FROM analysis_deals WHERE status = 'solved' AND cards > 0"
        ).fetchone()
        stored = stored_analyses(con, session)
    assert solved is not None and solved[0] > 0
    assert all(a.status != SOLVED or not a.cards for a in stored.values())
