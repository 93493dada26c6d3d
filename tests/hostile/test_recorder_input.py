"""What ``loo-replay record`` reads, through the real command with its peak memory
(docs/record.md): entries from a regular file as from a pipe, a line of megabytes from a pipe
and one of many kilobytes typed at a terminal, each refused whole in linear time and
bounded memory, and a pasted right-to-left override never echoed."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import pexpect
from peak_helpers import PEAK_MB, WRAPPER, measured

from loo_replay.recorder.journal import journal_path, live, read_journal

PLAYERS = ("--players", "ann,bob,cat")
ENTRIES = [
    {"kind": "deal", "deal": 1, "dealer": "ann"},
    {"kind": "turn_up", "card": "5H"},
]


def kept(log: Path) -> list[dict[str, object]]:
    """The entries the journal keeps after the session header."""
    return live(read_journal(journal_path(log))[0])[1:]


def test_entries_are_read_from_a_regular_file_as_from_a_pipe(tmp_path: Path) -> None:
    moves = tmp_path / "moves.txt"
    moves.write_text("ann\n5h\nq\n")
    with moves.open("rb") as stdin:
        from_file, peak = measured("record", "file.json", *PLAYERS, cwd=tmp_path, stdin=stdin)
    assert from_file.returncode == 0, from_file.stderr
    assert peak < PEAK_MB, f"{peak} MB"
    from_pipe, _ = measured("record", "pipe.json", *PLAYERS, cwd=tmp_path, input="ann\n5h\nq\n")
    assert from_pipe.returncode == 0, from_pipe.stderr
    assert kept(tmp_path / "file.json") == kept(tmp_path / "pipe.json") == ENTRIES
    # A transcript: each prompt, and the line read after it.
    assert "deal 1 · turn-up> 5h" in from_file.stdout
    assert from_file.stdout.splitlines()[-1] == "Saved file.json: loo-replay validate file.json"
    # The players too, when --players is not given: the first line.
    moves.write_text("ann bob cat\nann\n5h\n")
    with moves.open("rb") as stdin:
        asked, _ = measured("record", "asked.json", cwd=tmp_path, stdin=stdin)
    assert asked.returncode == 0, asked.stderr
    assert kept(tmp_path / "asked.json") == ENTRIES


def test_a_line_of_megabytes_from_a_pipe_is_refused_whole_in_linear_time(
    tmp_path: Path,
) -> None:
    """8 MB on one line (a 32 KB line had taken 23 s and 547 MB, quadratic): refused in one
    warning, never held, and the entries around it kept."""
    started = time.monotonic()
    result, peak = measured(
        "record", "long.json", *PLAYERS, cwd=tmp_path, input="ann\n" + "7h" * 4_000_000 + "\n5h\n"
    )
    assert result.returncode == 0, result.stderr
    assert time.monotonic() - started < 60
    assert peak < PEAK_MB, f"{peak} MB"
    assert "a line of more than 1,000 characters is no entry: not read" in result.stdout
    assert kept(tmp_path / "long.json") == ENTRIES


def test_a_long_line_typed_at_a_terminal_is_refused_and_an_override_never_echoed(
    tmp_path: Path,
) -> None:
    """In a pseudo-terminal, keys one by one (no bracketed paste): 16 KB of them, past the
    line's 1,000 characters, cost a constant time each and are refused at Enter; a right-to-
    left override (U+202E) typed before a card is neither echoed nor kept."""
    env = dict(os.environ, PROMPT_TOOLKIT_NO_CPR="1", TERM="xterm", NO_COLOR="1")
    child = pexpect.spawn(
        sys.executable,
        ["-c", WRAPPER, sys.executable, "-m", "loo_replay", "record", "pty.json", *PLAYERS],
        cwd=str(tmp_path),
        env=env,
        encoding="utf-8",
        timeout=120,
        dimensions=(40, 110),
    )
    child.expect_exact("dealer [ann]>")
    child.send("ann\r")
    child.expect_exact("turn-up>")
    typed = "7h" * 8_000
    for start in range(0, len(typed), 4096):
        child.send(typed[start : start + 4096])
    child.send("\r")
    child.expect_exact("no entry: not read")
    child.expect_exact("turn-up>")
    child.send("\u202e5h\r")
    child.expect_exact("declares")
    screen = child.before or ""
    child.send("q\r")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    assert "\u202e" not in screen
    assert kept(tmp_path / "pty.json") == ENTRIES
    peak = int((child.before or "").strip().splitlines()[-1]) // 1024
    assert peak < PEAK_MB, f"{peak} MB"
