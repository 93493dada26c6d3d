"""Settling every pool as docs/rules.md says: §2.1 (pools and continuity), §5.1 (played out),
§5.2 (ended before play), §5.3 (flushes), §5.4 (chips) and §5.5 (dealer rotation).

Every expected amount is worked out by hand from docs/rules.md; the arithmetic is in the
comments next to it. Conventions of the hand-built deals, unless a test says otherwise:

- the turn-up is a diamond, so diamonds are trumps, and nobody holds a diamond: the lead
  rules of §3 never bind and following (§4) is follow-suit and heading only;
- most hands hold one card of each of spades, hearts and clubs, so every follow is forced;
- the Miss, where one is dealt, is ``4S 4H 4C``.
"""

from __future__ import annotations

from typing import Any

import pytest
from loo_helpers import audit_deals, deal_doc, declare, plays

from loo_replay.engine.cards import DIAMONDS
from loo_replay.engine.session import DealAudit, Discrepancy

THREE = ("ann", "bob", "cat")
FOUR = ("ann", "bob", "cat", "dan")
MISS = "4S 4H 4C"

Deal = dict[str, Any]
Row = dict[str, Any]


# -- building deals -------------------------------------------------------------------


def declares(*pairs: str) -> list[dict[str, Any]]:
    """``declares("ann play", "bob pass")`` -> declare events."""
    return [declare(*pair.split()) for pair in pairs]


def clockwise(seats: tuple[str, ...], dealer: str) -> tuple[str, ...]:
    """The seats from the eldest (left of the dealer) round to the dealer (§1)."""
    i = seats.index(dealer)
    return seats[i + 1 :] + seats[: i + 1]


def sweep(
    number: int,
    dealer: str,
    *,
    seats: tuple[str, ...] = THREE,
    must: bool = False,
    recorded: dict[str, Any] | None = None,
    players: tuple[str, ...] | None = None,
) -> Deal:
    """Everyone plays; the eldest holds AS AH AC, the next KS KH KC, then Q, J, T.

    The eldest leads his three aces and takes every trick; each other player holds one
    card of each suit, so every follow is forced. In a must deal there is no Miss and the
    declarations are omitted (§1, §2.5).
    """
    order = clockwise(seats, dealer)
    ranks = "AKQJT"
    hands = {p: " ".join(f"{ranks[i]}{s}" for s in "SHC") for i, p in enumerate(order)}
    events = [] if must else declares(*(f"{p} play" for p in order))
    for suit in "SHC":
        events += plays(*(f"{p} {ranks[i]}{suit}" for i, p in enumerate(order)))
    return deal_doc(
        hands,
        number=number,
        dealer=dealer,
        turn_up="2D",
        miss=None if must else MISS,
        events=events,
        recorded=recorded,
        players=players,
    )


def all_pass(number: int, dealer: str, *, seats: tuple[str, ...] = FOUR, **kw: Any) -> Deal:
    """Every non-dealer passes; the dealer need not declare (§2.5): outcome ``all_passed``."""
    order = clockwise(seats, dealer)
    hands = {p: " ".join(f"{'AKQJT'[i]}{s}" for s in "SHC") for i, p in enumerate(order)}
    events = declares(*(f"{p} pass" for p in order[:-1]))
    return deal_doc(
        hands, number=number, dealer=dealer, miss=MISS, turn_up="2D", events=events, **kw
    )


def misdeal(number: int, dealer: str, **kw: Any) -> Deal:
    """A deal recorded as abandoned (``"misdeal": true``); the hands may be absent (§2.2)."""
    return deal_doc(None, number=number, dealer=dealer, miss=None, turn_up=None, misdeal=True, **kw)


# -- reading audits -------------------------------------------------------------------


def money(a: DealAudit) -> Row:
    """The settlement of a deal, as compared with the hand-worked values."""
    return {
        "pool": a.pool,
        "pool_start": a.pool_start,
        "outcome": a.outcome,
        "payouts": a.payouts,
        "looed": a.looed,
        "pool_next": a.pool_next,
    }


def row(
    pool: str,
    pool_start: int,
    outcome: str,
    payouts: dict[str, int],
    looed: dict[str, int],
    pool_next: int,
) -> Row:
    return {
        "pool": pool,
        "pool_start": pool_start,
        "outcome": outcome,
        "payouts": payouts,
        "looed": looed,
        "pool_next": pool_next,
    }


def assert_clean(a: DealAudit) -> None:
    """Audited (or a misdeal), with no rule broken and nothing recorded wrongly."""
    assert a.status in ("audited", "misdeal"), a.errors
    assert a.errors == []
    assert [v.code for v in a.violations if v.code != "misdeal"] == []
    assert a.discrepancies == []


def conserved(a: DealAudit, total: int) -> None:
    """§5.4: at every deal boundary the stacks plus the pool equal the starting chips."""
    assert a.stacks is not None
    assert a.pool_next is not None
    assert sum(a.stacks.values()) + a.pool_next == total


# -- reusable hands ---------------------------------------------------------------------

# Three players, dealer cat (eldest ann, then bob, cat), everyone plays.
# ann AS AH 2C, bob KS 2H 3C, cat QS KH AC:
#   trick 1 ann AS bob KS cat QS -> ann; trick 2 ann AH bob 2H cat KH -> ann;
#   trick 3 ann 2C bob 3C cat AC -> cat (cat heads with his only club).
# Tricks: ann 2, bob 0, cat 1.
TWO_ONE_NIL_HANDS = {"ann": "AS AH 2C", "bob": "KS 2H 3C", "cat": "QS KH AC"}
TWO_ONE_NIL_PLAYS = plays(
    "ann AS", "bob KS", "cat QS", "ann AH", "bob 2H", "cat KH", "ann 2C", "bob 3C", "cat AC"
)


def two_one_nil(recorded: dict[str, Any] | None = None) -> Deal:
    events = declares("ann play", "bob play", "cat play") + TWO_ONE_NIL_PLAYS
    return deal_doc(
        dict(TWO_ONE_NIL_HANDS),
        number=1,
        dealer="cat",
        miss=MISS,
        turn_up="2D",
        events=events,
        recorded=recorded,
    )


# ======================================================================================
# §5.1 / §5.2: every outcome under limited and unlimited loo, loo_scope active/everyone
# ======================================================================================

# Four players, dealer dan (eldest ann, bob, cat, dan); the first deal adopts a recorded
# pool_start of 12 (§2.1), so pool = 12 and share = 12 // 3 = 4.
# What one looed player pays (§5.1): limited -> loo_amount 3; unlimited -> the pool, 12;
# unlimited with loo_cap 5 -> min(12, 5) = 5; with loo_cap 20 -> min(12, 20) = 12.
LOO_VARIANTS: dict[str, tuple[dict[str, Any], int]] = {
    "limited": ({"stakes.loo": "limited"}, 3),
    "unlimited": ({"stakes.loo": "unlimited", "stakes.loo_cap": 0}, 12),
    "unlimited-cap-5": ({"stakes.loo": "unlimited", "stakes.loo_cap": 5}, 5),
    "unlimited-cap-20": ({"stakes.loo": "unlimited", "stakes.loo_cap": 20}, 12),
}
MATRIX = [(v, scope) for v in LOO_VARIANTS for scope in ("active", "everyone")]


def matrix_audit(deal: Deal, variant: str, scope: str, **extra: Any) -> DealAudit:
    rules = {**LOO_VARIANTS[variant][0], "stakes.loo_scope": scope, **extra}
    deal["recorded"] = {"pool_start": 12}
    (a,) = audit_deals([deal], players=FOUR, rules=rules)
    return a


@pytest.mark.parametrize(("variant", "scope"), MATRIX)
def test_played_out_pays_shares_per_trick_and_looes_by_stakes_loo_and_loo_scope(
    variant: str, scope: str
) -> None:
    """§5.1: each active player receives share x tricks; a looed player pays loo_amount
    (limited) or the pool capped by loo_cap (unlimited); loo_scope "everyone" looes the
    passed players who took no trick too."""
    # ann AS AH 2C, cat KS KH AC, dan QS QH 3C play; bob passes.
    # t1 ann AS cat KS dan QS -> ann; t2 ann AH cat KH dan QH -> ann; t3 ann 2C cat AC dan 3C
    # -> cat. Tricks ann 2, cat 1, dan 0.
    hands = {"ann": "AS AH 2C", "bob": "5S 5H 5C", "cat": "KS KH AC", "dan": "QS QH 3C"}
    events = declares("ann play", "bob pass", "cat play", "dan play") + plays(
        "ann AS", "cat KS", "dan QS", "ann AH", "cat KH", "dan QH", "ann 2C", "cat AC", "dan 3C"
    )
    a = matrix_audit(
        deal_doc(hands, number=1, dealer="dan", miss=MISS, turn_up="2D", events=events),
        variant,
        scope,
    )
    loo = LOO_VARIANTS[variant][1]
    # payouts: ann 2 x 4 = 8, cat 1 x 4 = 4. Looed: dan (active, no trick); with
    # "everyone" also bob (passed, no trick).
    looed = {"dan": loo} if scope == "active" else {"dan": loo, "bob": loo}
    # pool_next = 12 - 12 paid out + the loos
    assert money(a) == row("double", 12, "played", {"ann": 8, "cat": 4}, looed, sum(looed.values()))
    assert a.tricks == {"ann": 2, "cat": 1, "dan": 0}
    assert_clean(a)


@pytest.mark.parametrize(("variant", "scope"), MATRIX)
def test_all_passed_dealer_takes_the_pool_and_everyone_scope_looes_the_others(
    variant: str, scope: str
) -> None:
    """§2.6, §5.2: no one stands, the dealer takes the pool; with loo_scope "everyone" the
    others are looed (the normal loo: limited, or the pool capped by loo_cap)."""
    a = matrix_audit(all_pass(1, "dan"), variant, scope)
    loo = LOO_VARIANTS[variant][1]
    # dan takes 12; "everyone": ann, bob, cat each pay the loo into the next pool.
    looed = {} if scope == "active" else {"ann": loo, "bob": loo, "cat": loo}
    # pool_next = 12 - 12 + the loos (0, or 3 x loo)
    assert money(a) == row("double", 12, "all_passed", {"dan": 12}, looed, sum(looed.values()))
    assert_clean(a)


@pytest.mark.parametrize(("variant", "scope"), MATRIX)
def test_unopposed_lone_player_takes_the_pool_and_everyone_scope_looes_the_others(
    variant: str, scope: str
) -> None:
    """§2.6, §5.2: a single active non-dealer takes the pool; with loo_scope "everyone" the
    others are looed."""
    # ann takes the Miss and stands alone (dealer_defends binds only against a player on
    # his own hand, §2.5); bob, cat and dan pass.
    hands = {"ann": "AS AH AC", "bob": "KS KH KC", "cat": "QS QH QC", "dan": "JS JH JC"}
    events = declares("ann take_miss", "bob pass", "cat pass", "dan pass")
    a = matrix_audit(
        deal_doc(hands, number=1, dealer="dan", miss=MISS, turn_up="2D", events=events),
        variant,
        scope,
    )
    loo = LOO_VARIANTS[variant][1]
    looed = {} if scope == "active" else {"bob": loo, "cat": loo, "dan": loo}
    # ann takes 12; pool_next = 12 - 12 + the loos
    assert money(a) == row("double", 12, "unopposed", {"ann": 12}, looed, sum(looed.values()))
    assert_clean(a)


@pytest.mark.parametrize(("variant", "scope"), MATRIX)
def test_flush_winner_takes_the_pool_and_flush_looes_ignores_loo_scope(
    variant: str, scope: str
) -> None:
    """§5.3: the flush takes the whole pool; the other active players (flush.looes
    "active") pay the normal loo; loo_scope (§5.1, §5.2) does not widen a flush's loo."""
    # flush.kind any_suit, when declared: ann (2H 3H 5H) plays, bob passes, cat and dan play.
    hands = {"ann": "2H 3H 5H", "bob": "6S 6H 6C", "cat": "7S 7H 7C", "dan": "8S 8H 8C"}
    events = declares("ann play", "bob pass", "cat play", "dan play")
    a = matrix_audit(
        deal_doc(hands, number=1, dealer="dan", miss=MISS, turn_up="2D", events=events),
        variant,
        scope,
        **{"flush.kind": "any_suit"},
    )
    loo = LOO_VARIANTS[variant][1]
    # ann takes 12; cat and dan (active) each pay the loo; bob passed: not looed.
    looed = {"cat": loo, "dan": loo}
    assert money(a) == row("double", 12, "flush", {"ann": 12}, looed, 2 * loo)
    assert_clean(a)


@pytest.mark.parametrize(("variant", "scope"), MATRIX)
def test_revoke_divide_splits_the_pool_and_no_one_is_looed_whatever_the_stakes(
    variant: str, scope: str
) -> None:
    """§5.1 divide: the pool is divided equally among the active players without a
    penalised revoke; the offender pays revoke_amount to the next pool; no one is looed."""
    # ann AS AH AC, bob KS 3H KC, cat QS QH QC, dan JS JH JC, all play.
    # t1 ann AS, bob 3H (holds KS: follow-suit revoke), cat QS, dan JS -> ann;
    # t2 ann AH, bob KS (void in hearts), cat QH, dan JH -> ann; t3 ann AC bob KC cat QC dan JC.
    hands = {"ann": "AS AH AC", "bob": "KS 3H KC", "cat": "QS QH QC", "dan": "JS JH JC"}
    events = declares("ann play", "bob play", "cat play", "dan play") + plays(
        "ann AS", "bob 3H", "cat QS", "dan JS",
        "ann AH", "bob KS", "cat QH", "dan JH",
        "ann AC", "bob KC", "cat QC", "dan JC",
    )  # fmt: skip
    a = matrix_audit(
        deal_doc(hands, number=1, dealer="dan", miss=MISS, turn_up="2D", events=events),
        variant,
        scope,
        **{"penalties.revoke": "divide"},
    )
    # sharers ann, cat, dan: 12 // 3 = 4 each; bob pays revoke_amount 12 to the next pool;
    # cat and dan took no trick but are not looed. pool_next = 12 - 12 + 12 = 12.
    payouts = {"ann": 4, "cat": 4, "dan": 4}
    assert money(a) == row("double", 12, "revoke", payouts, {}, 12)
    assert a.penalties == {"bob": 12}
    assert [(v.code, v.player, v.penalized) for v in a.violations] == [("follow-suit", "bob", True)]
    assert a.discrepancies == []


@pytest.mark.parametrize(("variant", "scope"), MATRIX)
def test_misdeal_adds_the_dealers_forfeit_and_pays_nothing_whatever_the_stakes(
    variant: str, scope: str
) -> None:
    """§2.2, §5.2: a misdeal adds the dealer's forfeit (penalties.misdeal) to the pool and
    nothing is paid out or looed."""
    a = matrix_audit(misdeal(1, "dan"), variant, scope)
    # pool_next = 12 + misdeal 3 = 15
    assert money(a) == row("double", 12, "misdeal", {}, {}, 15)
    assert a.status == "misdeal"
    assert a.penalties == {"dan": 3}
    assert [(v.code, v.player, v.penalized) for v in a.violations] == [("misdeal", "dan", True)]
    assert a.discrepancies == []


# ======================================================================================
# §5.1 played out: details
# ======================================================================================


@pytest.mark.parametrize(
    ("recorded", "expected"),
    [
        # No recorded pool_start: the first deal starts from its ante alone (§2.1):
        # pool 3, single; share 3 // 3 = 1: ann 2 x 1 = 2, cat 1 x 1 = 1; bob looed 3;
        # pool_next = 3 - 3 + 3 = 3.
        (None, row("single", 3, "played", {"ann": 2, "cat": 1}, {"bob": 3}, 3)),
        # Adopted pool_start 12: share 4: ann 8, cat 4; bob looed 3; 12 - 12 + 3 = 3.
        ({"pool_start": 12}, row("double", 12, "played", {"ann": 8, "cat": 4}, {"bob": 3}, 3)),
    ],
)
def test_limited_loo_played_out_pays_share_per_trick_rounded_down(
    recorded: dict[str, Any] | None, expected: Row
) -> None:
    """§5 share = pool // hand_size; §5.1 share x tricks, limited loo = loo_amount."""
    (a,) = audit_deals([two_one_nil(recorded)], players=THREE)
    assert money(a) == expected
    assert a.tricks == {"ann": 2, "bob": 0, "cat": 1}
    assert_clean(a)


@pytest.mark.parametrize(
    ("rules", "loo"),
    [
        ({"stakes.loo": "unlimited"}, 13),  # the whole pool, 13
        ({"stakes.loo": "unlimited", "stakes.loo_cap": 9}, 9),  # min(13, 9)
        ({"stakes.loo": "unlimited", "stakes.loo_cap": 13}, 13),  # min(13, 13)
        ({"stakes.loo": "unlimited", "stakes.loo_cap": 50}, 13),  # min(13, 50)
        ({"stakes.loo": "limited", "stakes.loo_cap": 9}, 3),  # the cap binds only unlimited
    ],
)
def test_unlimited_loo_pays_the_whole_pool_capped_by_loo_cap(
    rules: dict[str, Any], loo: int
) -> None:
    """§5.1: a looed player pays the pool (unlimited), at most loo_cap when above 0."""
    (a,) = audit_deals([two_one_nil({"pool_start": 13})], players=THREE, rules=rules)
    # share 13 // 3 = 4: ann 8, cat 4 (1 chip stays); bob looed;
    # pool_next = 13 - 12 + loo
    assert money(a) == row("double", 13, "played", {"ann": 8, "cat": 4}, {"bob": loo}, 1 + loo)
    assert_clean(a)


@pytest.mark.parametrize(
    ("rules", "loo"),
    [
        ({}, 3),  # limited: loo_amount 3
        ({"stakes.loo": "unlimited"}, 15),  # unlimited: the pool, 12 + 3 = 15
        ({"stakes.loo": "unlimited", "stakes.loo_cap": 9}, 9),  # min(15, 9)
    ],
)
def test_single_penalty_goes_into_the_current_pool_so_shares_and_unlimited_loo_grow(
    rules: dict[str, Any], loo: int
) -> None:
    """§5: pool = pool_start + single penalties paid during the deal (declare-out-of-turn,
    §2.5); share and the unlimited loo are taken from that pool."""
    deal = two_one_nil({"pool_start": 12})
    # bob declares before ann, whose turn it was: penalties.declare_out_of_turn 3 to the
    # current pool.
    deal["events"] = declares("bob play", "ann play", "cat play") + TWO_ONE_NIL_PLAYS
    (a,) = audit_deals([deal], players=THREE, rules=rules)
    # pool = 12 + 3 = 15, share 5: ann 2 x 5 = 10, cat 1 x 5 = 5; bob looed;
    # pool_next = 15 - 15 + loo
    assert money(a) == row("double", 12, "played", {"ann": 10, "cat": 5}, {"bob": loo}, loo)
    assert a.penalties == {"bob": 3}
    assert [(v.code, v.player, v.penalized) for v in a.violations] == [
        ("declare-out-of-turn", "bob", True)
    ]
    assert a.discrepancies == []


@pytest.mark.parametrize(
    ("miss", "ann_hand", "cards", "tricks", "payouts", "looed", "pool_next"),
    [
        # t1 ann AS cat KS -> ann; t2 ann 2H cat AH -> cat; t3 cat AC ann 2C -> cat.
        # share 4: ann 1 x 4 = 4; cat's 2 x 4 = 8 stay: pool_next = 12 - 4 = 8.
        (
            "KS AH AC",
            "AS 2H 2C",
            ["ann AS", "cat KS", "ann 2H", "cat AH", "cat AC", "ann 2C"],
            {"ann": 1, "cat": 2},
            {"ann": 4},
            {},
            8,
        ),
        # ann takes all three; the defender took none and is not looed: pool_next 0.
        (
            "3S 3H 3C",
            "AS AH AC",
            ["ann AS", "cat 3S", "ann AH", "cat 3H", "ann AC", "cat 3C"],
            {"ann": 3, "cat": 0},
            {"ann": 12},
            {},
            0,
        ),
        # The defender takes all three; ann is looed 3; pool_next = 12 - 0 + 3 = 15.
        (
            "AS AH AC",
            "3S 3H 3C",
            ["ann 3S", "cat AS", "cat AH", "ann 3H", "cat AC", "ann 3C"],
            {"ann": 0, "cat": 3},
            {},
            {"ann": 3},
            15,
        ),
    ],
)
def test_defending_dealer_shares_stay_in_the_pool_and_he_cannot_be_looed(
    miss: str,
    ann_hand: str,
    cards: list[str],
    tricks: dict[str, int],
    payouts: dict[str, int],
    looed: dict[str, int],
    pool_next: int,
) -> None:
    """§2.5, §5.1: the dealer who defends plays the Miss for the pool: what his tricks earn
    stays in the pool, and he cannot be looed."""
    hands = {"ann": ann_hand, "bob": "5S 5H 5C", "cat": "6S 6H 6C"}
    events = declares("ann play", "bob pass", "cat defend") + plays(*cards)
    deal = deal_doc(
        hands,
        number=1,
        dealer="cat",
        turn_up="2D",
        miss=miss,
        events=events,
        recorded={"pool_start": 12},
    )
    (a,) = audit_deals([deal], players=THREE)
    assert money(a) == row("double", 12, "played", payouts, looed, pool_next)
    assert a.tricks == tricks
    assert_clean(a)


# Four players, dealer dan (eldest ann, bob, cat, dan), all play; pool_start 12 adopted.
RETIRE_HANDS = {"ann": "AS 5H 2C", "bob": "KS 3H AC", "cat": "QS AH 3C", "dan": "JS 2H KC"}


def test_out_of_turn_player_retires_his_shares_stay_and_his_penalty_grows_the_current_pool() -> (
    None
):
    """§2.9, §5, §5.1: a play out of turn retires the player (no shares, shares of tricks he
    won stay in the pool) and penalties.out_of_turn goes into the current pool, so the
    share grows."""
    # t1 ann 5H, bob 3H, cat AH, dan 2H -> cat;
    # t2 cat QS, dan JS, ann AS, bob KS -> ann;
    # t3 ann 2C; cat 3C while bob is due: out of turn, cat retires (card dead);
    #    bob AC, dan KC -> bob.
    events = declares("ann play", "bob play", "cat play", "dan play") + plays(
        "ann 5H", "bob 3H", "cat AH", "dan 2H",
        "cat QS", "dan JS", "ann AS", "bob KS",
        "ann 2C", "cat 3C", "bob AC", "dan KC",
    )  # fmt: skip
    deal = deal_doc(
        dict(RETIRE_HANDS),
        number=1,
        dealer="dan",
        miss=MISS,
        turn_up="2D",
        events=events,
        recorded={"pool_start": 12},
    )
    (a,) = audit_deals([deal], players=FOUR)
    # pool = 12 + out_of_turn 3 = 15, share 5: ann 5, bob 5; cat's trick (5) stays;
    # dan took none: looed 3. pool_next = 15 - 10 + 3 = 8.
    assert money(a) == row("double", 12, "played", {"ann": 5, "bob": 5}, {"dan": 3}, 8)
    assert a.tricks == {"ann": 1, "bob": 1, "cat": 1, "dan": 0}
    assert a.penalties == {"cat": 3}
    assert [(v.code, v.player, v.penalized) for v in a.violations] == [("out-of-turn", "cat", True)]
    assert a.discrepancies == []


@pytest.mark.parametrize(("rules", "dan_loo"), [({}, 3), ({"stakes.loo": "unlimited"}, 15)])
def test_retired_player_without_a_trick_is_not_looed(rules: dict[str, Any], dan_loo: int) -> None:
    """§2.9, §5.1: a retired player cannot be looed, even without a trick."""
    # t1 ann 5H; cat AH while bob is due: out of turn, cat retires; bob 3H, dan 2H -> ann;
    # t2 ann AS, bob KS, dan JS -> ann; t3 ann 2C, bob AC, dan KC -> bob.
    events = declares("ann play", "bob play", "cat play", "dan play") + plays(
        "ann 5H", "cat AH", "bob 3H", "dan 2H",
        "ann AS", "bob KS", "dan JS",
        "ann 2C", "bob AC", "dan KC",
    )  # fmt: skip
    deal = deal_doc(
        dict(RETIRE_HANDS),
        number=1,
        dealer="dan",
        miss=MISS,
        turn_up="2D",
        events=events,
        recorded={"pool_start": 12},
    )
    (a,) = audit_deals([deal], players=FOUR, rules=rules)
    # pool = 12 + 3 = 15, share 5: ann 2 x 5 = 10, bob 5; dan looed (limited 3, unlimited
    # the pool 15); cat retired, not looed. pool_next = 15 - 15 + dan's loo.
    expected = row("double", 12, "played", {"ann": 10, "bob": 5}, {"dan": dan_loo}, dan_loo)
    assert money(a) == expected
    assert a.tricks == {"ann": 2, "bob": 1, "cat": 0, "dan": 0}
    assert a.penalties == {"cat": 3}


def test_revoke_forfeit_offender_shares_stay_and_he_pays_revoke_amount_to_the_next_pool() -> None:
    """§5.1 forfeit: the offender pays penalties.revoke_amount to the next pool and his
    shares stay in the pool; the rest is settled as played."""
    # ann AS 5H 2C, bob KS 3H AC, cat QS AH 3C (dealer cat):
    # t1 ann AS, bob 3H (holds KS: follow-suit), cat QS -> ann;
    # t2 ann 5H, bob KS (void in hearts), cat AH -> cat; t3 cat 3C, ann 2C, bob AC -> bob.
    hands = {"ann": "AS 5H 2C", "bob": "KS 3H AC", "cat": "QS AH 3C"}
    events = declares("ann play", "bob play", "cat play") + plays(
        "ann AS", "bob 3H", "cat QS", "ann 5H", "bob KS", "cat AH", "cat 3C", "ann 2C", "bob AC"
    )
    deal = deal_doc(
        hands,
        number=1,
        dealer="cat",
        miss=MISS,
        turn_up="2D",
        events=events,
        recorded={"pool_start": 12},
    )
    (a,) = audit_deals([deal], players=THREE)
    # share 4: ann 4, cat 4; bob's trick (4) stays; nobody without a trick.
    # pool_next = 12 - 8 + revoke 12 = 16.
    assert money(a) == row("double", 12, "played", {"ann": 4, "cat": 4}, {}, 16)
    assert a.tricks == {"ann": 1, "bob": 1, "cat": 1}
    assert a.penalties == {"bob": 12}
    assert [(v.code, v.player, v.penalized) for v in a.violations] == [("follow-suit", "bob", True)]
    assert a.discrepancies == []


@pytest.mark.parametrize(
    ("revoke", "expected"),
    [
        # forfeit: share 4: ann 2 x 4 = 8, cat 4; bob took no trick: looed 3 as well as his
        # revoke 12 (once). pool_next = 12 - 12 + 3 + 12 = 15.
        ("forfeit", row("double", 12, "played", {"ann": 8, "cat": 4}, {"bob": 3}, 15)),
        # divide: ann and cat share 12 // 2 = 6 each; bob pays 12 (once); no one looed.
        # pool_next = 12 - 12 + 12 = 12.
        ("divide", row("double", 12, "revoke", {"ann": 6, "cat": 6}, {}, 12)),
    ],
)
def test_only_a_players_first_revoke_is_penalised(revoke: str, expected: Row) -> None:
    """§5.1: a player's first revoke in a deal is penalised; later ones are reported with
    penalized false; with forfeit the offender without a trick is also looed."""
    # ann AS AH 2C, bob 9S 3H 4H, cat QS KH 3C (dealer cat):
    # t1 ann AS, bob 3H (holds 9S: revoke 1), cat QS -> ann;
    # t2 ann AH, bob 9S (holds 4H: revoke 2), cat KH -> ann;
    # t3 ann 2C, bob 4H (void in clubs), cat 3C -> cat.
    hands = {"ann": "AS AH 2C", "bob": "9S 3H 4H", "cat": "QS KH 3C"}
    events = declares("ann play", "bob play", "cat play") + plays(
        "ann AS", "bob 3H", "cat QS", "ann AH", "bob 9S", "cat KH", "ann 2C", "bob 4H", "cat 3C"
    )
    deal = deal_doc(
        hands,
        number=1,
        dealer="cat",
        turn_up="2D",
        miss="5S 6H 5C",
        events=events,
        recorded={"pool_start": 12},
    )
    (a,) = audit_deals([deal], players=THREE, rules={"penalties.revoke": revoke})
    assert money(a) == expected
    assert a.tricks == {"ann": 2, "bob": 0, "cat": 1}
    assert a.penalties == {"bob": 12}
    assert [(v.code, v.player, v.penalized) for v in a.violations] == [
        ("follow-suit", "bob", True),
        ("follow-suit", "bob", False),
    ]
    assert a.discrepancies == []


@pytest.mark.parametrize(
    ("revoke", "expected"),
    [
        # forfeit: share 13 // 3 = 4: ann 3 x 4 = 12; bob looed 3 + revoke 12; cat looed 3.
        # pool_next = 13 - 12 + 3 + 3 + 12 = 19.
        ("forfeit", row("double", 13, "played", {"ann": 12}, {"bob": 3, "cat": 3}, 19)),
        # divide: ann and cat share 13 // 2 = 6 each (1 stays); no one looed, though bob
        # and cat took no trick. pool_next = 13 - 12 + 12 = 13.
        ("divide", row("double", 13, "revoke", {"ann": 6, "cat": 6}, {}, 13)),
    ],
)
def test_revoke_divide_splits_the_pool_equally_rounded_down_and_no_one_is_looed(
    revoke: str, expected: Row
) -> None:
    """§5.1 divide: outcome revoke; the pool is divided equally (rounded down) among the
    active players without a penalised revoke; no one is looed. (forfeit for contrast)"""
    # ann AS AH AC, bob KS 3H KC, cat QS QH QC (dealer cat):
    # t1 ann AS, bob 3H (holds KS: revoke), cat QS; t2 ann AH, bob KS, cat QH;
    # t3 ann AC, bob KC, cat QC: ann takes all three.
    hands = {"ann": "AS AH AC", "bob": "KS 3H KC", "cat": "QS QH QC"}
    events = declares("ann play", "bob play", "cat play") + plays(
        "ann AS", "bob 3H", "cat QS", "ann AH", "bob KS", "cat QH", "ann AC", "bob KC", "cat QC"
    )
    deal = deal_doc(
        hands,
        number=1,
        dealer="cat",
        miss=MISS,
        turn_up="2D",
        events=events,
        recorded={"pool_start": 13},
    )
    (a,) = audit_deals([deal], players=THREE, rules={"penalties.revoke": revoke})
    assert money(a) == expected
    assert a.penalties == {"bob": 12}


def test_revoke_divide_excludes_retired_players() -> None:
    """§5.1 divide: retired players are excluded from the division; the out-of-turn single
    (§2.9) went into the pool being divided."""
    # ann AS AH AC, bob KS 3H KC, cat QS QH QC, dan JS JH JC (dealer dan):
    # t1 ann AS; bob 3H (holds KS: revoke); dan JS while cat is due: out of turn, dan
    #    retires; cat QS -> ann; t2 ann AH, bob KS, cat QH; t3 ann AC, bob KC, cat QC.
    hands = {"ann": "AS AH AC", "bob": "KS 3H KC", "cat": "QS QH QC", "dan": "JS JH JC"}
    events = declares("ann play", "bob play", "cat play", "dan play") + plays(
        "ann AS", "bob 3H", "dan JS", "cat QS",
        "ann AH", "bob KS", "cat QH",
        "ann AC", "bob KC", "cat QC",
    )  # fmt: skip
    deal = deal_doc(
        hands,
        number=1,
        dealer="dan",
        miss=MISS,
        turn_up="2D",
        events=events,
        recorded={"pool_start": 12},
    )
    (a,) = audit_deals([deal], players=FOUR, rules={"penalties.revoke": "divide"})
    # pool = 12 + 3 = 15; sharers ann and cat (bob offended, dan retired): 15 // 2 = 7 each,
    # 1 stays. bob pays 12 to the next pool. pool_next = 15 - 14 + 12 = 13.
    assert money(a) == row("double", 12, "revoke", {"ann": 7, "cat": 7}, {}, 13)
    assert a.penalties == {"bob": 12, "dan": 3}
    assert sorted((v.code, v.player, v.penalized) for v in a.violations) == [
        ("follow-suit", "bob", True),
        ("out-of-turn", "dan", True),
    ]


@pytest.mark.parametrize(
    ("miss", "cards", "offender", "payouts", "pool_next"),
    [
        # ann 5H, cat AH -> cat; cat KS, ann 2C (holds AS: revoke) -> cat; cat 3C, ann AS.
        # The only sharer is the defending dealer: his portion, the whole 12, stays.
        # pool_next = 12 + revoke 12 = 24.
        ("KS AH 3C", ["ann 5H", "cat AH", "cat KS", "ann 2C", "cat 3C", "ann AS"], "ann", {}, 24),
        # ann AS, cat 3C (holds KS: revoke) -> ann; ann 5H, cat AH -> cat; cat KS, ann 2C.
        # The only sharer is ann: 12 // 1 = 12. pool_next = 12 - 12 + 12 = 12.
        (
            "KS AH 3C",
            ["ann AS", "cat 3C", "ann 5H", "cat AH", "cat KS", "ann 2C"],
            "cat",
            {"ann": 12},
            12,
        ),
    ],
)
def test_revoke_divide_defending_dealers_portion_stays_in_the_pool(
    miss: str, cards: list[str], offender: str, payouts: dict[str, int], pool_next: int
) -> None:
    """§5.1 divide: a defending dealer's portion stays in the pool; an offending defender
    pays revoke_amount like anyone."""
    hands = {"ann": "AS 5H 2C", "bob": "7S 7H 7C", "cat": "8S 8H 8C"}
    events = declares("ann play", "bob pass", "cat defend") + plays(*cards)
    deal = deal_doc(
        hands,
        number=1,
        dealer="cat",
        turn_up="2D",
        miss=miss,
        events=events,
        recorded={"pool_start": 12},
    )
    (a,) = audit_deals([deal], players=THREE, rules={"penalties.revoke": "divide"})
    assert money(a) == row("double", 12, "revoke", payouts, {}, pool_next)
    assert a.penalties == {offender: 12}
    assert [(v.code, v.player) for v in a.violations] == [("follow-suit", offender)]


# ======================================================================================
# §2.1, §2.2, §5.2: misdeals, redeals and who antes
# ======================================================================================


def short_hand_misdeal(number: int, dealer: str) -> Deal:
    """A misdeal by the cards (§2.2): cat was dealt two cards instead of three."""
    hands = {"ann": "AS AH AC", "bob": "KS KH KC", "cat": "QS QH"}
    return deal_doc(hands, number=number, dealer=dealer, miss=MISS, turn_up="2D")


@pytest.mark.parametrize("how", ["flag", "short_hand"])
@pytest.mark.parametrize(
    ("ante_by", "redeal", "second_dealer", "first_start", "second_start"),
    [
        # dealer antes 3: D1 pool 3, misdeal -> 3 + 3 = 6; same dealer: no new ante -> 6.
        ("dealer", "same_dealer", "cat", 3, 6),
        # next dealer (ann) antes 3 -> 6 + 3 = 9.
        ("dealer", "next_dealer", "ann", 3, 9),
        # everyone antes 3: D1 pool 3 x 3 = 9, misdeal -> 12; same dealer: no antes -> 12.
        ("all", "same_dealer", "cat", 9, 12),
        # next dealer: everyone antes again -> 12 + 9 = 21.
        ("all", "next_dealer", "ann", 9, 21),
    ],
)
def test_misdeal_forfeit_and_the_redeal_by_same_or_next_dealer(
    how: str,
    ante_by: str,
    redeal: str,
    second_dealer: str,
    first_start: int,
    second_start: int,
) -> None:
    """§2.1, §2.2, §5.2, §5.5: the misdealing dealer forfeits penalties.misdeal into the pool
    and nothing is paid out; the next deal is dealt by the same dealer (no new ante) or the
    next one (misdeal_redeal); stakes.ante_by "all" makes every seated player ante."""
    first = misdeal(1, "cat") if how == "flag" else short_hand_misdeal(1, "cat")
    rules = {"stakes.ante_by": ante_by, "penalties.misdeal_redeal": redeal}
    d1, d2 = audit_deals([first, sweep(2, second_dealer)], players=THREE, rules=rules)
    # D1 holds only its own antes (single); pool_next = first_start + misdeal 3
    assert money(d1) == row("single", first_start, "misdeal", {}, {}, first_start + 3)
    assert d1.status == "misdeal"
    assert d1.penalties == {"cat": 3}
    assert [(v.code, v.player, v.penalized) for v in d1.violations] == [("misdeal", "cat", True)]
    # D2: the eldest sweeps: second_start // 3 x 3 = second_start (all divisible by 3);
    # the two others are looed 3 each: pool_next = 6.
    eldest, second, dealer = clockwise(THREE, second_dealer)
    expected = row(
        "double", second_start, "played", {eldest: second_start}, {second: 3, dealer: 3}, 6
    )
    assert money(d2) == expected
    assert_clean(d2)


def test_ante_by_all_every_seated_player_antes_and_a_no_loo_deal_makes_a_must() -> None:
    """§2.1 (stakes.ante_by "all"), §1 must deal, §5.4 stacks."""
    # D1, dealer cat: ann AS 2H 2C, bob KS AH 3C, cat QS KH AC:
    # t1 ann AS bob KS cat QS -> ann; t2 ann 2H bob AH cat KH -> bob; t3 bob 3C cat AC ann 2C
    # -> cat. One trick each.
    hands = {"ann": "AS 2H 2C", "bob": "KS AH 3C", "cat": "QS KH AC"}
    events = declares("ann play", "bob play", "cat play") + plays(
        "ann AS", "bob KS", "cat QS", "ann 2H", "bob AH", "cat KH", "bob 3C", "cat AC", "ann 2C"
    )
    d1_deal = deal_doc(hands, number=1, dealer="cat", miss=MISS, turn_up="2D", events=events)
    chips = {"ann": 100, "bob": 100, "cat": 100}
    d1, d2 = audit_deals(
        [d1_deal, sweep(2, "ann", must=True)],
        players=THREE,
        rules={"stakes.ante_by": "all"},
        chips=chips,
    )
    # D1: pool 3 x 3 = 9, only this deal's antes: single (first deal: not a must).
    # share 3 each; pool_next 0. Stacks: 100 - 3 + 3 = 100 each.
    assert money(d1) == row("single", 9, "played", {"ann": 3, "bob": 3, "cat": 3}, {}, 0)
    assert d1.must is False
    assert d1.stacks == {"ann": 100, "bob": 100, "cat": 100}
    # D2, dealer ann: 0 + 9 = 9, single again: a must (no Miss, no declarations).
    # bob sweeps: 3 x 3 = 9; cat and ann looed 3: pool_next 6.
    # Stacks: ann 100 - 3 - 3 = 94, bob 100 - 3 + 9 = 106, cat 94. 294 + 6 = 300.
    assert money(d2) == row("single", 9, "played", {"bob": 9}, {"cat": 3, "ann": 3}, 6)
    assert d2.must is True
    assert d2.stacks == {"ann": 94, "bob": 106, "cat": 94}
    for a in (d1, d2):
        assert_clean(a)
        conserved(a, 300)


# ======================================================================================
# §5.3 flushes
# ======================================================================================

FLUSH_MISS = "8S 8H 8C"


def flush_deal(hands: dict[str, str], **kw: Any) -> Deal:
    """Dealer cat (eldest ann, then bob); turn-up 9D (diamonds trumps); pool_start 12."""
    kw.setdefault("recorded", {"pool_start": 12})
    return deal_doc(hands, number=1, dealer="cat", miss=FLUSH_MISS, turn_up="9D", **kw)


DEALT = {"flush.kind": "any_suit", "flush.when": "dealt", "flush.looes": "everyone"}


@pytest.mark.parametrize(
    ("rank", "winner", "loser"),
    [
        ("elder", "ann", "bob"),  # ann sits nearest the dealer's left
        ("trumps_then_cards", "bob", "ann"),  # bob's flush is in trumps
        ("pam_then_elder", "ann", "bob"),  # no Pam-flush: nearest the left
    ],
)
def test_flush_rank_decides_between_two_flushes_and_the_losing_flush_pays_nothing(
    rank: str, winner: str, loser: str
) -> None:
    """§5.3 flush.rank elder / trumps_then_cards; holders of a losing flush are not looed."""
    # ann 2H 3H 4H: a plain flush, low; bob AD KD QD: a flush in trumps; cat mixed.
    hands = {"ann": "2H 3H 4H", "bob": "AD KD QD", "cat": "5S 6C 7S"}
    (a,) = audit_deals([flush_deal(hands)], players=THREE, rules={**DEALT, "flush.rank": rank})
    # winner takes 12; the loser holds a losing flush: exempt; cat looed 3.
    # pool_next = 12 - 12 + 3 = 3.
    assert money(a) == row("double", 12, "flush", {winner: 12}, {"cat": 3}, 3)
    assert loser not in (a.looed or {})
    assert_clean(a)


@pytest.mark.parametrize(
    ("rank", "winner"),
    [
        ("elder", "ann"),
        ("pam_then_elder", "bob"),  # a Pam-flush beats a plain flush
        ("trumps_then_cards", "bob"),  # Pam with trumps: a flush in trumps
    ],
)
def test_flush_rank_pam_then_elder_pam_flush_beats_the_elder_plain_flush(
    rank: str, winner: str
) -> None:
    """§5.3 flush.rank pam_then_elder: a Pam-flush beats a plain flush, then nearest the left."""
    # deal.pam: ann 2H 3H 4H plain; bob JC AD KD: Pam belongs to diamonds (trumps), so the
    # hand is all one suit, a Pam-flush; cat mixed.
    hands = {"ann": "2H 3H 4H", "bob": "JC AD KD", "cat": "5S 6C 7S"}
    rules = {**DEALT, "deal.pam": True, "flush.rank": rank}
    (a,) = audit_deals([flush_deal(hands)], players=THREE, rules=rules)
    # winner takes 12; the other flush exempt; cat looed 3: pool_next 3.
    assert money(a) == row("double", 12, "flush", {winner: 12}, {"cat": 3}, 3)
    assert_clean(a)


@pytest.mark.parametrize(
    ("ann", "bob", "extra", "winner"),
    [
        # A trump flush beats a plain one, however good its cards.
        ("AH KH QH", "3D 4D 5D", {}, "bob"),
        # Highest equal (A), then the next: bob's T beats ann's 9.
        ("AH 9H 2H", "AS TS 2S", {}, "bob"),
        # The same cards: nearest the left wins.
        ("AH KH QH", "AS KS QS", {}, "ann"),
        # Two trump flushes: Pam is the highest card, above the ace.
        ("AD KD QD", "JC 2D 3D", {"deal.pam": True}, "bob"),
        # Two plain flushes (Pam wild with spades): Pam above ann's ace.
        ("AH KH QH", "JC 2S 3S", {"deal.pam": True, "flush.pam_wild": True}, "bob"),
    ],
)
def test_flush_rank_trumps_then_cards_compares_better_cards_with_pam_highest(
    ann: str, bob: str, extra: dict[str, Any], winner: str
) -> None:
    """§5.3 trumps_then_cards: trumps beat plain, then the better cards (highest, then the
    next, ...; Pam highest), then nearest the left."""
    hands = {"ann": ann, "bob": bob, "cat": "5S 6C 7S"}
    rules = {**DEALT, "flush.rank": "trumps_then_cards", **extra}
    (a,) = audit_deals([flush_deal(hands)], players=THREE, rules=rules)
    # winner takes 12; the loser's flush exempts him; cat looed 3.
    assert money(a) == row("double", 12, "flush", {winner: 12}, {"cat": 3}, 3)
    assert_clean(a)


@pytest.mark.parametrize(
    ("looes", "looed"),
    [
        ("active", {"cat": 3}),  # bob passed: not active
        ("everyone", {"bob": 3, "cat": 3}),  # every other seated player
    ],
)
def test_flush_looes_active_or_everyone(looes: str, looed: dict[str, int]) -> None:
    """§5.3 flush.looes: the other active players, or all other seated players."""
    # when declared: ann (2H 3H 4H) plays, bob passes, cat plays (dealer_defends obliges him).
    hands = {"ann": "2H 3H 4H", "bob": "5S 6C 7S", "cat": "TS JC QS"}
    events = declares("ann play", "bob pass", "cat play")
    rules = {"flush.kind": "any_suit", "flush.looes": looes}
    (a,) = audit_deals([flush_deal(hands, events=events)], players=THREE, rules=rules)
    # ann takes 12; pool_next = 12 - 12 + loos
    assert money(a) == row("double", 12, "flush", {"ann": 12}, looed, sum(looed.values()))
    assert_clean(a)


@pytest.mark.parametrize(
    ("rules", "loo"),
    [
        ({"flush.pay": "loo", "stakes.loo_amount": 5}, 5),  # the normal loo: loo_amount 5
        ({"flush.pay": "ante", "stakes.loo_amount": 5}, 3),  # a single: stakes.ante 3
        ({"flush.pay": "loo", "stakes.loo": "unlimited"}, 12),  # the normal loo: the pool
        ({"flush.pay": "loo", "stakes.loo": "unlimited", "stakes.loo_cap": 7}, 7),
        ({"flush.pay": "ante", "stakes.loo": "unlimited"}, 3),  # a single
    ],
)
def test_flush_pay_loo_or_ante(rules: dict[str, Any], loo: int) -> None:
    """§5.3 flush.pay: each looed player pays the normal loo ("loo") or a single ("ante")."""
    hands = {"ann": "2H 3H 4H", "bob": "5S 6C 7S", "cat": "TS JC QS"}
    events = declares("ann play", "bob play", "cat play")
    all_rules = {"flush.kind": "any_suit", **rules}
    (a,) = audit_deals([flush_deal(hands, events=events)], players=THREE, rules=all_rules)
    # ann takes 12; bob and cat (active) pay: pool_next = 2 x loo
    assert money(a) == row("double", 12, "flush", {"ann": 12}, {"bob": loo, "cat": loo}, 2 * loo)
    assert_clean(a)


@pytest.mark.parametrize(
    ("exempt", "looed"),
    [(True, {"cat": 3}), (False, {"bob": 3, "cat": 3})],
)
def test_flush_exempt_pam_holder_of_pam_pays_nothing(exempt: bool, looed: dict[str, int]) -> None:
    """§5.3 flush.exempt_pam: a player holding Pam is not looed by a flush."""
    # deal.pam; ann 2H 3H 4H flush; bob JC 5S 6S holds Pam (no flush); cat mixed.
    hands = {"ann": "2H 3H 4H", "bob": "JC 5S 6S", "cat": "7S 8D 9S"}
    rules = {**DEALT, "deal.pam": True, "flush.exempt_pam": exempt}
    deal = flush_deal(hands)
    deal["turn_up"] = "2D"
    (a,) = audit_deals([deal], players=THREE, rules=rules)
    # ann takes 12; pool_next = the loos
    assert money(a) == row("double", 12, "flush", {"ann": 12}, looed, sum(looed.values()))
    assert_clean(a)


# ann 2H 3H 4H (a flush), bob AS AH AC, cat KS KH KC; dealer cat, all play:
# t1 ann 4H, bob AH, cat KH -> bob; t2 bob AS, cat KS, ann 2H -> bob; t3 bob AC, cat KC, ann 3H.
POOLS_HANDS = {"ann": "2H 3H 4H", "bob": "AS AH AC", "cat": "KS KH KC"}
POOLS_EVENTS = declares("ann play", "bob play", "cat play") + plays(
    "ann 4H", "bob AH", "cat KH", "bob AS", "cat KS", "ann 2H", "bob AC", "cat KC", "ann 3H"
)


@pytest.mark.parametrize(
    ("pools", "recorded", "expected"),
    [
        # single pool (first deal, ante 3 alone): flush ignored, played out: bob 3 x 1 = 3;
        # ann and cat looed 3: pool_next = 3 - 3 + 6 = 6.
        ("double", None, row("single", 3, "played", {"bob": 3}, {"ann": 3, "cat": 3}, 6)),
        # flush.pools all: the flush counts in a single pool: ann takes 3; bob, cat looed.
        ("all", None, row("single", 3, "flush", {"ann": 3}, {"bob": 3, "cat": 3}, 6)),
        # a double pool: the flush counts: ann takes 12; bob, cat looed 3: pool_next 6.
        (
            "double",
            {"pool_start": 12},
            row("double", 12, "flush", {"ann": 12}, {"bob": 3, "cat": 3}, 6),
        ),
    ],
)
def test_flush_pools_double_ignores_a_flush_in_a_single_pool(
    pools: str, recorded: dict[str, Any] | None, expected: Row
) -> None:
    """§5.3 flush.pools: flushes count only in the pools it allows (all, or double)."""
    deal = deal_doc(
        dict(POOLS_HANDS),
        number=1,
        dealer="cat",
        turn_up="2D",
        miss=FLUSH_MISS,
        events=POOLS_EVENTS,
        recorded=recorded,
    )
    (a,) = audit_deals([deal], players=THREE, rules={**DEALT, "flush.pools": pools})
    assert money(a) == expected
    assert_clean(a)
    if expected["outcome"] == "flush":
        # §2.8: plays recorded after a flush ended the deal are not judged, and noted.
        assert any("not judged" in n for n in a.notes), a.notes


@pytest.mark.parametrize(
    ("when", "expected"),
    [
        # declared: ann passed, so her flush does not count; bob plays and sweeps:
        # 3 x 4 = 12; cat looed 3: pool_next 3.
        ("declared", row("double", 12, "played", {"bob": 12}, {"cat": 3}, 3)),
        # dealt: every seated hand counts: ann takes 12; bob and cat looed 3: pool_next 6.
        ("dealt", row("double", 12, "flush", {"ann": 12}, {"bob": 3, "cat": 3}, 6)),
    ],
)
def test_flush_when_dealt_counts_every_seated_hand_declared_only_active_ones(
    when: str, expected: Row
) -> None:
    """§2.4, §2.8, §5.3 flush.when: at the deal among all seated players, or after
    declaring among the active players only."""
    events = declares("ann pass", "bob play", "cat play") + plays(
        "bob AS", "cat KS", "bob AH", "cat KH", "bob AC", "cat KC"
    )
    deal = deal_doc(
        dict(POOLS_HANDS), number=1, dealer="cat", turn_up="2D", miss=FLUSH_MISS, events=events
    )
    deal["recorded"] = {"pool_start": 12}
    rules = {**DEALT, "flush.when": when}
    (a,) = audit_deals([deal], players=THREE, rules=rules)
    assert money(a) == expected
    assert_clean(a)


# ======================================================================================
# Whole sessions: the pool deal by deal (§2.1, §5, §5.4, §5.5)
# ======================================================================================

CHIPS_100 = {"ann": 100, "bob": 100, "cat": 100}


def check_session(
    audits: list[DealAudit], expected: list[Row], stacks: list[dict[str, int]]
) -> None:
    assert len(audits) == len(expected)
    for a, want, st in zip(audits, expected, stacks, strict=True):
        assert money(a) == want, a.number
        assert a.stacks == st, a.number
        conserved(a, 300)


def test_three_card_session_with_a_must_after_a_deal_without_a_loo() -> None:
    """§2.1, §1 (must = single_except_first), §5.1, §5.2, §5.4, §5.5: five deals of
    three-card; a deal where no one is looed leaves the next pool single: a must."""
    # D1 dealer ann (eldest bob, cat, ann): bob AS 2H 2C, cat KS AH 3C, ann QS KH AC.
    # t1 bob AS cat KS ann QS -> bob; t2 bob 2H cat AH ann KH -> cat;
    # t3 cat 3C ann AC bob 2C -> ann. One trick each.
    d1 = deal_doc({"bob": "AS 2H 2C", "cat": "KS AH 3C", "ann": "QS KH AC"}, number=1, dealer="ann", miss=MISS, turn_up="2D",
        events=declares("bob play", "cat play", "ann play")
        + plays(
            "bob AS", "cat KS", "ann QS", "bob 2H", "cat AH", "ann KH", "cat 3C", "ann AC", "bob 2C"
        ),
    )  # fmt: skip
    # D2 dealer bob (eldest cat, ann, bob), a must: no Miss, no declarations.
    # cat AS AH 2C, ann KS 2H AC, bob QS KH 3C:
    # t1 cat AS ann KS bob QS -> cat; t2 cat AH ann 2H bob KH -> cat;
    # t3 cat 2C ann AC bob 3C -> ann (heads). cat 2, ann 1, bob 0.
    d2 = deal_doc({"cat": "AS AH 2C", "ann": "KS 2H AC", "bob": "QS KH 3C"}, number=2, dealer="bob", turn_up="2D",
        miss=None,
        events=plays(
            "cat AS", "ann KS", "bob QS", "cat AH", "ann 2H", "bob KH", "cat 2C", "ann AC", "bob 3C"
        ),
    )  # fmt: skip
    # D3 dealer cat (eldest ann, bob, cat): ann plays, bob takes the Miss (KS KH KC),
    # cat passes. ann AS AH AC takes all three.
    d3 = deal_doc(
        {"ann": "AS AH AC", "bob": "5S 5H 5C", "cat": "QS QH QC"},
        number=3,
        dealer="cat",
        turn_up="2D",
        miss="KS KH KC",
        events=declares("ann play", "bob take_miss", "cat pass")
        + plays("ann AS", "bob KS", "ann AH", "bob KH", "ann AC", "bob KC"),
    )
    # D4 dealer ann: bob and cat pass, ann need not declare: all passed.
    d4 = all_pass(4, "ann", seats=THREE)
    # D5 dealer bob: single again, a must; cat sweeps.
    d5 = sweep(5, "bob", must=True)
    audits = audit_deals([d1, d2, d3, d4, d5], players=THREE, chips=CHIPS_100)
    for a in audits:
        assert_clean(a)
    assert [a.must for a in audits] == [False, True, False, False, True]
    expected = [
        # D1: the first deal, ante 3 (single, exempt from the must); share 3 // 3 = 1 each;
        # pool_next = 3 - 3 = 0.
        row("single", 3, "played", {"bob": 1, "cat": 1, "ann": 1}, {}, 0),
        # D2: 0 + 3 = 3, single: a must. share 1: cat 2, ann 1; bob looed 3;
        # pool_next = 3 - 3 + 3 = 3.
        row("single", 3, "played", {"cat": 2, "ann": 1}, {"bob": 3}, 3),
        # D3: 3 + 3 = 6, double. share 2: ann 3 x 2 = 6; bob looed 3: pool_next 3.
        row("double", 6, "played", {"ann": 6}, {"bob": 3}, 3),
        # D4: 3 + 3 = 6: the dealer ann takes 6: pool_next 0.
        row("double", 6, "all_passed", {"ann": 6}, {}, 0),
        # D5: 0 + 3 = 3 single, a must: cat 3 x 1 = 3; ann and bob looed 3: pool_next 6.
        row("single", 3, "played", {"cat": 3}, {"ann": 3, "bob": 3}, 6),
    ]
    stacks = [
        # D1: ann antes 3 and takes 1: 98; bob 101; cat 101. 300 + 0.
        {"ann": 98, "bob": 101, "cat": 101},
        # D2: bob antes 3, looed 3: 95; cat +2: 103; ann +1: 99. 297 + 3.
        {"ann": 99, "bob": 95, "cat": 103},
        # D3: cat antes 3: 100; ann +6: 105; bob looed 3: 92. 297 + 3.
        {"ann": 105, "bob": 92, "cat": 100},
        # D4: ann antes 3 and takes 6: 108. 300 + 0.
        {"ann": 108, "bob": 92, "cat": 100},
        # D5: bob antes 3, looed 3: 86; cat +3: 103; ann looed 3: 105. 294 + 6.
        {"ann": 105, "bob": 86, "cat": 103},
    ]
    check_session(audits, expected, stacks)


def test_five_card_session_with_pam_exchanges_a_flush_and_musts() -> None:
    """§2.7 exchanges, §1 Pam and musts, §5.1, §5.3, §5.4: four deals of five-card (ante 5,
    loo 5, share = pool // 5, flush at the deal, trumps_then_cards, looes everyone, Pam
    exempt)."""
    # D1 dealer ann (eldest bob, cat, ann), turn-up 2D. bob JC AS KS 2H 3C; cat dealt
    # QS 5C 6H 3S 2S, exchanges 3S 2S for AH AC; ann 7C 8S JS 9H 4C.
    # t1 bob leads Pam (the top trump must be led), cat 5C, ann 7C -> bob;
    # t2 bob AS cat QS ann 8S -> bob; t3 bob KS cat 6H ann JS -> bob;
    # t4 bob 2H cat AH ann 9H -> cat; t5 cat AC ann 4C bob 3C -> cat. bob 3, cat 2, ann 0.
    d1 = deal_doc({"bob": "JC AS KS 2H 3C", "cat": "QS 5C 6H 3S 2S", "ann": "7C 8S JS 9H 4C"}, number=1, dealer="ann", turn_up="2D",
        miss=None,
        events=[
            declare("bob", "play"),
            declare("cat", "play"),
            {"type": "exchange", "player": "cat", "discard": ["3S", "2S"], "draw": ["AH", "AC"]},
            declare("ann", "play"),
            *plays(
                "bob JC", "cat 5C", "ann 7C", "bob AS", "cat QS", "ann 8S", "bob KS", "cat 6H",
                "ann JS", "bob 2H", "cat AH", "ann 9H", "cat AC", "ann 4C", "bob 3C",
            ),
        ],
    )  # fmt: skip
    # D2 dealer bob (eldest cat, ann, bob), turn-up 2H (hearts trumps; Pam a heart).
    # cat dealt AS KS 9D 3C 4C, plays and exchanges 9D for QS; ann passes; bob (alone
    # against one player) plays JC 5S 6S 7D 8D.
    # t1 cat AS bob 5S; t2 cat KS bob 6S; t3 cat QS, bob void in spades must trump: Pam;
    # t4 bob 8D cat 3C; t5 bob 7D cat 4C. cat 2, bob 3.
    d2 = deal_doc({"cat": "AS KS 9D 3C 4C", "ann": "2S 3S 9C TC 5H", "bob": "JC 5S 6S 7D 8D"}, number=2, dealer="bob",
        miss=None,
        turn_up="2H",
        events=[
            declare("cat", "play"),
            {"type": "exchange", "player": "cat", "discard": ["9D"], "draw": ["QS"]},
            declare("ann", "pass"),
            declare("bob", "play"),
            *plays(
                "cat AS", "bob 5S", "cat KS", "bob 6S", "cat QS", "bob JC",
                "bob 8D", "cat 3C", "bob 7D", "cat 4C",
            ),
        ],
    )  # fmt: skip
    # D3 dealer cat (eldest ann, bob, cat), turn-up 9H, a must: flushes at the deal.
    # ann 2S..6S plain flush; cat AH KH QH JH TH a flush in trumps; bob holds Pam.
    d3 = deal_doc(
        {"ann": "2S 3S 4S 5S 6S", "bob": "JC 2C 3D 4D 5C", "cat": "AH KH QH JH TH"},
        number=3,
        dealer="cat",
        miss=None,
        turn_up="9H",
    )
    # D4 dealer ann (eldest bob, cat, ann), turn-up 2S, a must: no spades, no Pam dealt.
    # bob AH KH AD KD AC takes all five.
    d4 = deal_doc({"bob": "AH KH AD KD AC", "cat": "QH JH QD JD KC", "ann": "TH 9H TD 9D QC"}, number=4, dealer="ann",
        miss=None,
        turn_up="2S",
        events=plays(
            "bob AH", "cat QH", "ann TH", "bob KH", "cat JH", "ann 9H", "bob AD", "cat QD",
            "ann TD", "bob KD", "cat JD", "ann 9D", "bob AC", "cat KC", "ann QC",
        ),
    )  # fmt: skip
    audits = audit_deals([d1, d2, d3, d4], ruleset="five-card", players=THREE, chips=CHIPS_100)
    for a in audits:
        assert_clean(a)
    assert [a.must for a in audits] == [False, False, True, True]
    expected = [
        # D1: ante 5, single, first (no must). share 5 // 5 = 1: bob 3, cat 2; ann looed 5.
        # pool_next = 5 - 5 + 5 = 5.
        row("single", 5, "played", {"bob": 3, "cat": 2}, {"ann": 5}, 5),
        # D2: 5 + 5 = 10 double. share 2: cat 2 x 2 = 4, bob 3 x 2 = 6; ann passed.
        # pool_next = 10 - 10 = 0.
        row("double", 10, "played", {"cat": 4, "bob": 6}, {}, 0),
        # D3: 0 + 5 = 5 single (must). cat's trump flush beats ann's plain one and takes 5;
        # ann holds a losing flush, bob holds Pam: no one pays. pool_next 0.
        row("single", 5, "flush", {"cat": 5}, {}, 0),
        # D4: 0 + 5 = 5 single (must): bob 5 x 1 = 5; cat and ann looed 5: pool_next 10.
        row("single", 5, "played", {"bob": 5}, {"cat": 5, "ann": 5}, 10),
    ]
    stacks = [
        # D1: ann antes 5, looed 5: 90; bob +3: 103; cat +2: 102. 295 + 5.
        {"ann": 90, "bob": 103, "cat": 102},
        # D2: bob antes 5, takes 6: 104; cat +4: 106. 300 + 0.
        {"ann": 90, "bob": 104, "cat": 106},
        # D3: cat antes 5, takes 5: 106. 300 + 0.
        {"ann": 90, "bob": 104, "cat": 106},
        # D4: ann antes 5, looed 5: 80; bob +5: 109; cat looed 5: 101. 290 + 10.
        {"ann": 80, "bob": 109, "cat": 101},
    ]
    check_session(audits, expected, stacks)


def test_hoyle_session_single_pool_must_with_on_void_turn_then_double_pool() -> None:
    """§1, §2.1, §2.9 (on_void), §5.1 divide, §2.2 misdeal next_dealer, §5.4, §5.5:
    five deals of hoyle (single pools are musts, trumps turned on a void; revoke divides;
    a misdeal passes the deal on)."""
    # D1 dealer ann (eldest bob, cat, ann): a must (single, first included), no Miss, no
    # turn-up. bob AS 2H 2C, cat 3H 4H 3C, ann QS AH AC.
    # t1 bob AS, cat 3H (void in spades), ann QS -> bob; ann turns 5D: diamonds trumps;
    # t2 bob 2H, cat 4H, ann AH -> ann; t3 ann AC, bob 2C, cat 3C -> ann.
    d1 = deal_doc(
        {"bob": "AS 2H 2C", "cat": "3H 4H 3C", "ann": "QS AH AC"},
        number=1,
        dealer="ann",
        miss=None,
        turn_up=None,
        events=[
            *plays("bob AS", "cat 3H", "ann QS"),
            {"type": "turn_up", "card": "5D"},
            *plays("bob 2H", "cat 4H", "ann AH", "ann AC", "bob 2C", "cat 3C"),
        ],
    )
    # D2 dealer bob (eldest cat, ann, bob): double: Miss and turn-up 2S (spades trumps).
    # cat plays AS AH 2C; ann passes; bob takes the Miss KH KC 3D.
    # t1 cat AS (holding a trump, lead it), bob 3D -> cat; t2 cat AH, bob KH -> cat;
    # t3 cat 2C, bob KC -> bob. cat 2, bob 1.
    d2 = deal_doc(
        {"cat": "AS AH 2C", "ann": "5H 5C 5D", "bob": "6H 6C 6D"},
        number=2,
        dealer="bob",
        miss="KH KC 3D",
        turn_up="2S",
        events=declares("cat play", "ann pass", "bob take_miss")
        + plays("cat AS", "bob 3D", "cat AH", "bob KH", "cat 2C", "bob KC"),
    )
    # D3 dealer cat (eldest ann, bob, cat): single, a must, no void so no trump turned.
    # ann AS KS AH, bob QS 3H 4H, cat JS TS 5H.
    # t1 ann AS, bob 3H (holds QS: follow-suit revoke), cat JS; t2 ann KS bob QS cat TS;
    # t3 ann AH bob 4H cat 5H. ann takes all three.
    d3 = deal_doc({"ann": "AS KS AH", "bob": "QS 3H 4H", "cat": "JS TS 5H"}, number=3, dealer="cat",
        miss=None,
        turn_up=None,
        events=plays(
            "ann AS", "bob 3H", "cat JS", "ann KS", "bob QS", "cat TS", "ann AH", "bob 4H", "cat 5H"
        ),
    )  # fmt: skip
    # D4 dealer ann: a misdeal. D5: the next dealer, bob; cat (eldest) sweeps.
    d4 = misdeal(4, "ann")
    d5 = sweep(5, "bob")
    audits = audit_deals([d1, d2, d3, d4, d5], ruleset="hoyle", players=THREE, chips=CHIPS_100)
    assert [a.must for a in audits] == [True, False, True, False, False]
    assert audits[0].trump == DIAMONDS  # fixed by the trump turned after the void
    assert audits[2].trump is None  # no one was void: no trump turned
    for a in (audits[0], audits[1], audits[4]):
        assert_clean(a)
    assert [(v.code, v.player, v.penalized) for v in audits[2].violations] == [
        ("follow-suit", "bob", True)
    ]
    assert audits[2].penalties == {"bob": 6}
    assert audits[3].penalties == {"ann": 3}
    expected = [
        # D1: ante 3, single, must. share 1: bob 1, ann 2; cat looed 3: 3 - 3 + 3 = 3.
        row("single", 3, "played", {"bob": 1, "ann": 2}, {"cat": 3}, 3),
        # D2: 3 + 3 = 6 double. share 2: cat 2 x 2 = 4, bob 2; ann passed: pool_next 0.
        row("double", 6, "played", {"cat": 4, "bob": 2}, {}, 0),
        # D3: 0 + 3 = 3 single, must. Divide: ann and cat 3 // 2 = 1 each (1 stays);
        # bob pays revoke 6: pool_next = 3 - 2 + 6 = 7.
        row("single", 3, "revoke", {"ann": 1, "cat": 1}, {}, 7),
        # D4: 7 + 3 = 10; ann forfeits 3: pool_next 13.
        row("double", 10, "misdeal", {}, {}, 13),
        # D5: 13 + 3 = 16. share 5: cat 3 x 5 = 15; ann and bob looed 3: 16 - 15 + 6 = 7.
        row("double", 16, "played", {"cat": 15}, {"ann": 3, "bob": 3}, 7),
    ]
    stacks = [
        # D1: ann antes 3, +2: 99; bob +1: 101; cat looed 3: 97. 297 + 3.
        {"ann": 99, "bob": 101, "cat": 97},
        # D2: bob antes 3, +2: 100; cat +4: 101. 300 + 0.
        {"ann": 99, "bob": 100, "cat": 101},
        # D3: cat antes 3, +1: 99; ann +1: 100; bob revoke 6: 94. 293 + 7.
        {"ann": 100, "bob": 94, "cat": 99},
        # D4: ann antes 3, forfeits 3: 94. 287 + 13.
        {"ann": 94, "bob": 94, "cat": 99},
        # D5: bob antes 3, looed 3: 88; cat +15: 114; ann looed 3: 91. 293 + 7.
        {"ann": 91, "bob": 88, "cat": 114},
    ]
    check_session(audits, expected, stacks)


def test_unlimited_session_pool_balloons_as_each_looed_player_pays_the_pool() -> None:
    """§5.1 unlimited loo, §2.1 carry, §5.4: each looed player pays the whole pool into the
    next, so the pool grows deal after deal."""
    # D4 dealer ann (eldest bob, cat, ann): bob AS AH 2C, cat KS KH AC, ann QS QH 3C:
    # t1 bob AS cat KS ann QS -> bob; t2 bob AH cat KH ann QH -> bob;
    # t3 bob 2C cat AC ann 3C -> cat. bob 2, cat 1, ann 0.
    d4 = deal_doc({"bob": "AS AH 2C", "cat": "KS KH AC", "ann": "QS QH 3C"}, number=4, dealer="ann", miss=MISS, turn_up="2D",
        events=declares("bob play", "cat play", "ann play")
        + plays(
            "bob AS", "cat KS", "ann QS", "bob AH", "cat KH", "ann QH", "bob 2C", "cat AC", "ann 3C"
        ),
    )  # fmt: skip
    deals = [sweep(1, "ann"), sweep(2, "bob"), sweep(3, "cat"), d4]
    audits = audit_deals(deals, players=THREE, rules={"stakes.loo": "unlimited"}, chips=CHIPS_100)
    for a in audits:
        assert_clean(a)
    expected = [
        # D1: 3, bob sweeps 3 x 1 = 3; cat and ann each pay the pool, 3: pool_next 6.
        row("single", 3, "played", {"bob": 3}, {"cat": 3, "ann": 3}, 6),
        # D2: 6 + 3 = 9; cat 3 x 3 = 9; ann and bob pay 9 each: pool_next 18.
        row("double", 9, "played", {"cat": 9}, {"ann": 9, "bob": 9}, 18),
        # D3: 18 + 3 = 21; ann 3 x 7 = 21; bob and cat pay 21 each: pool_next 42.
        row("double", 21, "played", {"ann": 21}, {"bob": 21, "cat": 21}, 42),
        # D4: 42 + 3 = 45, share 15: bob 30, cat 15; ann pays 45: 45 - 45 + 45 = 45.
        row("double", 45, "played", {"bob": 30, "cat": 15}, {"ann": 45}, 45),
    ]
    stacks = [
        # D1: ann antes 3, pays 3: 94; bob +3: 103; cat -3: 97. 294 + 6.
        {"ann": 94, "bob": 103, "cat": 97},
        # D2: bob antes 3, pays 9: 91; cat +9: 106; ann -9: 85. 282 + 18.
        {"ann": 85, "bob": 91, "cat": 106},
        # D3: cat antes 3, pays 21: 82; ann +21: 106; bob -21: 70. 258 + 42.
        {"ann": 106, "bob": 70, "cat": 82},
        # D4: ann antes 3, pays 45: 58; bob +30: 100; cat +15: 97. 255 + 45.
        {"ann": 58, "bob": 100, "cat": 97},
    ]
    check_session(audits, expected, stacks)


def test_unlimited_loo_past_64_bits_settles_and_moves_chips_exactly() -> None:
    """§5.1 unlimited loo, §2.1, §5.4: the pool doubles with every deal where two players
    are looed, so amounts outgrow 64 bits; chips are still settled and moved exactly (the
    compiled build once paid them through a C integer and stopped with an overflow)."""
    start = 2**53 - 2  # the largest recorded amount the log allows that 3 divides
    dealers = ["cat", "ann", "bob"]
    deals = [sweep(k, dealers[(k - 1) % 3]) for k in range(1, 13)]
    deals[0]["recorded"] = {"pool_start": start}
    audits = audit_deals(deals, players=THREE, rules={"stakes.loo": "unlimited"}, chips=CHIPS_100)
    pool = start  # adopted by the first deal, its antes in it
    for k, a in enumerate(audits):
        assert_clean(a)
        # The eldest sweeps: three shares of a pool that 3 divides, the whole pool; the
        # other two each pay the pool into the next, which the next dealer's ante joins.
        eldest, *looed = THREE[k % 3 :] + THREE[: k % 3]
        assert money(a) == row(
            "double", pool, "played", {eldest: pool}, dict.fromkeys(looed, pool), 2 * pool
        ), a.number
        conserved(a, 300 + start - 3)  # the chips, and what the adopted pool carried in
        pool = 2 * pool + 3
    assert max(audits[-1].looed.values()) > 2**63


# ======================================================================================
# §2.1 continuity: gaps, rejected deals, an adopted pool_start
# ======================================================================================


def test_first_deal_adopts_recorded_pool_start() -> None:
    """§2.1: the first deal starts from its antes alone unless recorded.pool_start gives
    its pool (a session that continues an earlier one); the adopted value is no
    discrepancy."""
    d1, d2 = audit_deals(
        [sweep(1, "cat", recorded={"pool_start": 15}), sweep(2, "ann")], players=THREE
    )
    # D1: 15 (double); ann 3 x 5 = 15; bob and cat looed 3: pool_next 6.
    assert money(d1) == row("double", 15, "played", {"ann": 15}, {"bob": 3, "cat": 3}, 6)
    # D2: 6 + 3 = 9; bob 3 x 3 = 9; cat and ann looed 3: pool_next 6.
    assert money(d2) == row("double", 9, "played", {"bob": 9}, {"cat": 3, "ann": 3}, 6)
    assert_clean(d1)
    assert_clean(d2)


def test_gap_with_recorded_pool_start_takes_it_and_carries_on() -> None:
    """§2.1, LOG-FORMAT deal: after a gap in deal numbers the first deal takes
    recorded.pool_start; the gap is reported."""
    d1, d3, d4 = audit_deals(
        [sweep(1, "cat"), sweep(3, "ann", recorded={"pool_start": 20}), sweep(4, "bob")],
        players=THREE,
    )
    # D1: 3; ann 3; bob and cat looed 3: pool_next 6.
    assert money(d1) == row("single", 3, "played", {"ann": 3}, {"bob": 3, "cat": 3}, 6)
    # D3: pool_start 20 (recorded). bob 3 x 6 = 18; cat and ann looed 3: 20 - 18 + 6 = 8.
    assert money(d3) == row("double", 20, "played", {"bob": 18}, {"cat": 3, "ann": 3}, 8)
    assert d3.discrepancies == []
    assert any("gap" in n for n in d3.notes), d3.notes
    # D4: 8 + 3 = 11; cat 3 x 3 = 9; ann and bob looed 3: 11 - 9 + 6 = 8.
    assert money(d4) == row("double", 11, "played", {"cat": 9}, {"ann": 3, "bob": 3}, 8)


def test_gap_without_recorded_pool_start_loses_continuity_until_the_next_recorded_pool_start() -> (
    None
):
    """§2.1: without recorded.pool_start after a gap the pool is unknown: the deal is a
    double pool, its amounts are null (and noted), and continuity resumes only at the next
    recorded.pool_start."""
    unknown_recorded = {"pool_next": 99, "payouts": {"bob": 99}}
    deals = [
        sweep(1, "cat"),
        sweep(3, "ann", recorded=unknown_recorded),  # gap, no pool_start
        sweep(4, "bob"),  # consecutive, still unknown
        sweep(5, "cat", recorded={"pool_start": 10}),  # resumes
        sweep(6, "ann"),
    ]
    d1, d3, d4, d5, d6 = audit_deals(deals, players=THREE)
    assert d1.pool_next == 6
    for a in (d3, d4):
        assert a.status == "audited"
        assert a.pool == "double"
        assert a.must is False
        assert (a.pool_start, a.pool_next) == (None, None)
        assert (a.payouts, a.looed, a.penalties) == (None, None, None)
        assert a.discrepancies == []  # amounts that cannot be known are not compared
        assert a.violations == []
    assert any("continuity" in n or "gap" in n for n in d3.notes), d3.notes
    # D5: pool_start 10 (recorded). ann 3 x 3 = 9; bob and cat looed 3: 10 - 9 + 6 = 7.
    assert money(d5) == row("double", 10, "played", {"ann": 9}, {"bob": 3, "cat": 3}, 7)
    # D6: 7 + 3 = 10. bob 9; cat and ann looed 3: pool_next 7.
    assert money(d6) == row("double", 10, "played", {"bob": 9}, {"cat": 3, "ann": 3}, 7)


def rejected_deal(kind: str) -> Deal:
    """Deal 2 (dealer ann), which cannot describe a real game (LOG-FORMAT log errors)."""
    deal = sweep(2, "ann")
    if kind == "dealt_twice":
        deal["hands"]["cat"] = ["AS", "KH", "KC"]  # bob holds AS too: a card in two places
    elif kind == "unknown_card":
        deal["hands"]["cat"][0] = "1S"  # not a card
    else:  # played_twice: bob leads AS again to the third trick
        events = deal["events"]
        events[-3] = {"type": "play", "player": "bob", "card": "AS"}
    return deal


@pytest.mark.parametrize("kind", ["dealt_twice", "unknown_card", "played_twice"])
@pytest.mark.parametrize("with_pool_start", [True, False])
def test_rejected_deal_in_the_middle_breaks_continuity(kind: str, with_pool_start: bool) -> None:
    """§2.1: the first deal after a rejected deal takes recorded.pool_start when given;
    without it, the pool is unknown (amounts null) until the next recorded.pool_start."""
    recorded = {"pool_start": 9} if with_pool_start else None
    d1, d2, d3, d4 = audit_deals(
        [sweep(1, "cat"), rejected_deal(kind), sweep(3, "bob", recorded=recorded), sweep(4, "cat")],
        players=THREE,
    )
    assert d1.pool_next == 6
    assert d2.status == "rejected"
    assert d2.errors
    if with_pool_start:
        # D3: 9; cat 3 x 3 = 9; ann and bob looed 3: pool_next 6.
        assert money(d3) == row("double", 9, "played", {"cat": 9}, {"ann": 3, "bob": 3}, 6)
        # D4: 6 + 3 = 9; ann 9; bob and cat looed 3: pool_next 6.
        assert money(d4) == row("double", 9, "played", {"ann": 9}, {"bob": 3, "cat": 3}, 6)
    else:
        for a in (d3, d4):
            assert a.pool == "double"
            assert (a.pool_start, a.pool_next, a.payouts, a.looed) == (None, None, None, None)
        assert d3.notes


# ======================================================================================
# §5.4 chips
# ======================================================================================

CHIPS_50 = {"ann": 50, "bob": 50, "cat": 50}


def test_stacks_pay_antes_forfeits_loos_and_penalties_and_take_payouts_conserving_chips() -> None:
    """§5.4: stacks lose antes, forfeits, loos and penalties and gain payouts; at every
    boundary stacks + pool = the starting chips (150)."""
    # D1 dealer cat: a misdeal.
    # D2 cat deals again (same_dealer). ann AS 5H 2C, bob KS 3H AC, cat QS AH 3C:
    # t1 ann AS, bob 3H (revoke), cat QS -> ann; t2 ann 5H, bob KS, cat AH -> cat;
    # t3 cat 3C, ann 2C, bob AC -> bob.
    d2 = deal_doc({"ann": "AS 5H 2C", "bob": "KS 3H AC", "cat": "QS AH 3C"}, number=2, dealer="cat", miss=MISS, turn_up="2D",
        events=declares("ann play", "bob play", "cat play")
        + plays(
            "ann AS", "bob 3H", "cat QS", "ann 5H", "bob KS", "cat AH", "cat 3C", "ann 2C", "bob AC"
        ),
    )  # fmt: skip
    # D3 dealer ann (eldest bob, cat, ann): cat declares before bob (a single to the
    # current pool); bob sweeps.
    d3 = sweep(3, "ann")
    d3["events"] = declares("cat play", "bob play", "ann play") + d3["events"][3:]
    # D4 dealer bob: all pass.
    d4 = all_pass(4, "bob", seats=THREE)
    audits = audit_deals([misdeal(1, "cat"), d2, d3, d4], players=THREE, chips=CHIPS_50)
    a1, a2, a3, a4 = audits
    # D1: pool 3; cat forfeits 3: pool_next 6. cat: 50 - 3 ante - 3 forfeit = 44.
    assert money(a1) == row("single", 3, "misdeal", {}, {}, 6)
    assert a1.stacks == {"ann": 50, "bob": 50, "cat": 44}
    # D2: 6 (no new ante), share 2: ann 2, cat 2, bob's stays; bob pays 12.
    # pool_next = 6 - 4 + 12 = 14. ann 52, bob 38, cat 46.
    assert money(a2) == row("double", 6, "played", {"ann": 2, "cat": 2}, {}, 14)
    assert a2.penalties == {"bob": 12}
    assert a2.stacks == {"ann": 52, "bob": 38, "cat": 46}
    # D3: 14 + 3 = 17; cat's single: pool 20, share 6: bob 18; cat and ann looed 3.
    # pool_next = 20 - 18 + 6 = 8. ann 52 - 3 - 3 = 46, bob 38 + 18 = 56, cat 46 - 3 - 3 = 40.
    assert money(a3) == row("double", 17, "played", {"bob": 18}, {"cat": 3, "ann": 3}, 8)
    assert a3.penalties == {"cat": 3}
    assert a3.stacks == {"ann": 46, "bob": 56, "cat": 40}
    # D4: 8 + 3 = 11, bob takes 11: 56 - 3 + 11 = 64. pool_next 0.
    assert money(a4) == row("double", 11, "all_passed", {"bob": 11}, {}, 0)
    assert a4.stacks == {"ann": 46, "bob": 64, "cat": 40}
    for a in audits:
        conserved(a, 150)


def sweep_recorded(**override: Any) -> dict[str, Any]:
    """The correct record of ``sweep(1, "cat")`` with 100 chips each: pool 3, ann takes
    3 x 1 = 3, bob and cat looed 3, pool_next 6; stacks ann 103, bob 97, cat 100 - 3 - 3 = 94."""
    rec: dict[str, Any] = {
        "pool_start": 3,
        "tricks": {"ann": 3, "bob": 0, "cat": 0},
        "payouts": {"ann": 3},
        "looed": {"bob": 3, "cat": 3},
        "penalties": {},
        "pool_next": 6,
        "stacks": {"ann": 103, "bob": 97, "cat": 94},
    }
    rec.update(override)
    return rec


def test_correct_record_gives_no_discrepancy() -> None:
    """LOG-FORMAT recorded: each field present is compared; all right, nothing reported."""
    (a,) = audit_deals([sweep(1, "cat", recorded=sweep_recorded())], players=THREE, chips=CHIPS_100)
    assert_clean(a)


def test_wrong_recorded_stack_is_exactly_one_stacks_discrepancy() -> None:
    """§5.4: a recorded stack that breaks conservation is a discrepancy, and only that."""
    wrong = sweep_recorded(stacks={"ann": 103, "bob": 97, "cat": 100})
    # D2 dealer ann: 6 + 3 = 9; bob 9; cat, ann looed 3; pool_next 6.
    # Stacks from the computed ones: ann 103 - 3 - 3 = 97, bob 97 + 9 = 106, cat 94 - 3 = 91.
    # 294 + 6 = 300.
    right2 = {
        "pool_start": 9,
        "payouts": {"bob": 9},
        "looed": {"cat": 3, "ann": 3},
        "pool_next": 6,
        "stacks": {"ann": 97, "bob": 106, "cat": 91},
    }
    d1, d2 = audit_deals(
        [sweep(1, "cat", recorded=wrong), sweep(2, "ann", recorded=right2)],
        players=THREE,
        chips=CHIPS_100,
    )
    assert d1.status == "audited"
    assert d1.violations == []
    assert d1.discrepancies == [Discrepancy("stacks.cat", 100, 94)]
    assert d1.stacks == {"ann": 103, "bob": 97, "cat": 94}
    assert_clean(d2)
    conserved(d2, 300)


def test_wrong_recorded_payout_is_exactly_one_payouts_discrepancy() -> None:
    """LOG-FORMAT recorded, §5.1: a wrong payout is one discrepancy; the deal is still
    audited and settled as the rules say."""
    rec = sweep_recorded(payouts={"ann": 2})
    (a,) = audit_deals([sweep(1, "cat", recorded=rec)], players=THREE, chips=CHIPS_100)
    assert a.status == "audited"
    assert a.violations == []
    assert a.discrepancies == [Discrepancy("payouts.ann", 2, 3)]
    assert money(a) == row("single", 3, "played", {"ann": 3}, {"bob": 3, "cat": 3}, 6)


# D2 of a two-deal session (dealer ann, eldest bob, cat, ann), after sweep(1, "cat")
# (pool_next 6): bob AS 5H 2C, cat KS 3H AC, ann QS AH 3C.
# t1 bob AS, cat 3H (holds KS: revoke), ann QS -> bob; t2 bob 5H, cat KS, ann AH -> ann;
# t3 ann 3C, bob 2C, cat AC -> cat. One trick each.
# pool 6 + 3 = 9, share 3: bob 3, ann 3, cat's stays; cat pays 12.
# pool_next = 9 - 6 + 12 = 15.
RIGHT_D2 = {
    "pool_start": 9,
    "tricks": {"bob": 1, "cat": 1, "ann": 1},
    "payouts": {"bob": 3, "ann": 3},
    "looed": {},
    "penalties": {"cat": 12},
    "pool_next": 15,
}


@pytest.mark.parametrize(
    ("field", "value", "discrepancy"),
    [
        ("pool_next", 9, Discrepancy("pool_next", 9, 15)),
        ("looed", {"cat": 3}, Discrepancy("looed.cat", 3, 0)),
        ("penalties", {"cat": 4}, Discrepancy("penalties.cat", 4, 12)),
        ("tricks", {"bob": 1, "cat": 1, "ann": 2}, Discrepancy("tricks.ann", 2, 1)),
        ("pool_start", 12, Discrepancy("pool_start", 12, 9)),
        ("payouts", {"bob": 3, "ann": 3, "cat": 3}, Discrepancy("payouts.cat", 3, 0)),
    ],
)
def test_each_wrong_recorded_field_is_reported_with_recorded_and_expected(
    field: str, value: Any, discrepancy: Discrepancy
) -> None:
    """LOG-FORMAT recorded: pool_start, tricks, payouts, looed, penalties and pool_next are
    each compared; a difference names the field, what was recorded and what is expected."""
    d2 = deal_doc({"bob": "AS 5H 2C", "cat": "KS 3H AC", "ann": "QS AH 3C"}, number=2, dealer="ann", miss=MISS, turn_up="2D",
        events=declares("bob play", "cat play", "ann play")
        + plays(
            "bob AS", "cat 3H", "ann QS", "bob 5H", "cat KS", "ann AH", "ann 3C", "bob 2C", "cat AC"
        ),
        recorded={**RIGHT_D2, field: value},
    )  # fmt: skip
    _, a = audit_deals([sweep(1, "cat"), d2], players=THREE)
    assert a.status == "audited"
    assert a.discrepancies == [discrepancy]
    assert [(v.code, v.player, v.penalized) for v in a.violations] == [("follow-suit", "cat", True)]
    assert money(a) == row("double", 9, "played", {"bob": 3, "ann": 3}, {}, 15)


# ======================================================================================
# §5.5 dealer rotation
# ======================================================================================

NO_MUSTS = {"declare.must": "never"}


def rotation_codes(a: DealAudit) -> list[tuple[str, str, bool]]:
    return [(v.code, v.player, v.penalized) for v in a.violations]


@pytest.mark.parametrize(
    ("first", "second", "ok"),
    [
        ("ann", "bob", True),
        ("dan", "ann", True),  # round the table
        ("ann", "cat", False),
        ("ann", "ann", False),
        ("bob", "ann", False),
    ],
)
def test_next_deal_is_dealt_by_the_next_seated_player_clockwise(
    first: str, second: str, ok: bool
) -> None:
    """§5.5: the next seated player clockwise deals; anyone else is a dealer-rotation
    violation with no chips."""
    _, d2 = audit_deals([all_pass(1, first), all_pass(2, second)], players=FOUR, rules=NO_MUSTS)
    assert rotation_codes(d2) == ([] if ok else [("dealer-rotation", second, False)])
    # No chips either way: D1 pool 3 to its dealer; D2 0 + 3 = 3 to its dealer.
    assert money(d2) == row("single", 3, "all_passed", {second: 3}, {}, 0)
    assert d2.penalties == {}


@pytest.mark.parametrize(
    ("redeal", "second", "ok"),
    [
        ("same_dealer", "ann", True),
        ("same_dealer", "bob", False),
        ("next_dealer", "bob", True),
        ("next_dealer", "ann", False),
    ],
)
def test_after_a_misdeal_the_same_or_the_next_dealer_deals(
    redeal: str, second: str, ok: bool
) -> None:
    """§5.5, §2.2: after a misdeal, the same dealer deals again with misdeal_redeal
    same_dealer, the next one with next_dealer."""
    rules = {**NO_MUSTS, "penalties.misdeal_redeal": redeal}
    _, d2 = audit_deals([misdeal(1, "ann"), all_pass(2, second)], players=FOUR, rules=rules)
    assert rotation_codes(d2) == ([] if ok else [("dealer-rotation", second, False)])
    assert d2.penalties == {}


@pytest.mark.parametrize(
    ("first", "second", "ok"),
    [
        ("ann", "cat", True),  # bob left: cat is the next seated player after ann
        ("ann", "dan", False),
        ("bob", "cat", True),  # the last dealer left: the next seated after him
        ("bob", "ann", False),
    ],
)
def test_dealer_rotation_skips_a_player_who_left(first: str, second: str, ok: bool) -> None:
    """§5.5, LOG-FORMAT deal.players: the next *seated* player clockwise deals."""
    seated = ("ann", "cat", "dan")
    _, d2 = audit_deals(
        [all_pass(1, first), all_pass(2, second, seats=seated, players=seated)],
        players=FOUR,
        rules=NO_MUSTS,
    )
    assert rotation_codes(d2) == ([] if ok else [("dealer-rotation", second, False)])
    assert money(d2) == row("single", 3, "all_passed", {second: 3}, {}, 0)


# ======================================================================================
# More corners of §2.1, §5.1, §5.2, §5.3, §5.4
# ======================================================================================


def test_stacks_are_unknown_after_lost_continuity_until_recorded_stacks_give_them() -> None:
    """§5.4: when continuity is lost (§2.1) stacks are unknown until a deal's
    recorded.stacks gives them again; then they are tracked and conserved."""
    # D1: ann 103, bob 97, cat 94, pool_next 6 (see sweep_recorded).
    # D3 (gap, no pool_start): unknown. D4 (dealer bob, eldest cat) records pool_start 9:
    # cat 3 x 3 = 9; ann and bob looed 3: pool_next 6; the record gives the stacks after it,
    # summing to 300 - 6 = 294.
    d4_rec = {"pool_start": 9, "stacks": {"ann": 90, "bob": 100, "cat": 104}}
    deals = [sweep(1, "cat"), sweep(3, "ann"), sweep(4, "bob", recorded=d4_rec), sweep(5, "cat")]
    d1, d3, d4, d5 = audit_deals(deals, players=THREE, chips=CHIPS_100)
    assert d1.stacks == {"ann": 103, "bob": 97, "cat": 94}
    assert d3.stacks is None
    assert money(d4) == row("double", 9, "played", {"cat": 9}, {"ann": 3, "bob": 3}, 6)
    # D5 (dealer cat, eldest ann): 6 + 3 = 9; ann 9; bob and cat looed 3: pool_next 6.
    # Stacks from D4's record: ann 90 + 9 = 99, bob 100 - 3 = 97, cat 104 - 3 - 3 = 98.
    # 294 + 6 = 300.
    assert money(d5) == row("double", 9, "played", {"ann": 9}, {"bob": 3, "cat": 3}, 6)
    assert d5.stacks == {"ann": 99, "bob": 97, "cat": 98}
    conserved(d5, 300)


@pytest.mark.parametrize(
    ("revoke", "expected"),
    [
        # divide: both active players revoked: nobody to share, the whole pool stays;
        # each pays 12: pool_next = 12 + 12 + 12 = 36; no one looed.
        ("divide", row("double", 12, "revoke", {}, {}, 36)),
        # forfeit: ann's 3 tricks' shares stay; cat took none: looed 3;
        # pool_next = 12 + 3 + 12 + 12 = 39.
        ("forfeit", row("double", 12, "played", {}, {"cat": 3}, 39)),
    ],
)
def test_revoke_divide_with_nobody_to_share_the_whole_pool_stays(
    revoke: str, expected: Row
) -> None:
    """§5.1 divide: with nobody to share (every active player revoked), the whole pool stays;
    each offender pays revoke_amount to the next pool."""
    # Dealer cat; ann AD 5H 2C plays, bob passes, cat KS AH 3C plays (dealer_defends).
    # t1 ann 5H while holding AD, the top trump (lead-top-trump); cat 3C while holding AH
    # (follow-suit) -> ann; t2 ann AD, cat KS -> ann; t3 ann 2C, cat AH -> ann.
    hands = {"ann": "AD 5H 2C", "bob": "5S 6H 6C", "cat": "KS AH 3C"}
    events = declares("ann play", "bob pass", "cat play") + plays(
        "ann 5H", "cat 3C", "ann AD", "cat KS", "ann 2C", "cat AH"
    )
    deal = deal_doc(
        hands,
        number=1,
        dealer="cat",
        miss=MISS,
        turn_up="2D",
        events=events,
        recorded={"pool_start": 12},
    )
    (a,) = audit_deals([deal], players=THREE, rules={"penalties.revoke": revoke})
    assert money(a) == expected
    assert a.penalties == {"ann": 12, "cat": 12}
    assert [(v.code, v.player, v.penalized) for v in a.violations] == [
        ("lead-top-trump", "ann", True),
        ("follow-suit", "cat", True),
    ]


def test_single_penalty_in_an_all_passed_deal_goes_to_the_dealer_with_the_pool() -> None:
    """§2.5, §5, §5.2: a declaring-out-of-turn single is paid into the current pool, which the
    dealer takes when all pass."""
    # Dealer cat: bob passes before ann (out of turn, 3 into the pool), then ann passes.
    deal = all_pass(1, "cat", seats=THREE, recorded={"pool_start": 12})
    deal["events"] = declares("bob pass", "ann pass")
    (a,) = audit_deals([deal], players=THREE)
    # pool = 12 + 3 = 15 to cat: pool_next 0.
    assert money(a) == row("double", 12, "all_passed", {"cat": 15}, {}, 0)
    assert a.penalties == {"bob": 3}


def test_flush_declared_counts_the_final_hand_after_an_exchange() -> None:
    """§2.7, §2.8, §5.3: with flush.when "declared" the final hand, after the exchange, is
    the one that counts."""
    # five-card, when declared; dealer ann (eldest bob, cat, ann); pool_start 20.
    # bob 2S 3S 4S 5S 9H plays and exchanges 9H for 6S: 2S-6S, a flush; cat plays; ann
    # passes. No Pam dealt.
    deal = deal_doc(
        {"bob": "2S 3S 4S 5S 9H", "cat": "AH KD QC JD TC", "ann": "7H 8H 9C 8C 7C"},
        number=1,
        dealer="ann",
        turn_up="2D",
        miss=None,
        events=[
            declare("bob", "play"),
            {"type": "exchange", "player": "bob", "discard": ["9H"], "draw": ["6S"]},
            declare("cat", "play"),
            declare("ann", "pass"),
        ],
        recorded={"pool_start": 20},
    )
    (a,) = audit_deals([deal], ruleset="five-card", players=THREE, rules={"flush.when": "declared"})
    # bob takes 20; flush.looes everyone: cat and ann pay the loo 5: pool_next 10.
    assert money(a) == row("double", 20, "flush", {"bob": 20}, {"cat": 5, "ann": 5}, 10)
    assert_clean(a)


def test_hoyle_flushes_only_a_trump_flush_counts_and_losers_pay_a_single() -> None:
    """§5.3 with hoyle-flushes (flush.kind trumps, pools double, pay ante): a plain suit is
    no flush, so its holder is looed like anyone."""
    # Dealer cat, pool_start 12 (double: Miss and turn-up 9D). ann 2H 3H 4H (plain), bob
    # AD KD QD (trumps), cat mixed; all play.
    hands = {"ann": "2H 3H 4H", "bob": "AD KD QD", "cat": "5S 6C 7S"}
    events = declares("ann play", "bob play", "cat play")
    (a,) = audit_deals([flush_deal(hands, events=events)], ruleset="hoyle-flushes", players=THREE)
    # bob takes 12; ann and cat each pay a single, 3: pool_next 6.
    assert money(a) == row("double", 12, "flush", {"bob": 12}, {"ann": 3, "cat": 3}, 6)
    assert_clean(a)


def test_stacks_after_a_gap_are_unknown_or_conserved_and_a_conserving_record_is_no_discrepancy() -> (
    None
):
    """§5.4 with §2.1: the deals lost in a gap moved chips nobody knows, so after a gap the
    stacks cannot be carried on from before it. Whatever stacks the audit reports must
    satisfy the §5.4 invariant (stacks + pool = starting chips), and a recorded set of
    stacks that does satisfy it is not a discrepancy ("a recorded stack that breaks it is a
    discrepancy"). After a rejected deal the engine already treats stacks as unknown; a
    gap is the same situation in §2.1."""
    # D1: pool_next 6, stacks ann 103, bob 97, cat 94 (294 + 6 = 300).
    # D3 (deal 2 lost) records pool_start 20: bob (eldest of dealer ann) 3 x 6 = 18; cat,
    # ann looed 3: pool_next 20 - 18 + 6 = 8. Its recorded stacks sum to 300 - 8 = 292.
    d3_rec = {"pool_start": 20, "stacks": {"ann": 97, "bob": 100, "cat": 95}}
    _, d3 = audit_deals(
        [sweep(1, "cat"), sweep(3, "ann", recorded=d3_rec)], players=THREE, chips=CHIPS_100
    )
    assert money(d3) == row("double", 20, "played", {"bob": 18}, {"cat": 3, "ann": 3}, 8)
    if d3.stacks is not None:
        conserved(d3, 300)
    assert [d for d in d3.discrepancies if d.field.startswith("stacks.")] == []


@pytest.mark.parametrize(
    ("scope", "looed"),
    [("active", {}), ("everyone", {"ann": 3, "bob": 3})],
)
def test_all_passed_when_only_the_dealer_stands(scope: str, looed: dict[str, int]) -> None:
    """§2.6, §5.2: only the dealer active is all_passed: the dealer takes the pool; with
    loo_scope "everyone" the others are looed."""
    deal = all_pass(1, "cat", seats=THREE, recorded={"pool_start": 12})
    deal["events"] = declares("ann pass", "bob pass", "cat play")
    (a,) = audit_deals([deal], players=THREE, rules={"stakes.loo_scope": scope})
    # cat takes 12; pool_next = the loos (0, or 3 + 3 = 6)
    assert money(a) == row("double", 12, "all_passed", {"cat": 12}, looed, sum(looed.values()))
    assert_clean(a)


def test_revoke_divide_settles_a_hand_abandoned_after_the_revoke() -> None:
    """§2.9, §5.1 divide: a record that stops after a penalised revoke is a hand abandoned
    there; the pool is still divided among the non-offenders."""
    # ann AS AH AC, bob KS 3H KC, cat QS QH QC (dealer cat): t1 ann AS, bob 3H (revoke),
    # cat QS; then the record stops.
    hands = {"ann": "AS AH AC", "bob": "KS 3H KC", "cat": "QS QH QC"}
    events = declares("ann play", "bob play", "cat play") + plays("ann AS", "bob 3H", "cat QS")
    deal = deal_doc(
        hands,
        number=1,
        dealer="cat",
        miss=MISS,
        turn_up="2D",
        events=events,
        recorded={"pool_start": 12},
    )
    (a,) = audit_deals([deal], players=THREE, rules={"penalties.revoke": "divide"})
    # ann and cat: 12 // 2 = 6 each; bob pays 12: pool_next = 12 - 12 + 12 = 12.
    assert a.status == "audited"
    assert money(a) == row("double", 12, "revoke", {"ann": 6, "cat": 6}, {}, 12)
    assert a.penalties == {"bob": 12}
