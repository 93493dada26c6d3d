"""The probability laws behind the fairness tests and the collusion screen: binomial and
its sums, Poisson, hypergeometric and chi-square tails and quantiles (docs/fairness.md,
"The distributions").

Each discrete law is held as the probability of every value a double can hold, built from
its mode outward by the ratio of successive terms and normalized; a tail is a sum of
those terms, a quantile a search in their running sum.  No approximation: the figures are
SciPy's to the last digits or so (the tests check them against SciPy), without the second
that importing ``scipy.stats`` costs every command (docs/performance.md, "Start-up").
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Mapping
from typing import NamedTuple

import numpy as np


class Law(NamedTuple):
    """P(X = low + i) = mass[i]; the values beyond either end have a probability that
    underflows a double."""

    mass: np.ndarray
    low: int

    def at_least(self, k: int) -> float:
        """P(X >= k)."""
        return min(1.0, float(self.mass[max(k - self.low, 0) :].sum()))

    def quantile(self, q: float) -> int:
        """The least k with P(X <= k) >= q (SciPy's ``ppf``), for 0 < q < 1.  Above the
        median, read from the upper tail, where the running sum keeps its precision."""
        if q <= 0.5:
            return self.low + int(np.searchsorted(np.cumsum(self.mass), q))
        above = np.cumsum(self.mass[::-1])[::-1][1:]  # above[i] = P(X > low + i)
        return self.low + int(np.searchsorted(-above, q - 1))

    def plus(self, other: Law) -> Law:
        """The law of the sum of two independent values, without the ends that underflowed
        to 0.  Those zeros change no sum, but a sum of n trials spans n values where its
        mass (above 1e-308) spans some 80 standard deviations, about 40 sqrt(n): convolving
        the full spans would cost the square of the trials (docs/performance.md, "The
        collusion screen")."""
        mass = np.convolve(self.mass, other.mass)
        first, last = _held(mass), len(mass) - 1 - _held(mass[::-1])
        return Law(mass[first : last + 1], self.low + other.low + first)


CERTAIN_ZERO = Law(np.ones(1), 0)


def _held(mass: np.ndarray) -> int:
    """The index of the first term above 0 (a law has one), looked for in stretches that
    double from the start: the underflowed ends are short, and scanning the whole of a
    million deals' laws for them cost more than the sum."""
    start, size = 0, 64
    while start < len(mass):
        found = np.flatnonzero(mass[start : start + size])
        if found.size:
            return start + int(found[0])
        start, size = start + size, size * 2
    return 0  # no term held (never a law): kept whole


Ratio = Callable[[np.ndarray], np.ndarray]


def outward(mode: int, low: int, high: int | None, up: Ratio, down: Ratio) -> Law:
    """The law on low..high (no end: None) whose term at ``x + 1`` is the one at ``x`` times
    ``up(x)``, and at ``x - 1`` times ``down(x)``: from its mode outward, each side until a
    term underflows (the terms beyond are smaller still), then normalized."""
    right = _side(mode, high, 1, up)
    left = _side(mode, low, -1, down)
    mass = np.concatenate((left[::-1], np.ones(1), right))
    return Law(mass / mass.sum(), mode - len(left))


def _side(mode: int, end: int | None, step: int, ratio: Ratio) -> np.ndarray:
    """The terms after the mode's (1) toward ``end``, in chunks that double, as running
    products of the ratios: a million-deal law's side spans some hundred thousand terms."""
    chunks = []
    term, x, size = 1.0, mode, 256
    while x != end:
        stop = x + step * size
        if end is not None:
            stop = min(stop, end) if step > 0 else max(stop, end)
        terms = term * np.cumprod(ratio(np.arange(x, stop, step)))
        underflow = np.flatnonzero(terms == 0.0)
        if underflow.size:
            chunks.append(terms[: underflow[0]])
            break
        chunks.append(terms)
        term, x, size = float(terms[-1]), stop, size * 2
    return np.concatenate(chunks) if chunks else np.empty(0)


def binomial(n: int, p: float) -> Law:
    """Successes in ``n`` independent trials of chance ``p``."""
    if n == 0 or p <= 0.0:
        return CERTAIN_ZERO
    if p >= 1.0:
        return Law(np.ones(1), n)
    odds = p / (1.0 - p)
    return outward(
        min(n, math.floor((n + 1) * p)),
        0,
        n,
        lambda x: (n - x) / (x + 1) * odds,
        lambda x: x / (n - x + 1) / odds,
    )


def binomial_sum(trials: Mapping[float, int]) -> Law:
    """Successes in independent trials, ``trials[p]`` of them with chance ``p``: the
    binomial, or where the chances differ the Poisson binomial, as the sum of binomials,
    added in the order of their chances: the last bits of a sum of floats depend on its
    order, and ``trials`` is filled in the order the database returned its rows, which no
    query fixes (docs/fairness.md, "Same counts, same figures")."""
    law = CERTAIN_ZERO
    for p, n in sorted(trials.items()):
        law = law.plus(binomial(n, p))
    return law


@functools.lru_cache(maxsize=1024)  # the sessions of a fairness run share their means
def poisson(mean: float) -> Law:
    if mean <= 0.0:
        return CERTAIN_ZERO
    return outward(math.floor(mean), 0, None, lambda x: mean / (x + 1), lambda x: x / mean)


def hypergeometric_at_least(k: int, total: int, marked: int, drawn: int) -> float:
    """P(at least ``k`` of ``drawn`` cards are marked), drawn from ``total`` of which
    ``marked`` are: a ratio of whole numbers, exact, rounded once."""
    ways = sum(
        math.comb(marked, j) * math.comb(total - marked, drawn - j) for j in range(k, drawn + 1)
    )
    return ways / math.comb(total, drawn)


def chi_square_above(x: float, df: int) -> float:
    """P(chi-square with ``df`` degrees of freedom > x): the upper incomplete gamma of
    df / 2 at x / 2 in its closed form for whole and half-whole orders, a Poisson sum
    (plus the complementary error function for an odd ``df``)."""
    if x <= 0.0:
        return 1.0
    h = x / 2
    j = 0.5 * (df % 2)
    total = math.erfc(math.sqrt(h)) if df % 2 else 0.0
    while j < df / 2:
        total += math.exp(j * math.log(h) - h - math.lgamma(j + 1))
        j += 1
    return min(total, 1.0)
