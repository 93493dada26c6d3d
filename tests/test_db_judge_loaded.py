"""Incremental judging (docs/judging-decisions.md, "In the database and the reports"):
``audit --decisions`` and ``ingest --decisions`` judge every loaded deal with no judged
decisions from the database's copy of its log, so a log may have moved or gone; deals
judged on other worlds or another seed are kept and said, ``--replace`` judges them again;
the judging marks the reports stale, and only them (docs/database.md, "Derived results").
Each through the real CLI, on a real DuckDB file."""

from __future__ import annotations

import os
import pty
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import duckdb
import pytest
from db_helpers import ROOT, dump, run, sql

K, K2 = "4", "3"  # worlds a decision: few, for speed


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder of two simulated logs: 2 sessions of 6 deals, and one of 5."""
    folder = tmp_path_factory.mktemp("judge") / "logs"
    folder.mkdir()
    for name, args in (
        ("a.jsonl", ("--players", "4", "--deals", "6", "--sessions", "2", "--seed", "7")),
        ("b.json", ("--players", "5", "--deals", "5", "--seed", "8")),
    ):
        done = run("simulate", *args, "--out", folder / name)
        assert done.returncode == 0, done.stderr
    return folder


def _facts(page: Path) -> str:
    """The words of a page's facts (its ``dl.facts``)."""
    found = re.search(r'<dl class="facts">(.*?)</dl>', page.read_text("utf-8"), re.S)
    assert found
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", found[1]))


def _unjudged(db: Path) -> int:
    query = "SELECT count(*) FROM deals ANTI JOIN decision_deals USING (session_id, deal_index)"
    return int(sql(db, query)[0][0])


def test_audit_decisions_after_a_plain_audit_judges_every_loaded_deal_a_gone_logs_too(
    logs: Path, tmp_path: Path
) -> None:
    folder, db, out = tmp_path / "logs", tmp_path / "loo.duckdb", tmp_path / "reports"
    shutil.copytree(logs, folder)
    plain = run("audit", folder, "--db", db, "--out", out, "--no-analysis")
    assert plain.returncode == 0, plain.stdout + plain.stderr
    deals = int(sql(db, "SELECT count(*) FROM deals")[0][0])
    assert deals == 17 and _unjudged(db) == deals
    assert "No decisions judged yet" in (out / "decisions.html").read_text("utf-8")

    (folder / "b.json").unlink()  # its 5 deals are judged from the database's copy
    judging = ("--no-analysis", "--decisions", "--samples", K, "--jobs", "2")
    judged = run("audit", folder, "--db", db, "--out", out, *judging)
    assert judged.returncode == 0, judged.stdout + judged.stderr
    assert (
        f"decisions: {deals} deal(s) judged now on {K} world(s) each (seed 0), {deals} of "
        "them loaded before"
    ) in judged.stdout
    assert _unjudged(db) == 0

    # The figures a load with --decisions gives, in one process: the same judging.
    fresh = tmp_path / "fresh.duckdb"
    loaded = run("ingest", logs, "--db", fresh, "--no-analysis", "--decisions", "--samples", K)
    assert loaded.returncode == 0, loaded.stderr
    assert f"decisions: {deals} deal(s) judged now on {K} world(s)" in loaded.stdout
    for table in ("decision_deals", "decisions"):
        assert dump(db)[table] == dump(fresh)[table], table
    assert len(dump(db)["decisions"]) > 100

    # The page covers every deal judged, and says on what.
    ((judged_deals, skipped),) = sql(
        db,
        "SELECT count(*) FILTER (WHERE status = 'judged'), count(*) FILTER (WHERE status = "
        "'skipped') FROM decision_deals",
    )
    facts = _facts(out / "decisions.html")
    assert f"Deals judged {judged_deals} of {judged_deals + skipped}," in facts
    assert judged_deals + skipped == deals and "Not judged yet" not in facts
    assert f"Worlds a decision {K} (seed 0)" in facts
    assert sql(db, "SELECT result FROM derived WHERE result = 'reports' AND version = "
               "(SELECT version FROM content)") == [("reports",)]  # fmt: skip

    version = sql(db, "SELECT version FROM content")
    before = dump(db)
    again = run("audit", folder, "--db", db, "--out", out, *judging)
    assert again.returncode == 0, again.stdout + again.stderr
    assert (
        f"decisions: nothing new to judge; {deals} deal(s) judged before on {K} world(s) each "
        "(seed 0)"
    ) in again.stdout
    assert dump(db) == before and sql(db, "SELECT version FROM content") == version


def test_other_worlds_are_kept_and_said_replace_judges_them_and_only_the_reports_go_stale(
    logs: Path, tmp_path: Path
) -> None:
    db, out = tmp_path / "loo.duckdb", tmp_path / "reports"
    first = run("ingest", logs, "--db", db, "--decisions", "--samples", K)
    assert first.returncode == 0, first.stderr
    assert run("report", "--db", db, "--out", out, "--no-replays").returncode == 0
    assert sql(db, "SELECT count(*) FROM derived WHERE version IS DISTINCT FROM "
               "(SELECT version FROM content)") == [(0,)]  # fmt: skip
    deals = int(sql(db, "SELECT count(*) FROM deals")[0][0])

    new = tmp_path / "c.json"
    made = run("simulate", "--players", "3", "--deals", "4", "--seed", "9", "--out", new)
    assert made.returncode == 0, made.stderr
    other = run("ingest", new, "--db", db, "--no-analysis", "--decisions", "--samples", K2)
    assert other.returncode == 0, other.stderr
    assert f"decisions: 4 deal(s) judged now on {K2} world(s) each (seed 0)\n" in other.stdout
    assert (
        f"decisions: kept {deals} deal(s) judged before on {K} world(s) each (seed 0), not "
        f"{K2} (seed 0): --replace judges them again"
    ) in other.stdout
    worlds = "SELECT samples, count(*) FROM decision_deals GROUP BY ALL ORDER BY samples"
    assert sql(db, worlds) == sorted([(int(K), deals), (int(K2), 4)])
    assert run("report", "--db", db, "--out", out, "--no-replays").returncode == 0
    assert (
        f"Worlds a decision {K} (seed 0) in {deals} deal(s); {K2} (seed 0) in 4 deal(s)"
        in _facts(out / "decisions.html")
    )

    # The load changes nothing (the log is loaded); the judging marks the reports alone stale.
    replaced = run(
        "ingest", new, "--db", db, "--no-analysis", "--decisions", "--samples", K2, "--replace"
    )
    assert replaced.returncode == 0, replaced.stderr
    assert (
        f"decisions: {deals} deal(s) judged now on {K2} world(s) each (seed 0), {deals} of "
        f"them loaded before ({deals} judged before with other settings, judged again); 4 "
        "judged before on the same worlds"
    ) in replaced.stdout
    assert "marked stale: reports (loo-replay report" in replaced.stdout
    assert sql(db, worlds) == [(int(K2), deals + 4)]
    assert sql(db, "SELECT DISTINCT samples FROM decisions") == [(int(K2),)]
    for table in ("decisions", "decision_deals"):  # judged later, under the session's key
        keyed = (
            f"SELECT count(*) FROM {table} j JOIN sessions s "
            "ON j.session_key = s.session_key AND j.session_id = s.session_id"
        )
        assert sql(db, keyed) == sql(db, f"SELECT count(*) FROM {table}") != [(0,)], table
    stale = (
        "SELECT result FROM derived WHERE version IS DISTINCT FROM (SELECT version FROM content)"
    )
    assert sql(db, stale) == [("reports",)]
    assert run("report", "--db", db, "--out", out, "--no-replays").returncode == 0
    assert sql(db, stale) == []


def test_a_session_with_no_copy_of_its_log_is_counted_not_judged(
    logs: Path, tmp_path: Path
) -> None:
    db = tmp_path / "loo.duckdb"
    assert run("ingest", logs, "--db", db, "--no-analysis").returncode == 0
    con = duckdb.connect(str(db))  # as a database loaded before documents were kept
    try:
        con.execute(
            "DELETE FROM documents WHERE session_id IN "
            "(SELECT session_id FROM sessions WHERE file LIKE '%b.json')"
        )
    finally:
        con.close()
    five = int(sql(db, "SELECT count(*) FROM deals d JOIN sessions s USING (session_id) "
                   "WHERE s.file LIKE '%b.json'")[0][0])  # fmt: skip
    judged = run("ingest", logs, "--db", db, "--decisions", "--samples", K)
    assert judged.returncode == 0, judged.stderr
    assert f"decisions: 12 deal(s) judged now on {K} world(s) each (seed 0)" in judged.stdout
    assert (
        f"decisions: {five} deal(s) not judged: the database holds no copy of their logs"
    ) in judged.stdout
    assert five == 5 and _unjudged(db) == five


def test_the_judging_shows_a_progress_bar_on_a_terminal_and_nothing_on_a_pipe(
    tmp_path: Path,
) -> None:
    """docs/database.md: a progress bar on standard error when it is a terminal."""
    db = tmp_path / "loo.duckdb"
    log = ROOT / "sample_logs" / "three-card-club-night.json"
    assert run("ingest", log, "--db", db, "--no-analysis").returncode == 0
    # Enough worlds that the compiled judging outlasts the bar's first second (at 100 it
    # was done before the bar is drawn).
    judging = ("ingest", log, "--db", db, "--no-analysis", "--decisions", "--samples", "1500")
    master, slave = pty.openpty()
    try:
        proc = subprocess.Popen(
            [sys.executable, "-m", "loo_replay", *map(str, judging)],
            stdout=subprocess.PIPE,
            stderr=slave,
            cwd=ROOT,
        )
        os.close(slave)
        shown = b""
        while True:
            try:
                chunk = os.read(master, 4096)
            except OSError:  # the child has ended: the terminal is gone
                break
            if not chunk:
                break
            shown += chunk
        out, _ = proc.communicate(timeout=300)
    finally:
        os.close(master)
    assert proc.returncode == 0, shown
    assert re.search(rb"judging: \[#* *\] +\d+% \d+ deals, ", shown), shown
    assert b"24 deal(s) judged now on 1,500 world(s)" in out
    piped = run(*judging[:-1], "101")
    assert piped.returncode == 0 and piped.stderr == ""


def test_ctrl_c_keeps_what_was_judged_and_the_next_run_judges_the_rest(tmp_path: Path) -> None:
    """docs/judging-decisions.md, "Progress": exit 130 with one sentence, no traceback; the
    deals committed before are kept, and the next run judges the others, each deal once."""
    db = tmp_path / "loo.duckdb"
    log = ROOT / "sample_logs" / "three-card-club-night.json"
    assert run("ingest", log, "--db", db, "--no-analysis").returncode == 0
    # Enough worlds that the compiled judging runs past the Ctrl-C on a fast machine too (at
    # 400 it had ended, 2.2 s in all, before a Ctrl-C 2.5 s in; at 1,500 a faster machine
    # judged all 24 deals in 1.9 s), and a Ctrl-C late enough that some deals are committed.
    judging = ("ingest", log, "--db", db, "--no-analysis", "--decisions", "--samples", "3000")
    proc = subprocess.Popen(
        [sys.executable, "-m", "loo_replay", *map(str, judging)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
    )
    assert proc.stdout is not None
    first = proc.stdout.readline()  # the load's counts: the judging begins
    assert "24 skipped (already loaded)" in first
    time.sleep(1.2)
    proc.send_signal(signal.SIGINT)
    _out, err = proc.communicate(timeout=300)
    assert proc.returncode == 130, err
    assert err == (
        "loo-replay: interrupted; the deals judged so far are kept: run the command again "
        "to judge the rest\n"
    )
    kept = int(sql(db, "SELECT count(*) FROM decision_deals")[0][0])
    rest = run(*judging)
    assert rest.returncode == 0, rest.stderr
    if kept:
        said = f"{24 - kept} deal(s) judged now on 3,000 world(s) each (seed 0), {24 - kept} of "
        assert said in rest.stdout and f"; {kept} judged before on the same worlds" in rest.stdout
    assert _unjudged(db) == 0
    assert sql(
        db, "SELECT count(*), count(DISTINCT (session_id, deal_index)) FROM decision_deals"
    ) == [(24, 24)]
