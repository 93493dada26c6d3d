"""Every option of docs/rules.md §7, each shown to change a verdict.

Each test audits one hand-written deal (or a short session) twice or more, with the option
under test at different values (``rules={...}`` overrides it by its dotted name), and asserts
the verdicts worked out by hand from docs/rules.md: the violation codes, the outcome, the payouts,
the loos, the penalties and the pool carried to the next deal. Unless a test says otherwise
the ruleset is ``three-card`` (docs/rules.md §8), the players are ann, bob and cat in clockwise order
and cat deals, so ann is the eldest; a pool of 3 pays a share of 1 per trick.

``@covers(option)`` registers which test covers which option;
``test_every_option_has_a_test`` fails when an option of ``OPTION_SPECS`` has none.

The end of the module checks option handling: unknown names and bad values in
``session.rules``, the command line beating ``session.rules``, and user ruleset files.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import pytest
from loo_helpers import (
    audit_deal,
    audit_deals,
    audit_session,
    codes,
    deal_doc,
    declare,
    play,
    session_doc,
)

from loo_replay.engine.cards import SUITS
from loo_replay.engine.options import OPTION_SPECS
from loo_replay.engine.session import DealAudit
from loo_replay.rulesets import RuleChoice, builtin, load

P3 = ("ann", "bob", "cat")
P4 = ("ann", "bob", "cat", "dan")

Fn = TypeVar("Fn", bound=Callable[..., None])

COVERAGE: dict[str, list[str]] = {}


def covers(*options: str) -> Callable[[Fn], Fn]:
    """Register the decorated test as covering ``options`` (dotted names of docs/rules.md §7)."""

    def register(fn: Fn) -> Fn:
        for option in options:
            COVERAGE.setdefault(option, []).append(fn.__name__)
        return fn

    return register


# -- building deals ---------------------------------------------------------------------------


def declares(*pairs: str) -> list[dict[str, Any]]:
    """``declares("ann play", "bob pass")`` -> declaration events."""
    return [declare(*pair.split()) for pair in pairs]


def tricks(*rows: str) -> list[dict[str, Any]]:
    """``tricks("ann KS bob 2S cat 5S", ...)`` -> the play events of each trick in order."""
    out: list[dict[str, Any]] = []
    for row in rows:
        words = row.split()
        out.extend(play(p, c) for p, c in zip(words[::2], words[1::2], strict=True))
    return out


def misdealt(number: int = 1, dealer: str = "cat") -> dict[str, Any]:
    return {"deal": number, "dealer": dealer, "misdeal": True}


ALL_PLAY = declares("ann play", "bob play", "cat play")


def check(audit: DealAudit, **expected: Any) -> None:
    """Compare the named fields of ``audit`` (``codes`` = the violation codes in order).

    A deal not expected to be rejected must have no log errors; no test records an
    outcome, so there is never a discrepancy.
    """
    got: dict[str, Any] = {}
    for name in expected:
        got[name] = codes(audit) if name == "codes" else getattr(audit, name)
    assert got == expected
    if expected.get("status") != "rejected":
        assert audit.errors == [], audit.errors
    assert audit.discrepancies == []


# Ann and bob pass; the dealer takes the single pool of 3 (§2.6, §5.2).
ALL_PASSED_HANDS = {"ann": "2S 3S 4S", "bob": "2H 3H 4H", "cat": "2D 3D 4D"}


def all_passed(**kw: Any) -> dict[str, Any]:
    return deal_doc(
        ALL_PASSED_HANDS,
        declares("ann pass", "bob pass"),
        miss="5S 6S 7S",
        turn_up="2C",
        **kw,
    )


# Clubs trumps, nobody holds one; ann wins two tricks, bob one (§3, §4: nothing binds
# beyond following suit and heading). Cat is looed.
BASIC_HANDS = {"ann": "AS KS 5H", "bob": "2S 3S AH", "cat": "4S 6S 7H"}
BASIC_PLAY = tricks("ann AS bob 2S cat 4S", "ann KS bob 3S cat 6S", "ann 5H bob AH cat 7H")


def basic(events: list[dict[str, Any]] | None = None, **kw: Any) -> dict[str, Any]:
    return deal_doc(
        BASIC_HANDS,
        events if events is not None else ALL_PLAY + BASIC_PLAY,
        miss="2D 3D 4D",
        turn_up="2C",
        **kw,
    )


# -- deal.* -----------------------------------------------------------------------------------


@covers("deal.hand_size")
@pytest.mark.parametrize(
    ("size", "status", "violations", "payouts", "pool_next"),
    [
        (3, "audited", [], {"cat": 3}, 0),
        (5, "misdeal", ["misdeal"], {}, 6),
    ],
)
def test_deal_hand_size_makes_three_card_hands_a_misdeal_in_the_five_card_game(
    size: int, status: str, violations: list[str], payouts: dict[str, int], pool_next: int
) -> None:
    """§2.2: every hand and the Miss must hold ``deal.hand_size`` cards; otherwise the deal is
    a misdeal and the dealer forfeits ``penalties.misdeal`` (3) into the pool of 3."""
    a = audit_deal(all_passed(), players=P3, rules={"deal.hand_size": size})
    check(a, status=status, codes=violations, payouts=payouts, pool_next=pool_next)


@covers("deal.miss")
@pytest.mark.parametrize(
    ("with_miss", "miss_on", "status", "pool_next"),
    [
        (False, True, "misdeal", 6),
        (False, False, "audited", 0),
        (True, True, "audited", 0),
        (True, False, "misdeal", 6),
    ],
)
def test_deal_miss_requires_a_miss_exactly_where_the_ruleset_deals_one(
    with_miss: bool, miss_on: bool, status: str, pool_next: int
) -> None:
    """§2.2: a Miss must be present when ``deal.miss`` is on (and the deal is no must) and
    absent otherwise; a Miss too many or too few is a misdeal (forfeit 3, pool 3 -> 6)."""
    d = all_passed()
    if not with_miss:
        del d["miss"]
    a = audit_deal(d, players=P3, rules={"deal.miss": miss_on})
    expected_codes = [] if status == "audited" else ["misdeal"]
    check(a, status=status, codes=expected_codes, pool_next=pool_next)


# Ann leads K♠ and wins every trick; no trump is turned at the deal. Under first_lead the
# K♠ fixes spades as trumps, and ann's A♥ lead to trick 2 while holding Q♠ breaks "trump
# after trick" (§3 row 4). Under on_void no one is ever void, so no trump is fixed at all.
TRUMP_HANDS = {"ann": "KS QS AH", "bob": "2S 3H 4S", "cat": "3S 4H 5S"}
TRUMP_PLAY = tricks("ann KS bob 2S cat 3S", "ann AH bob 3H cat 4H", "ann QS bob 4S cat 5S")


@covers("deal.trump")
@pytest.mark.parametrize(
    ("method", "expected"),
    [
        ("turn_up", {"status": "misdeal", "codes": ["misdeal"], "pool_next": 6}),
        (
            "on_void",
            {
                "status": "audited",
                "trump": None,
                "codes": [],
                "payouts": {"ann": 3},
                "looed": {"bob": 3, "cat": 3},
                "penalties": {},
                "pool_next": 6,
            },
        ),
        (
            "first_lead",
            {
                "status": "audited",
                "trump": SUITS.index("S"),
                "codes": ["trump-after-trick"],
                "payouts": {},
                "looed": {"bob": 3, "cat": 3},
                "penalties": {"ann": 12},
                "pool_next": 21,
            },
        ),
    ],
)
def test_deal_trump_fixes_trumps_by_turn_up_by_void_or_by_the_first_lead(
    method: str, expected: dict[str, Any]
) -> None:
    """§1 trump suit, §2.2, §2.9, §3: without a turn-up, ``turn_up`` is a misdeal; ``on_void``
    fixes no trump when nobody is void (ann takes 3 shares); ``first_lead`` makes spades
    trumps, so ann's A♥ lead holding Q♠ is ``trump-after-trick``: she forfeits 12 to the next
    pool, her shares stay (3 + 2 loos of 3 + 12 = 21)."""
    d = deal_doc(TRUMP_HANDS, ALL_PLAY + TRUMP_PLAY, miss="AS 2C 3C")
    check(audit_deal(d, players=P3, rules={"deal.trump": method}), **expected)


@covers("deal.trump_in_must")
@pytest.mark.parametrize(
    ("method", "expected"),
    [
        ("same", {"status": "misdeal"}),
        ("turn_up", {"status": "misdeal"}),
        (
            "on_void",
            {
                "status": "audited",
                "must": True,
                "trump": None,
                "codes": [],
                "payouts": {"ann": 3},
                "pool_next": 6,
            },
        ),
        (
            "first_lead",
            {
                "status": "audited",
                "must": True,
                "trump": SUITS.index("S"),
                "codes": ["trump-after-trick"],
                "payouts": {},
                "pool_next": 21,
            },
        ),
    ],
)
def test_deal_trump_in_must_fixes_trumps_differently_in_a_must_deal(
    method: str, expected: dict[str, Any]
) -> None:
    """§1 must deal, §2.2, §2.3: with ``declare.must = "single"`` the first deal (a single
    pool) is a must: no Miss, declarations omitted. Dealt with no turn-up, it is a misdeal
    when the must fixes trumps by turn-up (``same`` means ``deal.trump = "turn_up"``), and is
    played without trumps (``on_void``) or with spades from the first lead (``first_lead``)."""
    d = deal_doc(TRUMP_HANDS, TRUMP_PLAY)
    rules = {"declare.must": "single", "deal.trump_in_must": method}
    a = audit_deal(d, players=P3, rules=rules)
    if expected["status"] == "misdeal":
        check(a, status="misdeal", codes=["misdeal"], pool_next=6)
    else:
        check(a, **expected)


@covers("deal.exchange")
@pytest.mark.parametrize("exchange", [True, False])
def test_deal_exchange_lets_an_active_player_draw_from_the_stock(exchange: bool) -> None:
    """§2.7: with ``deal.exchange`` ann, having declared play, discards 5♦ and draws Q♠,
    then wins every trick with A♠ K♠ Q♠ (3 shares; bob and cat looed 3 each). Without it
    the exchange event cannot happen in that game: a log error rejects the deal."""
    events = [
        declare("ann", "play"),
        {"type": "exchange", "player": "ann", "discard": ["5D"], "draw": ["QS"]},
        declare("bob", "play"),
        declare("cat", "play"),
        *tricks("ann AS bob 2S cat 5S", "ann KS bob 3S cat 6S", "ann QS bob 4S cat 7S"),
    ]
    hands = {"ann": "AS KS 5D", "bob": "2S 3S 4S", "cat": "5S 6S 7S"}
    d = deal_doc(hands, events, miss="2H 3H 4H", turn_up="2C")
    a = audit_deal(d, players=P3, rules={"deal.exchange": exchange})
    if exchange:
        check(
            a,
            status="audited",
            codes=[],
            tricks={"ann": 3, "bob": 0, "cat": 0},
            payouts={"ann": 3},
            looed={"bob": 3, "cat": 3},
            pool_next=6,
        )
    else:
        assert a.status == "rejected"
        assert a.errors and "exchange" in a.errors[0].message


@covers("deal.pam")
@pytest.mark.parametrize(
    ("pam", "won", "payouts", "looed", "pool_next"),
    [
        (False, {"ann": 3, "bob": 0, "cat": 0}, {"ann": 3}, {"bob": 3, "cat": 3}, 6),
        (True, {"ann": 2, "bob": 1, "cat": 0}, {"ann": 2, "bob": 1}, {"cat": 3}, 3),
    ],
)
def test_deal_pam_makes_the_jack_of_clubs_the_highest_trump(
    pam: bool,
    won: dict[str, int],
    payouts: dict[str, int],
    looed: dict[str, int],
    pool_next: int,
) -> None:
    """§1 Pam: hearts are trumps; ann leads Q♣ to the last trick and bob's last card is J♣.
    Without Pam the J♣ is a club below the queen and ann wins; with Pam it is the highest
    trump (not a club), so bob trumps the trick and wins it."""
    hands = {"ann": "KS QS QC", "bob": "2S 3S JC", "cat": "4S 5S 6D"}
    play_ = tricks("ann KS bob 2S cat 4S", "ann QS bob 3S cat 5S", "ann QC bob JC cat 6D")
    d = deal_doc(hands, ALL_PLAY + play_, miss="AH 2D 3D", turn_up="2H")
    a = audit_deal(d, players=P3, rules={"deal.pam": pam})
    check(a, codes=[], tricks=won, payouts=payouts, looed=looed, pool_next=pool_next)


# -- stakes.* ---------------------------------------------------------------------------------


@covers("stakes.ante")
@pytest.mark.parametrize(
    ("ante", "payouts", "pool_next"),
    [
        (3, {"ann": 2, "bob": 1}, 3),
        (4, {"ann": 2, "bob": 1}, 4),
        (6, {"ann": 4, "bob": 2}, 3),
    ],
)
def test_stakes_ante_is_the_dealers_stake_and_sets_the_share(
    ante: int, payouts: dict[str, int], pool_next: int
) -> None:
    """§2.1, §5: the dealer antes ``stakes.ante``; share = pool ÷ 3 rounded down (4 -> 1, the
    odd chip stays). Ann wins 2 tricks, bob 1, cat is looed 3."""
    a = audit_deal(basic(), players=P3, rules={"stakes.ante": ante})
    check(a, codes=[], pool_start=ante, payouts=payouts, looed={"cat": 3}, pool_next=pool_next)


@covers("stakes.ante_by")
@pytest.mark.parametrize(
    ("ante_by", "antes", "pool_start", "payouts"),
    [
        ("dealer", {"cat": 3}, 3, {"ann": 2, "bob": 1}),
        ("all", {"ann": 3, "bob": 3, "cat": 3}, 9, {"ann": 6, "bob": 3}),
    ],
)
def test_stakes_ante_by_all_makes_every_seated_player_ante(
    ante_by: str, antes: dict[str, int], pool_start: int, payouts: dict[str, int]
) -> None:
    """§2.1: ``pool_start`` is the dealer's ante, or every seated player's with
    ``ante_by = "all"`` (9, share 3). Cat is looed 3 either way."""
    a = audit_deal(basic(), players=P3, rules={"stakes.ante_by": ante_by})
    check(
        a,
        codes=[],
        antes=antes,
        pool_start=pool_start,
        payouts=payouts,
        looed={"cat": 3},
        pool_next=3,
    )


@covers("stakes.loo")
@pytest.mark.parametrize(("loo", "paid", "pool_next"), [("limited", 3, 3), ("unlimited", 9, 9)])
def test_stakes_loo_unlimited_makes_the_looed_player_pay_the_pool(
    loo: str, paid: int, pool_next: int
) -> None:
    """§5.1: a looed player pays ``stakes.loo_amount`` (3) or, unlimited, the pool (here a
    carried pool of 9, given by ``recorded.pool_start`` of the session's first deal, §2.1)."""
    a = audit_deal(basic(pool_start=9), players=P3, rules={"stakes.loo": loo})
    check(a, codes=[], payouts={"ann": 6, "bob": 3}, looed={"cat": paid}, pool_next=pool_next)


@covers("stakes.loo_amount")
@pytest.mark.parametrize("amount", [3, 7])
def test_stakes_loo_amount_is_what_a_limited_loo_costs(amount: int) -> None:
    """§5.1: limited loo: the looed cat pays ``stakes.loo_amount`` to the next pool."""
    a = audit_deal(basic(), players=P3, rules={"stakes.loo_amount": amount})
    check(a, codes=[], payouts={"ann": 2, "bob": 1}, looed={"cat": amount}, pool_next=amount)


@covers("stakes.loo_cap")
@pytest.mark.parametrize(("cap", "paid"), [(0, 12), (5, 5), (20, 12)])
def test_stakes_loo_cap_limits_an_unlimited_loo(cap: int, paid: int) -> None:
    """§5.1: unlimited loo pays the pool (12), at most ``stakes.loo_cap`` when above 0."""
    rules = {"stakes.loo": "unlimited", "stakes.loo_cap": cap}
    a = audit_deal(basic(pool_start=12), players=P3, rules=rules)
    check(a, codes=[], payouts={"ann": 8, "bob": 4}, looed={"cat": paid}, pool_next=paid)


@covers("stakes.loo_scope")
@pytest.mark.parametrize(
    ("scope", "looed", "pool_next"),
    [("active", {"cat": 3}, 3), ("everyone", {"cat": 3, "dan": 3}, 6)],
)
def test_stakes_loo_scope_everyone_looes_a_player_who_passed(
    scope: str, looed: dict[str, int], pool_next: int
) -> None:
    """§5.1 looed: dan deals and passes; ann, bob and cat play the basic hands (cat takes no
    trick). With ``loo_scope = "everyone"`` dan, who took no trick, is looed as well."""
    hands = {**BASIC_HANDS, "dan": "8D 9D TD"}
    events = declares("ann play", "bob play", "cat play", "dan pass") + BASIC_PLAY
    d = deal_doc(hands, events, dealer="dan", miss="2D 3D 4D", turn_up="2C")
    a = audit_deal(d, players=P4, rules={"stakes.loo_scope": scope})
    check(a, codes=[], payouts={"ann": 2, "bob": 1}, looed=looed, pool_next=pool_next)


@covers("stakes.loo_scope")
@pytest.mark.parametrize(
    ("scope", "looed", "pool_next"),
    [("active", {}, 0), ("everyone", {"ann": 3, "bob": 3}, 6)],
)
def test_stakes_loo_scope_everyone_looes_the_others_when_all_pass(
    scope: str, looed: dict[str, int], pool_next: int
) -> None:
    """§5.2: ``all_passed``: the dealer takes the pool; with ``loo_scope = "everyone"`` the
    others are looed."""
    a = audit_deal(all_passed(), players=P3, rules={"stakes.loo_scope": scope})
    check(a, outcome="all_passed", codes=[], payouts={"cat": 3}, looed=looed, pool_next=pool_next)


# -- declare.* --------------------------------------------------------------------------------


def must_session() -> list[dict[str, Any]]:
    """Deal 1: ann and bob pass (cat takes the 3). Deal 2 (ann deals, pool single again):
    bob passes, cat and ann play, cat wins every trick and ann is looed."""
    first = deal_doc(
        {"ann": "2H 3H 4H", "bob": "2S 3S 4S", "cat": "5S 6S 7S"},
        declares("ann pass", "bob pass"),
        turn_up="2C",
    )
    second = deal_doc(
        {"bob": "5H 6H 7H", "cat": "AS KS QS", "ann": "8S 9S TS"},
        declares("bob pass", "cat play", "ann play")
        + tricks("cat AS ann 8S", "cat KS ann 9S", "cat QS ann TS"),
        number=2,
        dealer="ann",
        turn_up="3C",
    )
    return [first, second]


@covers("declare.must")
@pytest.mark.parametrize(
    ("must", "musts", "violations"),
    [
        ("never", [False, False], [[], []]),
        ("single", [True, True], [["forced-play", "forced-play"], ["forced-play"]]),
        ("single_except_first", [False, True], [[], ["forced-play"]]),
    ],
)
def test_declare_must_makes_single_pools_musts_except_the_first_deal(
    must: str, musts: list[bool], violations: list[list[str]]
) -> None:
    """§1 must deal, §2.3, §2.5: both deals have single pools (deal 1 its ante, deal 2 after a
    deal that carried nothing). In a must a recorded pass is ``forced-play`` (the pass
    stands); ``single_except_first`` exempts the session's first deal. The deals are dealt
    without a Miss (``deal.miss`` off) so the same record suits every value."""
    audits = audit_deals(
        must_session(), players=P3, rules={"deal.miss": False, "declare.must": must}
    )
    assert [a.status for a in audits] == ["audited", "audited"]
    assert [a.must for a in audits] == musts
    assert [codes(a) for a in audits] == violations
    assert [a.outcome for a in audits] == ["all_passed", "played"]
    assert [a.payouts for a in audits] == [{"cat": 3}, {"cat": 3}]
    assert [a.looed for a in audits] == [{}, {"ann": 3}]
    assert [a.pool_next for a in audits] == [0, 3]
    assert all(a.errors == [] and a.discrepancies == [] for a in audits)


@covers("declare.club_law")
@pytest.mark.parametrize(("club_law", "violations"), [(False, []), (True, ["forced-play"])])
def test_declare_club_law_makes_a_club_turn_up_a_must(
    club_law: bool, violations: list[str]
) -> None:
    """§1 must deal, §2.2, §2.3: 2♣ is turned. Under club law the deal is a must that keeps
    its Miss, so ann's pass is ``forced-play`` (the pass stands). Bob wins every trick."""
    hands = {"ann": "2H 3H 4H", "bob": "AS KS QS", "cat": "2S 3S 4S"}
    events = declares("ann pass", "bob play", "cat play") + tricks(
        "bob AS cat 2S", "bob KS cat 3S", "bob QS cat 4S"
    )
    d = deal_doc(hands, events, miss="5H 6H 7H", turn_up="2C")
    a = audit_deal(d, players=P3, rules={"declare.club_law": club_law})
    check(
        a,
        status="audited",
        must=club_law,
        codes=violations,
        payouts={"bob": 3},
        looed={"cat": 3},
        pool_next=3,
    )


@covers("declare.last_must_play_single")
@pytest.mark.parametrize(
    ("value", "pool_start", "violations", "pool_next"),
    [
        (False, None, [], 0),
        (True, None, [("forced-play", "bob"), ("forced-play", "cat")], 0),
        (True, 6, [], 0),
    ],
)
def test_declare_last_must_play_single_obliges_the_last_player_and_the_dealer(
    value: bool, pool_start: int | None, violations: list[tuple[str, str]], pool_next: int
) -> None:
    """§2.5: in a single pool that every seat before the last non-dealer passed, the last
    non-dealer (bob) and the dealer must play: bob's pass and cat's silence are
    ``forced-play``; the passes stand and cat takes the pool. Not in a double pool (6)."""
    a = audit_deal(
        all_passed(pool_start=pool_start),
        players=P3,
        rules={"declare.last_must_play_single": value},
    )
    assert [(v.code, v.player) for v in a.violations] == violations
    check(a, outcome="all_passed", payouts={"cat": pool_start or 3}, pool_next=pool_next)


@covers("declare.dealer_defends")
@pytest.mark.parametrize(("value", "violations"), [(True, [("forced-play", "cat")]), (False, [])])
def test_declare_dealer_defends_obliges_the_dealer_against_a_lone_player(
    value: bool, violations: list[tuple[str, str]]
) -> None:
    """§2.5, §2.6: bob alone stands with his own hand; with ``dealer_defends`` the dealer's
    pass is ``forced-play``. The pass stands: bob is unopposed and takes the pool."""
    d = deal_doc(
        ALL_PASSED_HANDS,
        declares("ann pass", "bob play", "cat pass"),
        miss="5S 6S 7S",
        turn_up="2C",
    )
    a = audit_deal(d, players=P3, rules={"declare.dealer_defends": value})
    assert [(v.code, v.player) for v in a.violations] == violations
    check(a, outcome="unopposed", payouts={"bob": 3}, looed={}, pool_next=0)


# -- lead.* -----------------------------------------------------------------------------------

# Hearts trumps. Ann holds the top trump and leads spades to tricks 1 and 2, then the trump.
TOP_PLAY_ACE = tricks("ann KS bob 2S cat 5S", "ann QS bob 3S cat 6S", "ann AH bob 4D cat 5D")
TOP_PLAY_KING = tricks("ann KS bob 2S cat 5S", "ann QS bob 3S cat 6S", "ann KH bob 4D cat 5D")


@covers("lead.top_trump")
@pytest.mark.parametrize(
    ("turned", "value", "violations"),
    [
        ("2H", "every", ["lead-top-trump", "lead-top-trump"]),
        ("2H", "first", ["lead-top-trump", "trump-after-trick"]),
        ("2H", "off", ["trump-after-trick"]),
        ("AH", "every", ["lead-top-trump", "lead-top-trump"]),
        ("AH", "first", ["lead-top-trump", "trump-after-trick"]),
        ("AH", "off", ["trump-after-trick"]),
    ],
)
def test_lead_top_trump_binds_the_holder_of_the_ace_or_of_the_king_when_the_ace_is_turned(
    turned: str, value: str, violations: list[str]
) -> None:
    """§3 rows 1 and 4: ann holds the top trump (A♥, or K♥ when A♥ is the turn-up) and one
    trump only, and leads K♠ then Q♠. ``every`` binds both leads, ``first`` only trick 1
    (trick 2 then breaks "trump after trick", the next rule in order), ``off`` neither.
    Her first revoke is penalised: 12 to the next pool, her 3 shares stay (3 + 6 + 12)."""
    top = "AH" if turned == "2H" else "KH"
    hands = {"ann": f"{top} KS QS", "bob": "2S 3S 4D", "cat": "5S 6S 5D"}
    play_ = TOP_PLAY_ACE if turned == "2H" else TOP_PLAY_KING
    miss = "2D 3D 4C"
    d = deal_doc(hands, ALL_PLAY + play_, miss=miss, turn_up=turned)
    a = audit_deal(d, players=P3, rules={"lead.top_trump": value})
    assert [v.penalized for v in a.violations] == [True] + [False] * (len(violations) - 1)
    check(
        a,
        codes=violations,
        payouts={},
        looed={"bob": 3, "cat": 3},
        penalties={"ann": 12},
        pool_next=21,
    )


@covers("lead.top_trump")
@pytest.mark.parametrize(
    ("value", "violations", "payouts", "pool_next"),
    [
        ("every", ["lead-top-trump"], {}, 21),
        ("first", ["lead-top-trump"], {}, 21),
        ("off", [], {"ann": 3}, 6),
    ],
)
def test_lead_top_trump_is_not_satisfied_by_leading_another_trump(
    value: str, violations: list[str], payouts: dict[str, int], pool_next: int
) -> None:
    """§3: "each option that applies narrows the legal set". Ann holds A♥ 9♥ K♠ (hearts
    trumps) and leads 9♥. ``lead.trump_if = 2`` is satisfied by any trump, but the top-trump
    rule narrows her legal set to A♥, so 9♥ breaks ``lead-top-trump`` (first in order)."""
    hands = {"ann": "AH 9H KS", "bob": "2S 3S 4D", "cat": "5S 6S 5D"}
    play_ = tricks("ann 9H bob 4D cat 5D", "ann AH bob 2S cat 5S", "ann KS bob 3S cat 6S")
    d = deal_doc(hands, ALL_PLAY + play_, miss="2D 3D 4C", turn_up="2H")
    a = audit_deal(d, players=P3, rules={"lead.top_trump": value})
    check(a, codes=violations, payouts=payouts, looed={"bob": 3, "cat": 3}, pool_next=pool_next)


@covers("lead.highest_trump")
@pytest.mark.parametrize(
    ("value", "violations"),
    [
        ("never", []),
        ("first", ["lead-highest-trump"]),
        ("always", ["lead-highest-trump", "lead-highest-trump"]),
        ("two_players", ["lead-highest-trump", "lead-highest-trump"]),
    ],
)
def test_lead_highest_trump_binds_the_first_or_every_lead_of_two_or_more_trumps(
    value: str, violations: list[str]
) -> None:
    """§3 row 2: ann passes; bob (K♥ 9♥ 7♥, hearts trumps) leads 9♥ then 7♥ against cat.
    ``first`` binds trick 1, ``always`` both; ``two_players`` both, as exactly two play and
    the Q♥ gap under K♥ is neither played nor turned. Bob wins all three tricks; his
    penalised revoke leaves his shares in the pool (3 + cat's loo 3 + 12 = 18)."""
    hands = {"ann": "2C 3C 4C", "bob": "KH 9H 7H", "cat": "2S 3S 4S"}
    events = declares("ann pass", "bob play", "cat play") + tricks(
        "bob 9H cat 2S", "bob 7H cat 3S", "bob KH cat 4S"
    )
    d = deal_doc(hands, events, miss="AH 2D 3D", turn_up="2H")
    a = audit_deal(d, players=P3, rules={"lead.highest_trump": value})
    if violations:
        check(a, codes=violations, payouts={}, looed={"cat": 3}, pool_next=18)
    else:
        check(a, codes=[], payouts={"bob": 3}, looed={"cat": 3}, pool_next=3)


@covers("lead.highest_trump")
@pytest.mark.parametrize(
    ("value", "violations", "pool_next"),
    [
        ("two_players", [], 6),
        ("always", ["lead-highest-trump"], 21),
        ("first", ["lead-highest-trump"], 21),
        ("never", [], 6),
    ],
)
def test_lead_highest_trump_two_players_does_not_bind_with_three_players(
    value: str, violations: list[str], pool_next: int
) -> None:
    """§3 row 2: three play; ann leads J♥ holding K♥ J♥. Only ``two_players`` lets her (the
    rule is for exactly two active players); ``first``/``always`` require K♥. Ann takes
    every trick."""
    hands = {"ann": "KH JH 5S", "bob": "2S 3C 4C", "cat": "3S 5C 6C"}
    play_ = tricks("ann JH bob 3C cat 5C", "ann KH bob 4C cat 6C", "ann 5S bob 2S cat 3S")
    d = deal_doc(hands, ALL_PLAY + play_, miss="AH 2D 3D", turn_up="2H")
    a = audit_deal(d, players=P3, rules={"lead.highest_trump": value})
    check(a, codes=violations, looed={"bob": 3, "cat": 3}, pool_next=pool_next)


@covers("lead.highest_trump")
@pytest.mark.parametrize(
    ("value", "violations", "pool_next"),
    [
        ("two_players", [], 3),
        ("always", ["lead-highest-trump"], 18),
        ("first", ["lead-highest-trump"], 18),
    ],
)
def test_lead_highest_trump_two_players_counts_the_turn_up_as_filling_the_gap(
    value: str, violations: list[str], pool_next: int
) -> None:
    """§3 row 2: bob and cat play (ann passed); Q♥ is the turn-up, so bob's K♥ J♥ is an
    unbroken run from his highest and he may lead J♥ under ``two_players``."""
    hands = {"ann": "2C 3C 4C", "bob": "KH JH 5S", "cat": "2S 3S 4S"}
    events = declares("ann pass", "bob play", "cat play") + tricks(
        "bob JH cat 2S", "bob KH cat 3S", "bob 5S cat 4S"
    )
    d = deal_doc(hands, events, miss="AH 2D 3D", turn_up="QH")
    a = audit_deal(d, players=P3, rules={"lead.highest_trump": value})
    check(a, codes=violations, looed={"cat": 3}, pool_next=pool_next)


@covers("lead.trump_if")
@pytest.mark.parametrize(
    ("hand", "play_", "value", "violations"),
    [
        ("9H KS QS", "one", 0, []),
        ("9H KS QS", "one", 1, ["lead-trump"]),
        ("9H KS QS", "one", 2, []),
        ("9H 8H KS", "two", 0, []),
        ("9H 8H KS", "two", 1, ["lead-trump"]),
        ("9H 8H KS", "two", 2, ["lead-trump"]),
    ],
)
def test_lead_trump_if_binds_a_leader_holding_that_many_trumps(
    hand: str, play_: str, value: int, violations: list[str]
) -> None:
    """§3 row 3: ann leads K♠ to the first trick holding one trump (9♥) or two (9♥ 8♥);
    ``trump_if = N`` binds her when she holds N or more (0 = off). She wins every trick:
    3 shares, or (revoke) 12 to the next pool and her shares stay."""
    if play_ == "one":
        hands = {"ann": hand, "bob": "2S 3S 4D", "cat": "4S 5D 6D"}
        plays_ = tricks("ann KS bob 2S cat 4S", "ann 9H bob 4D cat 5D", "ann QS bob 3S cat 6D")
    else:
        hands = {"ann": hand, "bob": "2S 3C 4C", "cat": "3S 5C 6C"}
        plays_ = tricks("ann KS bob 2S cat 3S", "ann 9H bob 3C cat 5C", "ann 8H bob 4C cat 6C")
    d = deal_doc(hands, ALL_PLAY + plays_, miss="AH 2D 3D", turn_up="2H")
    a = audit_deal(d, players=P3, rules={"lead.trump_if": value})
    pool_next = 21 if violations else 6
    check(a, codes=violations, looed={"bob": 3, "cat": 3}, pool_next=pool_next)


@covers("lead.trump_after_trick")
@pytest.mark.parametrize(
    ("value", "violations", "payouts", "pool_next"),
    [(True, ["trump-after-trick"], {}, 21), (False, [], {"ann": 3}, 6)],
)
def test_lead_trump_after_trick_binds_the_winner_of_a_trick(
    value: bool, violations: list[str], payouts: dict[str, int], pool_next: int
) -> None:
    """§3 row 4: ann wins trick 1 and leads Q♠ to trick 2 holding 9♥ (hearts trumps)."""
    hands = {"ann": "9H KS QS", "bob": "2S 3S 4D", "cat": "4S 5S 5D"}
    play_ = tricks("ann KS bob 2S cat 4S", "ann QS bob 3S cat 5S", "ann 9H bob 4D cat 5D")
    d = deal_doc(hands, ALL_PLAY + play_, miss="AH 2D 3D", turn_up="2H")
    a = audit_deal(d, players=P3, rules={"lead.trump_after_trick": value})
    check(a, codes=violations, payouts=payouts, looed={"bob": 3, "cat": 3}, pool_next=pool_next)


# -- follow.* ---------------------------------------------------------------------------------

# Ann leads 5♠; bob holds A♠ and 2♠ and plays the 2♠ (ann wins); cat wins the last two tricks.
HEAD_HANDS = {"ann": "5S 4D 5D", "bob": "AS 2S 6D", "cat": "3S 7D 8D"}
HEAD_PLAY = tricks("ann 5S bob 2S cat 3S", "ann 4D bob 6D cat 7D", "cat 8D ann 5D bob AS")


def head_deal() -> dict[str, Any]:
    return deal_doc(HEAD_HANDS, ALL_PLAY + HEAD_PLAY, miss="AH 2D 3D", turn_up="2H")


@covers("follow.head")
@pytest.mark.parametrize(
    ("head", "violations", "looed", "penalties", "pool_next"),
    [
        (True, ["head-trick"], {"bob": 3}, {"bob": 12}, 15),
        (False, [], {"bob": 3}, {}, 3),
    ],
)
def test_follow_head_obliges_a_follower_to_beat_the_trick_if_he_can(
    head: bool,
    violations: list[str],
    looed: dict[str, int],
    penalties: dict[str, int],
    pool_next: int,
) -> None:
    """§4 step 3: bob follows 5♠ with 2♠ while holding A♠: ``head-trick`` when heading is
    required. Ann takes 1 trick, cat 2; bob none (looed 3, and 12 for the revoke)."""
    a = audit_deal(head_deal(), players=P3, rules={"follow.head": head})
    check(
        a,
        codes=violations,
        tricks={"ann": 1, "bob": 0, "cat": 2},
        payouts={"ann": 1, "cat": 2},
        looed=looed,
        penalties=penalties,
        pool_next=pool_next,
    )


def void_deal(cat_trump: str) -> dict[str, Any]:
    """Hearts trumps. Ann leads K♠, bob trumps with Q♥, cat (void in spades, holding
    ``cat_trump``) discards 4♦; cat trumps bob's club lead and wins the last trick."""
    hands = {"ann": "KS 6C 7C", "bob": "QH 2C 3C", "cat": f"{cat_trump} 4D 5D"}
    play_ = tricks("ann KS bob QH cat 4D", f"bob 2C cat {cat_trump} ann 6C", "cat 5D ann 7C bob 3C")
    return deal_doc(hands, ALL_PLAY + play_, miss="AH 2D 3D", turn_up="2H")


@covers("follow.void")
@pytest.mark.parametrize(
    ("void", "violations"),
    [("trump", ["must-trump"]), ("overtrump", []), ("any", [])],
)
def test_follow_void_overtrump_lets_a_player_without_a_higher_trump_discard(
    void: str, violations: list[str]
) -> None:
    """§4 step 4: cat, void in spades, holds only 5♥, below bob's Q♥. ``trump`` still makes
    him trump (``must-trump``); ``overtrump`` and ``any`` let him discard. Bob wins 1 trick,
    cat 2; a penalised revoke keeps cat's 2 shares in the pool (3 - 1 + 3 + 12 = 17)."""
    a = audit_deal(void_deal("5H"), players=P3, rules={"follow.void": void})
    if violations:
        check(a, codes=violations, payouts={"bob": 1}, looed={"ann": 3}, pool_next=17)
    else:
        check(a, codes=[], payouts={"bob": 1, "cat": 2}, looed={"ann": 3}, pool_next=3)


@covers("follow.void")
@pytest.mark.parametrize(
    ("void", "violations"),
    [("trump", ["must-trump"]), ("overtrump", ["must-overtrump"]), ("any", [])],
)
def test_follow_void_names_the_breach_by_the_first_step_it_breaks(
    void: str, violations: list[str]
) -> None:
    """§4 step 4: cat, void in spades, holds K♥ above bob's Q♥ and discards. ``trump``:
    he had to trump at all (``must-trump`` comes first); ``overtrump``: the trick was
    already trumped, so ``must-overtrump``; ``any``: any card."""
    a = audit_deal(void_deal("KH"), players=P3, rules={"follow.void": void})
    if violations:
        check(a, codes=violations, payouts={"bob": 1}, looed={"ann": 3}, pool_next=17)
    else:
        check(a, codes=[], payouts={"bob": 1, "cat": 2}, looed={"ann": 3}, pool_next=3)


def civil_deal(announce: bool) -> dict[str, Any]:
    """Pam on, hearts trumps: ann leads A♥ (perhaps announcing "Pam, be civil"); bob plays
    Pam holding 5♥ too and wins; bob wins trick 2, ann trick 3."""
    hands = {"ann": "AH KS QS", "bob": "JC 5H 2S", "cat": "3S 4S 5S"}
    lead = play("ann", "AH", **({"announce": "pam_be_civil"} if announce else {}))
    events = [
        *ALL_PLAY,
        lead,
        *tricks("bob JC cat 3S", "bob 5H cat 4S ann KS", "bob 2S cat 5S ann QS"),
    ]
    return deal_doc(hands, events, miss="2D 3D 4D", turn_up="2H")


@covers("follow.pam_civil")
@pytest.mark.parametrize(
    ("announce", "value", "violations"),
    [
        (True, "off", []),
        (True, "announced", ["pam-be-civil"]),
        (True, "always", ["pam-be-civil"]),
        (False, "announced", []),
        (False, "always", ["pam-be-civil"]),
    ],
)
def test_follow_pam_civil_bars_pam_on_the_ace_of_trumps_while_he_holds_another_trump(
    announce: bool, value: str, violations: list[str]
) -> None:
    """§4 step 1: A♥ led; bob holds Pam and 5♥. Pam is barred ``always``, or ``announced``
    when the lead carries the announcement; then Pam is a ``pam-be-civil`` revoke (off,
    heading makes Pam his only legal card). Tricks: bob 2, ann 1; cat looed."""
    rules = {"deal.pam": True, "follow.pam_civil": value}
    a = audit_deal(civil_deal(announce), players=P3, rules=rules)
    if violations:
        check(
            a,
            codes=violations,
            payouts={"ann": 1},
            penalties={"bob": 12},
            looed={"cat": 3},
            pool_next=17,
        )
    else:
        check(a, codes=[], payouts={"ann": 1, "bob": 2}, looed={"cat": 3}, pool_next=3)


@covers("follow.pam_civil_strict")
@pytest.mark.parametrize(
    ("strict", "violations", "payouts", "pool_next"),
    [(False, [], {"ann": 2, "bob": 1}, 3), (True, ["pam-be-civil"], {"ann": 2}, 16)],
)
def test_follow_pam_civil_strict_bars_pam_even_as_the_only_trump(
    strict: bool, violations: list[str], payouts: dict[str, int], pool_next: int
) -> None:
    """§4 step 1: ``pam_civil = "always"``; A♥ led and bob's only trump is Pam (with 2♠ 3♠).
    Not strict, Pam may (must) be played; strict, Pam is barred unless it is his last card."""
    hands = {"ann": "AH KS QS", "bob": "JC 2S 3S", "cat": "4S 5S 6S"}
    play_ = tricks("ann AH bob JC cat 4S", "bob 2S cat 5S ann KS", "ann QS bob 3S cat 6S")
    d = deal_doc(hands, ALL_PLAY + play_, miss="2D 3D 4D", turn_up="2H")
    rules = {"deal.pam": True, "follow.pam_civil": "always", "follow.pam_civil_strict": strict}
    a = audit_deal(d, players=P3, rules=rules)
    check(a, codes=violations, payouts=payouts, looed={"cat": 3}, pool_next=pool_next)


# -- flush.* ----------------------------------------------------------------------------------

# Ann holds three spades. With hearts trumps (K1) it is a plain flush; with spades trumps
# (K2) a flush in trumps. Played out, K1 gives each a trick; K2 ann 2, bob 1.
FLUSH_HANDS = {"ann": "QS JS TS", "bob": "AS 2D 3D", "cat": "5S 6S 5D"}
K1_PLAY = tricks("ann QS bob AS cat 5S", "bob 2D cat 5D ann TS", "cat 6S ann JS bob 3D")
K2_PLAY = tricks("ann QS bob AS cat 5S", "bob 2D cat 5D ann TS", "ann JS bob 3D cat 6S")


def k1(**kw: Any) -> dict[str, Any]:
    return deal_doc(FLUSH_HANDS, ALL_PLAY + K1_PLAY, miss="AH 2C 3C", turn_up="2H", **kw)


def k2() -> dict[str, Any]:
    return deal_doc(FLUSH_HANDS, ALL_PLAY + K2_PLAY, miss="AH 2C 3C", turn_up="2S")


FLUSH_WON = {"outcome": "flush", "payouts": {"ann": 3}, "looed": {"bob": 3, "cat": 3}}
K1_PLAYED = {"outcome": "played", "payouts": {"ann": 1, "bob": 1, "cat": 1}, "looed": {}}
K2_PLAYED = {"outcome": "played", "payouts": {"ann": 2, "bob": 1}, "looed": {"cat": 3}}


@covers("flush.kind")
@pytest.mark.parametrize(
    ("which", "kind", "expected"),
    [
        ("k1", "none", {**K1_PLAYED, "pool_next": 0}),
        ("k1", "trumps", {**K1_PLAYED, "pool_next": 0}),
        ("k1", "any_suit", {**FLUSH_WON, "pool_next": 6}),
        ("k2", "none", {**K2_PLAYED, "pool_next": 3}),
        ("k2", "trumps", {**FLUSH_WON, "pool_next": 6}),
        ("k2", "any_suit", {**FLUSH_WON, "pool_next": 6}),
    ],
)
def test_flush_kind_decides_whether_a_hand_of_one_suit_is_a_flush(
    which: str, kind: str, expected: dict[str, Any]
) -> None:
    """§5.3: ann's Q♠ J♠ T♠ is a flush with ``any_suit``, and with ``trumps`` only when
    spades are trumps (K2). A flush ends the deal (§2.8): ann takes the pool of 3, bob and
    cat are looed 3 each (pool_next 6). Played out, K1 pays a share to each (0 carried);
    K2 pays ann 2 and bob 1 and looes cat (3 carried)."""
    d = k1() if which == "k1" else k2()
    a = audit_deal(d, players=P3, rules={"flush.kind": kind})
    check(a, codes=[], **expected)


@covers("flush.pools")
@pytest.mark.parametrize(
    ("pools", "pool_start", "expected"),
    [
        ("all", None, {**FLUSH_WON, "pool_next": 6}),
        ("double", None, {**K1_PLAYED, "pool_next": 0}),
        ("all", 6, {**FLUSH_WON, "payouts": {"ann": 6}, "pool_next": 6}),
        ("double", 6, {**FLUSH_WON, "payouts": {"ann": 6}, "pool_next": 6}),
    ],
)
def test_flush_pools_double_ignores_flushes_in_a_single_pool(
    pools: str, pool_start: int | None, expected: dict[str, Any]
) -> None:
    """§5.3: flushes count only in the pools ``flush.pools`` allows: the session's first deal
    with its ante alone is a single pool; a recorded pool_start of 6 makes it double."""
    a = audit_deal(
        k1(pool_start=pool_start),
        players=P3,
        rules={"flush.kind": "any_suit", "flush.pools": pools},
    )
    check(a, codes=[], **expected)


@covers("flush.when")
@pytest.mark.parametrize(
    ("when", "expected"),
    [
        (
            "declared",
            {"outcome": "played", "payouts": {"bob": 1, "cat": 2}, "looed": {}, "pool_next": 0},
        ),
        ("dealt", {**FLUSH_WON, "pool_next": 6}),
    ],
)
def test_flush_when_dealt_counts_the_flush_of_a_player_who_would_pass(
    when: str, expected: dict[str, Any]
) -> None:
    """§2.4, §2.8, §5.3: ann, dealt a spade flush, passes. ``declared``: flushes count only
    among the active players, so bob and cat play it out. ``dealt``: the deal ends at the
    deal, ann takes the pool and (README: everyone seated counts as active) bob and cat are
    looed."""
    events = declares("ann pass", "bob play", "cat play") + tricks(
        "bob AS cat 5S", "bob 2D cat 5D", "cat 6S bob 3D"
    )
    d = deal_doc(FLUSH_HANDS, events, miss="AH 2C 3C", turn_up="2H")
    a = audit_deal(d, players=P3, rules={"flush.kind": "any_suit", "flush.when": when})
    check(a, codes=[], **expected)


@covers("flush.pam_wild")
@pytest.mark.parametrize(
    ("wild", "expected"),
    [
        (
            False,
            {
                "outcome": "played",
                "payouts": {"ann": 1, "bob": 2},
                "looed": {"cat": 3},
                "pool_next": 3,
            },
        ),
        (True, {**FLUSH_WON, "pool_next": 6}),
    ],
)
def test_flush_pam_wild_lets_pam_complete_a_flush_of_another_suit(
    wild: bool, expected: dict[str, Any]
) -> None:
    """§5.3: Pam on, hearts trumps; ann holds Pam, Q♠, T♠. With ``pam_wild`` that is a flush;
    without it Pam is a heart and the hand is mixed: ann must lead Pam, the top trump (§3)."""
    hands = {"ann": "JC QS TS", "bob": "AS 2D 3D", "cat": "5S 6S 5D"}
    play_ = tricks("ann JC bob 2D cat 5D", "ann QS bob AS cat 5S", "bob 3D cat 6S ann TS")
    d = deal_doc(hands, ALL_PLAY + play_, miss="AH 2C 3C", turn_up="2H")
    rules = {"deal.pam": True, "flush.kind": "any_suit", "flush.pam_wild": wild}
    check(audit_deal(d, players=P3, rules=rules), codes=[], **expected)


@covers("flush.rank")
@pytest.mark.parametrize(
    ("rank", "winner"),
    [("elder", "ann"), ("pam_then_elder", "cat"), ("trumps_then_cards", "bob")],
)
def test_flush_rank_decides_between_flushes(rank: str, winner: str) -> None:
    """§5.3: hearts trumps, Pam and ``pam_wild`` on; dan deals. Ann (eldest) holds a plain
    spade flush, bob a flush in trumps, cat a Pam-flush (Pam + diamonds). The best flush
    takes the pool of 3; the holders of losing flushes pay nothing; dan is looed 3."""
    hands = {"ann": "2S 3S 4S", "bob": "2H 3H 4H", "cat": "JC AD KD", "dan": "5D 6D 7S"}
    events = declares("ann play", "bob play", "cat play", "dan play")
    d = deal_doc(hands, events, dealer="dan", miss="8C 9C TC", turn_up="5H")
    rules = {
        "deal.pam": True,
        "flush.kind": "any_suit",
        "flush.pam_wild": True,
        "flush.rank": rank,
    }
    a = audit_deal(d, players=P4, rules=rules)
    check(a, outcome="flush", codes=[], payouts={winner: 3}, looed={"dan": 3}, pool_next=3)


@covers("flush.looes")
@pytest.mark.parametrize(
    ("looes", "looed"),
    [("active", {"bob": 3, "cat": 3}), ("everyone", {"bob": 3, "cat": 3, "dan": 3})],
)
def test_flush_looes_everyone_looes_a_player_who_passed(looes: str, looed: dict[str, int]) -> None:
    """§5.3: ann's declared flush looes the other active players, or (``everyone``) all other
    seated players: dan, who dealt and passed, too."""
    hands = {**FLUSH_HANDS, "dan": "7C 8C 9D"}
    events = declares("ann play", "bob play", "cat play", "dan pass")
    d = deal_doc(hands, events, dealer="dan", miss="AH 2C 3C", turn_up="2H")
    a = audit_deal(d, players=P4, rules={"flush.kind": "any_suit", "flush.looes": looes})
    check(
        a, outcome="flush", codes=[], payouts={"ann": 3}, looed=looed, pool_next=sum(looed.values())
    )


@covers("flush.pay")
@pytest.mark.parametrize(("pay", "each"), [("loo", 9), ("ante", 3)])
def test_flush_pay_ante_makes_the_looed_pay_a_single(pay: str, each: int) -> None:
    """§5.3: unlimited loo, a carried pool of 9: those looed by ann's flush pay the normal loo
    (the pool, 9) or a single (``stakes.ante``, 3)."""
    events = ALL_PLAY  # the flush ends the deal when declarations close
    d = deal_doc(FLUSH_HANDS, events, miss="AH 2C 3C", turn_up="2H", recorded={"pool_start": 9})
    rules = {"flush.kind": "any_suit", "stakes.loo": "unlimited", "flush.pay": pay}
    a = audit_deal(d, players=P3, rules=rules)
    check(
        a,
        outcome="flush",
        codes=[],
        payouts={"ann": 9},
        looed={"bob": each, "cat": each},
        pool_next=2 * each,
    )


@covers("flush.exempt_pam")
@pytest.mark.parametrize(("exempt", "looed"), [(True, {"cat": 3}), (False, {"bob": 3, "cat": 3})])
def test_flush_exempt_pam_lets_the_holder_of_pam_pay_nothing(
    exempt: bool, looed: dict[str, int]
) -> None:
    """§5.3: Pam on; ann's spade flush wins; bob holds Pam (no flush) and pays nothing when
    ``exempt_pam`` is on."""
    hands = {"ann": "QS JS TS", "bob": "JC 2D 3D", "cat": "5S 6S 5D"}
    d = deal_doc(hands, ALL_PLAY, miss="AH 2C 3C", turn_up="2H")
    rules = {"deal.pam": True, "flush.kind": "any_suit", "flush.exempt_pam": exempt}
    a = audit_deal(d, players=P3, rules=rules)
    check(
        a, outcome="flush", codes=[], payouts={"ann": 3}, looed=looed, pool_next=sum(looed.values())
    )


# -- penalties.* ------------------------------------------------------------------------------


@covers("penalties.revoke")
@pytest.mark.parametrize(
    ("revoke", "expected"),
    [
        (
            "forfeit",
            {
                "outcome": "played",
                "payouts": {"ann": 1, "cat": 2},
                "looed": {"bob": 3},
                "penalties": {"bob": 12},
                "pool_next": 15,
            },
        ),
        (
            "divide",
            {
                "outcome": "revoke",
                "payouts": {"ann": 1, "cat": 1},
                "looed": {},
                "penalties": {"bob": 12},
                "pool_next": 13,
            },
        ),
    ],
)
def test_penalties_revoke_divide_shares_the_pool_among_the_others(
    revoke: str, expected: dict[str, Any]
) -> None:
    """§5.1: bob's head-trick revoke. ``forfeit``: played out as usual, bob pays 12 and is
    looed. ``divide``: outcome ``revoke``, ann and cat share the pool of 3 (1 each, the odd
    chip stays), bob pays 12, no one is looed (3 - 2 + 12 = 13)."""
    a = audit_deal(head_deal(), players=P3, rules={"penalties.revoke": revoke})
    check(a, codes=["head-trick"], **expected)


@covers("penalties.revoke_amount")
@pytest.mark.parametrize(
    ("amount", "penalties", "pool_next"), [(12, {"bob": 12}, 15), (4, {"bob": 4}, 7), (0, {}, 3)]
)
def test_penalties_revoke_amount_is_paid_to_the_next_pool(
    amount: int, penalties: dict[str, int], pool_next: int
) -> None:
    """§5.1 forfeit: the offender pays ``revoke_amount`` to the next pool (3 left after
    shares, bob's loo 3, the revoke)."""
    a = audit_deal(head_deal(), players=P3, rules={"penalties.revoke_amount": amount})
    check(
        a,
        codes=["head-trick"],
        payouts={"ann": 1, "cat": 2},
        looed={"bob": 3},
        penalties=penalties,
        pool_next=pool_next,
    )


@covers("penalties.out_of_turn")
@pytest.mark.parametrize(
    ("amount", "payouts", "penalties", "pool_next"),
    [(0, {"ann": 3}, {}, 3), (3, {"ann": 6}, {"cat": 3}, 3), (4, {"ann": 6}, {"cat": 4}, 4)],
)
def test_penalties_out_of_turn_goes_into_the_current_pool(
    amount: int, payouts: dict[str, int], penalties: dict[str, int], pool_next: int
) -> None:
    """§2.9, §5: cat plays to trick 1 before bob: ``out-of-turn``, his card is dead, he
    retires (not looed) and pays ``out_of_turn`` into this pool, raising the share: pool
    3 + 4 = 7 pays 2 a trick. Ann wins all three tricks; bob is looed 3."""
    hands = {"ann": "KS QS JS", "bob": "2S 3S 4S", "cat": "5S 6S 7S"}
    play_ = tricks("ann KS cat 5S bob 2S", "ann QS bob 3S", "ann JS bob 4S")
    d = deal_doc(hands, ALL_PLAY + play_, miss="AH 2D 3D", turn_up="2H")
    a = audit_deal(d, players=P3, rules={"penalties.out_of_turn": amount})
    check(
        a,
        codes=["out-of-turn"],
        tricks={"ann": 3, "bob": 0, "cat": 0},
        payouts=payouts,
        looed={"bob": 3},
        penalties=penalties,
        pool_next=pool_next,
    )


@covers("penalties.declare_out_of_turn")
@pytest.mark.parametrize(
    ("amount", "payouts", "penalties"),
    [(3, {"ann": 4, "bob": 2}, {"bob": 3}), (0, {"ann": 2, "bob": 1}, {})],
)
def test_penalties_declare_out_of_turn_goes_into_the_current_pool(
    amount: int, payouts: dict[str, int], penalties: dict[str, int]
) -> None:
    """§2.5, §5: bob declares before ann (the eldest): ``declare-out-of-turn``, the
    declaration stands; bob pays ``declare_out_of_turn`` into this pool (3 + 3 = 6, share 2)."""
    events = declares("bob play", "ann play", "cat play") + BASIC_PLAY
    a = audit_deal(basic(events), players=P3, rules={"penalties.declare_out_of_turn": amount})
    check(
        a,
        codes=["declare-out-of-turn"],
        payouts=payouts,
        looed={"cat": 3},
        penalties=penalties,
        pool_next=3,
    )


@covers("penalties.misdeal")
@pytest.mark.parametrize("amount", [3, 5])
def test_penalties_misdeal_is_the_dealers_forfeit(amount: int) -> None:
    """§2.2, §5.2: a deal recorded as a misdeal: the dealer forfeits ``misdeal`` into the
    pool and nothing else happens."""
    a = audit_deal(misdealt(), players=P3, rules={"penalties.misdeal": amount})
    check(
        a,
        status="misdeal",
        outcome="misdeal",
        codes=["misdeal"],
        payouts={},
        looed={},
        penalties={"cat": amount},
        pool_next=3 + amount,
    )


@covers("penalties.misdeal_redeal")
@pytest.mark.parametrize(
    ("redeal", "dealer", "violations", "pool_start"),
    [
        ("same_dealer", "cat", [], 6),
        ("same_dealer", "ann", ["dealer-rotation"], 9),
        ("next_dealer", "cat", ["dealer-rotation"], 6),
        ("next_dealer", "ann", [], 9),
    ],
)
def test_penalties_misdeal_redeal_decides_who_deals_after_a_misdeal(
    redeal: str, dealer: str, violations: list[str], pool_start: int
) -> None:
    """§2.1, §2.2, §5.5: cat misdeals deal 1 (pool 3 + forfeit 3). Deal 2 is dealt by cat
    again (a redeal: no new ante, pool 6) or by ann (her ante: 9); the one the option does
    not name is a ``dealer-rotation`` violation. Deal 2 is passed round to the dealer."""
    hands = {"ann": "2S 3S 4S", "bob": "2H 3H 4H", "cat": "2D 3D 4D"}
    order = ("ann", "bob") if dealer == "cat" else ("bob", "cat")
    second = deal_doc(
        hands,
        declares(*(f"{p} pass" for p in order)),
        number=2,
        dealer=dealer,
        miss="5S 6S 7S",
        turn_up="2C",
    )
    audits = audit_deals(
        [misdealt(), second], players=P3, rules={"penalties.misdeal_redeal": redeal}
    )
    assert audits[0].status == "misdeal"
    assert audits[0].pool_next == 6
    check(
        audits[1],
        status="audited",
        codes=violations,
        pool_start=pool_start,
        outcome="all_passed",
        payouts={dealer: pool_start},
        pool_next=0,
    )


# -- coverage ---------------------------------------------------------------------------------


def test_every_option_has_a_test() -> None:
    """docs/rules.md §7: every option must be covered by a test that cites it."""
    assert sorted(set(OPTION_SPECS) - set(COVERAGE)) == []
    assert sorted(set(COVERAGE) - set(OPTION_SPECS)) == []
    assert len(OPTION_SPECS) == 38


# -- option handling --------------------------------------------------------------------------


def test_an_unknown_option_in_session_rules_rejects_the_sessions_deals() -> None:
    """docs/log-format.md session.rules, §7: an unknown option name is a log error naming the
    valid options; no deal of the session is audited."""
    doc = session_doc([all_passed(), basic(number=2, dealer="ann")], players=P3)
    doc["session"]["rules"] = {"follow.voids": "any"}
    report = audit_session(doc)
    assert report.errors
    message = report.errors[0].message
    assert "follow.voids" in message
    assert all(name in message for name in OPTION_SPECS)
    assert [d.status for d in report.deals] == ["rejected", "rejected"]
    assert all(d.errors and "follow.voids" in d.errors[0].message for d in report.deals)


@pytest.mark.parametrize(
    ("name", "value", "accepts"),
    [
        ("follow.void", "sometimes", ["trump", "overtrump", "any"]),
        ("deal.hand_size", 4, ["3", "5"]),
        ("deal.pam", "yes", ["true or false"]),
        ("stakes.ante", 0, [">= 1"]),
        ("penalties.misdeal_redeal", "dealer", ["same_dealer", "next_dealer"]),
    ],
)
def test_a_bad_option_value_in_session_rules_rejects_the_sessions_deals(
    name: str, value: object, accepts: list[str]
) -> None:
    """§7: a value the option does not take is a log error listing the values it takes."""
    doc = session_doc([all_passed()], players=P3)
    doc["session"]["rules"] = {name: value}
    report = audit_session(doc)
    assert report.errors
    message = report.errors[0].message
    assert name in message
    assert all(word in message for word in accepts), message
    assert [d.status for d in report.deals] == ["rejected"]


@pytest.mark.parametrize(
    ("choice", "session_rules", "ruleset_name", "pool_start", "pool_next"),
    [
        (RuleChoice(), {}, "five-card", 5, 10),
        (RuleChoice(), {"penalties.misdeal": 4}, "five-card", 5, 9),
        (RuleChoice(ruleset=builtin("three-card")), {}, "three-card", 3, 6),
        (RuleChoice(ruleset=builtin("three-card")), {"penalties.misdeal": 4}, "three-card", 3, 7),
        (
            RuleChoice(overrides={"penalties.misdeal": 7}),
            {"penalties.misdeal": 4},
            "five-card",
            5,
            12,
        ),
        (
            RuleChoice(ruleset=builtin("three-card"), overrides={"penalties.misdeal": 7}),
            {"penalties.misdeal": 4},
            "three-card",
            3,
            10,
        ),
    ],
)
def test_the_command_line_beats_session_rules(
    choice: RuleChoice,
    session_rules: dict[str, object],
    ruleset_name: str,
    pool_start: int,
    pool_next: int,
) -> None:
    """§7, README "options in layers": the ruleset (``--ruleset``, else session.ruleset),
    then session.rules, then ``--set`` overrides; the command line wins. A five-card session
    (ante 5, misdeal 5) with a misdeal: pool_next = ante + the misdeal forfeit in force."""
    doc = session_doc([misdealt()], ruleset="five-card", rules=session_rules, players=P3)
    report = audit_session(doc, choice)
    assert report.ruleset == ruleset_name
    (a,) = report.deals
    check(a, status="misdeal", pool_start=pool_start, pool_next=pool_next)


def test_a_user_ruleset_file_takes_three_cards_values_for_what_it_leaves_out(
    tmp_path: Path,
) -> None:
    """§7, README: a TOML ruleset file of the user's may set only some options; the rest are
    three-card's. Here ante 4 and misdeal 7: a misdeal carries 4 + 7; the basic deal pays
    ann 2 and bob 1 (share 1) and cat is looed three-card's 3."""
    path = tmp_path / "club.toml"
    path.write_text(
        'name = "club"\ndescription = "our club"\nsource = "the club book"\n\n'
        "[stakes]\nante = 4\n\n[penalties]\nmisdeal = 7\n",
        encoding="utf-8",
    )
    ruleset = load(str(path))
    assert ruleset.name == "club"
    expected = dict(builtin("three-card").options.dotted())
    expected.update({"stakes.ante": 4, "penalties.misdeal": 7})
    assert ruleset.options.dotted() == expected

    choice = RuleChoice(ruleset=ruleset)
    (misdeal,) = audit_session(session_doc([misdealt()], players=P3), choice).deals
    check(misdeal, status="misdeal", pool_start=4, pool_next=11)
    (played,) = audit_session(session_doc([basic()], players=P3), choice).deals
    check(played, codes=[], payouts={"ann": 2, "bob": 1}, looed={"cat": 3}, pool_next=4)
