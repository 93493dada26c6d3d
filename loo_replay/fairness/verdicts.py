"""A fairness run: the counts of each scope turned into the six tests, judged together.

``--by`` chooses the scopes: each session, each venue, all deals together,
or ``player`` (the tests about one player, over all deals).  Holm's
adjustment runs over every test of the run (docs/fairness.md, "The six tests").
"""

from __future__ import annotations

import functools
import math
from collections import defaultdict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, fields
from typing import Any

import duckdb

from loo_replay.db.content import Covers, covered
from loo_replay.db.errors import DatabaseError, damage
from loo_replay.fairness.counts import LEFT_OUT, Counts, count_batches, prepared
from loo_replay.fairness.spool import Spool
from loo_replay.fairness.stats import (
    Bernoulli,
    Repeats,
    SeatCounts,
    ShuffleCounts,
    Verdict,
    amended,
    bernoulli_verdict,
    chi_square_verdict,
    deal_chance,
    fair_chances,
    hand_chance,
    repeats_verdict,
    seats_table,
    shuffle_table,
    turn_up_table,
)

BY = ("session", "player", "venue", "all")
DEFAULT_BY = ("session", "all")
HIGH_CARD = 8 / 52  # an ace or a king turned up


@dataclass(frozen=True)
class Report:
    alpha: float
    deals: int
    spool: Spool  # the judged tests, read back from disk a batch at a time
    covers: Covers  # the database's sessions and deals the run read, at its content version
    # Audited deals with every hand known that the tests leave out: their seats are not as
    # loo-replay loads them (``counts.SEATED_AS_LOADED``; only a database changed by hand
    # has any).
    left_out: int = 0

    @property
    def verdicts(self) -> Iterator[Verdict]:
        """Every test, judged, in the run's order (read again at each call)."""
        return iter(self.spool)

    @property
    def flagged(self) -> list[Verdict]:
        return self.spool.flagged

    @property
    def tests(self) -> int:
        return self.spool.tests

    @property
    def judged(self) -> int:
        """The tests that had their deals and so a p-value (docs/fairness.md, "The JSON")."""
        return len(self.spool.p_values)

    @property
    def needs(self) -> dict[str, tuple[int, int]]:
        """For each test with too few deals somewhere: the deals it needs, the most it had."""
        return self.spool.needs

    def as_json(self, lazy: bool = False) -> dict[str, Any]:
        """docs/fairness.md, "The JSON", with each test's df, band and fewest deals besides;
        ``lazy``: the tests as an iterator, each made as it is written (``fairness``'s
        output, ``cli.output.write_indented``)."""
        tests = _tests_json(self.spool)
        return {
            "alpha": self.alpha,
            "deals": self.deals,
            # said only when there are any, so a loaded database's JSON is as it was
            **({"left_out": self.left_out} if self.left_out else {}),
            "judged": self.judged,
            "covers": self.covers.as_json(),
            "tests": tests if lazy else list(tests),
        }


def _tests_json(spool: Spool) -> Iterator[dict[str, Any]]:
    """Each judged test as the JSON gives it, with its df, band and fewest deals besides,
    read from the spool's columns (no ``Verdict`` object a test)."""
    for c in spool.columns():
        for row in zip(*(c[name] for name in _JSON_FIELDS), strict=True):
            test, subject, scope, group, deals, least, statistic, df, p = row[:9]
            p_adjusted, flagged, observed, expected, band, message = row[9:]
            shown = dict(subject)
            if scope != "all":
                shown[scope] = group
            yield {
                "test": test,
                "subject": shown,
                "scope": scope,
                "deals": deals,
                "min_deals": least,
                "statistic": statistic,
                "df": df,
                "p_value": p,
                "p_adjusted": p_adjusted,
                "flagged": flagged,
                "observed": observed,
                "expected": expected,
                "band": None if band is None else list(band),
                "message": message,
            }


_JSON_FIELDS = (
    "test", "subject", "scope", "group", "deals", "min_deals", "statistic", "df", "p_value",
    "p_adjusted", "flagged", "observed", "expected", "band", "message",
)  # fmt: skip


def fairness(con: duckdb.DuckDBPyConnection, by: Sequence[str], alpha: float) -> Report:
    """Every test for every scope in ``by``, Holm-adjusted together; a query DuckDB cannot
    run (out of memory, say) is a ``DatabaseError``.  The tests are made a batch of groups
    at a time and spooled, so that memory does not grow with the database."""
    scopes = [s for s in BY if s in by]
    if "all" in scopes and "player" in scopes:
        scopes.remove("player")  # the player tests are among all's
    spool = Spool(alpha)
    try:
        with prepared(con):
            ((left_out,),) = con.execute(LEFT_OUT).fetchall()
            for scope in scopes:
                for counts in count_batches(con, "all" if scope == "player" else scope):
                    found = scope_verdicts(counts, alpha)
                    if scope == "player":
                        found = [v for v in found if dict(v.subject).get("player")]
                    spool.add(found)
    except duckdb.Error as exc:
        raise DatabaseError(f"the fairness counts failed: {damage(str(exc))}") from None
    spool.judge()
    ((deals,),) = con.execute("SELECT count(*) FROM deals WHERE status = 'audited'").fetchall()
    return Report(alpha, int(deals), spool, covered(con), int(left_out))


def _split(c: Counts) -> dict[str, Counts]:
    """The counts of each group of the scope apart (one pass over the rows)."""
    names = [f.name for f in fields(Counts) if f.name != "scope"]
    groups: dict[str, dict[str, list[tuple[Any, ...]]]] = defaultdict(
        lambda: {name: [] for name in names}
    )
    for name in names:
        for row in getattr(c, name):
            groups[row[0]][name].append(row)
    return {g: Counts(c.scope, **rows) for g, rows in groups.items()}


def scope_verdicts(counts: Counts, alpha: float) -> list[Verdict]:
    out: list[Verdict] = []
    for group, c in sorted(_split(counts).items()):
        deals = {dealer: k for _g, dealer, k in c.dealt}
        out.append(_cards_to_seats(c, group, sum(deals.values()), alpha))
        out.extend(_hands(c, group, alpha))
        out.extend(_turn_up(c, group, alpha))
        out.extend(_shuffle(c, group, deals, alpha))
        out.extend(_repeated(c, group, sum(deals.values()), alpha))
    return out


def _cards_to_seats(c: Counts, group: str, all_deals: int, alpha: float) -> Verdict:
    dealt: dict[tuple[Any, ...], dict[tuple[str, int], int]] = defaultdict(dict)
    for g, n, h, miss, tu, cls, pos, cards in c.seats:
        if g == group:
            dealt[(n, h, miss, tu)][(cls, pos)] = cards
    totals: dict[tuple[Any, ...], dict[str, int]] = defaultdict(lambda: defaultdict(int))
    deals: dict[tuple[Any, ...], int] = defaultdict(int)
    for g, n, h, miss, tu, turned, top, k in c.kinds:
        if g != group:
            continue
        key = (n, h, miss, tu)
        deals[key] += k
        t = totals[key]
        if tu:
            aces = 4 - (turned == "A") - (top == "A")
            courts = 12 - (turned in "KQJ") - (top in "KQJ")
            t["top"] += k
            t["ace"] += aces * k
            t["court"] += courts * k
            t["other"] += (51 - 1 - aces - courts) * k
        else:
            t["ace"] += 4 * k
            t["court"] += 12 * k
            t["other"] += 36 * k
    kinds = [
        SeatCounts(n, h, miss, tu, deals[(n, h, miss, tu)], dealt[(n, h, miss, tu)], t)
        for (n, h, miss, tu), t in sorted(totals.items())
    ]
    used, table = seats_table(kinds)
    verdict = chi_square_verdict("cards-to-seats", c.scope, group, (), used, table, alpha)
    return verdict if verdict.p_value is not None else amended(verdict, deals=all_deals)


def _hands(c: Counts, group: str, alpha: float) -> list[Verdict]:
    """dealer-hand (three measures) for each dealer, dealer-friend for each pair."""
    own: dict[tuple[str, str], tuple[list[int], dict[float, int]]] = {}  # hits, trials
    friend: dict[tuple[str, str], tuple[list[int], dict[float, int]]] = {}
    for g, dealer, player, h, trumps, deals, top1, top3, two in c.hands:
        if g != group:
            continue
        chances = _chances(h, trumps)
        if dealer == player:
            for (measure, p), hits in zip(chances, (top1, top3, two), strict=True):
                _add(own, (player, measure), hits, p, deals)
        else:
            _add(friend, (dealer, player), top1, chances[0][1], deals)
    out = [
        bernoulli_verdict(
            "dealer-hand",
            c.scope,
            group,
            (("player", player), ("measure", measure)),
            Bernoulli(hits, trials),
            alpha,
            f"when {player} deals they hold {_article(measure)} in {{observed}} of deals; "
            "fair dealing gives {expected}",
        )
        for (player, measure), ([hits], trials) in sorted(own.items())
    ]
    out += [
        bernoulli_verdict(
            "dealer-friend",
            c.scope,
            group,
            (("player", dealer), ("friend", player)),
            Bernoulli(hits, trials),
            alpha,
            f"when {dealer} deals, {player} holds the top trump in {{observed}} of deals; "
            "fair dealing gives {expected}",
        )
        for (dealer, player), ([hits], trials) in sorted(friend.items())
    ]
    return out


def _add(
    tests: dict[tuple[str, str], tuple[list[int], dict[float, int]]],
    key: tuple[str, str],
    hits: int,
    chance: float,
    deals: int,
) -> None:
    found = tests.get(key)
    if found is None:
        found = tests[key] = ([0], {})
    found[0][0] += hits
    found[1][chance] = found[1].get(chance, 0) + deals


@functools.cache
def _chances(hand: int, trumps: int) -> tuple[tuple[str, float], ...]:
    """``fair_chances`` of a hand size with ``trumps`` trumps beside the turn-up, once a run,
    not once a row, as (measure, chance) pairs, the top trump first."""
    return tuple(fair_chances(hand, trumps).items())


def _article(measure: str) -> str:
    return "the top trump" if measure == "top trump" else measure


def _turn_up(c: Counts, group: str, alpha: float) -> list[Verdict]:
    """The turn-up's suit and high cards, over every dealer and for each."""
    suits: dict[str | None, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    high: dict[str | None, int] = defaultdict(int)
    for g, dealer, suit, is_high, deals in c.turn_up:
        if g != group:
            continue
        for who in (None, dealer):
            suits[who][suit] += deals
            high[who] += deals if is_high else 0
    out: list[Verdict] = []
    for who in sorted(suits, key=lambda w: (w is not None, w or "")):
        subject = () if who is None else (("player", who),)
        n = sum(suits[who].values())
        dealt = "" if who is None else f" when {who} deals"
        table = turn_up_table(suits[who], dealt)
        out.append(
            chi_square_verdict(
                "turn-up", c.scope, group, (*subject, ("measure", "suit")), n, table, alpha
            )
        )
        out.append(
            bernoulli_verdict(
                "turn-up",
                c.scope,
                group,
                (*subject, ("measure", "ace or king")),
                Bernoulli(high[who], {HIGH_CARD: n}),
                alpha,
                f"an ace or king turned up{dealt} in {{observed}} of deals; "
                "fair dealing gives {expected}",
            )
        )
    return out


def _shuffle(c: Counts, group: str, dealt: dict[str, int], alpha: float) -> list[Verdict]:
    """Seat distances of neighbours, over every dealer and for each (of the next deal)."""
    by: dict[str | None, dict[tuple[int, int], dict[int, int]]] = defaultdict(
        lambda: defaultdict(lambda: defaultdict(int))
    )
    for g, dealer, places, h, distance, pairs in c.shuffle:
        if g != group:
            continue
        for who in (None, dealer):
            by[who][(places, h)][distance] += pairs
    deals: dict[str | None, int] = {None: sum(dealt.values())}
    deals.update(dealt)
    out: list[Verdict] = []
    for who in sorted(by, key=lambda w: (w is not None, w or "")):
        kinds = [ShuffleCounts(p, h, d) for (p, h), d in sorted(by[who].items())]
        _pairs, table = shuffle_table(kinds)
        subject = () if who is None else (("player", who),)
        out.append(
            chi_square_verdict("shuffle", c.scope, group, subject, deals.get(who, 0), table, alpha)
        )
    return out


def _repeated(c: Counts, group: str, total: int, alpha: float) -> list[Verdict]:
    same = {h: pairs for g, h, pairs in c.same_deal_pairs if g == group}
    hands = [
        Repeats(math.comb(k, 2) - same.get(h, 0), equal, hand_chance(h))
        for g, h, k, equal in c.repeated_hands
        if g == group
    ]
    deals = [
        Repeats(math.comb(k, 2), equal, deal_chance(n + miss, h))
        for g, n, h, miss, k, equal in c.repeated_deals
        if g == group
    ]
    return [
        repeats_verdict(c.scope, group, "hand", total, hands, alpha),
        repeats_verdict(c.scope, group, "deal", total, deals, alpha),
    ]
