"""A collusion screen: every pair that sat together, each behaviour's test, judged together.

For the unordered pair {A, B}, a test's strata are A's comparable situations concerning B
against A's concerning the others, and B's concerning A against B's concerning the others:
both directions in one stratified exact test (``stats``).  Holm's adjustment runs over every
tested test of the run, as the fairness tests' does; a pair is flagged when any of its tests
is adjusted below alpha.  The words say what was seen and how unlikely it is among
independent players: a pattern, never a verdict on the people (docs/collusion.md).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, replace
from typing import Any

import duckdb

from loo_replay.collusion.opportunities import TESTS, Counts, count
from loo_replay.collusion.stats import Result, Stratum, stratified_test
from loo_replay.db.content import Covers, covered
from loo_replay.db.errors import DatabaseError, damage
from loo_replay.fairness.holm import holm

# The fewest comparable opportunities a test is judged on: fewer leave an exact test too
# little to find against Holm's threshold over a run's tests, and a share of a handful of
# events is no evidence a committee could weigh.
NEEDED = 20
TESTED, TOO_FEW, NO_OPPORTUNITIES = "tested", "too_few", "no_opportunities"
UNLIKELY = "a pattern unlikely among independent players"
ACTS_LISTED = 200  # the deals behind one pair's flags that a page lists and replays
CONSISTENT = "consistent with independent play"


@dataclass(frozen=True)
class Test:
    test: str
    pair: tuple[str, str]
    status: str
    result: Result
    message: str
    p_adjusted: float | None = None
    flagged: bool = False

    def as_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "test": self.test,
            "status": self.status,
            "opportunities": self.result.opportunities,
            "needed": NEEDED,
        }
        if self.status == TESTED:
            r = self.result
            out |= {
                "statistic": round(r.statistic, 4),
                "p_value": r.p_value,
                "p_adjusted": self.p_adjusted,
                "flagged": self.flagged,
                "observed": r.acts / r.opportunities,
                "expected": r.expected / r.opportunities,
            }
        else:
            out["flagged"] = False
        out["message"] = self.message
        return out


@dataclass(frozen=True)
class Pair:
    pair: tuple[str, str]
    deals: int
    tests: tuple[Test, ...]

    @property
    def flagged(self) -> bool:
        return any(t.flagged for t in self.tests)

    def as_json(self) -> dict[str, Any]:
        return {
            "pair": list(self.pair),
            "deals": self.deals,
            "flagged": self.flagged,
            "tests": [t.as_json() for t in self.tests],
        }


@dataclass(frozen=True)
class Report:
    alpha: float
    deals: int
    pairs: tuple[Pair, ...]
    analysed_here: int = 0  # deals loaded without the analysis, analysed for the screen
    not_analysed: int = 0  # such deals that could not be: no thrown tricks counted
    covers: Covers | None = None  # the database's sessions and deals, at its content version

    @property
    def flagged(self) -> list[Pair]:
        return [p for p in self.pairs if p.flagged]

    def tests(self) -> list[Test]:
        return [t for p in self.pairs for t in p.tests]

    @property
    def judged(self) -> int:
        """The tests that had their opportunities and so a p-value (docs/collusion.md)."""
        return sum(t.status == TESTED for t in self.tests())

    def as_json(self) -> dict[str, Any]:
        """docs/collusion.md, "The JSON"."""
        return {
            "alpha": self.alpha,
            "deals": self.deals,
            "analysed_here": self.analysed_here,
            "not_analysed": self.not_analysed,
            "judged": self.judged,
            **({} if self.covers is None else {"covers": self.covers.as_json()}),
            "pairs": [p.as_json() for p in self.pairs],
        }


def screen(con: duckdb.DuckDBPyConnection, alpha: float) -> Report:
    """Every pair's tests over the database, Holm-adjusted together; a query DuckDB cannot
    run (out of memory, say) is a ``DatabaseError``."""
    try:
        counts = count(con)
    except duckdb.Error as exc:
        raise DatabaseError(f"the collusion counts failed: {damage(str(exc))}") from None
    return replace(judge(counts, alpha), covers=covered(con))


def judge(counts: Counts, alpha: float) -> Report:
    totals = {(t, o, s): (n, k) for t, o, s, n, k in counts.totals}
    strata: dict[tuple[str, str, str], list[Stratum]] = defaultdict(list)
    for test, owner, target, stratum, mine, my_acts in counts.by_target:
        total, acts = totals[(test, owner, stratum)]
        strata[(test, owner, target)].append(Stratum(total, acts, mine, my_acts))
    pairs: list[tuple[tuple[str, str], int, list[Test]]] = []
    for a, b, deals, closed in counts.pairs:
        tests = []
        for test in TESTS:
            both = strata.get((test, a, b), []) + strata.get((test, b, a), [])
            tests.append(_test(test, (a, b), stratified_test(both), closed))
        pairs.append(((a, b), deals, tests))
    tested = [t for _, _, ts in pairs for t in ts if t.status == TESTED]
    adjusted = dict(
        zip(map(id, tested), holm([t.result.p_value or 1.0 for t in tested]), strict=True)
    )
    judged = tuple(
        Pair(pair, deals, tuple(_judged(t, adjusted.get(id(t)), alpha) for t in tests))
        for pair, deals, tests in pairs
    )
    return Report(alpha, counts.deals, judged, counts.analysed_here, counts.not_analysed)


def _test(test: str, pair: tuple[str, str], r: Result, closed: bool) -> Test:
    if r.opportunities == 0 and test == "not-beating" and closed:
        why = (
            "no opportunities: the rules of every deal they shared made a player who could "
            "beat the trick do so (heading, over-trumping), so letting a card hold was never "
            "a choice"
        )
        return Test(test, pair, NO_OPPORTUNITIES, r, why)
    if r.opportunities < NEEDED:
        return Test(
            test,
            pair,
            TOO_FEW,
            r,
            f"too few opportunities: {r.opportunities} comparable of the {NEEDED} this test needs",
        )
    return Test(test, pair, TESTED, r, _finding(test, pair, r))


def _finding(test: str, pair: tuple[str, str], r: Result) -> str:
    a, b = pair
    n, seen, expected = r.opportunities, r.acts / r.opportunities, r.expected / r.opportunities
    return {
        "gift-tricks": f"of the {n} tricks one of {a} and {b} threw away with the other in "
        f"the trick, the other took {seen:.0%}; from their other tablemates' throws "
        f"{expected:.0%} would be expected",
        "stepping-aside": f"in {n} declarations after the other had stood, {a} or {b} passed "
        f"{seen:.0%} of the time; with others standing and hands as strong, {expected:.0%}",
        "not-beating": f"in {n} tricks the other held while {a} or {b} could beat it or not, "
        f"they let it hold {seen:.0%} of the time; against their other tablemates' cards "
        f"{expected:.0%}",
        "loo-saving": f"of the {n} tricks one of {a} and {b} threw away while the other had "
        f"no trick yet, the other took {seen:.0%}; from other throws {expected:.0%} "
        "would be expected",
    }[test]


def _judged(t: Test, p_adjusted: float | None, alpha: float) -> Test:
    if p_adjusted is None or t.result.p_value is None:
        return t
    flagged = p_adjusted < alpha
    words = UNLIKELY if flagged else CONSISTENT
    odds = f"p = {t.result.p_value:.2g}, adjusted {p_adjusted:.2g}"
    return replace(
        t, p_adjusted=p_adjusted, flagged=flagged, message=f"{t.message} ({words}, {odds})"
    )
