"""The statistics of the fairness audit on hand-made counts (docs/fairness.md, "The six tests")."""

from __future__ import annotations

import itertools
import math
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from loo_replay.fairness.stats import (
    MIN_DEALS,
    Bernoulli,
    Repeats,
    ShuffleCounts,
    Verdict,
    bernoulli_verdict,
    binomial_greater,
    deal_chance,
    fair_chances,
    hand_chance,
    holm,
    judge,
    repeats_verdict,
    shuffle_table,
)


def test_holm_multiplies_the_kth_smallest_by_m_minus_k_plus_1_and_keeps_order() -> None:
    """docs/fairness.md, "The six tests": p-values across the tests of one run are adjusted with Holm's method."""
    assert holm([0.01, 0.04, 0.03]) == pytest.approx([0.03, 0.06, 0.06])
    assert holm([0.5, 0.9]) == pytest.approx([1.0, 1.0])
    assert holm([]) == []


@given(st.lists(st.floats(0.0, 1.0), min_size=1, max_size=30))
def test_holm_never_lowers_a_p_value_nor_exceeds_bonferroni(ps: list[float]) -> None:
    adjusted = holm(ps)
    for p, a in zip(ps, adjusted, strict=True):
        assert p <= a + 1e-15 <= min(1.0, len(ps) * p) + 2e-15


def test_binomial_greater_with_differing_chances_is_the_poisson_binomial(stats: Any) -> None:
    """Deals of different hand sizes give different fair chances; the tail is then the
    Poisson binomial's, checked here against every outcome of five deals."""
    trials = {3 / 51: 3, 5 / 51: 2}
    chances = [3 / 51] * 3 + [5 / 51] * 2
    for hits in range(6):
        brute = sum(
            math.prod(p if won else 1 - p for p, won in zip(chances, outcome, strict=True))
            for outcome in itertools.product((0, 1), repeat=5)
            if sum(outcome) >= hits
        )
        assert binomial_greater(hits, trials) == pytest.approx(brute)
    assert binomial_greater(4, {0.1: 20}) == pytest.approx(stats.binom.sf(3, 20, 0.1))


def test_fair_chances_of_the_top_trump_are_hand_size_in_51() -> None:
    """With a turn-up the other 51 cards are uniform: a hand of three holds the top trump
    with chance 3/51, one of the top three with 1 - C(48,3)/C(51,3)."""
    chances = fair_chances(3, 12)
    assert chances["top trump"] == pytest.approx(3 / 51)
    assert chances["one of the top three trumps"] == pytest.approx(
        1 - math.comb(48, 3) / math.comb(51, 3)
    )
    two = (math.comb(12, 2) * 39 + math.comb(12, 3)) / math.comb(51, 3)
    assert chances["two trumps or more"] == pytest.approx(two)


def test_dealer_hand_below_its_minimum_reports_too_few_deals() -> None:
    """docs/fairness.md, "The six tests": below a test's smallest number of deals, "too few deals", no p-value."""
    few = MIN_DEALS["dealer-hand"] - 1
    v = bernoulli_verdict(
        "dealer-hand", "all", "all", (("player", "dan"),), Bernoulli(few, {3 / 51: few}),
        0.01, "{observed} {expected}",
    )  # fmt: skip
    (judged,) = judge([v], 0.01)
    assert judged.p_value is None and judged.p_adjusted is None and not judged.flagged
    assert judged.message == f"too few deals: {few} of the {few + 1} this test needs"


def test_a_flag_says_unlikely_under_fair_dealing_never_cheating() -> None:
    """docs/fairness.md, "The six tests": a flag says "unlikely under fair dealing", never "this person cheated"."""
    crooked = bernoulli_verdict(
        "dealer-hand", "all", "all", (("player", "dan"),), Bernoulli(30, {3 / 51: 80}), 0.01,
        "when dan deals they hold the top trump in {observed} of deals; "
        "fair dealing gives {expected}",
    )  # fmt: skip
    fair = bernoulli_verdict(
        "dealer-hand", "all", "all", (("player", "ann"),), Bernoulli(5, {3 / 51: 80}), 0.01,
        "{observed} {expected}",
    )  # fmt: skip
    flagged, passed = judge([crooked, fair], 0.01)
    assert flagged.flagged and not passed.flagged
    assert flagged.message.startswith(
        "when dan deals they hold the top trump in 38% of deals; fair dealing gives 6% "
        "(unlikely under fair dealing, p = "
    )
    assert "consistent with fair dealing" in passed.message
    assert flagged.p_adjusted == pytest.approx(2 * flagged.p_value)
    for word in ("cheat", "crook", "guilty"):
        assert word not in flagged.message
    assert flagged.band is not None and flagged.band[0] <= 3 / 51 <= flagged.band[1]


def test_shuffle_expects_one_seat_apart_about_one_in_seven() -> None:
    """docs/fairness.md, "The six tests", test 5: six seats and the Miss of three cards: a card's neighbour is one of
    the other 20 dealt, 3 of them one seat on (3/20), 2 in its own place."""
    counts = ShuffleCounts(7, 3, {0: 100, 1: 150, 2: 150, 3: 150, 4: 150, 5: 150, 6: 150})
    pairs, table = shuffle_table([counts])
    assert pairs == 1000 and table.df == 6
    assert table.expected == pytest.approx([100, 150, 150, 150, 150, 150, 150])
    v = judge([_shuffle(pairs, table)], 0.01)[0]
    assert v.statistic == pytest.approx(0.0) and v.p_value == pytest.approx(1.0)


def _shuffle(deals: int, table: object) -> Verdict:
    from loo_replay.fairness.stats import Table, chi_square_verdict

    assert isinstance(table, Table)
    return chi_square_verdict("shuffle", "all", "all", (), deals, table, 0.01)


def test_a_repeated_whole_deal_is_beyond_fair_dealing() -> None:
    """docs/fairness.md, "The six tests", test 6: two equal deals of six hands and a Miss never happen by chance."""
    assert hand_chance(3) == pytest.approx(1 / 22100)
    assert deal_chance(7, 3) < 1e-20
    v = repeats_verdict("all", "all", "deal", 100, [Repeats(4950, 1, deal_chance(7, 3))], 0.01)
    assert v.p_value is not None and v.p_value < 1e-15
    none = repeats_verdict("all", "all", "hand", 100, [Repeats(4950, 0, hand_chance(3))], 0.01)
    assert none.p_value == 1.0


def test_a_spooled_run_judges_and_reads_back_as_the_verdicts_judged_in_memory() -> None:
    """docs/fairness.md, "Speed": a run's tests go to disk a batch at a time with only their
    p-values held for Holm; read back (twice), they are the tests judged all together, the
    flagged ones among them, and the too-few ones' needs counted."""
    from loo_replay.fairness.spool import Spool

    made = [
        bernoulli_verdict(
            "dealer-hand",
            "session",
            f"s{i}",
            (("player", "dan"), ("measure", "top trump")),
            Bernoulli(hits, {3 / 51: deals}),
            0.01,
            "{observed} {expected}",
        )
        for i, (hits, deals) in enumerate([(30, 80), (5, 80), (3, 12), (40, 90), (1, 19)])
    ]
    spool = Spool(0.01)
    spool.add(made[:2])
    spool.add([])
    spool.add(made[2:])
    spool.judge()
    in_memory = judge(list(made), 0.01)
    assert list(spool) == in_memory
    assert list(spool) == in_memory  # read again from the start
    assert spool.flagged == [v for v in in_memory if v.flagged]
    assert [v.group for v in spool.flagged] == ["s0", "s3"]
    assert spool.tests == 5 and len(spool.p_values) == 3
    assert spool.needs == {"dealer-hand": (20, 19)}
