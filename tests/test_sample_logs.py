"""sample_logs/ is exactly what scripts/make_sample_logs.py writes (issue: sample logs).

The samples are simulated by the engine's bots; a change to the engine or the
simulator that changes them must regenerate them in the same commit, or the
samples would show findings nobody injected.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from loo_replay.run.audit import SessionReport
from tests.loo_helpers import audited

ROOT = Path(__file__).resolve().parents[1]


def test_sample_logs_are_up_to_date_with_their_generator(tmp_path: Path) -> None:
    subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "make_sample_logs.py"), str(tmp_path)],
        cwd=ROOT,
        check=True,
        timeout=300,
    )
    made = sorted(p.name for p in tmp_path.iterdir())
    assert made == sorted(p.name for p in (ROOT / "sample_logs").iterdir())
    for name in made:
        assert (tmp_path / name).read_bytes() == (ROOT / "sample_logs" / name).read_bytes(), name


def test_sample_session_ids_carry_the_date_the_session_started() -> None:
    """A sample id ends with its date (``club-night-2026-11-20``): it must be the day of the
    session's ``started_at`` (docs/log-format.md: ``started_at`` is when the session began)."""
    seen = 0
    for item in audited([ROOT / "sample_logs"]):
        assert isinstance(item, SessionReport), item
        day = re.search(r"\d{4}-\d{2}-\d{2}$", item.id)
        assert day is not None, item.id
        assert item.header is not None and item.header.started_at is not None, item.id
        assert item.header.started_at.startswith(day.group()), (item.id, item.header.started_at)
        seen += 1
    assert seen == 14  # the sessions of every sample file
