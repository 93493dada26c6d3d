"""The engine's vocabulary as types (issue 17): statuses, outcomes, phases, declarations and
option values are checked by mypy, and their values are the strings of the JSON output and
the database (docs/log-format.md), so typing them changed no byte of either."""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
from pathlib import Path
from typing import get_args

from loo_replay.engine import options
from loo_replay.engine.model import ACTIONS
from loo_replay.engine.options import OPTION_SPECS, Options
from loo_replay.engine.vocab import Action, Outcome, Status

SNIPPET = """\
from loo_replay.engine.vocab import Outcome


def ended_unplayed(outcome: Outcome) -> bool:
    return outcome == Outcome.ALL_PASED


ended_unplayed("all_pased")
ended_unplayed(Outcome.ALL_PASSED)
"""


def _mypy(tmp_path: Path, source: str) -> subprocess.CompletedProcess[str]:
    path = tmp_path / "snippet.py"
    path.write_text(source)
    return subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", str(path)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={**os.environ, "MYPYPATH": str(Path(__file__).resolve().parents[1])},
        check=False,
    )


def test_mypy_catches_a_misspelt_outcome_in_a_member_and_in_a_string(tmp_path: Path) -> None:
    run = _mypy(tmp_path, SNIPPET)
    assert run.returncode == 1, run.stdout + run.stderr
    assert 'snippet.py:5: error: "type[Outcome]" has no attribute "ALL_PASED"' in run.stdout
    assert 'snippet.py:8: error: Argument 1 to "ended_unplayed" has incompatible type' in run.stdout
    assert "snippet.py:9" not in run.stdout  # the correct spelling passes


def test_vocabulary_values_are_the_strings_of_the_log_format() -> None:
    """docs/log-format.md: a deal's status, outcome and declarations as written in JSON."""
    assert [str(s) for s in Status] == ["audited", "misdeal", "rejected"]
    assert [str(o) for o in Outcome] == [
        "played",
        "all_passed",
        "unopposed",
        "flush",
        "revoke",
        "misdeal",
    ]
    assert ACTIONS == tuple(Action) == ("play", "pass", "take_miss", "defend")
    assert f"{Outcome.ALL_PASSED}" == "all_passed"


def test_option_choices_are_the_values_of_the_option_types() -> None:
    """docs/rules.md §7: what ``--set`` and ruleset files accept is what the engine is typed for."""
    # The annotations as options.py writes them: the compiled Options, an extension type,
    # keeps them as text in its dataclass fields, where get_type_hints cannot look.
    hints = {
        f.name: getattr(options, str(f.type))
        for f in dataclasses.fields(Options)
        if hasattr(options, str(f.type))
    }
    choices = {n: s.choices for n, s in OPTION_SPECS.items() if s.kind == "choice"}
    assert choices == {n: get_args(hints[n.replace(".", "_")]) for n in choices}
    assert OPTION_SPECS["deal.trump_in_must"].choices == (
        "turn_up",
        "on_void",
        "first_lead",
        "same",
    )
