"""The six tests of fair dealing (docs/fairness.md, "The six tests") on counts, and Holm's adjustment.

Pure: the counts come in as plain data (``counts.py`` gathers them with SQL),
verdicts go out as frozen ``Verdict``s.  Every p-value is an exact tail of its law
(binomial, Poisson binomial, chi-square, Poisson: ``loo_replay.laws``).  The null hypothesis throughout: each deal is a uniformly
random deal of the pack to the seats, the Miss and the turn-up, independent
of the deal before.  Where a deal has a turn-up, the other 51 cards are
uniform given it, so "fair dealing gives" the figures below exactly.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import MISSING, dataclass, fields
from typing import Any

import numpy as np

from loo_replay import laws
from loo_replay.fairness.holm import holm

TESTS = ("cards-to-seats", "dealer-hand", "turn-up", "dealer-friend", "shuffle", "repeated-deal")
CHI_SQUARE_CELL = 5.0  # the least expected count a chi-square cell may have
MIN_DEALS = {  # the fewest deals a test is computed on (docs/fairness.md, "The six tests": "too few deals")
    "cards-to-seats": 100,
    "dealer-hand": 20,
    "turn-up": 20,
    "dealer-friend": 20,
    "shuffle": 30,
    "repeated-deal": 2,
}
CLASSES = ("top", "ace", "court", "other")  # rank classes of cards-to-seats, disjoint
CLASS_WORDS = {"top": "top trumps", "ace": "aces", "court": "court cards", "other": "low cards"}
SUIT_WORDS = {"S": "spades", "H": "hearts", "D": "diamonds", "C": "clubs"}


@dataclass(frozen=True)
class Verdict:
    """One test on one subject: its statistic, p-value and, after Holm, whether flagged."""

    test: str
    scope: str  # "all", "session" or "venue"
    group: str  # the session id, the venue, or "all"
    subject: tuple[tuple[str, str], ...]  # e.g. (("player", "dan"), ("measure", "top trump"))
    deals: int
    min_deals: int
    statistic: float | None = None
    df: int | None = None
    p_value: float | None = None
    observed: float | None = None  # a rate (a share of deals, cards or pairs)
    expected: float | None = None  # what fair dealing gives
    band: tuple[float, float] | None = None  # the rates fair dealing allows at the run's alpha
    finding: str = ""  # what was observed, in words, without the verdict
    p_adjusted: float | None = None
    flagged: bool = False
    message: str = ""

    @property
    def too_few(self) -> bool:
        return self.p_value is None


def amended(v: Verdict, **changes: object) -> Verdict:
    """``v`` with ``changes``: ``dataclasses.replace`` without its walk over the fields and
    its ``__init__`` (a run over 10,000 sessions makes 720,000 verdicts twice over, and
    ``replace`` was a tenth of its time; docs/fairness.md, "Speed")."""
    return _made(v.__dict__, changes)


_DEFAULTS = {f.name: f.default for f in fields(Verdict) if f.default is not MISSING}


def new_verdict(
    test: str,
    scope: str,
    group: str,
    subject: tuple[tuple[str, str], ...],
    deals: int,
    **found: object,
) -> Verdict:
    """``Verdict(test, scope, group, subject, deals, MIN_DEALS[test], **found)``, made as
    ``amended`` makes one, without the frozen ``__init__``'s setattr a field."""
    return _made(
        _DEFAULTS,
        {
            "test": test, "scope": scope, "group": group, "subject": subject,
            "deals": deals, "min_deals": MIN_DEALS[test], **found,
        },
    )  # fmt: skip


def _made(base: Mapping[str, object], changes: Mapping[str, object]) -> Verdict:
    new = object.__new__(Verdict)
    new.__dict__.update(base)
    new.__dict__.update(changes)
    return new


# -- the distributions ---------------------------------------------------------------


def binomial_greater(hits: int, trials: Mapping[float, int]) -> float:
    """P(at least ``hits`` successes) for independent trials, ``trials[p]`` of them with
    chance ``p``: exact binomial, or the Poisson binomial when the chances differ."""
    if hits <= 0:
        return 1.0
    return laws.binomial_sum(trials).at_least(hits)


@functools.lru_cache(maxsize=4096)  # the sessions of a run share their sizes and chances
def binomial_band(n: int, p: float, alpha: float) -> tuple[float, float]:
    """The central 1 - alpha range of a binomial rate: the funnel's walls at ``n``."""
    if n <= 0:
        return (0.0, 1.0)
    law = laws.binomial(n, p)
    return (law.quantile(alpha / 2) / n, law.quantile(1 - alpha / 2) / n)


def chi_square(
    observed: Sequence[float], expected: Sequence[float], df: int
) -> tuple[float, float]:
    """Pearson's statistic over the cells and its chi-square p-value with ``df``."""
    o, e = np.asarray(observed, dtype=float), np.asarray(expected, dtype=float)
    statistic = float(((o - e) ** 2 / e).sum())
    return statistic, laws.chi_square_above(statistic, df)


# -- the tests ---------------------------------------------------------------------


class Bernoulli:
    """Deals in which something happened (``hits``) of ``trials[p]`` deals with fair chance p.
    A plain class: a run makes 550,000, and a frozen dataclass's fields, or a cached
    property, cost more than the test (docs/fairness.md, "Speed")."""

    __slots__ = ("deals", "hits", "trials")

    def __init__(self, hits: int, trials: Mapping[float, int]) -> None:
        self.hits = hits
        self.trials = trials
        self.deals = sum(trials.values())

    @property
    def expected(self) -> float:
        return math.fsum(p * n for p, n in self.trials.items()) / max(self.deals, 1)  # any order


def bernoulli_verdict(
    test: str,
    scope: str,
    group: str,
    subject: tuple[tuple[str, str], ...],
    counts: Bernoulli,
    alpha: float,
    describe: str,
) -> Verdict:
    """A one-sided exact test that something good for a player happens too often.

    ``describe`` is the finding with ``{observed}`` and ``{expected}`` left to fill."""
    n = counts.deals
    if n < MIN_DEALS[test]:
        return new_verdict(test, scope, group, subject, n)
    rate, fair = counts.hits / n, counts.expected
    return new_verdict(
        test,
        scope,
        group,
        subject,
        n,
        statistic=float(counts.hits),
        p_value=binomial_greater(counts.hits, counts.trials),
        observed=rate,
        expected=fair,
        band=binomial_band(n, fair, alpha),
        finding=describe.format(observed=f"{rate:.0%}", expected=f"{fair:.0%}"),
    )


@dataclass(frozen=True)
class Table:
    """Cells of one chi-square test: observed and expected counts, the degrees of freedom,
    each cell's name and the total it is a share of (for the rate shown)."""

    observed: Sequence[float]
    expected: Sequence[float]
    df: int
    names: Sequence[str]
    totals: Sequence[float]


def chi_square_verdict(
    test: str,
    scope: str,
    group: str,
    subject: tuple[tuple[str, str], ...],
    deals: int,
    table: Table,
    alpha: float,
) -> Verdict:
    """Pearson's chi-square; the finding names the cell furthest from fair dealing."""
    if deals < MIN_DEALS[test] or table.df < 1 or not table.observed:
        return new_verdict(test, scope, group, subject, deals)
    statistic, p = chi_square(table.observed, table.expected, table.df)
    o, e = np.asarray(table.observed, float), np.asarray(table.expected, float)
    worst = int(np.argmax((o - e) ** 2 / e))
    total = table.totals[worst]
    rate, fair = o[worst] / total, e[worst] / total
    return new_verdict(
        test,
        scope,
        group,
        subject,
        deals,
        statistic=statistic,
        df=table.df,
        p_value=p,
        observed=float(rate),
        expected=float(fair),
        band=binomial_band(round(total), float(fair), alpha),
        finding=f"{table.names[worst]} {rate:.1%}; fair dealing gives {fair:.1%}",
    )


def too_small(cells: Iterable[float]) -> bool:
    return any(e < CHI_SQUARE_CELL for e in cells)


@dataclass(frozen=True)
class SeatCounts:
    """cards-to-seats for one kind of deal (seated, hand size, Miss?, turn-up?).

    ``dealt[(class, position)]`` counts the cards of a class dealt to a position
    (0 = the eldest … seated-1 = the dealer, seated = the Miss); ``totals[class]``
    the cards of the class over the deals, outside the turn-up."""

    seated: int
    hand: int
    miss: bool
    turn_up: bool
    deals: int
    dealt: Mapping[tuple[str, int], int]
    totals: Mapping[str, int]


def position_name(position: int, seated: int) -> str:
    if position == seated:
        return "the Miss"
    if position == seated - 1:
        return "the dealer's hand"
    if position < 0:
        return "the stock"
    return (
        "the eldest's hand" if position == 0 else f"the hand {position + 1} seats from the dealer"
    )


def seats_table(kinds: Iterable[SeatCounts]) -> tuple[int, Table]:
    """The classes × positions tables of every kind of deal with enough deals, as one
    chi-square: each table has both margins fixed by the deal, (R-1)(C-1) df."""
    observed: list[float] = []
    expected: list[float] = []
    names: list[str] = []
    totals: list[float] = []
    df = deals = 0
    for k in kinds:
        pack = 51 if k.turn_up else 52
        positions = list(range(k.seated + (1 if k.miss else 0)))
        sizes = {p: k.hand for p in positions}
        sizes[-1] = pack - k.hand * len(positions)  # the stock
        classes = [c for c in CLASSES if k.totals.get(c, 0) > 0]
        cells = [(c, p) for c in classes for p in sizes]
        e = [k.totals[c] * sizes[p] / pack for c, p in cells]
        if len(classes) < 2 or too_small(e):
            continue
        for (c, p), ec in zip(cells, e, strict=True):
            held = (
                k.dealt.get((c, p), 0)
                if p >= 0
                else k.totals[c] - sum(k.dealt.get((c, q), 0) for q in positions)
            )
            observed.append(held)
            expected.append(ec)
            names.append(f"share of the {CLASS_WORDS[c]} in {position_name(p, k.seated)}:")
            totals.append(k.totals[c])
        df += (len(classes) - 1) * (len(sizes) - 1)
        deals += k.deals
    return deals, Table(observed, expected, df, names, totals)


def turn_up_table(suits: Mapping[str, int], when: str = "") -> Table:
    """The turn-up's suit against a quarter each (3 df); ``when`` words whose deals."""
    n = sum(suits.values())
    return Table(
        [suits.get(s, 0) for s in SUIT_WORDS],
        [n / 4] * 4,
        3,
        [f"{w} turned up{when} in" for w in SUIT_WORDS.values()],
        [n] * 4,
    )


@dataclass(frozen=True)
class ShuffleCounts:
    """Pairs of cards played one after the other in a deal and both dealt (to a hand or
    the Miss) in the next, by their seat distance there, for ``places`` places (seats and
    the Miss) of ``hand`` cards."""

    places: int
    hand: int
    distances: Mapping[int, int]


def shuffle_table(kinds: Iterable[ShuffleCounts]) -> tuple[int, Table]:
    """Seat distances against the uniform deal: a card's neighbour is one of the other
    places·hand - 1 cards dealt, hand - 1 of them in its own place (distance 0)."""
    observed: list[float] = []
    expected: list[float] = []
    names: list[str] = []
    totals: list[float] = []
    df = pairs = 0
    for k in kinds:
        n = sum(k.distances.values())
        others = k.places * k.hand - 1
        fair = [(k.hand - 1) / others] + [k.hand / others] * (k.places - 1)
        e = [n * f for f in fair]
        if too_small(e):
            continue
        for d, ed in enumerate(e):
            observed.append(k.distances.get(d, 0))
            expected.append(ed)
            where = "the same place" if d == 0 else f"{d} seat{'s' if d > 1 else ''} apart"
            names.append(f"cards played one after the other dealt to {where} next deal:")
            totals.append(n)
        df += k.places - 1
        pairs += n
    return pairs, Table(observed, expected, df, names, totals)


@dataclass(frozen=True)
class Repeats:
    """Of ``pairs`` pairs of hands (or of whole deals) that could be equal, how many are;
    ``chance`` is the chance that one pair is equal under fair dealing."""

    pairs: int
    equal_pairs: int
    chance: float


def hand_chance(hand: int) -> float:
    """Two hands of different deals are equal with chance 1 / C(52, hand)."""
    return 1.0 / math.comb(52, hand)


def deal_chance(places: int, hand: int) -> float:
    """Two deals hold the same ``places`` packets of ``hand`` cards (whoever got which):
    one in 52! / (hand!^places places! (52 - places·hand)!); 0.0 once it underflows."""
    log_ways = (
        math.lgamma(53)
        - places * math.lgamma(hand + 1)
        - math.lgamma(places + 1)
        - math.lgamma(52 - places * hand + 1)
    )
    return math.exp(-log_ways)


@functools.cache
def fair_chances(hand: int, trumps: int) -> dict[str, float]:
    """The chance that one given hand of ``hand`` cards, out of the 51 beside the turn-up,
    holds the top trump, one of the top three, or two trumps or more (of ``trumps``)."""
    return {
        "top trump": hand / 51,
        "one of the top three trumps": laws.hypergeometric_at_least(1, 51, 3, hand),
        "two trumps or more": laws.hypergeometric_at_least(2, 51, trumps, hand),
    }


def repeats_verdict(
    scope: str, group: str, measure: str, deals: int, counts: Sequence[Repeats], alpha: float
) -> Verdict:
    """Equal pairs against their expected number (pairs of items times the chance of a
    match): a Poisson count, the birthday problem's limit; one-sided."""
    test = "repeated-deal"
    subject = (("measure", measure),)
    if deals < MIN_DEALS[test]:
        return new_verdict(test, scope, group, subject, deals)
    seen = sum(c.equal_pairs for c in counts)
    mean = math.fsum(c.pairs * c.chance for c in counts)  # the same in any order of rows
    p = 1.0  # no repeat; a repeat where fair dealing expects none at all has p = 0
    law = laws.poisson(mean)
    if seen:
        p = law.at_least(seen)
    lo, hi = law.quantile(alpha / 2), law.quantile(1 - alpha / 2)
    what = "hands dealt twice" if measure == "hand" else "deals repeated exactly"
    found = {
        "statistic": float(seen),
        "p_value": p,
        "observed": float(seen),
        "expected": float(mean),
        "band": (float(lo), float(hi)),
        "finding": f"{seen} pairs of {what}; fair dealing gives {mean:.3g}",
    }
    return new_verdict(test, scope, group, subject, deals, **found)


# -- across tests ---------------------------------------------------------------------


def judge(verdicts: list[Verdict], alpha: float) -> list[Verdict]:
    """Holm across every test of the run with a p-value; flagged when adjusted < alpha.
    Each verdict is replaced in ``verdicts`` itself, which is returned (``verdicts.Report``
    judges a large run from its p-values alone, spooling the verdicts)."""
    tested = [(i, p) for i, v in enumerate(verdicts) if (p := v.p_value) is not None]
    adjusted = dict(zip((i for i, _ in tested), holm([p for _, p in tested]), strict=True))
    for i, v in enumerate(verdicts):
        verdicts[i] = judged(v, adjusted.get(i), alpha)
    return verdicts


def judged(v: Verdict, p_adjusted: float | None, alpha: float) -> Verdict:
    """``v`` with its Holm-adjusted p-value (None when it had too few deals), whether it is
    flagged, and its message: what was seen and how unlikely it is under fair dealing,
    nothing more."""
    return _made(v.__dict__, judgement(v.__dict__, p_adjusted, alpha))


def judgement(v: Mapping[str, Any], p_adjusted: float | None, alpha: float) -> dict[str, Any]:
    """``judged``'s changes to the fields ``v`` of a verdict."""
    p = v["p_value"]
    if p is None or p_adjusted is None:
        return {"message": too_few_message(v["deals"], v["min_deals"])}
    flagged = p_adjusted < alpha
    return {
        "p_adjusted": p_adjusted,
        "flagged": flagged,
        "message": tested_message(v["finding"], p, p_adjusted, flagged),
    }


def too_few_message(deals: int, min_deals: int) -> str:
    return f"too few deals: {deals} of the {min_deals} this test needs"


def tested_message(finding: str, p: float, p_adjusted: float, flagged: bool) -> str:
    """What was seen and how unlikely it is under fair dealing, nothing more."""
    verdict = "unlikely under fair dealing" if flagged else "consistent with fair dealing"
    return f"{finding} ({verdict}, p = {p:.2g}, adjusted {p_adjusted:.2g})"
