"""Where the collusion screen shows (issue 42, part 5; docs/database.md, "collusion";
docs/reports.md, "The collusion page"): the tables ``report`` and ``audit`` bring up to date, the
report's page with the flagged pair and the deals behind it, the index's line, and the
same page served by the explorer."""

from __future__ import annotations

import html
import json
import re
import urllib.request
from pathlib import Path
from typing import Any

import duckdb
from db_helpers import run
from explorer_helpers import serving

from loo_replay.collusion import table as collusion_table
from loo_replay.collusion.screen import ACTS_LISTED

CONTRACT = (
    "status", "opportunities", "needed", "statistic", "p_value", "p_adjusted", "flagged",
    "observed", "expected", "message",
)  # fmt: skip


def _rows(db: Path, table: str) -> list[dict[str, Any]]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        cursor = con.execute(f"SELECT * FROM {table}")
        names = [d[0] for d in cursor.description]
        return [dict(zip(names, r, strict=True)) for r in cursor.fetchall()]
    finally:
        con.close()


def _simulate(tmp: Path, deals: int, *colluders: str) -> Path:
    log = tmp / "games.jsonl"
    extra = [a for c in colluders for a in ("--colluders", c)]
    result = run("simulate", "--players", "6", "--deals", str(deals), "--seed", "3",
                 *extra, "--out", log)  # fmt: skip
    assert result.returncode == 0, result.stderr
    return log


def test_audit_keeps_the_screen_and_the_page_shows_the_flagged_pair(tmp_path: Path) -> None:
    log = _simulate(tmp_path, 500, "ann,bob:1.0")
    db, out = tmp_path / "loo.duckdb", tmp_path / "reports"
    result = run("audit", log, "--db", db, "--out", out)
    # exit 1 for the flag alone: a clean log, and the dealing judged fair
    assert result.returncode == 1, result.stderr
    assert "collusion: 1 pair(s) flagged, a pattern unlikely among independent" in result.stdout
    assert "0 violation(s)" in result.stdout and "fairness:" not in result.stdout
    rows = _rows(db, "collusion")
    screen = run("collusion", "--db", db, "--format", "json")
    assert screen.returncode == 1, screen.stderr
    expected = {
        (p["pair"][0], p["pair"][1], t["test"]): (p["deals"], {k: t.get(k) for k in CONTRACT})
        for p in json.loads(screen.stdout)["pairs"]
        for t in p["tests"]
    }
    stored = {
        (r["player_a"], r["player_b"], r["test"]): (r["deals"], {k: r[k] for k in CONTRACT})
        for r in rows
    }
    for _, fields in stored.values():  # the stored statistic is not rounded
        if fields["statistic"] is not None:
            fields["statistic"] = round(fields["statistic"], 4)
    assert stored == expected and len(rows) == 15 * 4
    flagged = [r for r in rows if r["flagged"]]
    assert {(r["player_a"], r["player_b"]) for r in flagged} == {("ann", "bob")}
    for r in rows:
        if r["status"] == "tested":
            assert r["band_low"] <= r["expected"] <= r["band_high"]
        else:
            assert r["band_low"] is None and r["p_value"] is None
    assert all(r["observed"] > r["band_high"] for r in flagged)

    acts = _rows(db, "collusion_acts")
    tests = {r["test"] for r in flagged}
    assert acts and all((a["player_a"], a["player_b"]) == ("ann", "bob") for a in acts)
    assert {a["test"] for a in acts} <= tests and {a["owner"] for a in acts} <= {"ann", "bob"}
    page = (out / "collusion.html").read_text("utf-8")
    assert "1 pair(s) flagged: a pattern unlikely among independent players" in page
    assert "cheated" not in page.replace("not that they cheated", "")
    assert "The deals behind the flag: ann and bob" in page
    assert 'data-figure="collusion-observed"' in page
    links = re.findall(r'<a href="(replays/[^"]+)">', page)
    assert len(links) == len({(a["session_id"], a["deal_index"]) for a in acts})
    assert all((out / link).is_file() for link in links)
    index = (out / "index.html").read_text("utf-8")
    assert '<a href="collusion.html">Collusion: 1 pair(s) flagged' in index

    again = run("audit", log, "--db", db, "--out", out, "--no-replays")
    assert again.returncode == 1 and _rows(db, "collusion") == rows  # refreshed, not added to

    with serving(db) as server:  # the explorer's page, its deals replayed by the server
        url = server.wait_for_url()
        served = _get(url + "collusion.html")
        assert "The deals behind the flag: ann and bob" in served
        replays = re.findall(r'<a href="(replay\?[^"]+)">', served)
        assert len(replays) == len(links)
        assert "Deal" in _get(url + html.unescape(replays[0]))


def _get(url: str) -> str:
    with urllib.request.urlopen(url, timeout=30) as response:
        assert response.status == 200, url
        return str(response.read().decode("utf-8"))


def test_audit_of_fair_play_flags_no_pair_and_exits_0(tmp_path: Path) -> None:
    log = _simulate(tmp_path, 500)
    result = run("audit", log, "--db", tmp_path / "loo.duckdb", "--out", tmp_path / "reports",
                 "--no-replays")  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr
    assert "collusion:" not in result.stdout and "fairness:" not in result.stdout
    assert not any(r["flagged"] for r in _rows(tmp_path / "loo.duckdb", "collusion"))


def test_report_screens_what_ingest_marked_stale_and_the_page_counts_the_tests_too_few(
    tmp_path: Path,
) -> None:
    log = _simulate(tmp_path, 120)
    db, out = tmp_path / "loo.duckdb", tmp_path / "reports"
    result = run("ingest", log, "--db", db)
    assert result.returncode == 0, result.stderr
    assert "collusion:" not in result.stdout
    assert _rows(db, "collusion") == []  # marked stale, not screened inside the load
    assert run("report", "--db", db, "--out", out, "--no-replays").returncode == 0
    rows = _rows(db, "collusion")
    assert rows and not any(r["flagged"] for r in rows) and _rows(db, "collusion_acts") == []
    few = sum(r["status"] == "too_few" for r in rows)
    assert few
    page = (out / "collusion.html").read_text("utf-8")
    assert f"Nothing flagged; {few:,} of {len(rows):,} tests had too few opportunities" in page
    assert "Collusion:" not in (out / "index.html").read_text("utf-8")


def test_a_pair_behind_a_flag_lists_its_first_deals_and_no_more_are_read(tmp_path: Path) -> None:
    """docs/collusion.md, "In the database and the reports": the page lists the first
    ``ACTS_LISTED`` deals behind each flagged pair, so no more are read (a million deals hold
    some 660,000 acts) nor given replay pages; each row says how many its pair has."""
    db = tmp_path / "loo.duckdb"
    assert run("ingest", _simulate(tmp_path, 20), "--db", db, "--no-analysis").returncode == 0
    con = duckdb.connect(str(db))
    try:
        ((session,),) = con.execute("SELECT session_id FROM sessions").fetchall()
        con.execute(
            "INSERT INTO collusion_acts SELECT p.a, p.b, 'lead', p.a, ?, i, 1 "
            "FROM (VALUES ('ann', 'bob', 250), ('cat', 'dan', 3)) p(a, b, n), range(300) r(i) "
            "WHERE i < p.n",
            [session],
        )
        acts = collusion_table.stored_acts(con)
        behind = collusion_table.flagged_deals(con)
    finally:
        con.close()
    mine = [a for a in acts if a["player_a"] == "ann"]
    assert len(mine) == ACTS_LISTED and {a["of"] for a in mine} == {250}
    assert [a["deal_index"] for a in mine] == sorted(a["deal_index"] for a in mine)
    assert [a["of"] for a in acts if a["player_a"] == "cat"] == [3, 3, 3]
    assert behind == {session: tuple(range(ACTS_LISTED))}
