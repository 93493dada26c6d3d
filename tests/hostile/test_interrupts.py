"""Ctrl-C in the middle of a command (docs/limits.md, "Interrupts and errors"): the real CLI
run as a subprocess on an input built at a small scale, interrupted once its long part has
begun (its main process holds the file it works on), by SIGINT to its whole process group as
a terminal sends it.  It exits 130 without a traceback, from itself or its workers, and
leaves nothing half-written: the database as it was or complete, no temporary file, no
partial page or output."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import orjson
import pexpect
import pytest
from db_helpers import dump, run, sql
from record_helpers import answer, spawn

from loo_replay import files
from loo_replay.recorder.journal import journal_path, read_journal

T = TypeVar("T")

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="reads /proc")


def sessions(path: Path, copies: int, deals: int = 50) -> Path:
    """Simulated sessions written to ``path``: ten of ``deals`` deals, then ``copies`` of
    them again under other session ids (cheaper than simulating them all); the ids name
    the file, so that two files never share one."""
    made = run("simulate", "--deals", deals, "--sessions", 10, "--seed", 7)
    assert made.returncode == 0, made.stderr
    lines = made.stdout.splitlines()
    with path.open("w", encoding="utf-8") as f:
        for copy in range(copies + 1):
            for line in lines:
                doc = orjson.loads(line)
                doc["session"]["id"] += f"-{path.stem}-{copy}"
                f.write(orjson.dumps(doc).decode() + "\n")
    return path


def started(*args: str | Path, cwd: Path) -> subprocess.Popen[str]:
    """``loo-replay ARGS`` in a process group of its own, as a terminal's job."""
    return subprocess.Popen(
        [sys.executable, "-m", "loo_replay", *map(str, args)],
        cwd=cwd,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )


def holding(
    proc: subprocess.Popen[str], path: Path, timeout: float = 20, writing: bool = False
) -> None:
    """Wait until the command's main process has ``path`` open (for writing, if asked: a
    command opens ``--db`` read-only first, to check it before any work)."""
    deadline = time.monotonic() + timeout
    target = str(path.resolve())
    while time.monotonic() < deadline:
        assert proc.poll() is None, proc.communicate()[1]
        for fd in Path(f"/proc/{proc.pid}/fd").iterdir():
            try:
                if os.readlink(fd) == target and (not writing or _for_writing(proc.pid, fd.name)):
                    return
            except OSError:
                continue  # closed meanwhile
        time.sleep(0.01)
    raise AssertionError(f"{path} was never opened")


def _for_writing(pid: int, fd: str) -> bool:
    """Whether the descriptor's access mode (the low bits of its flags) lets it write."""
    info = Path(f"/proc/{pid}/fdinfo/{fd}").read_text()
    flags = next(line.split()[1] for line in info.splitlines() if line.startswith("flags:"))
    return int(flags, 8) & (os.O_WRONLY | os.O_RDWR) != 0


def _open_files(pid: int) -> list[Path]:
    """The files process ``pid`` has open now."""
    found = []
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        try:
            found.append(Path(os.readlink(fd)))
        except OSError:
            continue  # closed meanwhile
    return found


def working(proc: subprocess.Popen[str], timeout: float = 20) -> None:
    """Wait until the command has started its worker processes."""
    children = Path(f"/proc/{proc.pid}/task/{proc.pid}/children")
    deadline = time.monotonic() + timeout
    while not children.read_text().split():
        assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()[1]
        time.sleep(0.01)


def interrupted(proc: subprocess.Popen[str]) -> str:
    """Ctrl-C to the command's process group; its stderr, once it has exited 130."""
    os.killpg(proc.pid, signal.SIGINT)
    try:
        _, err = proc.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)  # never left running after the test
        _, err = proc.communicate()
        raise AssertionError(f"still running 30 s after Ctrl-C: {err}") from None
    assert proc.returncode == 130, err
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err
    return err


def leftovers(folder: Path) -> list[Path]:
    """Temporary files a write left behind (``files.replacing`` names them ``*.tmp``)."""
    return [p for p in folder.rglob("*") if p.name.endswith(".tmp")]


def test_ingest_interrupted_leaves_the_database_as_it_was(tmp_path: Path) -> None:
    db = tmp_path / "loo.duckdb"
    first = sessions(tmp_path / "first.jsonl", 0, deals=5)
    assert run("ingest", first, "--db", db).returncode == 0
    before = dump(db)
    big = sessions(tmp_path / "big.jsonl", 3)
    proc = started("ingest", big, "--db", db, "--jobs", "2", cwd=tmp_path)
    # The database is open for writing (not the read-only look at --db before any work);
    # the interrupt lands while it is opened and migrated, or while the file is loaded,
    # which says that it was rolled back.
    holding(proc, db, writing=True, timeout=60)
    err = interrupted(proc)
    assert err.startswith("loo-replay: interrupted"), err
    assert dump(db) == before  # the file being loaded left no trace
    assert leftovers(tmp_path) == []


def test_report_interrupted_leaves_no_partial_page(tmp_path: Path) -> None:
    db = tmp_path / "loo.duckdb"
    games = sessions(tmp_path / "games.jsonl", 0, deals=25)
    assert run("ingest", games, "--db", db).returncode == 0
    out = tmp_path / "reports"
    proc = started("report", "--db", db, "--out", out, "--jobs", "2", cwd=tmp_path)
    deadline = time.monotonic() + 20
    while not list((out / "replays").glob("*/*.html")):  # pages are being written
        assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()[1]
        time.sleep(0.01)
    interrupted(proc)
    assert leftovers(out) == []
    pages = list(out.rglob("*.html"))
    assert pages
    for page in pages:
        assert page.read_text("utf-8").rstrip().endswith("</html>"), page


def test_report_interrupted_while_its_child_refreshes_the_tests_leaves_each_whole(
    tmp_path: Path,
) -> None:
    """With ``--jobs 2`` the stale tests and screen are computed in a process of their own
    (``run.workers.apart``, issue 53): Ctrl-C stops it too, the command exits 130, and each
    result is as it was or complete."""
    db = tmp_path / "loo.duckdb"
    games = sessions(tmp_path / "games.jsonl", 3)
    assert run("ingest", games, "--db", db).returncode == 0
    derived = ("fairness", "collusion", "collusion_acts")
    before = {t: sql(db, f"SELECT * FROM {t} ORDER BY ALL") for t in derived}
    out = tmp_path / "reports"
    proc = started("report", "--db", db, "--out", out, "--jobs", "2", cwd=tmp_path)
    child = _child_writing(proc, db)
    interrupted(proc)
    assert not Path(f"/proc/{child}").exists() or _zombie(child)  # ended with the command
    after = {t: sql(db, f"SELECT * FROM {t} ORDER BY ALL") for t in derived}
    for tables in (("fairness",), ("collusion", "collusion_acts")):
        assert all(after[t] == before[t] for t in tables) or all(after[t] for t in tables)
    assert leftovers(tmp_path) == []
    assert not list(out.rglob("*.html"))  # the pages come after the refresh


def _child_writing(proc: subprocess.Popen[str], path: Path, timeout: float = 60) -> int:
    """The command's child process that has ``path`` open for writing, once one has."""
    children = Path(f"/proc/{proc.pid}/task/{proc.pid}/children")
    target = str(path.resolve())
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        assert proc.poll() is None, proc.communicate()[1]
        for pid in map(int, children.read_text().split()):
            try:
                for fd in Path(f"/proc/{pid}/fd").iterdir():
                    if os.readlink(fd) == target and _for_writing(pid, fd.name):
                        return pid
            except OSError:
                continue  # ended, or closed meanwhile
        time.sleep(0.01)
    raise AssertionError(f"no child of the command opened {path} for writing")


def _zombie(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(") ")[1][0] == "Z"
    except OSError:
        return True


def test_query_interrupted_exits_130(tmp_path: Path) -> None:
    db = tmp_path / "loo.duckdb"
    assert run("ingest", sessions(tmp_path / "games.jsonl", 0, deals=2), "--db", db).returncode == 0
    proc = started("query", "--db", db, "SELECT count(*) FROM range(100000000000000)", cwd=tmp_path)
    holding(proc, db)
    time.sleep(0.3)  # the query under way
    interrupted(proc)


def test_validate_interrupted_in_its_workers_exits_130(tmp_path: Path) -> None:
    games = sessions(tmp_path / "games.jsonl", 7)
    proc = started("validate", games, "--jobs", "2", cwd=tmp_path)
    working(proc)
    interrupted(proc)


def test_simulate_interrupted_writes_no_output(tmp_path: Path) -> None:
    out = tmp_path / "games.jsonl.gz"
    proc = started("simulate", "--deals", 100000, "--out", out, cwd=tmp_path)
    deadline = time.monotonic() + 20
    while not leftovers(tmp_path):  # the output is being written
        assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()[1]
        time.sleep(0.01)
    interrupted(proc)
    assert sorted(p.name for p in tmp_path.iterdir()) == []


def test_verify_interrupted_removes_its_temporary_folders(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ctrl-C while verify re-runs a bundle's audit (its second temporary folder holds the
    database of the fairness tests, which it has open): the extracted bag and the database
    are gone.  The database is waited for, not the folder: the folder's making leaves too
    short a window on a busy machine (CI once sent the Ctrl-C as the command exited)."""
    log = sessions(tmp_path / "night.jsonl", copies=4)
    made = run("bundle", log, "--out", tmp_path / "case.zip")
    assert made.returncode == 0, made.stderr
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    monkeypatch.setenv("TMPDIR", str(tmp))
    proc = started("verify", tmp_path / "case.zip", cwd=tmp_path)
    deadline = time.monotonic() + 60
    while not any(p.name == "bundle.duckdb" for p in _open_files(proc.pid)):
        assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()[1]
        time.sleep(0.01)
    interrupted(proc)
    assert list(tmp.iterdir()) == []


def ctrl_c_once_made(make: Callable[..., T]) -> Callable[..., T]:
    """``make`` (``mkstemp``, ``mkdtemp``), then a Ctrl-C before it returns: the instant
    in which the file exists and its maker does not yet know its name."""

    def made(*args: Any, **kwargs: Any) -> T:
        result = make(*args, **kwargs)
        signal.raise_signal(signal.SIGINT)
        return result

    return made


@pytest.fixture
def python_ctrl_c() -> Iterator[None]:
    """Python's own Ctrl-C handler, as a command starts with, whatever an earlier test of
    this worker left (a test worker was once found with SIGINT ignored)."""
    earlier = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, earlier)


@pytest.mark.usefixtures("python_ctrl_c")
def test_ctrl_c_the_instant_a_temporary_file_is_made_leaves_none(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(tempfile, "mkstemp", ctrl_c_once_made(tempfile.mkstemp))
    with pytest.raises(KeyboardInterrupt), files.replacing(tmp_path / "page.html") as f:
        f.write(b"never reached")
    assert list(tmp_path.iterdir()) == []
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


@pytest.mark.usefixtures("python_ctrl_c")
def test_ctrl_c_the_instant_a_staging_folder_is_made_leaves_none(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(tempfile, "mkdtemp", ctrl_c_once_made(tempfile.mkdtemp))
    with pytest.raises(KeyboardInterrupt), files.staging(tmp_path) as stage:
        (stage / "t.parquet").write_bytes(b"never reached")
    assert list(tmp_path.iterdir()) == []


def test_record_ctrl_c_at_a_prompt_stops_with_130_and_everything_saved(tmp_path: Path) -> None:
    child = spawn("club.json", "--players", "ann,bob,cat", cwd=tmp_path)
    answer(child, "deal 1 · dealer [ann]", "")
    child.expect_exact("deal 1 · turn-up>")
    child.send("\x03")
    child.expect_exact("Saved club.json")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 130
    entries, _ = read_journal(journal_path(tmp_path / "club.json"))
    assert [e["kind"] for e in entries] == ["session", "deal"]


def test_record_ctrl_c_when_asked_for_the_players_leaves_nothing(tmp_path: Path) -> None:
    child = spawn("club.json", cwd=tmp_path)
    child.expect_exact("Players in clockwise seating order")
    child.send("ann bob\x03")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 130
    assert sorted(p.name for p in tmp_path.iterdir()) == ["terminal.log"]


@pytest.mark.parametrize("delay", [0.3, 0.6, 1.0])
def test_ctrl_c_while_the_command_starts_says_nothing(tmp_path: Path, delay: float) -> None:
    """While the command line is still being imported, Ctrl-C exits 130 as it does later.
    (In the first few hundredths of a second, before Python has imported the package, the
    interpreter's own two lines are all it can say; docs/limits.md.)"""
    proc = started("simulate", "--deals", 100000, "--out", tmp_path / "g.jsonl", cwd=tmp_path)
    time.sleep(delay)
    os.killpg(proc.pid, signal.SIGINT)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode in (130, -signal.SIGINT), err
    assert "Traceback" not in err and "Fatal Python error" not in err, err


# ``simulate`` as the real command line runs it, its Ctrl-C landing first where CPython
# loses track of one while a module is imported (docs/limits.md, "Interrupts and errors"):
# in code run from text (``exec`` of a string, as dataclasses do), or in a weakref callback.
LOSING = """
import functools, signal, sys, weakref
from loo_replay.__main__ import main
from loo_replay.cli import simulate as command

where = sys.argv.pop(1)


def ctrl_c_in_a_weakref_callback() -> None:
    class Module:
        pass

    module = Module()
    lock = weakref.ref(module, lambda _: signal.raise_signal(signal.SIGINT))
    del module


@functools.wraps(command.simulate)
def simulate(*args, **kwargs):
    if where == "exec":
        exec("import signal; signal.raise_signal(signal.SIGINT)", {})
    else:
        ctrl_c_in_a_weakref_callback()
    return command.simulate.__wrapped__(*args, **kwargs)


simulate.__wrapped__ = command.simulate
command.simulate = simulate
main()  # as `python -m loo_replay` starts: Ctrl-C is Python's own, even under nohup
"""


@pytest.mark.parametrize("where", ["exec", "weakref"])
def test_ctrl_c_where_python_loses_it_still_stops_with_130(tmp_path: Path, where: str) -> None:
    (tmp_path / "losing.py").write_text(LOSING)
    out = tmp_path / "g.jsonl"
    proc = subprocess.run(
        [sys.executable, "-m", "losing", where, "simulate", "--deals", "20000", "--out", str(out)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 130, proc.stderr
    assert "Exception ignored" not in proc.stderr and "Traceback" not in proc.stderr
    assert not out.exists() and leftovers(tmp_path) == []
