"""``loo-replay record`` on a full disk (docs/record.md, "Nothing typed is lost"): a real
tmpfs of 64 KiB mounted for the test and filled, the journal append and the log's rewrite
each refused by the kernel with ENOSPC.  One line says so; the journal keeps whole lines
only, the log stays a whole document, and once there is room again nothing is lost.
Mounting needs root (CAP_SYS_ADMIN): without it the tests are skipped, saying why."""

from __future__ import annotations

import errno
import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import orjson
import pytest
from db_helpers import run
from record_helpers import answer, spawn
from test_recorder import ended

from loo_replay.recorder.journal import journal_path, live, read_journal
from loo_replay.recorder.sealed import sealed_log


@pytest.fixture
def disk(tmp_path: Path) -> Iterator[Path]:
    """A 64 KiB tmpfs, unmounted after the test."""
    folder = tmp_path / "disk"
    folder.mkdir()
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(folder)],
        capture_output=True,
        text=True,
    )
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a small tmpfs to fill: {mounted.stderr.strip()}")
    try:
        yield folder
    finally:
        subprocess.run(["umount", "-l", str(folder)], check=True)


def fill(folder: Path) -> Path:
    """Fill the file system of ``folder`` to its last byte; the filler, to remove later."""
    filler = folder / "filler"
    with filler.open("wb", buffering=0) as f:
        for size in (4096, 1):
            try:
                while True:
                    f.write(b"\0" * size)
            except OSError as exc:
                assert exc.errno == errno.ENOSPC
    return filler


def test_a_session_started_on_a_full_disk_leaves_nothing(disk: Path) -> None:
    fill(disk)
    result = run("record", disk / "club.json", "--players", "ann,bob,cat")
    assert result.returncode == 2
    assert result.stderr.strip() == (
        f"loo-replay: {journal_path(disk / 'club.json')}: No space left on device"
    )
    assert sorted(p.name for p in disk.iterdir()) == ["filler"]


def test_a_journal_the_disk_refuses_is_left_whole_and_the_entry_typed_again(
    disk: Path, tmp_path: Path
) -> None:
    shown = tmp_path / "terminal.log"
    # A venue long enough that the journal's first line ends a few bytes before a page
    # does: the next entry needs a new page, which the full disk refuses.
    page = os.sysconf("SC_PAGE_SIZE")
    players = [{"id": p} for p in ("ann", "bob", "cat")]
    probe = {"id": "club", "ruleset": "three-card", "started_at": "2026-01-01T00:00:00Z"}
    line = {"kind": "session", "session": {**probe, "players": players, "venue": ""}}
    venue = "v" * (2 * page - 8 - len(orjson.dumps(line) + b"\n"))
    child = spawn(
        "club.json", "--players", "ann,bob,cat", "--venue", venue, cwd=disk, transcript=shown
    )
    child.expect_exact("deal 1 · dealer [ann]>")
    journal = journal_path(disk / "club.json")
    assert journal.stat().st_size == 2 * page - 8
    before = (journal.read_bytes(), (disk / "club.json").read_bytes())
    filler = fill(disk)
    child.send("\r")
    child.expect_exact(f"✗ not saved ({journal.name}: No space left on device)")
    assert (journal.read_bytes(), (disk / "club.json").read_bytes()) == before
    filler.unlink()
    answer(child, "deal 1 · dealer [ann]", "")
    answer(child, "deal 1 · turn-up", "q")
    assert ended(child) == 0
    entries = live(read_journal(journal)[0])
    assert [e["kind"] for e in entries] == ["session", "deal"]
    assert sorted(p.name for p in disk.iterdir()) == ["club.json", journal.name]


def test_a_log_the_disk_refuses_stays_whole_and_resume_writes_it(
    disk: Path, tmp_path: Path
) -> None:
    shown = tmp_path / "terminal.log"
    log = disk / "club.json"
    child = spawn("club.json", "--players", "ann,bob,cat", cwd=disk, transcript=shown)
    answer(child, "deal 1 · dealer [ann]", "")
    answer(child, "deal 1 · turn-up", "kh")
    child.expect_exact("deal 1 · bob declares (play/pass/miss)>")
    old_log = log.read_bytes()
    filler = fill(disk)
    # The journal's line fits in its page; the log's new copy needs pages of its own.
    child.send("p\r")
    child.expect_exact(
        f"⚠ in the journal, but the log is not rewritten ({log.name}: No space left on device)"
    )
    answer(child, "deal 1 · cat declares (play/pass/miss)", "q")
    assert ended(child) == 2
    said = shown.read_text("utf-8")
    assert f"loo-replay: {log.name} is behind its journal" in said and "Traceback" not in said
    assert log.read_bytes() == old_log  # whole, one entry behind
    assert sorted(p.name for p in disk.iterdir()) == sorted(
        ["club.json", "club.json.journal", "filler"]
    )
    entries = live(read_journal(journal_path(log))[0])
    assert entries[-1]["event"] == {"type": "declare", "player": "bob", "action": "play"}
    filler.unlink()
    child = spawn("--resume", "club.json", cwd=disk, transcript=shown)
    answer(child, "deal 1 · cat declares (play/pass/miss)", "q")
    assert ended(child) == 0
    # No deal was settled: the log is the entries', its header sealed (docs/record.md).
    assert json.loads(log.read_bytes()) == sealed_log(entries, 0)
