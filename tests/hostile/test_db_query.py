"""``query`` is read-only and sandboxed: SQL reaches the database and nothing else, and a
stranger's text cannot drive the terminal it is printed on (docs/limits.md, "``query`` is
read-only and sandboxed")."""

from __future__ import annotations

import os
import pty
import subprocess
import sys
from pathlib import Path

import orjson
import pytest
from db_helpers import ROOT, hand_worked_doc, run

ESC_TEXT = "\x1b]0;owned\x07\x1b[2J"  # sets the window title, clears the screen
C1_TEXT = "ann\x9b31m"  # CSI as one C1 character


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A database whose venue and a player's name hold terminal controls."""
    tmp = tmp_path_factory.mktemp("query")
    doc = hand_worked_doc("controls")
    doc["session"]["venue"] = ESC_TEXT
    doc["session"]["players"][0]["name"] = C1_TEXT
    log = tmp / "controls.json"
    log.write_bytes(orjson.dumps(doc))
    path = tmp / "loo.duckdb"
    result = run("ingest", log, "--db", path, "--no-analysis")
    assert result.returncode == 0, result.stderr
    return path


def _one_line(result: subprocess.CompletedProcess[str]) -> str:
    said = [line for line in result.stderr.splitlines() if "running as pure Python" not in line]
    assert result.returncode == 2 and len(said) == 1, result.stderr
    return said[0]


@pytest.mark.parametrize(
    ("sql", "refusal"),
    [
        ("COPY sessions TO '{tmp}/out.csv'", "reads the database and nothing else"),
        ("SELECT * FROM read_text('/etc/hostname')", "reads the database and nothing else"),
        ("SELECT * FROM read_csv('{tmp}/other.csv')", "reads the database and nothing else"),
        ("ATTACH '{tmp}/other.duckdb' AS other", "reads the database and nothing else"),
        ("EXPORT DATABASE '{tmp}/dump'", "reads the database and nothing else"),
        ("INSTALL sqlite", "reads the database and nothing else"),
        ("LOAD httpfs", "reads the database and nothing else"),
        ("SET enable_external_access = true", "cannot change DuckDB's settings"),
        ("SET memory_limit = '64GB'", "cannot change DuckDB's settings"),
        ("DELETE FROM sessions", "read-only, so DELETE statements cannot run"),
    ],
)
def test_sql_reaches_no_file_no_network_and_no_setting(
    db: Path, tmp_path: Path, sql: str, refusal: str
) -> None:
    (tmp_path / "other.csv").write_text("secret\n")
    before = sorted(os.listdir(tmp_path))
    result = run("query", sql.format(tmp=tmp_path), "--db", db)
    said = _one_line(result)
    assert refusal in said, said
    assert result.stdout == "" and "secret" not in said
    assert sorted(os.listdir(tmp_path)) == before


def _on_a_terminal(*args: str | Path) -> bytes:
    """What ``loo-replay ARGS`` prints when its standard output is a terminal (a pty)."""
    leader, follower = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "loo_replay", *map(str, args)],
        stdout=follower,
        stderr=subprocess.PIPE,
        cwd=ROOT,
    )
    os.close(follower)
    out = b""
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # EIO: the child closed the terminal
            break
        if not chunk:
            break
        out += chunk
    os.close(leader)
    assert proc.wait(timeout=60) == 0, proc.stderr.read() if proc.stderr else b""
    if proc.stderr:
        proc.stderr.close()
    return out


_SQL = "SELECT s.venue, p.name FROM sessions s JOIN players p USING (session_id) WHERE seat = 0"


@pytest.mark.parametrize("fmt", ["table", "csv", "json"])
def test_controls_are_escaped_on_a_terminal(db: Path, fmt: str) -> None:
    out = _on_a_terminal("query", _SQL, "--db", db, "--format", fmt)
    assert b"\x1b" not in out and b"\x07" not in out and "\x9b".encode() not in out, out
    assert b"\\u001b]0;owned\\u0007\\u001b[2J" in out, out
    assert b"ann\\u009b31m" in out, out
    if fmt == "json":  # the same value, escaped as JSON escapes it
        value = orjson.loads(out.replace(b"\r\n", b"\n"))
        assert value == [{"venue": ESC_TEXT, "name": C1_TEXT}]


def test_a_program_reading_a_pipe_gets_the_text_as_stored(db: Path) -> None:
    csv = run("query", _SQL, "--db", db, "--format", "csv")
    assert csv.returncode == 0
    assert csv.stdout.splitlines()[1] == f"{ESC_TEXT},{C1_TEXT}"
    as_json = run("query", _SQL, "--db", db, "--format", "json")
    assert orjson.loads(as_json.stdout) == [{"venue": ESC_TEXT, "name": C1_TEXT}]
    table = run("query", _SQL, "--db", db)  # a table is for people: escaped always
    assert "\x1b" not in table.stdout and "\\u001b]0;owned" in table.stdout


def test_a_column_name_is_escaped_too(db: Path) -> None:
    out = _on_a_terminal("query", 'SELECT 1 AS "\x1b[31mred"', "--db", db, "--format", "csv")
    assert b"\x1b" not in out and b"\\u001b[31mred" in out
