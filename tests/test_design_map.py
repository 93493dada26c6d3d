"""docs/design.md is the map of the code (issue 40): every module of the package is named
there, in a line of its own saying what it holds, and every module it names exists."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MAP = ROOT / "docs" / "design.md"
ENTRY = re.compile(r"^- `(loo_replay/[\w/]+\.py)`: \S", re.M)


def test_every_module_is_on_the_map_and_the_map_names_only_modules() -> None:
    named = ENTRY.findall(MAP.read_text("utf-8"))
    assert len(named) == len(set(named)), "a module named twice"
    modules = {path.relative_to(ROOT).as_posix() for path in (ROOT / "loo_replay").rglob("*.py")}
    assert modules - set(named) == set(), "modules docs/design.md does not describe"
    assert set(named) - modules == set(), "docs/design.md names modules that are gone"


def test_the_replay_stays_split_by_the_kind_of_event() -> None:
    """Issue 52: ``Replay`` at most 600 lines, split by the kind of event: the deal in
    replay_base.py, the declaring phase in replay_declaring.py, the play in replay.py, each
    class deriving from the one before."""
    from loo_replay.engine.replay import Replay
    from loo_replay.engine.replay_base import ReplayBase
    from loo_replay.engine.replay_declaring import DeclaringReplay

    assert Replay.__mro__[1:3] == (DeclaringReplay, ReplayBase)
    for name in ("replay", "replay_base", "replay_declaring"):
        lines = (ROOT / "loo_replay" / "engine" / f"{name}.py").read_text("utf-8").splitlines()
        assert len(lines) <= 600, (name, len(lines))
