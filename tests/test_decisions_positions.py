"""Decisions whose values are worked out on paper: docs/judging-decisions.md.

Three players (ann, bob, cat; cat deals, so ann is eldest), three-card Loo with no
leading law, a player void in the suit led bound to trump, spades trumps (2♠ turned),
and a pool of 9 carried in: a trick is worth 3 chips.
"""

from __future__ import annotations

from typing import Any

import pytest

from loo_replay.engine.judging import DealDecisions, Decision, Unjudged, judge_deal
from tests.loo_helpers import audit_session, deal_doc, declarations, session_doc, trick_plays

TRIO = ("ann", "bob", "cat")
RULES = {
    "lead.top_trump": "off",
    "lead.highest_trump": "never",
    "lead.trump_if": 0,
    "lead.trump_after_trick": False,
    "follow.void": "trump",
}


def judged(
    deal: dict[str, Any], samples: int = 100, rules: dict[str, Any] | None = None
) -> DealDecisions:
    report = audit_session(session_doc([deal], players=TRIO, rules={**RULES, **(rules or {})}))
    assert report.options is not None
    (audit,) = report.deals
    assert audit.status == "audited" and not audit.violations, audit.violations
    return judge_deal(audit, report.options, samples, 0, report.id)


def item(deals: DealDecisions, player: str, index: int) -> Decision:
    return next(d for d in deals.items if d.player == player and d.index == index)


def values(d: Decision) -> dict[str, float]:
    return {o.key: o.value for o in d.options}


def test_a_void_shown_by_a_discard_is_used_and_the_value_is_the_paper_one() -> None:
    """bob threw 3♣ on the A♥ led: he holds no heart, and (bound to trump) no trump. So
    at trick 2, with K♥ 4♦ left, ann takes trick 2 with K♥ for sure and the last trick
    unless bob holds a diamond above 4♦; leading 4♦ first, bob takes both tricks if he
    holds one, else ann takes both. Over the worlds, with q the share where bob holds no
    diamond above 4♦: V(K♥) = 6 + 3q and V(4♦) = 3 + 6q, so V(4♦) = 2 V(K♥) - 9 exactly;
    and bob's two cards are two of the 24 clubs and diamonds ann has not seen, so q is
    near C(14, 2) / C(24, 2) = 91/276."""
    deal = deal_doc(
        {"ann": "AH KH 4D", "bob": "3C 9D 5C", "cat": "2H 3H 5H"},
        declarations("ann play", "bob play", "cat pass")
        + trick_plays("ann AH bob 3C", "ann 4D bob 9D", "bob 5C ann KH"),
        miss="6H 7H 8H",
        turn_up="2S",
        pool_start=9,
    )
    deals = judged(deal, samples=400)
    assert deals.unit == 3
    d = item(deals, "ann", 5)
    assert (d.kind, d.trick, d.chosen, d.best) == ("card", 2, "4D", "KH")
    v = values(d)
    assert list(v) == ["4D", "KH"]  # lowest first
    assert v["4D"] == pytest.approx(2 * v["KH"] - 9)
    q = (v["KH"] - 6) / 3
    assert abs(q - 91 / 276) < 4 * (91 / 276 * 185 / 276 / 400) ** 0.5
    assert d.loss == pytest.approx(3 - 3 * q)
    assert d.loss > 2 * d.loss_se
    assert d.klass == "mistake"  # about two thirds of a trick's worth
    assert d.accuracy == 0.0
    assert "4♦" in d.message and "K♥" in d.message


def test_the_hand_given_up_for_the_miss_is_known_to_its_player() -> None:
    """ann took the Miss (A♥ J♦ 4♥) and gave up Q♦ K♦ A♦; bob showed no heart and no
    trump at trick 1. No card bob can hold beats J♦ or 4♥: ann takes every trick
    whichever she leads, in every world (3 tricks: the whole pool of 9, no spread)."""
    deal = deal_doc(
        {"ann": "QD KD AD", "bob": "3C 5C 9C", "cat": "2H 3H 5H"},
        declarations("ann take_miss", "bob play", "cat pass")
        + trick_plays("ann AH bob 3C", "ann JD bob 5C", "ann 4H bob 9C"),
        miss="AH JD 4H",
        turn_up="2S",
        pool_start=9,
    )
    d = item(judged(deal), "ann", 5)
    assert [(o.key, o.value, o.se) for o in d.options] == [("4H", 9.0, 0.0), ("JD", 9.0, 0.0)]
    assert (d.loss, d.klass, d.accuracy) == (0.0, None, None)


@pytest.mark.parametrize(("scope", "passing"), [("active", 0), ("everyone", -3)])
def test_a_declaration_in_a_deal_where_everyone_passed(scope: str, passing: int) -> None:
    """All three passed, the dealer too (no dealer is bound to defend here). Had ann
    stood or taken the Miss, bob and cat passing as they did, she would have been
    unopposed and taken the pool of 9; passing gave her nothing, or cost her the loo of
    3 where every player can be looed. The worlds cannot change any of it."""
    deal = deal_doc(
        {"ann": "4C 7D 9H", "bob": "3C 9D 5C", "cat": "2H 3H 5H"},
        declarations("ann pass", "bob pass", "cat pass"),
        miss="6H 7H 8H",
        turn_up="2S",
        pool_start=9,
    )
    deals = judged(deal, rules={"declare.dealer_defends": False, "stakes.loo_scope": scope})
    d = item(deals, "ann", 0)
    assert [(o.key, o.value, o.se) for o in d.options] == [
        ("play", 9.0, 0.0),
        ("pass", passing, 0.0),
        ("take_miss", 9.0, 0.0),
    ]
    assert (d.chosen, d.best, d.loss, d.loss_se) == ("pass", "play", 9 - passing, 0.0)
    assert d.klass == "blunder"
    assert d.accuracy == 0.0
    dealer = item(deals, "cat", 2)  # the dealer takes the pool whatever he declares
    assert {o.value for o in dealer.options} == {9.0}
    assert (dealer.best, dealer.loss, dealer.accuracy) == ("pass", 0.0, None)
    ann = next(p for p in deals.players if p.player == "ann")
    assert (ann.decisions, ann.blunders, ann.accuracy) == (1, 1, 0.0)


def test_an_option_that_makes_a_later_declaration_impossible_is_not_judged() -> None:
    """Had ann taken the Miss, bob could not have taken it after her (no dealer is bound
    to defend here, so every choice of bob's leaves cat free to pass as he did)."""
    deal = deal_doc(
        {"ann": "AH KH 4D", "bob": "3C 9D 5C", "cat": "2H 3H 5H"},
        declarations("ann play", "bob take_miss", "cat pass")
        + trick_plays("ann AH bob 6H", "ann KH bob 7H", "ann 4D bob 8H"),
        miss="6H 7H 8H",
        turn_up="2S",
        pool_start=9,
    )
    deals = judged(deal, samples=5, rules={"declare.dealer_defends": False})
    assert Unjudged("ann", 0, "later_declarations") in deals.unjudged
    assert all(d.index != 0 for d in deals.items)
    assert any(d.index == 1 for d in deals.items)  # bob's own choice is judged


def test_no_declaration_is_judged_in_a_must_deal() -> None:
    """In a must (here every single pool) everyone plays and no Miss is dealt: nobody had
    a choice to declare; the cards are judged."""
    deal = deal_doc(
        {"ann": "AH KH 4D", "bob": "3C 9D 5C", "cat": "2H 3H 5H"},
        declarations("ann play", "bob play", "cat play")
        + trick_plays("ann AH bob 3C cat 2H", "ann 4D bob 9D cat 3H", "bob 5C cat 5H ann KH"),
        turn_up="2S",
        pool_start=3,  # a single pool: the dealer's ante alone
    )
    deals = judged(deal, samples=5, rules={"declare.must": "single"})
    assert deals.status == "judged"
    kinds = {d.kind for d in deals.items}
    assert kinds == {"card"}
    assert deals.declarations is None


PAM_ANNOUNCED = {"deal.pam": True, "follow.pam_civil": "announced"}


def test_announcing_is_an_option_while_pam_may_be_in_play_for_all_the_leader_knows() -> None:
    """Hearts trumps; cat, who passed, holds Pam (J♣): it is out of play, but ann cannot see
    that. Leading her last card, A♥, ann may announce "Pam, be civil" or not: two options,
    judged, where the solver (which sees Pam out of play) has one move. They are worth the
    same in every world: bob's last card is Pam in 1 world of 46 (ann has seen A♥ A♦ K♦,
    3♦ 4♦ and the turn-up), and Pam, his only trump then, may be played either way.
    At trick 1 announcing is one of her options too, leading A♥."""
    deal = deal_doc(
        {"ann": "AH AD KD", "bob": "3D 4D 5S", "cat": "JC 9C 8C"},
        declarations("ann play", "bob play", "cat pass")
        + trick_plays("ann AD bob 3D", "ann KD bob 4D", "ann AH bob 5S"),
        miss="6C 7C 2C",
        turn_up="2H",
        pool_start=9,
    )
    deals = judged(deal, samples=200, rules=PAM_ANNOUNCED)
    d = item(deals, "ann", 7)
    assert (d.kind, d.trick) == ("card", 3)
    v = values(d)
    assert list(v) == ["AH", "AH+announce"]  # the silent move first
    assert v["AH"] == v["AH+announce"]
    assert (d.chosen, d.best, d.loss) == ("AH", "AH", 0.0)
    assert d.klass is None
    assert set(values(item(deals, "ann", 3))) == {"AD", "KD", "AH", "AH+announce"}


def test_no_announcing_where_the_leader_holds_pam() -> None:
    """ann holds Pam herself: she knows an announcement binds nobody, so leading A♥ is one
    option, not two."""
    deal = deal_doc(
        {"ann": "AH JC KD", "bob": "3D 4D 5S", "cat": "QC 9C 8C"},
        declarations("ann play", "bob play", "cat pass")
        + trick_plays("ann AH bob 5S", "ann KD bob 4D", "ann JC bob 3D"),
        miss="6C 7C 2C",
        turn_up="2H",
        pool_start=9,
    )
    deals = judged(deal, samples=50, rules=PAM_ANNOUNCED)
    d = item(deals, "ann", 3)
    assert set(values(d)) == {"AH", "JC", "KD"}
