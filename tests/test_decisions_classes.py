"""Classes, best and loss of a judged decision, from the rules of docs/judging-decisions.md.

§4: ``best`` is the option of highest value; on an exact tie the chosen option if it is
among the tied, otherwise the first in option order (play, pass, take_miss, defend; cards
lowest first: rank 2 … A, then clubs, diamonds, hearts, spades, not announcing before
announcing).  ``loss`` = V(best) - V(chosen), ``loss_se`` from the differences world by
world.  §5: a decision is classed only where loss > 2 × loss_se: an inaccuracy from a
quarter of the deal's unit, a mistake from half, a blunder from a whole unit.

The thresholds are tested at and on either side of each bound (``math.nextafter``: the
float next to it); the best/tie rule on values worked by hand, then on every decision of
simulated sessions, with the option order written here from the docs.
"""

from __future__ import annotations

from math import inf, nextafter, sqrt

import pytest

from loo_replay.engine.judging import Decision, _classed, _Judge, judge_deal
from loo_replay.engine.model import DealRecord
from loo_replay.engine.replay import DealContext
from loo_replay.rulesets import builtin
from tests.test_decisions_slow import Rules, _sessions


def _below(x: float) -> float:
    return nextafter(x, -inf)


def _above(x: float) -> float:
    return nextafter(x, inf)


def _with_loss(loss: float, loss_se: float) -> Decision:
    return Decision("ann", "declare", None, 0, "pass", "play", (), loss, loss_se, None, 0.0, "")


# (loss, loss_se, unit, class): a unit of 4 chips puts the bounds at 1, 2 and 4 chips; a unit
# of 3 at 0.75, 1.5 and 3; a unit of 1 (the least: a share of 0 is still 1) at 0.25, 0.5, 1.
THRESHOLDS = [
    (_below(1.0), 0.0, 4, None),
    (1.0, 0.0, 4, "inaccuracy"),
    (_above(1.0), 0.0, 4, "inaccuracy"),
    (_below(2.0), 0.0, 4, "inaccuracy"),
    (2.0, 0.0, 4, "mistake"),
    (_above(2.0), 0.0, 4, "mistake"),
    (_below(4.0), 0.0, 4, "mistake"),
    (4.0, 0.0, 4, "blunder"),
    (_above(4.0), 0.0, 4, "blunder"),
    (40.0, 0.0, 4, "blunder"),
    (_below(0.75), 0.0, 3, None),
    (0.75, 0.0, 3, "inaccuracy"),
    (_below(1.5), 0.0, 3, "inaccuracy"),
    (1.5, 0.0, 3, "mistake"),
    (_below(3.0), 0.0, 3, "mistake"),
    (3.0, 0.0, 3, "blunder"),
    (_below(0.25), 0.0, 1, None),
    (0.25, 0.0, 1, "inaccuracy"),
    (_below(0.5), 0.0, 1, "inaccuracy"),
    (0.5, 0.0, 1, "mistake"),
    (_below(1.0), 0.0, 1, "mistake"),
    (1.0, 0.0, 1, "blunder"),
    (0.0, 0.0, 1, None),  # no loss: 0 is not more than twice 0
]


@pytest.mark.parametrize(("loss", "loss_se", "unit", "klass"), THRESHOLDS)
def test_the_class_of_a_sure_loss_is_set_by_the_unit(
    loss: float, loss_se: float, unit: int, klass: str | None
) -> None:
    assert _classed(_with_loss(loss, loss_se), unit).klass == klass


# (loss, loss_se, unit, class): the loss must be more than twice its standard error, the
# class then being the one its size gives.
STANDARD_ERRORS = [
    (3.0, 1.5, 1, None),  # exactly twice: not more
    (3.0, _below(1.5), 1, "blunder"),
    (3.0, _above(1.5), 1, None),
    (0.5, 0.25, 1, None),
    (0.5, _below(0.25), 1, "mistake"),
    (1.0, _below(0.5), 4, "inaccuracy"),
    (1.0, 0.5, 4, None),
    (40.0, 20.0, 4, None),  # however large the loss
    (40.0, _below(20.0), 4, "blunder"),
    (_below(2.0), 0.9, 4, "inaccuracy"),  # sure, and just short of a mistake
]


@pytest.mark.parametrize(("loss", "loss_se", "unit", "klass"), STANDARD_ERRORS)
def test_a_loss_is_classed_only_beyond_twice_its_standard_error(
    loss: float, loss_se: float, unit: int, klass: str | None
) -> None:
    assert _classed(_with_loss(loss, loss_se), unit).klass == klass


def test_classing_changes_nothing_but_the_class() -> None:
    d = _with_loss(2.0, 0.5)
    assert _classed(d, 4) == Decision(
        "ann", "declare", None, 0, "pass", "play", (), 2.0, 0.5, "mistake", 0.0, ""
    )


def _decide(keys: list[str], chosen: str, nets: list[list[int]]) -> Decision:
    """The judge's values of one decision whose options, in option order, brought ``nets``
    (net chips world by world); the deal itself plays no part in them."""
    record = DealRecord(1, ("ann", "bob", "cat"), 2, ((), (), ()))
    judge = _Judge(record, builtin("three-card").options, DealContext(), 9, len(nets[0]), 0, "s")
    return judge._decision("ann", "declare", None, 0, keys, chosen, nets, 0)


DECLARATIONS = ["play", "pass", "take_miss"]


def test_a_tie_for_best_without_the_chosen_goes_to_the_first_in_option_order() -> None:
    """play and take_miss both sum to 3 chips over the three worlds, pass to 0: pass chosen,
    best is play, the first of the two.  Differences play - pass: 3, 0, 0 (mean 1, sample
    variance (4 + 1 + 1) / 2 = 3, standard error sqrt(3 / 3) = 1)."""
    d = _decide(DECLARATIONS, "pass", [[3, 0, 0], [0, 0, 0], [1, 1, 1]])
    assert d.best == "play"
    assert (d.loss, d.loss_se) == pytest.approx((1.0, 1.0))
    assert _classed(d, 1).klass is None  # a whole unit lost, but not twice its se


def test_a_tie_for_best_goes_to_the_first_tied_not_the_first_option() -> None:
    """pass and take_miss tie at 0, play is worth -1: play chosen, best is pass.  The
    differences pass - play are 1 in every world: a loss of 1, se 0, a blunder at unit 1."""
    d = _decide(DECLARATIONS, "play", [[-1, -1, -1], [0, 0, 0], [0, 2, -2]])
    assert d.best == "pass"
    assert (d.loss, d.loss_se) == (1.0, 0.0)
    assert _classed(d, 1).klass == "blunder"
    assert _classed(d, 2).klass == "mistake"


@pytest.mark.parametrize("chosen", ["play", "take_miss"])
def test_a_tie_for_best_with_the_chosen_among_the_tied_is_the_chosen(chosen: str) -> None:
    d = _decide(DECLARATIONS, chosen, [[3, 0, 0], [0, 0, 0], [1, 1, 1]])
    assert d.best == chosen
    assert (d.loss, d.loss_se, d.klass) == (0.0, 0.0, None)


def test_cards_tied_for_best_go_to_the_first_listed() -> None:
    """The ace of trumps led with and without the announcement, tied, the 2♣ chosen: the
    card without the announcement, listed first, is best."""
    keys = ["2C", "2D", "AS", "AS+announce"]
    d = _decide(keys, "2C", [[0, 0], [1, 0], [2, 2], [3, 1]])
    assert d.best == "AS"
    assert (d.loss, d.loss_se) == (2.0, 0.0)


def test_values_loss_and_accuracy_worked_by_hand() -> None:
    """play brings 4, 0, 2 (mean 2, sample variance (4 + 4 + 0) / 2 = 4, se sqrt(4 / 3)),
    pass 0, take_miss 1, 1, 1 (mean 1, se 0); take_miss chosen: loss 2 - 1 = 1 from the
    differences 3, -1, 1 (mean 1, variance (4 + 4 + 0) / 2 = 4, se sqrt(4 / 3)); accuracy
    100 × (1 - 0) / (2 - 0) = 50."""
    d = _decide(DECLARATIONS, "take_miss", [[4, 0, 2], [0, 0, 0], [1, 1, 1]])
    assert [o.key for o in d.options] == DECLARATIONS
    assert [o.value for o in d.options] == pytest.approx([2.0, 0.0, 1.0])
    assert [o.se for o in d.options] == pytest.approx([sqrt(4 / 3), 0.0, 0.0])
    assert d.best == "play"
    assert (d.loss, d.loss_se, d.accuracy) == pytest.approx((1.0, sqrt(4 / 3), 50.0))
    assert _decide(DECLARATIONS, "pass", [[1, 1], [1, 1], [1, 1]]).accuracy is None


# The option order of the docs: declarations, then a card's rank and suit.
ACTIONS = ("play", "pass", "take_miss", "defend")
RANKS, SUITS = "23456789TJQKA", "CDHS"


def _order(key: str) -> tuple[int, int, int]:
    if key in ACTIONS:
        return (ACTIONS.index(key), 0, 0)
    card = key.removesuffix("+announce")
    return (RANKS.index(card[0]), SUITS.index(card[1]), key.endswith("+announce"))


SESSIONS: list[tuple[str, int, int, Rules]] = [
    ("three-card", 4, 1, ()),
    ("three-card", 5, 2, ()),
    ("hoyle", 5, 3, ()),
    ("hoyle-pam", 4, 27, (("follow.pam_civil", "announced"),)),
    ("modern-pam", 3, 2, ()),
]


def test_best_follows_the_tie_rule_on_every_decision_of_simulated_sessions() -> None:
    """Over every judged decision (5 worlds each, so exact ties are common): the options
    are listed in the docs' order, best is the chosen if it is of the highest value, else
    the first of the highest in that order, and loss is V(best) - V(chosen).  Ties where
    the chosen is not among the best occur for cards and for declarations."""
    ties = {"card": 0, "declare": 0}
    for ruleset, players, seed, rules in SESSIONS:
        for audit, options, session in _sessions(ruleset, players, seed, rules):
            for d in judge_deal(audit, options, 5, 0, session).items:
                keys = [o.key for o in d.options]
                assert keys == sorted(keys, key=_order)
                value = {o.key: o.value for o in d.options}
                top = max(value.values())  # means of integers over 5 worlds: exact
                tied = [k for k in keys if value[k] == top]
                if d.chosen in tied:
                    assert d.best == d.chosen
                else:
                    assert d.best == tied[0]
                    ties[d.kind] += len(tied) > 1
                assert d.loss == pytest.approx(value[d.best] - value[d.chosen], abs=1e-12)
    assert ties["card"] >= 1 and ties["declare"] >= 1, ties
