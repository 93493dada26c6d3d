"""``loo-replay audit`` and ``loo-replay report`` as a user runs them: real subprocesses,
real files, exit statuses and messages."""

from __future__ import annotations

import re
from pathlib import Path

import duckdb
import orjson
import pytest
from db_helpers import ROOT, run, sql
from plotly.offline import get_plotlyjs  # type: ignore[import-untyped]
from report_helpers import SampleAudit, copy_of, hand_doc

from loo_replay.reports.build import session_page_name
from loo_replay.reports.replays import folder

HREF = re.compile(r'href="([^"]+)"')
SUMMARY = re.compile(
    r"(?P<sessions>\d+) session\(s\), (?P<deals>\d+) deal\(s\): (?P<audited>\d+) audited, "
    r"(?P<misdeals>\d+) misdeal\(s\), (?P<rejected>\d+) rejected; (?P<violations>\d+) "
    r"violation\(s\), (?P<discrepancies>\d+) discrepancy\(ies\)"
)


def _summary(stdout: str) -> dict[str, int]:
    found = SUMMARY.search(stdout)
    assert found, stdout
    return {k: int(v) for k, v in found.groupdict().items()}


@pytest.fixture(scope="module")
def audited(sample_audit: SampleAudit) -> tuple[Path, Path, str]:
    """``loo-replay audit sample_logs`` into a fresh database and folder, from the project
    (as the Makefile runs it; conftest.py's ``sample_audit``, read here, never written:
    a test that writes takes a copy); returns (database, output folder, stdout)."""
    return sample_audit.db, sample_audit.out, sample_audit.stdout


def _sessions(db: Path) -> list[str]:
    with duckdb.connect(str(db), read_only=True) as con:
        return [r[0] for r in con.execute("SELECT session_id FROM sessions").fetchall()]


def test_audit_sums_up_the_samples_as_validate_does(audited: tuple[Path, Path, str]) -> None:
    db, out, stdout = audited
    validate = run("validate", "sample_logs")
    assert validate.returncode == 1
    assert _summary(stdout) == _summary(validate.stdout)
    assert (
        f"reports: {out / 'index.html'} (14 session report(s), 318 replay page(s), 318 new)"
        in stdout
    )
    assert "loaded 318 deal(s), 2 rejected (kept in rejects), 0 already loaded" in stdout
    assert f"into {db}" in stdout


def test_index_links_every_session_report_and_the_all_sessions_report(
    audited: tuple[Path, Path, str],
) -> None:
    db, out, _ = audited
    index = (out / "index.html").read_text("utf-8")
    links = HREF.findall(index)
    sessions = _sessions(db)
    assert len(sessions) == 14
    for sid in sessions:
        assert session_page_name(sid) in links
        assert (out / session_page_name(sid)).is_file()
    assert "all-sessions.html" in links and (out / "all-sessions.html").is_file()


def test_plotly_is_written_once_beside_the_pages_and_nothing_comes_from_a_network(
    audited: tuple[Path, Path, str],
) -> None:
    _, out, _ = audited
    assert sorted(p.relative_to(out) for p in out.rglob("*.js")) == [
        Path("plotly.min.js"),
        Path("report.js"),
    ]
    assert (out / "plotly.min.js").read_text("utf-8") == get_plotlyjs()
    for page in out.glob("*.html"):
        html = page.read_text("utf-8")
        assert '<script src="plotly.min.js" defer></script>' in html
        assert not re.search(r"(src|href)=\"(https?:)?//", html), page
        assert "cdn" not in html.lower()


def test_every_deal_of_a_session_links_to_its_replay_page(audited: tuple[Path, Path, str]) -> None:
    db, out, _ = audited
    with duckdb.connect(str(db), read_only=True) as con:
        rows = con.execute("SELECT session_id, deal FROM deals ORDER BY ALL").fetchall()
    by_session: dict[str, list[int]] = {}
    for sid, deal in rows:
        by_session.setdefault(sid, []).append(deal)
    for sid, deals in by_session.items():
        page = (out / session_page_name(sid)).read_text("utf-8")
        links = [h for h in HREF.findall(page) if h.startswith("replays/")]
        expected = [f"{folder(sid)}/deal-{d}.html" for d in deals]
        assert sorted(set(links)) == sorted(expected), sid
        for link in expected:
            assert (out / link).is_file()


def test_a_second_audit_reuses_the_replay_pages(sample_audit: SampleAudit, tmp_path: Path) -> None:
    again = copy_of(sample_audit, tmp_path)  # the first audit's database and pages, copied
    db, out = again.db, again.out
    result = run("audit", "sample_logs", "--db", db, "--out", out)
    assert result.returncode == 1
    assert "loaded 0 deal(s), 0 rejected (kept in rejects), 320 already loaded" in result.stdout
    assert "318 replay page(s), 0 new" in result.stdout


def test_report_writes_from_the_database_alone(sample_audit: SampleAudit, tmp_path: Path) -> None:
    db = copy_of(sample_audit, tmp_path).db
    out = tmp_path / "again"
    result = run("report", "--db", db, "--out", out, "--no-replays")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == f"reports: {out / 'index.html'} (14 session report(s))"
    assert not (out / "replays").exists()
    assert len(list(out.glob("session-*.html"))) == 14


def test_a_clean_log_exits_0(tmp_path: Path) -> None:
    result = run(
        "audit",
        ROOT / "sample_logs/three-card-club-night.json",
        "--db",
        tmp_path / "new" / "folder" / "db.duckdb",  # audit makes the database's folder
        "--out",
        tmp_path / "out",
        "--no-replays",
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert _summary(result.stdout)["violations"] == 0


def test_a_missing_input_path_stops_audit_before_anything_is_written(tmp_path: Path) -> None:
    """issue 55: a path of the command line that cannot be read ends ``audit`` before any
    work; it had loaded the rest and written its reports, the error last."""
    result = run(
        "audit",
        ROOT / "sample_logs/three-card-club-night.json",
        tmp_path / "nope.json",
        "--db",
        tmp_path / "db.duckdb",
        "--out",
        tmp_path / "out",
    )
    assert result.returncode == 2
    assert f"{tmp_path / 'nope.json'}: no such file or directory" in result.stderr
    assert result.stdout == ""
    assert list(tmp_path.iterdir()) == []  # neither the database nor the reports


def test_report_without_a_database_exits_2(tmp_path: Path) -> None:
    result = run("report", "--db", tmp_path / "none.duckdb", "--out", tmp_path / "out")
    assert result.returncode == 2
    assert result.stderr.startswith("loo-replay: no database at")
    assert not (tmp_path / "out").exists()


def test_a_log_changed_after_loading_replays_as_loaded(tmp_path: Path) -> None:
    """The replays come from the database's copy of the document (docs/database.md), so
    they show the deals as loaded, as the database's verdicts do, whatever the log is now."""
    log = tmp_path / "s.json"
    log.write_bytes(orjson.dumps(hand_doc("changed")))
    db = tmp_path / "db.duckdb"
    assert run("ingest", log, "--db", db).returncode == 0
    log.write_bytes(b"{}")
    result = run("report", "--db", db, "--out", tmp_path / "out")
    assert result.returncode == 0, result.stderr
    page = (tmp_path / "out" / session_page_name("changed")).read_text("utf-8")
    assert "replays/" in page and "has changed since" not in page


def test_a_log_changed_after_loading_gets_no_replays_and_a_note(tmp_path: Path) -> None:
    """A database without the copy (loaded before documents were kept) reads the log,
    and says so when it is not the one loaded."""
    log = tmp_path / "s.json"
    log.write_bytes(orjson.dumps(hand_doc("changed")))
    db = tmp_path / "db.duckdb"
    assert run("ingest", log, "--db", db).returncode == 0
    con = duckdb.connect(str(db))
    con.execute("DELETE FROM documents")
    con.close()
    log.write_bytes(orjson.dumps(hand_doc("changed")) + b"\n")
    result = run("report", "--db", db, "--out", tmp_path / "out")
    assert result.returncode == 2  # the reports are written, but not every replay page
    assert "session changed" in result.stderr and "has changed since" in result.stderr
    assert "replay pages of 1 session(s) could not be written" in result.stderr
    page = (tmp_path / "out" / session_page_name("changed")).read_text("utf-8")
    assert "has changed since the session was loaded" in page
    assert "replays/" not in page


HOSTILE_IDS = ["../../evil", "/etc/passwd", "..", "<script>alert(1)</script>", "a/../../b"]


def test_path_like_session_ids_never_write_outside_the_output_folder(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    logs.mkdir()
    for k, sid in enumerate(HOSTILE_IDS):
        (logs / f"{k}.json").write_bytes(orjson.dumps(hand_doc(sid)))
    work = tmp_path / "work"
    work.mkdir()
    result = run("audit", logs, "--db", "loo.duckdb", "--out", "out", cwd=work)
    assert result.returncode == 1, result.stderr
    written = {p for p in tmp_path.rglob("*") if not p.is_relative_to(logs)}
    outside = {
        p
        for p in written
        if not p.is_relative_to(work / "out") and p not in (work, work / "loo.duckdb")
    }
    assert outside == set()
    assert len(list((work / "out").glob("session-*.html"))) == len(HOSTILE_IDS)
    assert len(list((work / "out/replays").iterdir())) == len(HOSTILE_IDS)
    assert not Path("/etc/passwd.html").exists() and not (tmp_path / "evil").exists()
    for page in (work / "out").glob("*.html"):
        assert "<script>alert(1)" not in page.read_text("utf-8"), page


def test_the_makefile_audit_runs_the_readme_command() -> None:
    makefile = (ROOT / "Makefile").read_text("utf-8")
    assert (
        "@$(BIN)/loo-replay audit sample_logs --db loo.duckdb --out reports || [ $$? -le 1 ]"
    ) in makefile


@pytest.mark.parametrize(
    "rules", [("--set", "stakes.loo=unlimited"), ("--ruleset", "hoyle"), ()], ids=str
)
def test_replays_are_audited_under_the_rules_the_session_was_loaded_under(
    tmp_path: Path, rules: tuple[str, ...]
) -> None:
    log = tmp_path / "s.json"
    log.write_bytes(orjson.dumps(hand_doc("ruled")))
    out = tmp_path / "out"
    result = run("audit", log, "--db", tmp_path / "db.duckdb", "--out", out, *rules)
    assert result.returncode == 1, result.stderr
    assert "replay" not in result.stderr  # no note: the rules came out the same
    assert sorted(p.name for p in (out / folder("ruled")).glob("deal-*.html")) == [
        f"deal-{n}.html" for n in (1, 2, 3, 4)
    ]


def test_pages_of_sessions_gone_from_the_database_are_removed_and_nothing_else(
    tmp_path: Path,
) -> None:
    """An earlier version's report folder is adopted and its stale pages removed; a file
    loo-replay did not write makes it refuse the folder, removing nothing (docs/limits.md,
    "What is written and removed")."""
    log = tmp_path / "s.json"
    log.write_bytes(orjson.dumps(hand_doc("kept")))
    db, out = tmp_path / "db.duckdb", tmp_path / "out"
    out.mkdir()
    stale_page = out / "session-gone-00000000.html"
    stale_replays = out / "replays" / "gone-00000000"
    stale_replays.mkdir(parents=True)
    for path in (stale_page, stale_replays / "deal-1.html", stale_replays / "stamp.json"):
        path.write_text("old")
    mine = out / "notes.html"
    mine.write_text("the user's own file")
    refused = run("audit", log, "--db", db, "--out", out)
    assert refused.returncode == 2 and "notes.html" in refused.stderr
    assert stale_page.exists() and mine.read_text() == "the user's own file"
    assert not db.exists()  # refused before anything was loaded
    mine.unlink()
    assert run("audit", log, "--db", db, "--out", out).returncode == 1
    assert not stale_page.exists() and not stale_replays.exists()
    assert (out / session_page_name("kept")).is_file()


_COMPUTED = re.compile(rb"<dt>Computed</dt><dd>[^<]*</dd>")


def test_pages_written_by_two_processes_equal_one_process_pages(
    audited: tuple[Path, Path, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Session pages (in batches) and replay pages (a session a task), ``--jobs 2`` and 1."""
    from loo_replay.reports import build
    from loo_replay.run.driver import Processes

    db, _, _ = audited
    monkeypatch.chdir(ROOT)  # the database names the logs as ingested, from the project
    monkeypatch.setattr(build, "BATCH_DEALS", 20)  # the samples' 300 deals: several batches
    written = {}
    for jobs in (1, 2):
        out = tmp_path / f"jobs-{jobs}"
        with duckdb.connect(str(db), read_only=True) as con:
            result = build.write_reports(con, out, source="loo.duckdb", workers=Processes(jobs))
        assert result.replays == 318 and result.notes == []
        written[jobs] = {  # the time each derived page says it was computed aside
            p.relative_to(out).as_posix(): _COMPUTED.sub(b"", p.read_bytes())
            for p in out.rglob("*")
            if p.is_file()
        }
    assert len([n for n in written[1] if n.startswith("session-")]) == 14
    assert len([n for n in written[1] if n.endswith(".html") and n.startswith("replays/")]) == 318
    assert written[2] == written[1]


def test_a_game_recorded_at_the_table_is_counted_and_says_what_was_not_checked(
    audited: tuple[Path, Path, str],
) -> None:
    """docs/log-format.md, "Hands left out": the sample recorded at a table, its hands left out, is loaded as
    partial deals with what could not be checked; its session page and the index count
    them and the page names the checks; dan's revoke carries the card that proves it."""
    db, out, _ = audited
    sid = "kitchen-table-2026-11-29"
    rows = sql(db, "SELECT knowledge, unchecked FROM deals WHERE session_id = ?", sid)
    assert len(rows) == 20 and all(k == "partial" and "duplicate-card" in u for k, u in rows)
    assert sql(db, "SELECT count(*) FROM deals WHERE knowledge = 'partial'") == [(20,)]
    proved = sql(
        db, "SELECT player, proved_by, proved_trick FROM findings WHERE proved_by IS NOT NULL"
    )
    assert proved == [("dan", "3S", 3)]
    page = (out / session_page_name(sid)).read_text("utf-8")
    assert "20 of 20 deals were recorded with hands left out" in page
    assert "misdeal-hand-size, misdeal-miss, duplicate-card" in page
    assert "proved by 3♠ played at trick 3" in page
    index = (out / "index.html").read_text("utf-8")
    assert "(20 hands left out)" in index and "deals with hands left out" in index
