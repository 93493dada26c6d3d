"""sample_logs/ is exactly what scripts/make_sample_logs.py writes (issue: sample logs).

The samples are simulated by the engine's bots; a change to the engine or the
simulator that changes them must regenerate them in the same commit, or the
samples would show findings nobody injected.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

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
