"""Calibration in CI's time: the fairness tests on simulated sessions whose dealing is
known (issue 15, point 3; the full table is scripts/fairness_calibration.py's).

Each run is a six-player three-card session loaded by ``ingest`` and judged
over all its deals at alpha 0.01, as ``loo-replay fairness LOG --by all`` does.
"""

from __future__ import annotations

import pytest

from loo_replay.fairness.calibrate import Dealing, simulated_run
from loo_replay.simulate import Crooked


def test_fair_sessions_rarely_flag_fairness_1() -> None:
    """Holm keeps the chance of any flag in a fair run below alpha: at most one of ten."""
    flagged = [seed for seed in range(10) if simulated_run(Dealing(), 300, seed).flagged]
    assert len(flagged) <= 1, flagged


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_crooked_dealer_is_flagged_and_only_he_is_named_fairness_2(seed: int) -> None:
    """A dealer who takes the best trump in three deals of ten is flagged in 500 deals, and
    no other player is named by any flag."""
    report = simulated_run(Dealing(Crooked("dan", 0.3)), 500, seed)
    named = {dict(v.subject).get("player") for v in report.flagged} - {None}
    assert named == {"dan"}
    assert any(
        v.test == "dealer-hand" and dict(v.subject)["measure"] == "top trump"
        for v in report.flagged
    )


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_one_riffle_is_flagged_by_the_shuffle_test_fairness_1_5(seed: int) -> None:
    report = simulated_run(Dealing(riffles=1), 300, seed)
    assert any(v.test == "shuffle" and not v.subject for v in report.flagged)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_repeated_deal_is_always_flagged_fairness_1_6(seed: int) -> None:
    report = simulated_run(Dealing(repeat=True), 60, seed)
    (deal,) = [v for v in report.flagged if dict(v.subject) == {"measure": "deal"}]
    assert deal.test == "repeated-deal" and deal.observed == 1.0
