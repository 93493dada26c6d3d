"""The one test behind every behaviour: a stratified exact test of a player's conduct
toward one tablemate against their conduct toward the others (docs/collusion.md, "The tests").

Each stratum is a 2x2 table: the owner's opportunities in one comparable situation, split
by whether the tablemate is the one concerned, and whether the owner acted.  Under the null
(the owner treats every tablemate alike in that situation), with the stratum's margins
fixed, the tablemate's acts follow a hypergeometric law; the statistic is their sum over
the strata, and its exact law is the convolution of those laws (the exact conditional test
of Mantel and Haenszel's setting, one-sided: more acts than the others get).  A stratum
where the owner always or never acted, or with no other tablemate, says nothing and drops
out; what is left are the comparable opportunities.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from loo_replay.laws import CERTAIN_ZERO, Law

SMALLEST_P = 1e-300  # a p-value below what a double holds is reported as this


@dataclass(frozen=True)
class Stratum:
    """One comparable situation: ``total`` opportunities with ``acts`` acts, of which
    ``mine`` concern the tablemate tested, with ``my_acts`` acts."""

    total: int
    acts: int
    mine: int
    my_acts: int

    @property
    def informative(self) -> bool:
        return 0 < self.mine < self.total and 0 < self.acts < self.total


@dataclass(frozen=True)
class Result:
    opportunities: int  # comparable ones: in strata that can say something
    acts: int
    expected: float  # the acts the owners' conduct toward the others gives
    variance: float
    p_value: float | None  # None: nothing comparable

    @property
    def statistic(self) -> float:
        """The standardized excess of acts, (observed - expected) / sd: a size, not the test."""
        if self.variance <= 0:
            return 0.0
        return (self.acts - self.expected) / math.sqrt(self.variance)


def stratified_test(strata: Iterable[Stratum]) -> Result:
    """P(S >= s) for S the tablemate's acts summed over the informative strata."""
    law = CERTAIN_ZERO
    opportunities = acts = 0
    expected = variance = 0.0
    for s in strata:
        if not s.informative:
            continue
        opportunities += s.mine
        acts += s.my_acts
        total, k, n = s.total, s.acts, s.mine
        lo, hi = max(0, n + k - total), min(n, k)
        expected += n * k / total
        variance += n * k * (total - k) * (total - n) / (total * total * (total - 1))
        law = law.plus(Law(hypergeometric(total, k, n, lo, hi), lo))
    if not opportunities:
        return Result(0, 0, 0.0, 0.0, None)
    tail = law.at_least(acts)
    return Result(opportunities, acts, expected, variance, max(tail, SMALLEST_P))


def hypergeometric(total: int, acts: int, drawn: int, lo: int, hi: int) -> np.ndarray:
    """P(X = x) for x = lo..hi, X the acts among ``drawn`` of ``total`` opportunities of
    which ``acts`` were acts: the term at the mode from log-factorials, the others by the
    ratio of successive terms outward (far tails underflow to 0, the mode never does).  A
    stratum's support is a few values; SciPy's ``hypergeom.pmf`` costs a thousand times
    more a call, which a million deals' strata would feel."""

    def log_choose(a: int, b: int) -> float:
        return math.lgamma(a + 1) - math.lgamma(b + 1) - math.lgamma(a - b + 1)

    mode = min(hi, max(lo, (drawn + 1) * (acts + 1) // (total + 2)))
    peak = math.exp(
        log_choose(acts, mode) + log_choose(total - acts, drawn - mode) - log_choose(total, drawn)
    )
    # Each side in a list, then placed once: setting a NumPy array a term at a time cost
    # a third of the loop over a million deals' strata.
    rest = total - acts - drawn
    above: list[float] = []
    term = peak  # each loop stops where a term underflows: the terms beyond are 0 too
    for x in range(mode, hi):
        term = term * (drawn - x) * (acts - x) / ((x + 1) * (rest + x + 1))
        if not term:
            break
        above.append(term)
    below: list[float] = []
    term = peak
    for x in range(mode, lo, -1):
        term = term * x * (rest + x) / ((drawn - x + 1) * (acts - x + 1))
        if not term:
            break
        below.append(term)
    out = np.zeros(hi - lo + 1)
    at = mode - lo
    out[at - len(below) : at] = below[::-1]
    out[at] = peak
    out[at + 1 : at + 1 + len(above)] = above
    return out
