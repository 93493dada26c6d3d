"""A clean, complete session in each of the 11 built-in rulesets of docs/rules.md §8.

Each session is written by hand in its variant (hand size, Miss or not, how trumps are fixed,
musts, exchanges, Pam, flushes) with a ``recorded`` block worked out by hand from docs/rules.md
§2-§5, and audited under its ruleset: every deal must be ``audited`` with no violation, no
discrepancy and no log error, and carry the pool we computed to the next deal.

``@session_of(name)`` registers the test of each ruleset; ``test_every_builtin_ruleset_has_a_
session`` fails when a built-in ruleset has none.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from loo_helpers import audit_deals, deal_doc, declare, play

from loo_replay.engine.cards import SUITS
from loo_replay.rulesets import builtin_names

P3 = ("ann", "bob", "cat")
P4 = ("ann", "bob", "cat", "dan")

Fn = TypeVar("Fn", bound=Callable[..., None])

SESSIONS: dict[str, str] = {}


def session_of(ruleset: str) -> Callable[[Fn], Fn]:
    """Register the decorated test as the clean session of built-in ``ruleset``."""

    def register(fn: Fn) -> Fn:
        SESSIONS[ruleset] = fn.__name__
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


def turn(card: str) -> dict[str, Any]:
    """A trump turned during play (``deal.trump`` or ``trump_in_must`` = ``on_void``)."""
    return {"type": "turn_up", "card": card}


def exchange(player: str, discard: str, draw: str) -> dict[str, Any]:
    return {"type": "exchange", "player": player, "discard": discard.split(), "draw": draw.split()}


def show_flush(player: str) -> dict[str, Any]:
    return {"type": "show_flush", "player": player}


def assert_clean_session(
    ruleset: str,
    deals: list[dict[str, Any]],
    *,
    players: tuple[str, ...] = P3,
    outcomes: list[str],
    musts: list[bool],
    trumps: list[str | None] | None = None,
) -> None:
    """Audit ``deals`` under ``ruleset``: every deal audited, nothing found, the recorded
    pool_next of each deal the one the engine carries, and the outcomes as worked out."""
    audits = audit_deals(deals, ruleset=ruleset, players=players)
    assert len(audits) == len(deals) >= 2
    for d, a in zip(deals, audits, strict=True):
        where = f"{ruleset} deal {d['deal']}"
        assert a.errors == [], (where, a.errors)
        assert a.status == "audited", where
        assert a.violations == [], (where, a.violations)
        assert a.discrepancies == [], (where, a.discrepancies)
        assert a.pool_next == d["recorded"]["pool_next"], where
    assert [a.outcome for a in audits] == outcomes
    assert [a.must for a in audits] == musts
    if trumps is not None:
        assert [None if a.trump is None else SUITS[a.trump] for a in audits] == trumps


# -- the sessions -----------------------------------------------------------------------------


@session_of("three-card")
def test_three_card_session_take_miss_must_and_defended_pool() -> None:
    """§8 column ``three-card`` (HGM): 3 cards, a Miss and a turn-up; the first single pool
    is exempt from the must (``single_except_first``), the next single pool is a must (no
    Miss, everyone plays, the turn-up stands); the dealer defends against a lone player.

    1. cat deals, ♦ trumps (9♦), pool 3. Ann takes the Miss (A♦ Q♦ 3♠), bob passes, cat plays.
       Ann must lead the ace of trumps, then a trump after the trick; she wins two tricks,
       cat the last: 2 + 1 shares, no loo, pool_next 0.
    2. ann deals a single pool of 3: a must, ♠ trumps (4♠), nobody holds a trump. Bob wins
       two tricks, ann one; cat is looed 3: pool_next 3.
    3. bob deals, pool 3 + 3 = 6 (double, share 2), ♥ trumps. Cat plays, ann passes, bob
       (obliged by ``dealer_defends``) defends with the Miss: cat wins 2 tricks (4), bob's
       trick stays in the pool: pool_next 2.
    """
    deals = [
        deal_doc(
            {"ann": "2S 3H 4C", "bob": "5S 6H 7C", "cat": "KD 8S 8H"},
            declares("ann take_miss", "bob pass", "cat play")
            + tricks("ann AD cat KD", "ann QD cat 8H", "ann 3S cat 8S"),
            number=1,
            dealer="cat",
            recorded={
                "penalties": {},
                "pool_start": 3,
                "tricks": {"ann": 2, "cat": 1},
                "payouts": {"ann": 2, "cat": 1},
                "looed": {},
                "pool_next": 0,
            },
            miss="AD QD 3S",
            turn_up="9D",
        ),
        deal_doc(
            {"bob": "AH KH 2C", "cat": "QH 5D 6D", "ann": "3H 7C 8C"},
            tricks("bob AH cat QH ann 3H", "bob KH cat 5D ann 7C", "bob 2C cat 6D ann 8C"),
            number=2,
            dealer="ann",
            recorded={
                "penalties": {},
                "pool_start": 3,
                "tricks": {"bob": 2, "cat": 0, "ann": 1},
                "payouts": {"bob": 2, "ann": 1},
                "looed": {"cat": 3},
                "pool_next": 3,
            },
            turn_up="4S",
        ),
        deal_doc(
            {"cat": "AS KS 3D", "ann": "4C 5C 6C", "bob": "7C 8C 9C"},
            declares("cat play", "ann pass", "bob defend")
            + tricks("cat AS bob QS", "cat KS bob 4D", "cat 3D bob 5D"),
            number=3,
            dealer="bob",
            recorded={
                "penalties": {},
                "pool_start": 6,
                "tricks": {"cat": 2, "bob": 1},
                "payouts": {"cat": 4},
                "looed": {},
                "pool_next": 2,
            },
            miss="QS 4D 5D",
            turn_up="2H",
        ),
    ]
    assert_clean_session(
        "three-card",
        deals,
        outcomes=["played", "played", "played"],
        musts=[False, True, False],
        trumps=["D", "S", "H"],
    )


@session_of("five-card")
def test_five_card_session_exchange_and_a_trump_flush_at_the_deal() -> None:
    """§8 column ``five-card`` (HGM five-card): 5 cards, no Miss, exchanges, Pam, ante and
    loo 5; flushes of any suit (Pam wild) found at the deal, a trump flush beating a plain
    one, looing everyone but the holders of a losing flush and of Pam.

    1. dan deals (pool 5, the first deal: no must), ♥ trumps that nobody holds. Ann plays and
       exchanges 4♣ for 5♦. Ann takes 3 tricks, bob 1, dan 1, cat none (looed 5):
       pool_next 5 - 5 + 5 = 5.
    2. ann deals, pool 5 + 5 = 10, ♦ trumps (2♦). Bob is dealt a spade flush, cat a flush in
       trumps: cat's wins at once and takes 10. Bob (losing flush) and ann (holding Pam) pay
       nothing; dan is looed 5: pool_next 5.
    """
    deals = [
        deal_doc(
            {
                "ann": "AS KS QS 3D 4C",
                "bob": "2S 3S 4S 6D 7C",
                "cat": "5S 6S 7D 8C 9C",
                "dan": "7S 8D 9D TC 2C",
            },
            [
                declare("ann", "play"),
                exchange("ann", "4C", "5D"),
                *declares("bob play", "cat play", "dan play"),
                *tricks(
                    "ann AS bob 2S cat 5S dan 7S",
                    "ann KS bob 3S cat 6S dan 8D",
                    "ann QS bob 4S cat 7D dan 9D",
                    "ann 3D bob 6D cat 8C dan 2C",
                    "bob 7C cat 9C dan TC ann 5D",
                ),
            ],
            number=1,
            dealer="dan",
            recorded={
                "penalties": {},
                "pool_start": 5,
                "tricks": {"ann": 3, "bob": 1, "cat": 0, "dan": 1},
                "payouts": {"ann": 3, "bob": 1, "dan": 1},
                "looed": {"cat": 5},
                "pool_next": 5,
            },
            turn_up="2H",
        ),
        deal_doc(
            {
                "bob": "AS KS QS JS TS",
                "cat": "3D 4D 5D 6D 7D",
                "dan": "8H 9H 2C 3C 4C",
                "ann": "JC 5H 6H 7C 8C",
            },
            [],
            number=2,
            dealer="ann",
            recorded={
                "penalties": {},
                "pool_start": 10,
                "payouts": {"cat": 10},
                "looed": {"dan": 5},
                "pool_next": 5,
            },
            turn_up="2D",
        ),
    ]
    assert_clean_session(
        "five-card",
        deals,
        players=P4,
        outcomes=["played", "flush"],
        musts=[False, False],
        trumps=["H", "D"],
    )


@session_of("hoyle")
def test_hoyle_session_bold_stand_with_a_trump_turned_on_void() -> None:
    """§8 column ``hoyle`` (001): the simple pool is a must ("bold stand", the first deal
    too), no Miss, no trump until someone cannot follow (``trump_in_must = on_void``); the
    double pool has a widow and a turn-up; the first lead is a trump, the highest of two.

    1. cat deals, pool 3, a must. Cat cannot follow spades to trick 1, so the dealer turns
       9♥ before trick 2. Ann wins two tricks, cat one; bob is looed 3: pool_next 3.
    2. ann deals, pool 6 (double): widow and 7♦. Bob passes, cat plays, ann (obliged by
       ``dealer_defends``) takes the widow. Cat leads A♦ (highest of two trumps), then 5♦
       (trump after trick) and wins all three (3 x 2); ann is looed 3: pool_next 3.
    """
    deals = [
        deal_doc(
            {"ann": "AS KS 4C", "bob": "2S 3S 5C", "cat": "2D 3D 6C"},
            [
                *tricks("ann AS bob 2S cat 2D"),
                turn("9H"),
                *tricks("ann KS bob 3S cat 3D", "ann 4C bob 5C cat 6C"),
            ],
            number=1,
            dealer="cat",
            recorded={
                "penalties": {},
                "pool_start": 3,
                "tricks": {"ann": 2, "bob": 0, "cat": 1},
                "payouts": {"ann": 2, "cat": 1},
                "looed": {"bob": 3},
                "pool_next": 3,
            },
        ),
        deal_doc(
            {"bob": "2H 3H 4H", "cat": "AD 5D KC", "ann": "8C 9C TC"},
            declares("bob pass", "cat play", "ann take_miss")
            + tricks("cat AD ann 3D", "cat 5D ann 4S", "cat KC ann 5S"),
            number=2,
            dealer="ann",
            recorded={
                "penalties": {},
                "pool_start": 6,
                "tricks": {"cat": 3, "ann": 0},
                "payouts": {"cat": 6},
                "looed": {"ann": 3},
                "pool_next": 3,
            },
            miss="3D 4S 5S",
            turn_up="7D",
        ),
    ]
    assert_clean_session(
        "hoyle",
        deals,
        outcomes=["played", "played"],
        musts=[True, False],
        trumps=["H", "D"],
    )


@session_of("hoyle-unlimited")
def test_hoyle_unlimited_session_a_loo_pays_the_pool() -> None:
    """§8 column ``hoyle-unlimited`` (001 Unlimited): hoyle with ``stakes.loo = unlimited``:
    a looed player pays the whole pool.

    1. cat deals, pool 3, a must. Cat fails to follow spades to trick 2; Q♥ is turned before
       trick 3. Ann 2 tricks, cat 1; bob is looed the pool, 3: pool_next 3.
    2. ann deals, pool 6, ♣ trumps (5♣). Bob leads his only trump K♣ and wins; cat takes the
       last two with A♥ and 4♥. Bob 2, cat 4; ann is looed the pool, 6: pool_next 6.
    """
    deals = [
        deal_doc(
            {"ann": "AS KS 4C", "bob": "2S 3S 5C", "cat": "4S 2D 6C"},
            [
                *tricks("ann AS bob 2S cat 4S", "ann KS bob 3S cat 2D"),
                turn("QH"),
                *tricks("ann 4C bob 5C cat 6C"),
            ],
            number=1,
            dealer="cat",
            recorded={
                "penalties": {},
                "pool_start": 3,
                "tricks": {"ann": 2, "bob": 0, "cat": 1},
                "payouts": {"ann": 2, "cat": 1},
                "looed": {"bob": 3},
                "pool_next": 3,
            },
        ),
        deal_doc(
            {"bob": "KC 2H 3H", "cat": "AH 4H 6D", "ann": "QC 7D 8D"},
            declares("bob play", "cat play", "ann play")
            + tricks("bob KC cat 6D ann QC", "bob 2H cat AH ann 7D", "cat 4H ann 8D bob 3H"),
            number=2,
            dealer="ann",
            recorded={
                "penalties": {},
                "pool_start": 6,
                "tricks": {"bob": 1, "cat": 2, "ann": 0},
                "payouts": {"bob": 2, "cat": 4},
                "looed": {"ann": 6},
                "pool_next": 6,
            },
            miss="9S TS JS",
            turn_up="5C",
        ),
    ]
    assert_clean_session(
        "hoyle-unlimited",
        deals,
        outcomes=["played", "played"],
        musts=[True, False],
        trumps=["H", "C"],
    )


@session_of("hoyle-flushes")
def test_hoyle_flushes_session_a_trump_flush_in_a_double_pool() -> None:
    """§8 column ``hoyle-flushes`` (001 Flushes): a flush is three trumps, counted only in a
    double pool; those it looes pay a single.

    1. cat deals, pool 3, a must. Cat fails to follow diamonds; A♠ is turned before trick 2.
       Ann 2 tricks, cat 1; bob looed 3: pool_next 3.
    2. ann deals, pool 6 (double), ♠ trumps. Bob holds A♠ K♠ Q♠ and shows the flush: he
       takes 6; cat and ann pay a single each: pool_next 6.
    """
    deals = [
        deal_doc(
            {"ann": "KD QD 2C", "bob": "3D 4D 3C", "cat": "5H 6H 4C"},
            [
                *tricks("ann KD bob 3D cat 5H"),
                turn("AS"),
                *tricks("ann QD bob 4D cat 6H", "ann 2C bob 3C cat 4C"),
            ],
            number=1,
            dealer="cat",
            recorded={
                "penalties": {},
                "pool_start": 3,
                "tricks": {"ann": 2, "bob": 0, "cat": 1},
                "payouts": {"ann": 2, "cat": 1},
                "looed": {"bob": 3},
                "pool_next": 3,
            },
        ),
        deal_doc(
            {"bob": "AS KS QS", "cat": "3H 4H 5H", "ann": "6H 7H 8H"},
            [*declares("bob play", "cat play", "ann play"), show_flush("bob")],
            number=2,
            dealer="ann",
            recorded={
                "penalties": {},
                "pool_start": 6,
                "payouts": {"bob": 6},
                "looed": {"cat": 3, "ann": 3},
                "pool_next": 6,
            },
            miss="9D TD JD",
            turn_up="2S",
        ),
    ]
    assert_clean_session(
        "hoyle-flushes",
        deals,
        outcomes=["played", "flush"],
        musts=[True, False],
        trumps=["S", "S"],
    )


@session_of("hoyle-pam")
def test_hoyle_pam_session_pam_is_a_club_until_trumps_and_civil_to_the_ace() -> None:
    """§8 column ``hoyle-pam`` (001 Pam-Loo): Pam on, "Pam, be civil" always.

    1. cat deals, pool 3, a must with no trump: bob's Pam follows A♣ as an ordinary club.
       Cat fails to follow spades to trick 2; 9♦ is turned before trick 3. Ann 1, bob 2;
       cat looed 3: pool_next 3.
    2. ann deals, pool 6, ♥ trumps. Bob leads A♥; cat, holding Pam and 5♥, must be civil and
       plays 5♥; later cat trumps ann's 8♠ with Pam. One trick each (2 each): pool_next 0.
    """
    deals = [
        deal_doc(
            {"ann": "AC 3S 4S", "bob": "JC 5S 6S", "cat": "2C 7H 8H"},
            [
                *tricks("ann AC bob JC cat 2C", "ann 3S bob 5S cat 7H"),
                turn("9D"),
                *tricks("bob 6S cat 8H ann 4S"),
            ],
            number=1,
            dealer="cat",
            recorded={
                "penalties": {},
                "pool_start": 3,
                "tricks": {"ann": 1, "bob": 2, "cat": 0},
                "payouts": {"ann": 1, "bob": 2},
                "looed": {"cat": 3},
                "pool_next": 3,
            },
        ),
        deal_doc(
            {"bob": "AH 3S 4S", "cat": "JC 5H 5S", "ann": "6H 7S 8S"},
            declares("bob play", "cat play", "ann play")
            + tricks("bob AH cat 5H ann 6H", "bob 3S cat 5S ann 7S", "ann 8S bob 4S cat JC"),
            number=2,
            dealer="ann",
            recorded={
                "penalties": {},
                "pool_start": 6,
                "tricks": {"bob": 1, "cat": 1, "ann": 1},
                "payouts": {"bob": 2, "cat": 2, "ann": 2},
                "looed": {},
                "pool_next": 0,
            },
            miss="9C TC QC",
            turn_up="2H",
        ),
    ]
    assert_clean_session(
        "hoyle-pam",
        deals,
        outcomes=["played", "played"],
        musts=[True, False],
        trumps=["D", "H"],
    )


@session_of("hoyle-irish")
def test_hoyle_irish_session_exchanges_and_no_musts() -> None:
    """§8 column ``hoyle-irish`` (001 Irish): no Miss, exchanges with the stock, never a
    must, hoyle's leading rules and revoke settlement.

    1. cat deals, pool 3 (single, yet no must), ♠ trumps. Ann plays and exchanges 4♦ for A♥;
       she leads her trump A♠. Ann 2, bob 1; cat looed 3: pool_next 3.
    2. ann deals, pool 6, ♣ trumps. Bob plays, cat passes, ann must play
       (``dealer_defends``). Bob leads K♣, the higher of his two trumps; ann heads it with
       A♣. Ann 2 (4), bob 1 (2): pool_next 0.
    """
    deals = [
        deal_doc(
            {"ann": "AS 3H 4D", "bob": "5H 6H 7C", "cat": "8C 9C TC"},
            [
                declare("ann", "play"),
                exchange("ann", "4D", "AH"),
                *declares("bob play", "cat play"),
                *tricks("ann AS bob 7C cat 8C", "ann AH bob 5H cat 9C", "ann 3H bob 6H cat TC"),
            ],
            number=1,
            dealer="cat",
            recorded={
                "penalties": {},
                "pool_start": 3,
                "tricks": {"ann": 2, "bob": 1, "cat": 0},
                "payouts": {"ann": 2, "bob": 1},
                "looed": {"cat": 3},
                "pool_next": 3,
            },
            turn_up="2S",
        ),
        deal_doc(
            {"bob": "KC QC 2D", "cat": "6H 7H 8H", "ann": "AC 4D 5D"},
            declares("bob play", "cat pass", "ann play")
            + tricks("bob KC ann AC", "ann 4D bob 2D", "ann 5D bob QC"),
            number=2,
            dealer="ann",
            recorded={
                "penalties": {},
                "pool_start": 6,
                "tricks": {"bob": 1, "ann": 2},
                "payouts": {"bob": 2, "ann": 4},
                "looed": {},
                "pool_next": 0,
            },
            turn_up="3C",
        ),
    ]
    assert_clean_session(
        "hoyle-irish",
        deals,
        outcomes=["played", "played"],
        musts=[False, False],
        trumps=["S", "C"],
    )


@session_of("hoyle-five-card")
def test_hoyle_five_card_session_everyone_can_be_looed() -> None:
    """§8 column ``hoyle-five-card`` (001 Five-Card): 5 cards, ante and loo 5, the simple
    pool a must with trumps on void, a Miss in double pools, ``loo_scope = everyone``.

    1. cat deals, pool 5, a must without Miss or turn-up. Cat is void in spades at trick 1;
       9♥ is turned before trick 2. Ann 4 tricks, bob 1 (share 1); cat looed 5:
       pool_next 5.
    2. ann deals, pool 10 (share 2), Miss and 2♣. Bob plays, cat passes, ann plays. Bob leads
       A♣ (highest of two trumps), 3♣ (trump after trick) and wins all five: 10. Ann and cat
       (who passed, but everyone can be looed) pay 5 each: pool_next 10.
    """
    deals = [
        deal_doc(
            {"ann": "AS KS QS KD 6D", "bob": "2S 3S 4S AD 3D", "cat": "5C 6C 7C 4D 5D"},
            [
                *tricks("ann AS bob 2S cat 5C"),
                turn("9H"),
                *tricks(
                    "ann KS bob 3S cat 6C",
                    "ann QS bob 4S cat 7C",
                    "ann KD bob AD cat 4D",
                    "bob 3D cat 5D ann 6D",
                ),
            ],
            number=1,
            dealer="cat",
            recorded={
                "penalties": {},
                "pool_start": 5,
                "tricks": {"ann": 4, "bob": 1, "cat": 0},
                "payouts": {"ann": 4, "bob": 1},
                "looed": {"cat": 5},
                "pool_next": 5,
            },
        ),
        deal_doc(
            {"bob": "AC 3C AH KH QH", "cat": "9D TD JD QD KD", "ann": "4C 5H 6H 7S 8S"},
            declares("bob play", "cat pass", "ann play")
            + tricks(
                "bob AC ann 4C", "bob 3C ann 7S", "bob AH ann 5H", "bob KH ann 6H", "bob QH ann 8S"
            ),
            number=2,
            dealer="ann",
            recorded={
                "penalties": {},
                "pool_start": 10,
                "tricks": {"bob": 5, "ann": 0},
                "payouts": {"bob": 10},
                "looed": {"ann": 5, "cat": 5},
                "pool_next": 10,
            },
            miss="2S 3S 4S 5S 6S",
            turn_up="2C",
        ),
    ]
    assert_clean_session(
        "hoyle-five-card",
        deals,
        outcomes=["played", "played"],
        musts=[True, False],
        trumps=["H", "C"],
    )


@session_of("modern")
def test_modern_session_last_player_and_dealer_play_a_single_pool() -> None:
    """§8 column ``modern`` (000 3-card): no musts; in a single pool that all before him
    passed, the last player and the dealer must play; ace of trumps led first; a void
    player must trump.

    1. cat deals, pool 3 (single), ♦ trumps. Ann passes, so bob and cat must play (and do).
       Bob leads A♦ (top trump, first trick); cat wins the last two: 1 + 2, pool_next 0.
    2. ann deals, pool 3 (single, no must), ♠ trumps. Bob leads K♥; cat, void, must trump
       and does with 5♠. Bob 2, cat 1; ann looed 3: pool_next 3.
    """
    deals = [
        deal_doc(
            {"ann": "6C 7C 8C", "bob": "AD 3S 4S", "cat": "KD 5S 2H"},
            declares("ann pass", "bob play", "cat play")
            + tricks("bob AD cat KD", "bob 3S cat 5S", "cat 2H bob 4S"),
            number=1,
            dealer="cat",
            recorded={
                "penalties": {},
                "pool_start": 3,
                "tricks": {"bob": 1, "cat": 2},
                "payouts": {"bob": 1, "cat": 2},
                "looed": {},
                "pool_next": 0,
            },
            miss="9H TH JH",
            turn_up="2D",
        ),
        deal_doc(
            {"bob": "KH QH 3C", "cat": "5S 2C 4D", "ann": "AH 6D 7D"},
            declares("bob play", "cat play", "ann play")
            + tricks("bob KH cat 5S ann AH", "cat 2C ann 6D bob 3C", "bob QH cat 4D ann 7D"),
            number=2,
            dealer="ann",
            recorded={
                "penalties": {},
                "pool_start": 3,
                "tricks": {"bob": 2, "cat": 1, "ann": 0},
                "payouts": {"bob": 2, "cat": 1},
                "looed": {"ann": 3},
                "pool_next": 3,
            },
            miss="AS 8C 9C",
            turn_up="2S",
        ),
    ]
    assert_clean_session(
        "modern",
        deals,
        outcomes=["played", "played"],
        musts=[False, False],
        trumps=["D", "S"],
    )


@session_of("modern-pam")
def test_modern_pam_session_strict_civility_and_a_pam_flush() -> None:
    """§8 column ``modern-pam`` (000 5-card/Pam-Loo): 5 cards, no Miss, exchanges, Pam,
    "Pam, be civil" on announcement and strict, flushes of any suit (Pam wild) after
    declaring, a Pam-flush beating a plain one.

    1. cat deals, pool 5, ♥ trumps. Ann exchanges 2♦ for T♠ and leads A♥ announcing "Pam, be
       civil": bob, holding Pam, plays 3♥; then bob, void in spades, trumps K♠ with Pam and
       wins the rest. Ann 1, bob 4; cat looed 5: pool_next 5.
    2. ann deals, pool 10, ♦ trumps. Bob holds a spade flush, cat Pam and four hearts: cat's
       Pam-flush wins, 10; bob holds a losing flush and pays nothing; ann is looed 5:
       pool_next 5.
    """
    deals = [
        deal_doc(
            {"ann": "AH KS QS JS 2D", "bob": "JC 3H 4C 5C 6C", "cat": "4H 7S 8S 9D TD"},
            [
                declare("ann", "play"),
                exchange("ann", "2D", "TS"),
                *declares("bob play", "cat play"),
                play("ann", "AH", announce="pam_be_civil"),
                *tricks(
                    "bob 3H cat 4H",
                    "ann KS bob JC cat 7S",
                    "bob 4C cat 9D ann QS",
                    "bob 5C cat TD ann JS",
                    "bob 6C cat 8S ann TS",
                ),
            ],
            number=1,
            dealer="cat",
            recorded={
                "penalties": {},
                "pool_start": 5,
                "tricks": {"ann": 1, "bob": 4, "cat": 0},
                "payouts": {"ann": 1, "bob": 4},
                "looed": {"cat": 5},
                "pool_next": 5,
            },
            turn_up="2H",
        ),
        deal_doc(
            {"bob": "AS KS QS JS 9S", "cat": "JC 3H 4H 5H 6H", "ann": "7C 8C 9C TC 3D"},
            [*declares("bob play", "cat play", "ann play"), show_flush("cat")],
            number=2,
            dealer="ann",
            recorded={
                "penalties": {},
                "pool_start": 10,
                "payouts": {"cat": 10},
                "looed": {"ann": 5},
                "pool_next": 5,
            },
            turn_up="2D",
        ),
    ]
    assert_clean_session(
        "modern-pam",
        deals,
        outcomes=["played", "flush"],
        musts=[False, False],
        trumps=["H", "D"],
    )


@session_of("modern-irish")
def test_modern_irish_session_the_first_lead_fixes_trumps() -> None:
    """§8 column ``modern-irish`` (000 Irish): no Miss, no turn-up: the first card led
    fixes trumps (``deal.trump = first_lead``); the ace-first rule lapses as no trump is
    fixed at the first lead.

    1. cat deals, pool 3. Ann leads 7♠: spades are trumps. Ann 2, cat 1; bob looed 3:
       pool_next 3.
    2. ann deals, pool 6 (share 2). Bob leads 4♥: hearts are trumps. Ann 2 (4), bob 1 (2);
       cat looed 3: pool_next 3.
    """
    deals = [
        deal_doc(
            {"ann": "7S AH 2C", "bob": "3S KH 3C", "cat": "5D 6D 4C"},
            declares("ann play", "bob play", "cat play")
            + tricks("ann 7S bob 3S cat 5D", "ann AH bob KH cat 6D", "ann 2C bob 3C cat 4C"),
            number=1,
            dealer="cat",
            recorded={
                "penalties": {},
                "pool_start": 3,
                "tricks": {"ann": 2, "bob": 0, "cat": 1},
                "payouts": {"ann": 2, "cat": 1},
                "looed": {"bob": 3},
                "pool_next": 3,
            },
        ),
        deal_doc(
            {"bob": "4H AC KC", "cat": "6H 2C 5S", "ann": "QH 3C 6S"},
            declares("bob play", "cat play", "ann play")
            + tricks("bob 4H cat 6H ann QH", "ann 6S bob KC cat 5S", "ann 3C bob AC cat 2C"),
            number=2,
            dealer="ann",
            recorded={
                "penalties": {},
                "pool_start": 6,
                "tricks": {"bob": 1, "cat": 0, "ann": 2},
                "payouts": {"bob": 2, "ann": 4},
                "looed": {"cat": 3},
                "pool_next": 3,
            },
        ),
    ]
    assert_clean_session(
        "modern-irish",
        deals,
        outcomes=["played", "played"],
        musts=[False, False],
        trumps=["S", "H"],
    )


def test_every_builtin_ruleset_has_a_session() -> None:
    """§8: each of the 11 built-in rulesets has a clean session above."""
    assert sorted(SESSIONS) == sorted(builtin_names())
    assert len(SESSIONS) == 11
