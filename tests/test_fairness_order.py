"""The fairness figures do not depend on the order the database returns its rows in
(docs/fairness.md, "Same counts, same figures"): the same trials in every order give the same
expected rate, law and p-value, bit for bit."""

from __future__ import annotations

import itertools

from loo_replay import laws
from loo_replay.fairness.stats import Bernoulli, Repeats, bernoulli_verdict, repeats_verdict

# Chances of a top trump for hands of three and five cards under different trumps, with
# deals of each: a sum of their products is not the same in every order in floats.
TRIALS = [(0.1, 3), (0.7, 2), (0.2, 1000003), (1 / 3, 77), (0.123456789, 5)]


def test_the_expected_rate_and_the_p_value_are_the_same_in_every_order() -> None:
    seen = set()
    for order in itertools.permutations(TRIALS):
        counts = Bernoulli(200_100, dict(order))
        v = bernoulli_verdict(
            "dealer-hand", "all", "all", (), counts, 0.01, "{observed} {expected}"
        )
        seen.add((counts.expected.hex(), repr(v.p_value), repr(v.expected)))
    assert len(seen) == 1
    naive = {sum(p * n for p, n in order) for order in itertools.permutations(TRIALS)}
    assert len(naive) > 1  # the plain sum would have differed with the order


def test_the_law_of_a_count_is_the_same_in_every_order() -> None:
    for hits in (199_000, 201_000, 202_000):  # tails that were not, added in turn as given
        tails = {
            laws.binomial_sum(dict(order)).at_least(hits).hex()
            for order in itertools.permutations(TRIALS)
        }
        assert len(tails) == 1


def test_repeated_hands_expect_the_same_number_in_every_order() -> None:
    counts = [Repeats(10**6 + i, i % 2, 1 / (22100 + 7 * i)) for i in range(5)]
    figures = {
        repr(repeats_verdict("all", "all", "hand", 100_000, list(order), 0.01))
        for order in itertools.permutations(counts)
    }
    assert len(figures) == 1
