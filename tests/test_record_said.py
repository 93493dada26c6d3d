"""What the recorder says, read from the real ``loo-replay record`` fed a scorer's lines on
its standard input (docs/record.md): its help fits an 80-column terminal, and a must deal
says why nobody is asked to declare."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

MUST = "  a must deal: everyone plays the hand dealt, so nobody declares"


def _record(folder: Path, lines: str, *args: str) -> list[str]:
    """``loo-replay record game.json --players ann,bob,cat ARGS`` with ``lines`` typed."""
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "loo_replay",
            "record",
            "game.json",
            "--players",
            "ann,bob,cat",
            *args,
        ],
        input=lines,
        capture_output=True,
        text=True,
        cwd=folder,
        timeout=120,
    )
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    return done.stdout.splitlines()


def test_the_help_fits_80_columns_with_every_word_whole(tmp_path: Path) -> None:
    said = _record(tmp_path, "?\nq\n")
    start = said.index("deal 1 · dealer [ann]> ?") + 1
    end = said.index("deal 1 · dealer [ann]> q")
    shown = said[start:end]
    assert shown[0] == "  Enter accepts what is proposed in [brackets]."
    assert shown[-1] == "  q, Ctrl-D or Ctrl-C (stop; all is saved)."
    assert max(len(line) for line in shown) <= 80, [line for line in shown if len(line) > 80]


def test_a_must_by_the_pool_says_why_nobody_declares(tmp_path: Path) -> None:
    """hoyle: the first deal's pool holds only its antes, a single pool, which is a must
    (declare.must = single): the next prompt is the first card, and the recorder says why."""
    said = _record(tmp_path, "\nq\n", "--ruleset", "hoyle")
    at = said.index("deal 1 · dealer [ann]> ")
    assert said[at + 1 : at + 4] == [
        MUST,
        "    (a single pool, only this deal's antes, is a must here: declare.must)",
        "deal 1 · trick 1 · bob plays> q",
    ]


def test_a_must_by_club_law_says_so_once_the_club_is_turned(tmp_path: Path) -> None:
    """three-card with declare.club_law: the first deal is no must by its pool
    (single_except_first), but the club turned up makes one."""
    said = _record(tmp_path, "\n2c\nbob 3c\nq\n", "--set", "declare.club_law=true")
    at = said.index("deal 1 · turn-up> 2c")
    assert said[at + 1 : at + 4] == [
        MUST,
        "    (a club turned up makes a must: declare.club_law)",
        "deal 1 · trick 1 · bob plays> bob 3c",
    ]
    assert said.count(MUST) == 1  # not again at the card


def test_a_deal_that_is_no_must_asks_for_the_declarations_without_a_word(tmp_path: Path) -> None:
    said = _record(tmp_path, "\nkh\nq\n")
    assert MUST not in said
    assert (
        said[said.index("deal 1 · turn-up> kh") + 1] == "deal 1 · bob declares (play/pass/miss)> q"
    )
