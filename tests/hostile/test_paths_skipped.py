"""Folders that hide input: an unreadable sub-folder, dangling and looping symbolic links, a
pipe bearing a log's name, a folder that cannot be searched, a report folder inside the
input.  Nothing is passed over in silence: each entry is a warning line on stderr, a count
in the summary, an entry of the audit's errors and of the database's rejects, and exit
status 2 (docs/limits.md, "What is read from a folder")."""

from __future__ import annotations

import json
import os
import pwd
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import duckdb
import pytest
from db_helpers import ROOT, SAMPLES, run

LOG = SAMPLES / "wrong-payouts.json"  # one session, 16 deals, with findings: exit status 1


@pytest.fixture
def shared() -> Iterator[Path]:
    """A folder every user may enter: as root the unreadable cases run as ``nobody``."""
    folder = Path(tempfile.mkdtemp(prefix="loo-hostile-"))
    folder.chmod(0o755)
    yield folder
    for base, dirs, _files in os.walk(folder):
        for name in dirs:
            os.chmod(os.path.join(base, name), 0o755, follow_symlinks=False)
    shutil.rmtree(folder)


def run_unprivileged(*args: str | Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    """``loo-replay ARGS`` as a user that mode 000 really locks out: root reads any folder,
    so as root the command runs as ``nobody`` (through util-linux's ``setpriv``, which
    drops every capability), else as this user."""
    drop: list[str] = []
    if os.geteuid() == 0:
        nobody = pwd.getpwnam("nobody")
        setpriv = shutil.which("setpriv")
        assert setpriv, "setpriv (util-linux) runs the check as nobody; root ignores mode 000"
        drop = [setpriv, f"--reuid={nobody.pw_uid}", f"--regid={nobody.pw_gid}", "--clear-groups"]
    result = subprocess.run(
        [*drop, sys.executable, "-m", "loo_replay", *map(str, args)],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=120,
        env={**os.environ, "HOME": str(cwd)},
    )
    assert "Traceback" not in result.stdout + result.stderr, result.stderr
    return result


def logs_with_a_locked_folder(base: Path) -> Path:
    logs = base / "logs"
    (logs / "locked").mkdir(parents=True)
    shutil.copy(LOG, logs / "a.json")
    shutil.copy(LOG, logs / "locked" / "b.json")
    for path in (base, logs):
        path.chmod(0o755)
    (logs / "a.json").chmod(0o644)
    (logs / "locked").chmod(0o000)
    return logs


def test_an_unreadable_sub_folder_is_a_warning_a_count_and_exit_2(shared: Path) -> None:
    logs = logs_with_a_locked_folder(shared)
    text = run_unprivileged("validate", "logs", cwd=shared)
    assert text.returncode == 2, text.stdout + text.stderr
    warning = "loo-replay: skipped logs/locked: a folder that cannot be read (Permission denied)"
    assert warning in text.stderr.splitlines()
    assert "SKIPPED skipped logs/locked" in text.stdout
    assert "1 entry(ies) of the input folders skipped" in text.stdout.splitlines()[-1]
    as_json = run_unprivileged("validate", "logs", "--format", "json", cwd=shared)
    assert as_json.returncode == 2
    doc = json.loads(as_json.stdout)
    assert doc["summary"]["skipped_entries"] == 1 and doc["summary"]["sessions"] == 1
    assert [e["file"] for e in doc["errors"]] == ["logs/locked"]
    assert warning in as_json.stderr.splitlines()
    assert (logs / "locked").stat().st_mode & 0o777 == 0  # looked at, not changed


def test_links_to_nothing_links_in_loops_and_pipes_are_skipped(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    (logs / "sub").mkdir(parents=True)
    shutil.copy(LOG, logs / "sub" / "a.json")
    (logs / "gone.json").symlink_to(tmp_path / "nowhere.json")
    (logs / "round").symlink_to("round")  # a link to itself: ELOOP
    (logs / "sub" / "up").symlink_to("..")  # a folder that holds the link
    os.mkfifo(logs / "pipe.jsonl")  # opened, it would wait for a writer for ever
    (logs / "README.md").write_text("not a log, not input: no warning\n")
    result = run("validate", logs, "--format", "json", timeout=60)
    assert result.returncode == 2, result.stderr
    doc = json.loads(result.stdout)
    reasons = {Path(e["file"]).name: e["message"] for e in doc["errors"]}
    assert reasons == {
        "gone.json": f"skipped {logs / 'gone.json'}: a symbolic link to nothing "
        f"({tmp_path / 'nowhere.json'})",
        "round": f"skipped {logs / 'round'}: a symbolic link in a loop",
        "pipe.jsonl": f"skipped {logs / 'pipe.jsonl'}: a pipe, not a file",
        "up": f"skipped {logs / 'sub' / 'up'}: a symbolic link to a folder that holds it (a loop)",
    }
    warnings = [
        line for line in result.stderr.splitlines() if line.startswith("loo-replay: skipped")
    ]
    assert sorted(warnings) == sorted(f"loo-replay: {m}" for m in reasons.values())
    assert doc["summary"]["skipped_entries"] == 4
    assert doc["summary"]["sessions"] == 1  # read once, though ``sub/up`` leads back to it
    assert "4 entry(ies) of the input folders skipped (see above)" in result.stderr


def test_skipped_entries_are_kept_in_rejects_once(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    logs.mkdir()
    shutil.copy(LOG, logs / "a.json")
    (logs / "gone.jsonl").symlink_to("missing.jsonl")
    os.mkfifo(logs / "fifo.json")
    db = tmp_path / "loo.duckdb"
    for _ in range(2):  # a rerun meets them again and keeps one row each
        result = run("ingest", logs, "--db", db, "--no-analysis")
        assert result.returncode == 2, result.stderr
        assert f"loo-replay: skipped {logs / 'fifo.json'}: a pipe, not a file" in result.stderr
    with duckdb.connect(str(db), read_only=True) as con:
        rows = con.execute(
            "SELECT file, message, octet_length(raw) FROM rejects WHERE kind = 'skipped' "
            "ORDER BY file"
        ).fetchall()
        (deals,) = con.execute("SELECT count(*) FROM deals").fetchone() or (0,)
    assert rows == [
        ("logs/fifo.json", "a pipe, not a file", 0),
        ("logs/gone.jsonl", "a symbolic link to nothing (missing.jsonl)", 0),
    ]
    assert deals == 16  # what could be read is loaded


@pytest.mark.parametrize("command", ["validate", "ingest", "audit", "fairness"])
def test_a_folder_that_cannot_be_searched_is_one_line(shared: Path, command: str) -> None:
    logs = logs_with_a_locked_folder(shared)
    extra = {"ingest": ["--db", "x.duckdb"], "audit": ["--db", "x.duckdb", "--out", "out"]}
    (shared / "work").mkdir(mode=0o777)
    (shared / "work").chmod(0o777)
    result = run_unprivileged(
        command, logs / "locked" / "b.json", *extra.get(command, []), cwd=shared / "work"
    )
    assert result.returncode == 2, result.stdout + result.stderr
    said = f"{logs / 'locked' / 'b.json'}: cannot be examined (Permission denied)"
    assert said in result.stdout + result.stderr


def test_a_pipe_named_on_the_command_line_is_refused_not_read(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe.jsonl")
    result = run("validate", tmp_path / "pipe.jsonl", timeout=60)
    assert result.returncode == 2
    # Named on the command line, it is refused before any work, on stderr (docs/limits.md).
    assert f"{tmp_path / 'pipe.jsonl'}: a pipe, not a file or folder of hand logs" in result.stderr


def test_a_report_folder_inside_the_input_is_not_read_back(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    logs.mkdir()
    shutil.copy(LOG, logs / "a.json")
    db = tmp_path / "loo.duckdb"
    first = run("audit", logs, "--db", db, "--out", logs / "reports", "--no-analysis")
    assert first.returncode == 1, first.stderr  # findings, nothing unreadable
    assert list((logs / "reports" / "replays").glob("*/stamp.json"))
    for attempt in ("with its manifest", "as an earlier version left it"):
        again = run("audit", logs, "--db", db, "--out", logs / "reports", "--no-analysis")
        assert again.returncode == 1, (attempt, again.stderr)
        assert "unreadable" not in again.stdout + again.stderr, attempt
        checked = run("validate", logs, "--format", "json")
        assert json.loads(checked.stdout)["summary"]["unreadable"] == 0, attempt
        (logs / "reports" / ".loo-replay-manifest.json").unlink()
    with duckdb.connect(str(db), read_only=True) as con:
        assert con.execute("SELECT count(*) FROM rejects").fetchone() == (0,)


def test_samples_are_read_as_before(tmp_path: Path) -> None:
    """The sample logs (and the simulator's ``.truth.json`` beside a log) as ever."""
    shutil.copytree(SAMPLES, tmp_path / "logs")
    result = run("simulate", "--deals", "2", "--out", tmp_path / "logs" / "sim.jsonl")
    assert (tmp_path / "logs" / "sim.truth.json").is_file(), result.stderr
    here = json.loads(run("validate", tmp_path / "logs", "--format", "json").stdout)
    there = json.loads(run("validate", "sample_logs", "--format", "json", cwd=ROOT).stdout)
    assert here["summary"]["sessions"] == there["summary"]["sessions"] + 1
    assert here["summary"]["skipped_entries"] == 0
    assert len(here["errors"]) == len(there["errors"])
