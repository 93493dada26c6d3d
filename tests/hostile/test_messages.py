"""Errors said in one ``loo-replay:`` line, each through the real command with its peak
memory: a ruleset TOML nested beyond reading, ``simulate --out`` where nothing can be
written, a journal line that says a key twice (docs/limits.md, "Interrupts and errors")."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import orjson
import pytest
from db_helpers import SAMPLES
from peak_helpers import PEAK_MB, measured

from loo_replay.recorder.journal import journal_path


def one_line(result: subprocess.CompletedProcess[str]) -> str:
    """The one line a refused command says, exit status 2."""
    said = [line for line in result.stderr.splitlines() if "running as pure Python" not in line]
    assert result.returncode == 2 and len(said) == 1, result.stderr
    assert said[0].startswith("loo-replay: "), said
    return said[0]


@pytest.mark.parametrize("nested", ["[" * 100_000 + "]" * 100_000, "{a=" * 900 + "1" + "}" * 900])
def test_a_ruleset_nested_past_reading_is_one_line(tmp_path: Path, nested: str) -> None:
    """200 KB of nested arrays (within the 1 MiB a ruleset file may have), or 900 inline
    tables: Python's TOML reader recurses, and the file is refused in one line."""
    (tmp_path / "deep.toml").write_text(f"[stakes]\nante = {nested}\n")
    result, peak = measured(
        "validate", SAMPLES / "wrong-payouts.json", "--ruleset", "deep.toml", cwd=tmp_path
    )
    said = one_line(result)
    assert "deep.toml nests arrays or tables too deeply to be read" in said
    assert peak < PEAK_MB, f"{peak} MB"


def test_simulate_where_nothing_can_be_written_is_one_line(tmp_path: Path) -> None:
    """``--out`` below a file, and (when not run as root, whom modes do not stop) in a
    read-only folder: one line naming the file and the system's reason, no usage box, and
    nothing left behind."""
    (tmp_path / "a-file").write_text("")
    result, peak = measured(
        "simulate", "--out", "a-file/sim.jsonl", "--sessions", "1", "--deals", "2", cwd=tmp_path
    )
    said = one_line(result)
    assert said.startswith("loo-replay: cannot write a-file/sim.jsonl: ")
    assert "Usage" not in result.stderr and "Error" not in result.stderr
    assert peak < PEAK_MB, f"{peak} MB"
    if os.geteuid() == 0:
        return
    locked = tmp_path / "locked"
    locked.mkdir(mode=0o555)
    result, _ = measured(
        "simulate", "--out", locked / "sim.jsonl", "--sessions", "1", "--deals", "2"
    )
    assert "Permission denied" in one_line(result)
    assert list(locked.iterdir()) == []


def test_a_journal_line_saying_a_key_twice_is_refused_as_a_log_line_is(tmp_path: Path) -> None:
    """The journal reader is the log reader: ``dealer`` twice in an entry is refused on
    ``--resume`` naming the line and the key, and nothing is written."""
    log = tmp_path / "club.json"
    session = {
        "id": "club",
        "ruleset": "three-card",
        "started_at": "2026-01-02T20:00:00Z",
        "players": [{"id": "ann"}, {"id": "bob"}, {"id": "cat"}],
    }
    journal = journal_path(log)
    journal.write_bytes(
        orjson.dumps({"kind": "session", "session": session})
        + b'\n{"kind": "deal", "deal": 1, "dealer": "ann", "dealer": "bob"}\n'
    )
    before = journal.read_bytes()
    result, peak = measured("record", "--resume", log, cwd=tmp_path)
    said = one_line(result)
    assert f"{journal}:2: not a journal entry" in said and "duplicate key 'dealer'" in said
    assert journal.read_bytes() == before and not log.exists()
    assert peak < PEAK_MB, f"{peak} MB"
