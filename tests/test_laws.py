"""The probability laws of the fairness tests and the collusion screen (docs/fairness.md,
"The distributions"): SciPy's figures where SciPy is exact, exact rational arithmetic or
50-digit decimals where it is not."""

from __future__ import annotations

import itertools
import math
from decimal import Decimal, getcontext
from fractions import Fraction
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from loo_replay import laws

TIGHT = 1e-11  # relative: the recurrences round once a term, over a few thousand terms
SIZES = [1, 2, 3, 7, 20, 50, 333, 4_000, 60_000, 1_000_000]
CHANCES = [3 / 51, 5 / 51, 8 / 52, 0.25, 0.5, 0.01, 0.93]


def close(ours: float, exact: float) -> bool:
    """Equal to TIGHT, or both below what the tests' verdicts could ever tell apart."""
    return math.isclose(ours, exact, rel_tol=TIGHT) or max(ours, exact) < 1e-280


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("p", CHANCES)
def test_binomial_tails_and_quantiles_are_scipys(n: int, p: float, stats: Any) -> None:
    law = laws.binomial(n, p)
    sd = math.sqrt(n * p * (1 - p))
    for k in sorted({0, 1, n, *(round(n * p + z * sd) for z in (-30, -8, -2, 0, 1, 3, 9, 30))}):
        if 0 <= k <= n:
            assert close(law.at_least(k), stats.binom.sf(k - 1, n, p)), k
    for q in (0.0005, 0.005, 0.025, 0.2, 0.5, 0.8, 0.975, 0.995, 0.9995):
        assert law.quantile(q) == stats.binom.ppf(q, n, p), q


@pytest.mark.parametrize("mean", [1e-60, 1e-6, 0.3, 1.0, 2.5, 17.2, 400.0, 25_000.0])
def test_poisson_tails_and_quantiles_are_scipys(mean: float, stats: Any) -> None:
    law = laws.poisson(mean)
    sd = math.sqrt(mean)
    for k in sorted({1, 2, 5, *(math.ceil(mean + z * sd) for z in (-6, -1, 0, 2, 7, 25))}):
        if k >= 1:
            assert close(law.at_least(k), stats.poisson.sf(k - 1, mean)), k
    for q in (0.005, 0.025, 0.5, 0.975, 0.995):
        assert law.quantile(q) == stats.poisson.ppf(q, mean), q


def test_a_poisson_tail_of_a_large_mean_is_exact_where_scipys_is_not(stats: Any) -> None:
    """Repeated hands in a large database have a mean in the millions.  There SciPy's
    ``poisson.sf`` is off in the seventh digit; the sum is right to the twelfth, checked
    against 50-digit decimals."""
    getcontext().prec = 50
    mean, k = Decimal(10**6), 1_006_942
    two_pi = 2 * Decimal("3.14159265358979323846264338327950288419716939937510")
    log_factorial = (
        k * Decimal(k).ln()
        - k
        + (two_pi * k).ln() / 2
        + 1 / Decimal(12 * k)
        - 1 / Decimal(360 * k**3)
    )
    term, total, x = (-mean + k * mean.ln() - log_factorial).exp(), Decimal(0), k
    while term > total * Decimal("1e-40"):
        total, x = total + term, x + 1
        term = term * mean / x
    ours = laws.poisson(1e6).at_least(k)
    assert math.isclose(ours, float(total), rel_tol=TIGHT)
    assert not math.isclose(stats.poisson.sf(k - 1, 1e6), float(total), rel_tol=1e-8)


def exact_sum_law(trials: dict[Fraction, int]) -> list[Fraction]:
    """P(S = s) for every s, in fractions: one trial at a time."""
    law = [Fraction(1)]
    for p, n in trials.items():
        for _ in range(n):
            law = [
                (law[s] if s < len(law) else 0) * (1 - p) + (law[s - 1] * p if s else 0)
                for s in range(len(law) + 1)
            ]
    return law


@pytest.mark.parametrize(
    "trials",
    [
        {Fraction(3, 51): 30, Fraction(5, 51): 12},
        {Fraction(1, 10): 3, Fraction(1, 5): 2, Fraction(3, 10): 7},
        {Fraction(3, 51): 200, Fraction(5, 51): 150, Fraction(13, 51): 9},
    ],
)
def test_a_sum_of_binomials_is_exact_to_its_far_tail(trials: dict[Fraction, int]) -> None:
    """Dealers of different hand sizes: the Poisson binomial.  SciPy's ``poisson_binom.sf``
    is 1 minus its distribution function, exact only to 1e-16 in all; this is exact to the
    last digits all the way out."""
    exact = exact_sum_law(trials)
    law = laws.binomial_sum({float(p): n for p, n in trials.items()})
    for k in range(len(exact)):
        assert close(law.at_least(k), float(sum(exact[k:]))), k


def test_chi_square_tails_are_scipys(stats: Any) -> None:
    for df in [*range(1, 40), 77, 120, 251, 300]:
        for x in (1e-9, 0.3, df / 3, df - 1.5, float(df), df + 3 * math.sqrt(df), 4.0 * df, 900.0):
            assert close(laws.chi_square_above(x, df), stats.chi2.sf(x, df)), (df, x)
    assert laws.chi_square_above(0.0, 5) == 1.0


def test_hypergeometric_tails_are_the_ratio_of_the_counts_of_hands(stats: Any) -> None:
    """Of the 51 cards beside the turn-up: hands holding a top-three trump, or two trumps."""
    for hand, marked, k in itertools.product((3, 5, 13), (3, 12), (1, 2)):
        ours = laws.hypergeometric_at_least(k, 51, marked, hand)
        hands = itertools.combinations(range(51), hand) if hand < 13 else None
        if hands is not None:
            count = sum(sum(c < marked for c in h) >= k for h in hands)
            assert ours == count / math.comb(51, hand)
        assert math.isclose(ours, stats.hypergeom.sf(k - 1, 51, marked, hand), rel_tol=1e-13)


@given(
    st.integers(1, 5_000),
    st.floats(0.001, 0.999),
    st.floats(0.001, 0.999),
)
def test_a_quantile_is_the_least_value_whose_distribution_function_reaches_it(
    n: int, p: float, q: float
) -> None:
    law = laws.binomial(n, p)
    k = law.quantile(q)
    below = law.mass[: k - law.low].sum()
    assert below < q + 1e-12 and q <= below + law.mass[k - law.low] + 1e-12  # ties: rounding


@given(st.integers(0, 3_000), st.floats(0.0, 1.0))
def test_a_law_sums_to_one_and_holds_its_mean(n: int, p: float) -> None:
    law = laws.binomial(n, p)
    values = np.arange(law.low, law.low + len(law.mass))
    assert law.mass.sum() == pytest.approx(1.0, abs=1e-12)
    assert float(values @ law.mass) == pytest.approx(n * p, rel=1e-9, abs=1e-9)
    assert law.at_least(law.low) == pytest.approx(1.0, abs=1e-12) and law.at_least(n + 1) == 0.0


def test_a_sum_keeps_only_the_values_a_double_holds() -> None:
    """A million trials' law spans 80 standard deviations, not a million values."""
    law = laws.binomial_sum({3 / 51: 10**6, 5 / 51: 10**6})
    assert law.mass[0] > 0 and law.mass[-1] > 0
    assert len(law.mass) < 80 * math.sqrt(10**6 * (3 / 51 + 5 / 51))


def test_a_sum_drops_exactly_the_underflowed_ends_whatever_their_length() -> None:
    """The ends are found by looking in stretches from each end, not over the whole sum;
    what is kept is what a scan of every term keeps, bit for bit."""
    for a, b in (
        (laws.binomial(10**6, 0.3), laws.binomial(10**6, 0.2)),  # long runs of zeros
        (laws.binomial(40, 0.5), laws.binomial(3, 0.5)),  # none
        (laws.binomial(10**5, 0.01), laws.CERTAIN_ZERO),
    ):
        whole = np.convolve(a.mass, b.mass)
        held = np.flatnonzero(whole)
        law = a.plus(b)
        assert law.low == a.low + b.low + int(held[0])
        assert np.array_equal(law.mass, whole[held[0] : held[-1] + 1])
