"""Nothing stale (issue 52, part 2; docs/database.md, "Derived results"): a load marks the
results derived over the whole database stale and computes none of them; ``report``,
``audit``, ``fairness --db`` and ``collusion --db`` bring them up to date before they show
them; ``serve`` writes nothing and never shows a stale result as current; every derived
page says what it covers."""

from __future__ import annotations

import json
import re
import shutil
import urllib.request
from pathlib import Path
from typing import Any

import duckdb
import pytest
from db_helpers import run
from explorer_helpers import serving

from loo_replay.collusion import table as collusion_table
from loo_replay.db import content
from loo_replay.derived.steps import refresh_stale
from loo_replay.explorer.app import Derived
from loo_replay.fairness import table as fairness_table
from loo_replay.reports.fairness_page import fairness_page
from loo_replay.run import workers
from loo_replay.run.driver import Processes

DERIVED_PAGES = ("fairness.html", "collusion.html", "decisions.html", "all-sessions.html")


def _simulate(tmp: Path, name: str, deals: int, seed: int) -> Path:
    log = tmp / name
    result = run("simulate", "--deals", str(deals), "--seed", str(seed), "--out", log)
    assert result.returncode == 0, result.stderr
    return log


def _sql(db: Path, sql: str) -> list[tuple[Any, ...]]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


def _stale(db: Path) -> list[str]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        return content.stale(con)
    finally:
        con.close()


def _covers(page: str) -> str:
    found = re.search(r"<dt>Covers</dt><dd>([^<]*)</dd>", page)
    assert found, "the page says what it covers"
    return found[1]


def _get(url: str) -> str:
    with urllib.request.urlopen(url, timeout=60) as response:
        assert response.status == 200, url
        return str(response.read().decode("utf-8"))


def test_audit_ingest_more_report_and_serve_cover_every_deal(tmp_path: Path) -> None:
    first = _simulate(tmp_path, "first.jsonl", 100, 1)
    more = _simulate(tmp_path, "more.jsonl", 300, 2)
    db, out = tmp_path / "loo.duckdb", tmp_path / "reports"
    audited = run("audit", first, "--db", db, "--out", out, "--no-replays")
    assert audited.returncode == 0, audited.stdout + audited.stderr
    assert _stale(db) == []
    for page in ("fairness.html", "collusion.html"):
        assert _covers((out / page).read_text("utf-8")) == (
            "1 session(s), 100 deal(s), content version 1"
        )
    stored = _sql(db, "SELECT * FROM fairness ORDER BY ALL")
    stored_all = _sql(
        db, "SELECT deals FROM fairness WHERE test = 'cards-to-seats' AND scope = 'all'"
    )

    loaded = run("ingest", more, "--db", db)
    assert loaded.returncode == 0, loaded.stderr
    assert "marked stale: fairness, collusion, collusion_acts, reports" in loaded.stdout
    assert "collusion:" not in loaded.stdout  # no whole-database screen inside ingest
    assert _sql(db, "SELECT * FROM fairness ORDER BY ALL") == stored  # not run again
    assert _sql(db, "SELECT version, deals FROM derived WHERE result = 'fairness'") == [(1, 100)]

    # The explorer, before any report: the tests run in memory for the page, nothing written.
    with serving(db) as server:
        url = server.wait_for_url()
        for name in DERIVED_PAGES:
            page = _get(url + name)
            assert _covers(page) == "2 session(s), 400 deal(s), content version 2", name
            assert "This page covers" not in page, name
    assert _stale(db) == ["fairness", "collusion", "collusion_acts", "reports"]
    assert _sql(db, "SELECT * FROM fairness ORDER BY ALL") == stored

    reported = run("report", "--db", db, "--out", out, "--no-replays")
    assert reported.returncode == 0, reported.stderr
    assert _stale(db) == []
    for name in (*DERIVED_PAGES, "index.html"):
        page = (out / name).read_text("utf-8")
        assert _covers(page) == "2 session(s), 400 deal(s), content version 2", name
        assert "<dt>Computed</dt><dd>20" in page and " UTC</dd>" in page, name
        assert "This page covers" not in page, name
    all_deals = "SELECT deals FROM fairness WHERE test = 'cards-to-seats' AND scope = 'all'"
    ((before,),) = stored_all
    ((now,),) = _sql(db, all_deals)
    assert now > before + 200  # the 300 deals loaded since are tested too
    screened = json.loads(run("fairness", "--db", db, "--format", "json").stdout)
    assert [t["deals"] for t in screened["tests"] if t["test"] == "cards-to-seats"
            and t["scope"] == "all"] == [now]  # fmt: skip
    assert screened["covers"] == {"sessions": 2, "deals": 400, "content_version": 2}
    collusion = json.loads(run("collusion", "--db", db, "--format", "json").stdout)
    assert collusion["covers"] == {"sessions": 2, "deals": 400, "content_version": 2}

    with serving(db) as server:  # current now: the stored results, said to cover everything
        url = server.wait_for_url()
        for name in DERIVED_PAGES:
            page = _get(url + name)
            assert _covers(page) == "2 session(s), 400 deal(s), content version 2", name


def test_each_derived_table_is_marked_stale_by_a_load_and_only_by_one_that_changes_it(
    tmp_path: Path,
) -> None:
    log = _simulate(tmp_path, "games.jsonl", 60, 4)
    db = tmp_path / "loo.duckdb"
    assert run("ingest", log, "--db", db).returncode == 0
    assert _sql(db, "SELECT version FROM content") == [(1,)]
    assert _stale(db) == list(content.RESULTS)  # never computed
    fairness = run("fairness", "--db", db, "--format", "json")  # the stored run: kept
    assert fairness.returncode in (0, 1), fairness.stderr
    assert _stale(db) == ["collusion", "collusion_acts", "reports"]
    assert run("collusion", "--db", db, "--alpha", "0.05").returncode in (0, 1)
    assert _stale(db) == ["collusion", "collusion_acts", "reports"]  # not the stored run
    assert run("collusion", "--db", db).returncode in (0, 1)
    assert _stale(db) == ["reports"]
    assert run("report", "--db", db, "--out", tmp_path / "r", "--no-replays").returncode == 0
    assert _stale(db) == []

    again = run("ingest", log, "--db", db)  # everything skipped: nothing changed
    assert "marked stale" not in again.stdout and _stale(db) == []
    other = _simulate(tmp_path, "other.jsonl", 20, 9)
    replaced = run("ingest", other, "--db", db, "--no-analysis")
    assert replaced.returncode == 0, replaced.stderr
    assert "marked stale: fairness, collusion, collusion_acts, reports" in replaced.stdout
    assert _stale(db) == list(content.RESULTS)
    assert _sql(db, "SELECT version FROM content") == [(2,)]
    assert _sql(db, "SELECT count(*) FROM collusion")[0][0] > 0  # kept, marked, not emptied


def test_with_two_jobs_the_stale_results_are_computed_in_a_process_of_their_own(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 53: ``report --jobs 2`` refreshes the tests and the screen in a spawned process
    (``run.workers.apart``), whose memory is given back before the pages are written, and
    stores what the refresh here stores."""
    log = _simulate(tmp_path, "games.jsonl", 60, 4)
    here, apart = tmp_path / "here.duckdb", tmp_path / "apart.duckdb"
    assert run("ingest", log, "--db", here).returncode == 0
    shutil.copy(here, apart)
    started: list[str] = []
    real = workers.apart

    def spied(fn: Any, *args: Any) -> Any:
        started.append(fn.__name__)
        return real(fn, *args)

    monkeypatch.setattr(workers, "apart", spied)
    assert refresh_stale(here) == refresh_stale(apart, workers=Processes(2))
    assert started == ["_refreshed"]
    assert _stale(apart) == ["reports"]
    for sql in (
        "SELECT * FROM fairness ORDER BY ALL",
        "SELECT * FROM collusion ORDER BY ALL",
        "SELECT * FROM collusion_acts ORDER BY ALL",
        "SELECT result, version, sessions, deals FROM derived ORDER BY ALL",
    ):
        assert _sql(here, sql) == _sql(apart, sql), sql
    assert refresh_stale(apart, workers=Processes(2)).refreshed == ()  # nothing stale: none
    assert started == ["_refreshed"]


def test_audit_without_the_analysis_leaves_the_screen_stale_and_its_page_says_so(
    tmp_path: Path,
) -> None:
    db, out = tmp_path / "loo.duckdb", tmp_path / "reports"
    first = _simulate(tmp_path, "first.jsonl", 60, 5)
    more = _simulate(tmp_path, "more.jsonl", 40, 6)
    assert run("audit", first, "--db", db, "--out", out, "--no-replays").returncode == 0
    bare = run("audit", more, "--db", db, "--out", out, "--no-replays", "--no-analysis")
    assert bare.returncode == 0, bare.stdout + bare.stderr
    assert "collusion: not screened after a load with --no-analysis" in bare.stdout
    assert _stale(db) == ["collusion", "collusion_acts"]
    page = (out / "collusion.html").read_text("utf-8")
    assert "This page covers 60 of 100 deals: run <code>loo-replay report</code>." in page
    fair = (out / "fairness.html").read_text("utf-8")
    assert _covers(fair) == "2 session(s), 100 deal(s), content version 2"


def test_the_explorer_over_a_large_database_shows_the_stored_result_with_what_it_covers(
    tmp_path: Path,
) -> None:
    db = tmp_path / "loo.duckdb"
    assert run("audit", _simulate(tmp_path, "a.jsonl", 40, 7), "--db", db, "--out",
               tmp_path / "r", "--no-replays").returncode == 0  # fmt: skip
    assert run("ingest", _simulate(tmp_path, "b.jsonl", 30, 8), "--db", db).returncode == 0
    con = duckdb.connect(str(db), read_only=True)
    try:
        large = Derived(compute_deals=50)  # the database's 70 deals are past it
        rows, coverage = large.current(
            con, content.FAIRNESS, fairness_table.stored, fairness_table.computed
        )
        assert rows == fairness_table.stored(con) and not coverage.current
        page = fairness_page(rows, coverage, "loo.duckdb", "")
        assert "This page covers 40 of 70 deals: run <code>loo-replay report</code>." in page
        small = Derived()
        rows, coverage = small.current(
            con, content.FAIRNESS, fairness_table.stored, fairness_table.computed
        )
        assert coverage.current and coverage.covers == content.Covers(2, 70, 2)
        assert rows != fairness_table.stored(con)  # run for the page, over all 70
        assert small.current(con, content.FAIRNESS, fairness_table.stored, _never)[0] == rows
        (screen, _acts), coverage = small.current(
            con,
            content.COLLUSION,
            lambda c: (collusion_table.stored(c), collusion_table.stored_acts(c)),
            collusion_table.computed,
        )
        assert coverage.current and screen and all(r["deals"] <= 70 for r in screen)
    finally:
        con.close()
    assert _stale(db) == list(content.RESULTS)  # nothing written


def test_a_report_while_another_process_reads_the_database_says_what_its_pages_cover(
    tmp_path: Path,
) -> None:
    db, out = tmp_path / "loo.duckdb", tmp_path / "reports"
    assert run("ingest", _simulate(tmp_path, "a.jsonl", 30, 10), "--db", db).returncode == 0
    reader = duckdb.connect(str(db), read_only=True)  # as a running `serve` visit holds it
    try:
        result = run("report", "--db", db, "--out", out, "--no-replays")
    finally:
        reader.close()
    assert result.returncode == 0, result.stderr
    assert "cannot be written now (read-only, or in use)" in result.stderr
    for name in ("fairness.html", "collusion.html"):
        page = (out / name).read_text("utf-8")
        assert "This page does not cover the 30 deals of the database" in page, name
    assert _stale(db) == list(content.RESULTS)  # nothing written, the folder not recorded


def _never(con: duckdb.DuckDBPyConnection) -> list[dict[str, Any]]:
    raise AssertionError("cached against the content version: not computed again")
