"""Calibration in CI's time: the collusion screen on simulated sessions whose colluders
are known (docs/collusion.md, "Calibration"; the full table is
benchmarks/collusion_calibration.py's).

Each run is a six-player three-card session loaded by ``ingest`` with its analysis and
screened at alpha 0.01, as ``loo-replay collusion LOG`` does.
"""

from __future__ import annotations

import pytest

from loo_replay.collusion.calibrate import named, simulated_run
from loo_replay.simulate import Colluders


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_fair_play_flags_no_pair(seed: int) -> None:
    """Holm keeps the chance of any flag in a fair run below alpha: these flag nothing."""
    assert named(simulated_run((), 500, seed)) == set()


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_colluders_at_every_chance_are_flagged_and_no_one_else(seed: int) -> None:
    report = simulated_run((Colluders("ann", "bob", 1.0),), 500, seed)
    assert named(report) == {("ann", "bob")}
    (pair,) = report.flagged
    assert any(t.test == "stepping-aside" and t.flagged for t in pair.tests)


@pytest.mark.parametrize("seed", [1, 2])
def test_colluders_at_half_the_chances_are_found_in_a_thousand_deals(seed: int) -> None:
    """The issue's target: rate 0.5 over 1,000 deals flagged, naming that pair alone."""
    assert named(simulated_run((Colluders("cat", "eve", 0.5),), 1000, seed)) == {("cat", "eve")}


def test_two_colluding_pairs_are_both_named() -> None:
    pairs = (Colluders("ann", "bob", 1.0), Colluders("dan", "fay", 1.0))
    assert named(simulated_run(pairs, 600, 4)) == {("ann", "bob"), ("dan", "fay")}
