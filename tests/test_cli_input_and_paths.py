"""The CLI through real subprocesses: exit statuses for missing or unreadable input
(docs/log-format.md, exit status), where the database records each log (so that ``report``
works from any folder), and re-auditing under other rules or another version."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import duckdb
import orjson
import pytest
from db_helpers import SAMPLES, counts, run, sql

from loo_replay.engine.options import Options
from loo_replay.rulesets import builtin
from loo_replay.run.frames import rules_fingerprint
from loo_replay.run.struct_rows import json_bytes

NOT_JSON = b"this is not a hand log\n"


def simulated(path: Path, sid_seed: int = 1) -> Path:
    """A clean simulated session (three-card, 4 deals) written by the real CLI, with the
    ground truth it writes beside."""
    result = run("simulate", "--deals", "4", "--seed", str(sid_seed), "--out", path)
    assert result.returncode == 0, result.stderr
    return path


# -- exit statuses -----------------------------------------------------------------------


def test_exit_status_a_simulated_folder_is_its_logs_without_the_ground_truth(
    tmp_path: Path,
) -> None:
    """The ground truth that ``simulate`` writes beside its logs is not a hand log: a folder
    of simulated sessions validates as the logs alone (clean: exit 0, nothing unreadable)."""
    log = simulated(tmp_path / "sim" / "games.jsonl")
    assert log.with_suffix(".truth.json").exists()
    result = run("validate", tmp_path / "sim")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "could not be read" not in result.stderr
    assert "1 session(s)" in result.stdout


@pytest.mark.parametrize("command", ["validate", "ingest", "audit"])
def test_exit_status_no_logs_in_an_empty_folder_is_2(command: str, tmp_path: Path) -> None:
    """docs/log-format.md, exit status: no logs found is 2, and says so."""
    empty = tmp_path / "empty"
    empty.mkdir()
    extra = [] if command == "validate" else ["--db", tmp_path / "loo.duckdb"]
    extra += ["--out", tmp_path / "out"] if command == "audit" else []
    result = run(command, empty, *extra)
    assert result.returncode == 2, result.stdout + result.stderr
    assert "no hand logs in this folder" in result.stdout + result.stderr
    assert "could not be read" in result.stderr


# Each command that reads logs, with the options that make it write; run in an empty folder.
_WRITERS = {
    "validate": [],
    "analyse": [],
    "ingest": ["--db", "loo.duckdb"],
    "audit": ["--db", "loo.duckdb", "--out", "reports"],
    "fairness": [],
    "collusion": [],
}


@pytest.mark.parametrize("command", list(_WRITERS))
def test_a_missing_path_on_the_command_line_stops_the_command_before_any_work(
    command: str, tmp_path: Path
) -> None:
    """issue 55: ``audit my-logs/`` on a mistyped folder ran fairness, wrote empty reports
    and printed four normal lines before its error.  The paths are checked first: the
    errors alone, exit 2, nothing audited (the good file beside is not either) and nothing
    made in the folder it runs from."""
    good = simulated(tmp_path / "logs" / "a.json")
    here = tmp_path / "here"
    here.mkdir()
    result = run(command, "my-logs/", good, *_WRITERS[command], cwd=here)
    assert result.returncode == 2, result.stdout + result.stderr
    assert result.stdout == ""
    assert result.stderr.splitlines()[-2:] == [
        "loo-replay: my-logs: no such file or directory",
        "loo-replay: 1 input file(s) or folder(s) could not be read: nothing was audited "
        "or written",
    ]
    assert list(here.iterdir()) == []


@pytest.mark.parametrize("command", ["ingest", "audit"])
def test_a_db_that_is_not_a_database_is_refused_before_anything_is_made(
    command: str, tmp_path: Path
) -> None:
    """issue 55: ``audit --db notes.txt --out X`` was refused, but only after making ``X/``
    with an unfinished manifest.  ``--db`` is looked at before ``--out`` is claimed or a log
    read: one line, exit 2, the folder holding only what was there."""
    good = simulated(tmp_path / "logs" / "a.json")
    here = tmp_path / "here"
    here.mkdir()
    (here / "notes.txt").write_text("my notes\n", "utf-8")
    out = ["--out", "X"] if command == "audit" else []
    result = run(command, good, "--db", "notes.txt", *out, cwd=here)
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr.splitlines()[-1] == (
        "loo-replay: cannot open notes.txt: it is not a valid DuckDB database file"
    )
    assert [p.name for p in here.iterdir()] == ["notes.txt"]
    assert (here / "notes.txt").read_text("utf-8") == "my notes\n"


def test_exit_status_an_empty_json_lines_file_is_no_logs(tmp_path: Path) -> None:
    """docs/log-format.md: a .jsonl file without a document holds no logs either: 2."""
    (tmp_path / "none.jsonl").write_bytes(b"\n\n")
    result = run("validate", tmp_path / "none.jsonl")
    assert result.returncode == 2
    assert "no hand logs found in the input" in result.stderr


def test_exit_status_validate_a_file_that_is_not_json_is_2_and_the_rest_is_audited(
    tmp_path: Path,
) -> None:
    """docs/log-format.md: a document that cannot be parsed makes 2 (not 1, which is for
    findings); the clean session beside it is still audited and reported."""
    logs = tmp_path / "logs"
    logs.mkdir()
    simulated(logs / "a.json")
    (logs / "b.json").write_bytes(NOT_JSON)
    result = run("validate", logs, "--format", "json")
    assert result.returncode == 2
    doc = orjson.loads(result.stdout)
    assert doc["summary"]["sessions"] == 1 and doc["summary"]["unreadable"] == 1
    assert doc["summary"]["violations"] == doc["summary"]["discrepancies"] == 0
    assert "1 document(s) could not be read or parsed" in result.stderr
    assert run("validate", logs / "a.json").returncode == 0  # alone, the session is clean


def test_exit_status_ingest_and_audit_a_file_that_is_not_json_is_2_and_the_rest_loads(
    tmp_path: Path,
) -> None:
    """docs/log-format.md: the same for ``ingest`` and ``audit``; the clean session is loaded."""
    logs = tmp_path / "logs"
    logs.mkdir()
    simulated(logs / "a.json")
    (logs / "b.json").write_bytes(NOT_JSON)
    ingested = run("ingest", logs, "--db", tmp_path / "i.duckdb")
    assert ingested.returncode == 2
    assert counts(ingested)["loaded"] == 4
    audited = run(
        "audit", logs, "--db", tmp_path / "a.duckdb", "--out", tmp_path / "out", "--no-replays"
    )
    assert audited.returncode == 2
    assert "1 session(s), 4 deal(s): 4 audited" in audited.stdout
    assert "1 unreadable document(s)" in audited.stdout
    assert sql(tmp_path / "a.duckdb", "SELECT count(*) FROM deals") == [(4,)]


def test_exit_status_a_session_with_an_error_of_its_own_is_never_clean(tmp_path: Path) -> None:
    """A session whose header fails (here another format version) has no deal to reject,
    yet an error was found: the status is 1, not 0, for validate and ingest alike."""
    doc = {
        "format": "loo-hand-log",
        "version": 2,
        "session": {"id": "v2", "players": [{"id": "a"}, {"id": "b"}, {"id": "c"}]},
        "deals": [],
    }
    (tmp_path / "v2.json").write_bytes(orjson.dumps(doc))
    result = run("validate", tmp_path / "v2.json")
    assert result.returncode == 1
    assert "unsupported hand-log version 2" in result.stdout
    where = ["--db", tmp_path / "loo.duckdb", "--out", tmp_path / "out", "--no-replays"]
    assert run("audit", tmp_path / "v2.json", *where).returncode == 1
    again = run("audit", tmp_path / "v2.json", *where)
    assert again.returncode == 1  # recognised as loaded, counted from the database


def test_a_misspelled_ruleset_is_one_error_with_the_deals_counted(tmp_path: Path) -> None:
    """issue 55: a misspelled ruleset was said once per deal, numbered from 0 under headings
    numbered from 1 (``Deal 1 REJECTED / deal 0 not audited``).  The text says it once and
    counts the deals; the JSON keeps every deal rejected, each named by the log's number,
    its pointer the header's; exit 1 as for any rejected deal."""
    doc = orjson.loads((SAMPLES / "wrong-payouts.json").read_bytes())
    doc["session"]["ruleset"] = "three-crad"
    log = tmp_path / "misspelled.json"
    log.write_bytes(orjson.dumps(doc))
    text = run("validate", log)
    assert text.returncode == 1
    lines = text.stdout.splitlines()
    assert lines[0] == "Session wrong-payouts-2026-11-27 (" + str(log) + "), ruleset ?"
    assert lines[1].startswith('  error /session/ruleset: unknown ruleset "three-crad"')
    assert lines[2:4] == [
        "  16 deal(s) REJECTED (not audited: the session's header is unusable)",
        "",
    ]
    assert "Deal " not in text.stdout and "deal 0" not in text.stdout
    assert "16 rejected" in lines[-1]
    audit = orjson.loads(run("validate", log, "--format", "json").stdout)
    deals = audit["sessions"][0]["deals"]
    assert [d["status"] for d in deals] == ["rejected"] * 16
    assert [d["deal"] for d in deals] == [d["deal"] for d in doc["deals"]] == list(range(1, 17))
    for d in deals:
        (error,) = d["errors"]
        assert error["path"] == "/session/ruleset"
        assert error["message"].startswith(
            f"deal {d['deal']} not audited: the session's header is unusable (unknown ruleset"
        )


def test_a_document_of_another_shape_is_one_error_its_deals_named_by_where_they_are(
    tmp_path: Path,
) -> None:
    """issue 55: JSON of another shape gave ``Deal ? REJECTED / error : deal 0 not audited:
    unknown field 'players'`` once a deal.  Said once (``error:``, the whole document), the
    deals counted; in the JSON, a deal without a number is named by its pointer, 0-based."""
    doc = {
        "format": "loo-hand-log",
        "version": 1,
        "players": ["ann", "bob"],
        "session": {"id": "shape", "players": [{"id": "a"}, {"id": "b"}, {"id": "c"}]},
        "deals": [{"hands": {}}, {"hands": {}}],
    }
    log = tmp_path / "shape.json"
    log.write_bytes(orjson.dumps(doc))
    text = run("validate", log)
    assert text.returncode == 1
    assert text.stdout.splitlines()[1:3] == [
        "  error: unknown field 'players' in the document (allowed: format, version, "
        "session, deals, meta)",
        "  2 deal(s) REJECTED (not audited: the session's header is unusable)",
    ]
    audit = orjson.loads(run("validate", log, "--format", "json").stdout)
    said = [d["errors"][0]["message"] for d in audit["sessions"][0]["deals"]]
    assert [m.split(" not audited")[0] for m in said] == [
        "the deal at /deals/0",
        "the deal at /deals/1",
    ]


def test_exit_status_replay_in_an_empty_folder_is_2(tmp_path: Path) -> None:
    result = run("replay", tmp_path, "--deal", "1")
    assert result.returncode == 2
    assert "no hand logs in this folder" in result.stderr


# -- paths: report from any folder -----------------------------------------------------


def _replay_pages(out: Path) -> list[Path]:
    return sorted(out.glob("replays/*/deal-*.html"))


def test_paths_report_from_another_folder_finds_logs_outside_the_database_folder(
    tmp_path: Path,
) -> None:
    """A log outside the database's folder is recorded by its absolute path: ``report`` run
    from a third folder writes every replay page and exits 0."""
    (tmp_path / "work").mkdir()
    (tmp_path / "logs").mkdir()
    (tmp_path / "data").mkdir()
    simulated(tmp_path / "logs" / "a.json")
    ingested = run("ingest", "../logs", "--db", "../data/loo.duckdb", cwd=tmp_path / "work")
    assert ingested.returncode == 0, ingested.stderr
    assert sql(tmp_path / "data" / "loo.duckdb", "SELECT file FROM sessions") == [
        (str(tmp_path / "logs" / "a.json"),)
    ]
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    _without_documents(tmp_path / "data" / "loo.duckdb")  # the log found, not the copy
    result = run("report", "--db", tmp_path / "data" / "loo.duckdb", "--out", "out", cwd=elsewhere)
    assert result.returncode == 0, result.stderr
    assert "cannot be read again" not in result.stderr
    assert len(_replay_pages(elsewhere / "out")) == 4


def test_paths_logs_under_the_database_folder_move_with_it(tmp_path: Path) -> None:
    """A log under the database's folder is recorded relative to it, so the folder can move
    (or be copied) as a whole and ``report`` still finds its logs, from anywhere."""
    project = tmp_path / "project"
    (project / "logs").mkdir(parents=True)
    simulated(project / "logs" / "a.json")
    assert run("ingest", "logs", "--db", "loo.duckdb", cwd=project).returncode == 0
    assert sql(project / "loo.duckdb", "SELECT file FROM sessions") == [("logs/a.json",)]
    moved = tmp_path / "moved"
    _without_documents(project / "loo.duckdb")  # the logs found, not the database's copies
    shutil.move(project, moved)
    result = run("report", "--db", moved / "loo.duckdb", "--out", tmp_path / "out", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert len(_replay_pages(tmp_path / "out")) == 4


def _without_documents(db: Path) -> None:
    """``db`` as loaded before the database kept each session's document (schema 8): its
    replays can only come from the logs."""
    con = duckdb.connect(str(db))
    con.execute("DELETE FROM documents")
    con.close()


def test_paths_replays_come_from_the_database_copy_when_the_log_is_gone(tmp_path: Path) -> None:
    """The database keeps each session's document (docs/database.md), so ``report`` writes
    every replay page after the log is deleted, and says nothing about it."""
    simulated(tmp_path / "a.json")
    db = tmp_path / "loo.duckdb"
    assert run("ingest", tmp_path / "a.json", "--db", db).returncode == 0
    (tmp_path / "a.json").unlink()
    result = run("report", "--db", db, "--out", tmp_path / "out")
    assert result.returncode == 0, result.stderr
    assert "cannot be read again" not in result.stderr
    assert len(_replay_pages(tmp_path / "out")) == 4


def test_paths_a_log_that_cannot_be_read_again_is_said_and_exits_2(tmp_path: Path) -> None:
    """If a replay page cannot be written (no copy in the database, the log gone),
    ``report`` says which session and exits 2; the rest of the reports are written."""
    simulated(tmp_path / "a.json")
    db = tmp_path / "loo.duckdb"
    assert run("ingest", tmp_path / "a.json", "--db", db).returncode == 0
    _without_documents(db)
    (tmp_path / "a.json").unlink()
    result = run("report", "--db", db, "--out", tmp_path / "out")
    assert result.returncode == 2
    assert "its log cannot be read again" in result.stderr
    assert "replay pages of 1 session(s) could not be written" in result.stderr
    assert (tmp_path / "out" / "index.html").is_file()


def test_paths_rows_of_older_databases_relative_to_where_ingest_ran(tmp_path: Path) -> None:
    """Databases written before paths were recorded this way hold paths relative to the
    folder ``ingest`` ran in (db/paths.py): such a path is looked for beside the database,
    then in the current folder; from a folder where it is neither, ``report`` says so."""
    work = tmp_path / "work"
    (work / "logs").mkdir(parents=True)
    simulated(work / "logs" / "a.json")
    db = tmp_path / "data" / "loo.duckdb"
    assert run("ingest", "logs", "--db", db, cwd=work).returncode == 0
    con = duckdb.connect(str(db))
    con.execute("UPDATE sessions SET file = 'logs/a.json'")  # as an older loo-replay wrote it
    con.close()
    _without_documents(db)
    from_work = run("report", "--db", db, "--out", tmp_path / "out1", cwd=work)
    assert from_work.returncode == 0, from_work.stderr
    assert len(_replay_pages(tmp_path / "out1")) == 4
    from_elsewhere = run("report", "--db", db, "--out", tmp_path / "out2", cwd=tmp_path)
    assert from_elsewhere.returncode == 2
    assert "its log cannot be read again" in from_elsewhere.stderr
    assert "ingest --replace" in from_elsewhere.stderr


# -- re-auditing under other rules, or by another version ----------------------------------


def _summary_line(stdout: str) -> str:
    return next(line for line in stdout.splitlines() if " session(s), " in line)


def test_reaudit_other_rules_conflicts_name_the_fix_and_the_summary_is_the_audit_asked_for(
    tmp_path: Path,
) -> None:
    """``audit --ruleset hoyle`` on a database loaded under three-card: each session is a
    conflict naming ``--replace``, exit 1, and the summary is hoyle's, as ``validate``
    gives it, never the loaded three-card audit's."""
    logs = tmp_path / "logs"
    logs.mkdir()
    shutil.copy(SAMPLES / "three-card-revokes.json", logs)
    db = tmp_path / "loo.duckdb"
    assert run("ingest", logs, "--db", db).returncode == 0  # loaded, findings and all
    loaded = sql(db, "SELECT sum(violations) FROM deals")[0][0]
    hoyle = run("validate", logs, "--ruleset", "hoyle")
    result = run(
        "audit", logs, "--db", db, "--out", tmp_path / "out", "--ruleset", "hoyle", "--no-replays"
    )
    assert result.returncode == 1
    assert "under other rules" in result.stderr and "--replace" in result.stderr
    assert _summary_line(result.stdout) == _summary_line(hoyle.stdout)
    assert f"{loaded} violation(s)" not in _summary_line(result.stdout)
    assert "the database and the reports keep their earlier audit" in result.stdout
    replaced = run(
        "audit", logs, "--db", db, "--out", tmp_path / "out", "--ruleset", "hoyle",
        "--no-replays", "--replace",
    )  # fmt: skip
    assert replaced.returncode == 1  # findings, no conflict
    assert "conflicts" not in replaced.stderr
    assert _summary_line(replaced.stdout) == _summary_line(hoyle.stdout)


def test_reaudit_the_same_input_gives_the_same_summary_line(tmp_path: Path) -> None:
    """issue 55: a second ``audit`` of the same log, its sessions already loaded and counted
    from the database, dropped "; 20 with hands left out" from the summary line that the
    first run and ``validate`` print."""
    log = SAMPLES / "three-card-table-recorded.json"
    where = ["--db", tmp_path / "loo.duckdb", "--out", tmp_path / "out", "--no-replays"]
    lines = [_summary_line(run("audit", log, *where, "--no-analysis").stdout) for _ in "12"]
    assert "; 20 with hands left out" in lines[0]
    assert lines == [_summary_line(run("validate", log).stdout)] * 2


def test_reaudit_fingerprint_names_the_version(monkeypatch: pytest.MonkeyPatch) -> None:
    """The rules fingerprint holds the loo-replay version: the same rules under another
    version are another audit."""
    options = builtin("three-card").options
    now = rules_fingerprint("three-card", options)
    monkeypatch.setattr("loo_replay.run.frames.__version__", "0.0.1")
    assert rules_fingerprint("three-card", options) != now


def test_reaudit_a_session_audited_by_another_version_is_a_conflict_until_replaced(
    tmp_path: Path,
) -> None:
    """A session loaded by an earlier loo-replay (its fingerprint lacks this version) is a
    conflict that says so and names ``--replace``; replacing it loads this version's audit."""
    simulated(tmp_path / "a.json")
    db = tmp_path / "loo.duckdb"
    assert run("ingest", tmp_path / "a.json", "--db", db).returncode == 0
    ((ruleset, rules),) = sql(db, "SELECT ruleset, rules FROM sessions")
    dotted = Options.from_dotted(orjson.loads(rules)).dotted()
    older = hashlib.sha256(json_bytes([ruleset, dotted], sort_keys=True)).hexdigest()
    con = duckdb.connect(str(db))
    con.execute("UPDATE sessions SET rules_fingerprint = ?", [older])
    con.close()
    again = run("ingest", tmp_path / "a.json", "--db", db)
    assert again.returncode == 1
    assert "audited by another version of loo-replay" in again.stderr
    assert "--replace" in again.stderr
    report = run("report", "--db", db, "--out", tmp_path / "out")
    assert report.returncode == 2 and "another version of loo-replay" in report.stderr
    assert run("ingest", tmp_path / "a.json", "--db", db, "--replace").returncode == 0
    assert run("report", "--db", db, "--out", tmp_path / "out").returncode == 0
