"""The fairness table that ``audit`` and ``report`` bring up to date and the fairness report page (issue 15, point 4;
docs/fairness.md, "The JSON": the report gains a page with observed against expected and the band)."""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
from db_helpers import SAMPLES, run

from loo_replay.db import content
from loo_replay.fairness import table
from loo_replay.reports.fairness_page import fairness_page


def _table(db: Path) -> list[tuple[str, str, bool, str]]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        rows = con.execute("SELECT test, subject, flagged, message FROM fairness").fetchall()
    finally:
        con.close()
    return [(t, s, bool(f), m) for t, s, f, m in rows]


def test_audit_refreshes_the_fairness_table_and_flags_the_crooked_dealer(tmp_path: Path) -> None:
    db, out = tmp_path / "loo.duckdb", tmp_path / "reports"
    result = run("audit", SAMPLES / "three-card-crooked-dealer.jsonl", "--db", db,
                 "--out", out, "--no-replays")  # fmt: skip
    assert result.returncode == 1, result.stderr
    assert "fairness: 4 test(s) flagged as unlikely under fair dealing" in result.stdout
    rows = _table(db)
    flagged = [(t, json.loads(s)) for t, s, f, _ in rows if f]
    assert {t for t, _ in flagged} == {"dealer-hand"}
    assert all(s["player"] == "dan" for _, s in flagged)
    page = (out / "fairness.html").read_text("utf-8")
    assert "4 test(s) flagged as unlikely under fair dealing" in page
    assert "when dan deals they hold the top trump in 75% of deals" in page
    assert 'data-figure="fairness-observed"' in page and 'data-figure="fairness-funnel"' in page
    index = (out / "index.html").read_text("utf-8")
    assert '<a href="fairness.html">Fairness: 4 test(s) flagged' in index
    again = run("audit", SAMPLES / "three-card-crooked-dealer.jsonl", "--db", db,
                "--out", out, "--no-replays")  # fmt: skip
    assert again.returncode == 1 and _table(db) == rows  # refreshed, not added to


def test_a_fair_session_leaves_the_index_without_a_fairness_line(tmp_path: Path) -> None:
    db, out = tmp_path / "loo.duckdb", tmp_path / "reports"
    result = run("audit", SAMPLES / "three-card-club-night.json", "--db", db, "--out", out,
                 "--no-replays")  # fmt: skip
    assert "fairness:" not in result.stdout
    rows = _table(db)
    assert rows and not any(f for _, _, f, _ in rows)
    assert any(m.startswith("too few deals") for *_, m in rows)
    assert "Fairness:" not in (out / "index.html").read_text("utf-8")
    assert "Nothing flagged" in (out / "fairness.html").read_text("utf-8")


def test_a_report_of_a_database_only_ingested_runs_the_tests_the_load_marked_stale(
    tmp_path: Path,
) -> None:
    db, out = tmp_path / "loo.duckdb", tmp_path / "reports"
    assert run("ingest", SAMPLES / "three-card-club-night.json", "--db", db).returncode == 0
    assert _table(db) == []  # a load runs no test: it marks the table stale
    assert run("report", "--db", db, "--out", out, "--no-replays").returncode == 0
    rows = _table(db)
    assert rows and not any(f for _, _, f, _ in rows)
    page = (out / "fairness.html").read_text("utf-8")
    assert "No fairness tests yet" not in page and "Nothing flagged" in page
    assert "<dt>Covers</dt><dd>1 session(s), 24 deal(s), content version 1</dd>" in page
    assert "run <code>loo-replay report</code>" not in page  # current: no notice


def test_a_page_lists_the_first_tests_and_reads_the_table_by_parts(tmp_path: Path) -> None:
    """docs/fairness.md, "In the database and the reports": a page reads a listing of the
    table, never every row (720,000 tests at a million deals made a page of 167 MB): the
    listing read by parts in SQL is the one made of every row, at any bound, and a page whose
    tests pass the bound lists the first, flagged first, and says how to get every one."""
    db, out = tmp_path / "loo.duckdb", tmp_path / "reports"
    result = run("audit", SAMPLES / "three-card-crooked-dealer.jsonl", "--db", db,
                 "--out", out, "--no-replays")  # fmt: skip
    assert result.returncode == 1, result.stderr
    con = duckdb.connect(str(db), read_only=True)
    try:
        every = table.stored(con, limit=10**9)
        assert every.unlisted == 0 and every.tests == len(every.rows) == len(_table(db))
        for limit in (1, 3, 7, every.tests):
            assert table.stored(con, limit) == table.listing(every.rows, limit), limit
        few = table.stored(con, limit=6)
        coverage = content.coverage(con, content.FAIRNESS)
    finally:
        con.close()
    assert len(few.rows) == 6 and few.unlisted == every.tests - 6 and few.flagged == 4
    assert [r["flagged"] for r in few.rows] == [True] * 4 + [False] * 2
    page = fairness_page(few, coverage, "loo.duckdb", "")
    assert f"The first 6 of {every.tests} are listed, the flagged first" in page
    assert page.count("<tr>") == 1 + 4 + 1 + 6  # two tables' heads, the flagged, the listed
    assert "when dan deals they hold the top trump in 75% of deals" in page


def test_the_stored_table_holds_what_the_tests_say(tmp_path: Path) -> None:
    """``table.store`` writes the run as Arrow columns, a spooled batch at a time, never as
    a Python object a test (docs/fairness.md, "Speed"): every column of every row is what
    the judged verdicts give, as the explorer's listing of a run computed now makes them."""
    db = tmp_path / "loo.duckdb"
    result = run("ingest", SAMPLES / "three-card-crooked-dealer.jsonl", "--db", db)
    assert result.returncode == 0, result.stderr
    con = duckdb.connect(str(db))
    try:
        report = table.refresh(con)
        kept = table.stored(con, limit=10**9)
        now = table.computed(con)
    finally:
        con.close()
    assert kept.tests == report.tests == len(now.rows) and report.flagged
    assert kept == now
