"""Every finding code of docs/rules.md §6, each on hand-written deals worked out from the spec.

For each code there is a deal that triggers it (the exact code, player, trick, card, legal
cards, ``penalized`` and penalty, and nothing else found) and a near-identical deal that
does not (no violation at all). Where the spec gives a code several triggers, each has its
own deal; precedence between the steps of §3 and §4 has its own tests.

Conventions: the session seats ``ann``, ``bob`` and ``cat`` (clockwise) unless a test says
otherwise; ``cat`` deals, so ``ann`` is the eldest and leads the first trick. The default
ruleset is three-card: the first deal of a session is not a must (``single_except_first``),
so it has a Miss and a turn-up. Every deal is complete unless the test says why not.
"""

from __future__ import annotations

from typing import Any

import pytest
from loo_helpers import audit_deal, audit_deals, codes, deal_doc, declare, play, plays

from loo_replay.engine.cards import canonical
from loo_replay.engine.model import Violation
from loo_replay.engine.session import DealAudit

TRIO = ("ann", "bob", "cat")
ALL_PLAY = [declare("ann", "play"), declare("bob", "play"), declare("cat", "play")]
ALL_PASS = [declare("ann", "pass"), declare("bob", "pass")]  # the dealer need not declare


# -- building deals -------------------------------------------------------------------------


def audit(deal: dict[str, Any], **kw: Any) -> DealAudit:
    """Audit ``deal`` as the first deal of a session of ann, bob and cat."""
    kw.setdefault("players", TRIO)
    return audit_deal(deal, **kw)


def turn(card: str) -> dict[str, Any]:
    """A trump turned during play (``deal.trump = "on_void"``)."""
    return {"type": "turn_up", "card": card}


def show_flush(player: str) -> dict[str, Any]:
    return {"type": "show_flush", "player": player}


# -- checking verdicts --------------------------------------------------------------------


def only(result: DealAudit, *expected: str) -> list[Violation]:
    """The deal was audited (not rejected) and found exactly ``expected``, in order."""
    assert result.errors == [], [e.message for e in result.errors]
    assert result.status in ("audited", "misdeal"), result.status
    assert codes(result) == list(expected), [v.message for v in result.violations]
    return result.violations


def clean(result: DealAudit) -> None:
    """Audited, complete and without any violation."""
    only(result)
    assert result.status == "audited"


def names(cards: tuple[int, ...] | None) -> list[str]:
    assert cards is not None
    return sorted(canonical(c) for c in cards)


def check_revoke(
    v: Violation,
    *,
    code: str,
    player: str,
    trick: int,
    card: str,
    legal: str,
    held: str | None = None,
    penalized: bool = True,
    penalty: int = 12,
) -> None:
    """A revoke (§3, §4) as §6 and docs/log-format.md describe it; ``legal`` as ``"KD 9D"``."""
    assert v.code == code, v.message
    assert v.is_revoke
    assert v.player == player
    assert v.trick == trick
    assert v.card is not None and canonical(v.card) == card
    assert names(v.legal) == sorted(legal.split()), v.message
    if held is not None:
        assert names(v.held) == sorted(held.split())
    assert v.penalized is penalized
    assert v.penalty == penalty
    assert player in v.message


def check_other(
    v: Violation,
    *,
    code: str,
    player: str,
    penalized: bool,
    penalty: int,
    trick: int | None = None,
    card: str | None = None,
) -> None:
    """A violation that is not a revoke (§6): no legal set, chips as the ruleset says."""
    assert v.code == code, v.message
    assert not v.is_revoke
    assert v.player == player
    assert v.trick == trick
    assert (None if v.card is None else canonical(v.card)) == card
    assert v.penalized is penalized
    assert v.penalty == penalty
    assert player in v.message


# =========================================================================================
# §3 Leading
# =========================================================================================


def _top_trump_deal(ann_trump: str, miss_trump: str, turn_up: str) -> dict[str, Any]:
    """ann leads 4♠ from ``ann_trump`` 4♠ 7♥; her trump is trumped in at trick 3."""
    return deal_doc(
        {"ann": f"{ann_trump} 4S 7H", "bob": "KS 5H 2C", "cat": "QS 8H 3C"},
        [
            *ALL_PLAY,
            *plays("ann 4S", "bob KS", "cat QS"),  # bob heads and wins
            *plays("bob 5H", "cat 8H", "ann 7H"),  # cat heads and wins
            *plays("cat 3C", f"ann {ann_trump}", "bob 2C"),  # ann, void, must trump
        ],
        miss=f"{miss_trump} 6H 6C",
        turn_up=turn_up,
    )


def test_lead_top_trump_holding_the_ace_of_trumps_lead_it() -> None:
    """docs/rules.md §3 order 1, ``lead.top_trump = "every"`` (three-card): ann holds A♦, the
    top trump, and leads 4♠."""
    (v,) = only(audit(_top_trump_deal("AD", "6D", "9D")), "lead-top-trump")
    check_revoke(
        v, code="lead-top-trump", player="ann", trick=1, card="4S", legal="AD", held="AD 4S 7H"
    )


def test_lead_top_trump_not_bound_without_the_top_trump() -> None:
    """docs/rules.md §3 order 1: the same deal with ann's A♦ and the Miss's 6♦ swapped: she
    holds one low trump, so no option binds her first lead."""
    clean(audit(_top_trump_deal("6D", "AD", "9D")))


def test_lead_top_trump_is_the_king_when_the_ace_is_turned_up() -> None:
    """docs/rules.md §3: "the top trump is the ace of trumps ... or the next one down when that
    card is the turn-up": A♦ turned, ann holds K♦ and leads 4♠."""
    (v,) = only(audit(_top_trump_deal("KD", "6D", "AD")), "lead-top-trump")
    check_revoke(v, code="lead-top-trump", player="ann", trick=1, card="4S", legal="KD")


def test_lead_top_trump_with_ace_turned_up_not_bound_without_the_king() -> None:
    """docs/rules.md §3: A♦ turned up, K♦ in the Miss: ann's 6♦ is not the top trump."""
    clean(audit(_top_trump_deal("6D", "KD", "AD")))


def test_lead_top_trump_does_not_pass_to_the_next_trump_once_played() -> None:
    """docs/rules.md §3: the top trump "does not pass to another card once played": ann leads
    A♦, wins, and at trick 2 holds K♦ 4♠; she may lead 4♠ (trump after trick is off here,
    and one trump does not reach ``lead.trump_if`` = 2)."""
    deal = deal_doc(
        {"ann": "AD KD 4S", "bob": "5D KS 2C", "cat": "3D QS 3C"},
        [
            *ALL_PLAY,
            *plays("ann AD", "bob 5D", "cat 3D"),
            *plays("ann 4S", "bob KS", "cat QS"),
            *plays("bob 2C", "cat 3C", "ann KD"),  # ann, void in clubs, must trump
        ],
        miss="6D 6H 6C",
        turn_up="9D",
    )
    clean(audit(deal, rules={"lead.trump_after_trick": False}))


def _two_player_deal(bob_diamond: str, miss_card: str, turn_up: str, cat: str) -> dict[str, Any]:
    """ann (A♦ K♦ J♦) against bob; cat, the dealer, passes (``cat="pass"``) or plays."""
    three = cat == "play"
    return deal_doc(
        {"ann": "AD KD JD", "bob": f"{bob_diamond} 5S 7H", "cat": "4C 8C 9C"},
        [
            declare("ann", "play"),
            declare("bob", "play"),
            declare("cat", cat),
            *plays("ann AD", f"bob {bob_diamond}", *(["cat 4C"] if three else [])),
            *plays("ann JD", "bob 5S", *(["cat 8C"] if three else [])),
            *plays("ann KD", "bob 7H", *(["cat 9C"] if three else [])),
        ],
        miss=f"{miss_card} 6H 6C",
        turn_up=turn_up,
    )


TWO_PLAYER_ISOLATED = {"lead.trump_if": 0, "lead.trump_after_trick": False}


@pytest.mark.parametrize(
    "rules",
    [None, TWO_PLAYER_ISOLATED],
    ids=["three-card", "three-card-without-lead-trump-options"],
)
def test_lead_highest_trump_two_players_lead_from_the_run_down_from_the_highest(
    rules: dict[str, Any] | None,
) -> None:
    """docs/rules.md §3 order 2, ``lead.highest_trump = "two_players"`` (three-card): only ann and
    bob play; at trick 2 ann holds K♦ J♦ and Q♦ is neither played nor turned up (it is in
    the Miss), so J♦ is not in an unbroken run down from K♦: leading it is a revoke. The
    later options (lead-trump, trump after trick) allow J♦ but each option narrows the
    legal set, so the legal set stays K♦."""
    result = audit(_two_player_deal("3D", "QD", "9D", "pass"), rules=rules)
    (v,) = only(result, "lead-highest-trump")
    check_revoke(
        v, code="lead-highest-trump", player="ann", trick=2, card="JD", legal="KD", held="KD JD"
    )


def test_lead_highest_trump_two_players_a_played_card_fills_the_gap() -> None:
    """docs/rules.md §3 order 2, ``two_players``: as above, but bob played Q♦ to trick 1 (and 3♦
    is in the Miss): "counting cards already played ... as filling the gaps", K♦ Q♦ J♦ is
    a run and J♦ may be led."""
    clean(audit(_two_player_deal("QD", "3D", "9D", "pass")))


def test_lead_highest_trump_two_players_the_turn_up_fills_the_gap() -> None:
    """docs/rules.md §3 order 2, ``two_players``: as the revoke above, but Q♦ is the turn-up
    (9♦ in the Miss): the turn-up fills the gap, J♦ may be led."""
    clean(audit(_two_player_deal("3D", "9D", "QD", "pass")))


def test_lead_highest_trump_two_players_does_not_bind_three_players() -> None:
    """docs/rules.md §3 order 2, ``two_players``: the revoke deal above with cat playing instead
    of passing: three players are active, so J♦ may be led at trick 2."""
    clean(audit(_two_player_deal("3D", "QD", "9D", "play")))


def _highest_first_deal(first: str, second: str) -> dict[str, Any]:
    """ann holds K♦ 9♦ 4♠ and leads ``first`` then ``second`` (the other trump)."""
    return deal_doc(
        {"ann": "KD 9D 4S", "bob": "KS 5H 2C", "cat": "QS 8H 3C"},
        [
            *ALL_PLAY,
            *plays(f"ann {first}", "bob 2C", "cat 3C"),
            *plays(f"ann {second}", "bob 5H", "cat 8H"),
            *plays("ann 4S", "bob KS", "cat QS"),
        ],
        miss="AD 6H 6C",
        turn_up="7D",
    )


@pytest.mark.parametrize(
    "rules",
    [{"lead.highest_trump": "first"}, {"lead.highest_trump": "first", **TWO_PLAYER_ISOLATED}],
    ids=["three-card", "three-card-without-lead-trump-options"],
)
def test_lead_highest_trump_first_lead_the_highest_of_two_trumps(rules: dict[str, Any]) -> None:
    """docs/rules.md §3 order 2, ``lead.highest_trump = "first"``: ann holds K♦ 9♦ at the first
    lead and leads 9♦; the legal set is K♦ (lead-trump, satisfied by 9♦, does not widen
    it)."""
    (v,) = only(audit(_highest_first_deal("9D", "KD"), rules=rules), "lead-highest-trump")
    check_revoke(
        v, code="lead-highest-trump", player="ann", trick=1, card="9D", legal="KD", held="KD 9D 4S"
    )


def test_lead_highest_trump_first_is_kept_by_leading_the_highest() -> None:
    """docs/rules.md §3 order 2, ``first``: ann leads K♦ first, then 9♦ at trick 2 (where
    ``first`` no longer binds and she holds one trump)."""
    clean(audit(_highest_first_deal("KD", "9D"), rules={"lead.highest_trump": "first"}))


def _highest_always_deal(bob_lead: str, bob_last: str) -> dict[str, Any]:
    """bob wins trick 1 and leads trick 2 holding K♦ 9♦."""
    return deal_doc(
        {"ann": "4S 5H 3C", "bob": "KS KD 9D", "cat": "QS 8H 2C"},
        [
            *ALL_PLAY,
            *plays("ann 4S", "bob KS", "cat QS"),
            *plays(f"bob {bob_lead}", "cat 8H", "ann 5H"),
            *plays(f"bob {bob_last}", "cat 2C", "ann 3C"),
        ],
        miss="AD 6H 6C",
        turn_up="7D",
    )


@pytest.mark.parametrize(
    "rules",
    [{"lead.highest_trump": "always"}, {"lead.highest_trump": "always", **TWO_PLAYER_ISOLATED}],
    ids=["three-card", "three-card-without-lead-trump-options"],
)
def test_lead_highest_trump_always_binds_every_lead(rules: dict[str, Any]) -> None:
    """docs/rules.md §3 order 2, ``lead.highest_trump = "always"``: bob leads trick 2 holding
    K♦ 9♦ and leads 9♦."""
    (v,) = only(audit(_highest_always_deal("9D", "KD"), rules=rules), "lead-highest-trump")
    check_revoke(
        v, code="lead-highest-trump", player="bob", trick=2, card="9D", legal="KD", held="KD 9D"
    )


def test_lead_highest_trump_first_does_not_bind_the_second_lead() -> None:
    """docs/rules.md §3 order 2: the same deal under ``first``: trick 2 is not the first lead."""
    clean(audit(_highest_always_deal("9D", "KD"), rules={"lead.highest_trump": "first"}))


def test_lead_highest_trump_always_is_kept_by_leading_the_highest() -> None:
    """docs/rules.md §3 order 2, ``always``: bob leads K♦ then 9♦."""
    clean(audit(_highest_always_deal("KD", "9D"), rules={"lead.highest_trump": "always"}))


def _lead_trump_deal(ann_second: str, miss_last: str) -> dict[str, Any]:
    """ann holds K♦ ``ann_second`` 4♠ and leads 4♠; three players, trick 1."""
    second_trump = ann_second.endswith("D")
    return deal_doc(
        {"ann": f"KD {ann_second} 4S", "bob": "KS 5H 2C", "cat": "QS 8H 3C"},
        [
            *ALL_PLAY,
            *plays("ann 4S", "bob KS", "cat QS"),
            # ann, void in hearts, must trump the 8♥
            *plays("bob 5H", "cat 8H", f"ann {ann_second if second_trump else 'KD'}"),
            *plays(f"ann {'KD' if second_trump else ann_second}", "bob 2C", "cat 3C"),
        ],
        miss=f"AD 6H {miss_last}",
        turn_up="7D",
    )


def test_lead_trump_holding_two_trumps_lead_a_trump() -> None:
    """docs/rules.md §3 order 3, ``lead.trump_if = 2`` (three-card): ann holds K♦ 9♦ and leads
    4♠ to the first trick (three players, so ``two_players`` does not bind; A♦ is in the
    Miss)."""
    (v,) = only(audit(_lead_trump_deal("9D", "6C")), "lead-trump")
    check_revoke(v, code="lead-trump", player="ann", trick=1, card="4S", legal="KD 9D")


def test_lead_trump_one_trump_is_below_the_threshold() -> None:
    """docs/rules.md §3 order 3: ann's 9♦ and the Miss's 6♣ swapped: one trump, N = 2."""
    clean(audit(_lead_trump_deal("6C", "9D")))


def test_lead_trump_threshold_one() -> None:
    """docs/rules.md §3 order 3, ``lead.trump_if = 1``: the same one-trump hand must lead K♦."""
    result = audit(_lead_trump_deal("6C", "9D"), rules={"lead.trump_if": 1})
    (v,) = only(result, "lead-trump")
    check_revoke(v, code="lead-trump", player="ann", trick=1, card="4S", legal="KD")


def _trump_after_trick_deal(ann_card: str, miss_card: str) -> dict[str, Any]:
    """ann wins trick 1 with 4♠ and leads 6♣ to trick 2 holding ``ann_card``."""
    return deal_doc(
        {"ann": f"{ann_card} 4S 6C", "bob": "2S 5H 2C", "cat": "3S 8H 3C"},
        [
            *ALL_PLAY,
            *plays("ann 4S", "bob 2S", "cat 3S"),
            *plays("ann 6C", "bob 2C", "cat 3C"),
            *plays(f"ann {ann_card}", "bob 5H", "cat 8H"),
        ],
        miss=f"AD 6H {miss_card}",
        turn_up="7D",
    )


def test_trump_after_trick_the_winner_must_lead_a_trump() -> None:
    """docs/rules.md §3 order 4, ``lead.trump_after_trick``: ann won trick 1 and leads 6♣ to
    trick 2 holding 9♦."""
    (v,) = only(audit(_trump_after_trick_deal("9D", "7C")), "trump-after-trick")
    check_revoke(
        v, code="trump-after-trick", player="ann", trick=2, card="6C", legal="9D", held="9D 6C"
    )


def test_trump_after_trick_not_bound_without_a_trump() -> None:
    """docs/rules.md §3 order 4: ann's 9♦ and the Miss's 7♣ swapped: she holds no trump."""
    clean(audit(_trump_after_trick_deal("7C", "9D")))


def test_trump_after_trick_log_format_example_deal_7() -> None:
    """docs/rules.md §3 order 4 and §6, docs/log-format.md's example: deal 7 of
    ``club-night-2026-11-20`` (three-card, unlimited loo) gives exactly the example's
    violation, message included, and the example's settlement."""
    deal = {
        "deal": 7,
        "dealer": "cat",
        "hands": {
            "dan": ["KH", "7S", "2C"],
            "eve": ["AD", "JD", "4S"],
            "ann": ["QH", "10H", "9C"],
            "bob": ["5D", "5S", "8H"],
            "cat": ["KD", "3C", "6H"],
        },
        "miss": ["AS", "QD", "7C"],
        "turn_up": "9D",
        "events": [
            declare("dan", "pass"),
            declare("eve", "play"),
            declare("ann", "take_miss"),
            declare("bob", "pass"),
            declare("cat", "play"),
            *plays("eve AD", "ann QD", "cat KD"),
            *plays("eve 4S", "ann AS", "cat 3C"),
            *plays("ann 7C", "cat 6H", "eve JD"),
        ],
        "recorded": {
            "pool_start": 9,
            "tricks": {"eve": 2, "ann": 1, "cat": 0},
            "payouts": {"eve": 6, "ann": 3},
            "looed": {"cat": 9},
            "pool_next": 9,
        },
    }
    (result,) = audit_deals(
        [deal],
        rules={"stakes.loo": "unlimited"},
        sid="club-night-2026-11-20",
        chips={p: 100 for p in ("ann", "bob", "cat", "dan", "eve")},
    )
    (v,) = only(result, "trump-after-trick")
    assert v.player == "eve"
    assert v.trick == 2
    assert v.card is not None and canonical(v.card) == "4S"
    assert v.legal is not None and [canonical(c) for c in v.legal] == ["JD"]
    assert v.penalized is True
    assert v.message == (
        "eve led 4♠ holding J♦ 4♠ (trumps ♦): the winner of a trick must lead a trump"
    )
    assert result.pool == "double"
    assert result.trump is not None
    assert result.tricks == {"eve": 2, "ann": 1, "cat": 0}
    assert result.payouts == {"ann": 3}
    assert result.looed == {"cat": 9}
    assert result.penalties == {"eve": 12}
    assert result.pool_next == 27
    assert [(d.field, d.recorded, d.expected) for d in result.discrepancies] == [
        ("payouts.eve", 6, 0),
        ("pool_next", 9, 27),
    ]


# -- §3 precedence: the first option the card breaks names the revoke ----------------------


def _ace_and_nine_deal(first_lead: str) -> dict[str, Any]:
    """ann holds A♦ 9♦ 4♠ (three players): A♦ is the top trump, two trumps reach N = 2."""
    if first_lead == "4S":
        events = [
            *plays("ann 4S", "bob KS", "cat QS"),
            *plays("bob 5H", "cat 8H", "ann 9D"),  # ann, void in hearts, trumps
            *plays("ann AD", "bob 2C", "cat 3C"),
        ]
    else:
        events = [
            *plays(f"ann {first_lead}", "bob 2C", "cat 3C"),
            *plays(f"ann {'AD' if first_lead == '9D' else '9D'}", "bob 5H", "cat 8H"),
            *plays("ann 4S", "bob KS", "cat QS"),
        ]
    return deal_doc(
        {"ann": "AD 9D 4S", "bob": "KS 5H 2C", "cat": "QS 8H 3C"},
        [*ALL_PLAY, *events],
        miss="6D 6H 6C",
        turn_up="2D",
    )


@pytest.mark.parametrize("card", ["4S", "9D"])
def test_lead_top_trump_wins_over_lead_trump(card: str) -> None:
    """docs/rules.md §3 table order: holding A♦ 9♦, a lead of 4♠ breaks lead-top-trump and
    lead-trump, a lead of 9♦ breaks lead-top-trump only; both are ``lead-top-trump`` and
    the legal set, narrowed by every option that applies, is A♦ alone."""
    (v,) = only(audit(_ace_and_nine_deal(card)), "lead-top-trump")
    check_revoke(
        v, code="lead-top-trump", player="ann", trick=1, card=card, legal="AD", held="AD 9D 4S"
    )


def test_lead_top_trump_kept_with_a_second_trump() -> None:
    """docs/rules.md §3: the same hand leading A♦, then 9♦ (trump after trick), then 4♠."""
    clean(audit(_ace_and_nine_deal("AD")))


def test_lead_highest_trump_wins_over_lead_trump() -> None:
    """docs/rules.md §3 table order: two players, ann holds K♦ 9♦ 4♠ (A♦ in the Miss, no run:
    Q♦ unseen) and leads 4♠: she breaks lead-highest-trump and lead-trump; the code is
    ``lead-highest-trump`` and the legal set K♦."""
    deal = deal_doc(
        {"ann": "KD 9D 4S", "bob": "5S 7H 2C", "cat": "4C 8C 9C"},
        [
            declare("ann", "play"),
            declare("bob", "play"),
            declare("cat", "pass"),
            *plays("ann 4S", "bob 5S"),  # bob heads and wins
            *plays("bob 7H", "ann 9D"),  # ann, void in hearts, trumps
            *plays("ann KD", "bob 2C"),
        ],
        miss="AD 6H 6C",
        turn_up="2D",
    )
    (v,) = only(audit(deal), "lead-highest-trump")
    check_revoke(v, code="lead-highest-trump", player="ann", trick=1, card="4S", legal="KD")


def _top_trump_at_trick_two_deal(bob_lead: str) -> dict[str, Any]:
    """bob heads trick 1 and leads trick 2 holding A♦ 5♥."""
    second = "5H" if bob_lead == "AD" else "AD"
    if bob_lead == "AD":
        tricks = [
            *plays("bob AD", "cat 2C", "ann 3C"),
            *plays("bob 5H", "cat 8H", "ann 7H"),
        ]
    else:
        tricks = [
            *plays("bob 5H", "cat 8H", "ann 7H"),  # cat heads and wins
            *plays("cat 2C", "ann 3C", f"bob {second}"),  # bob, void in clubs, trumps
        ]
    return deal_doc(
        {"ann": "4S 7H 3C", "bob": "KS AD 5H", "cat": "QS 8H 2C"},
        [*ALL_PLAY, *plays("ann 4S", "bob KS", "cat QS"), *tricks],
        miss="6D 6H 6C",
        turn_up="2D",
    )


def test_lead_top_trump_wins_over_trump_after_trick() -> None:
    """docs/rules.md §3 table order: bob wins trick 1 and leads 5♥ holding A♦: he breaks
    lead-top-trump and trump-after-trick; the code is ``lead-top-trump``."""
    (v,) = only(audit(_top_trump_at_trick_two_deal("5H")), "lead-top-trump")
    check_revoke(
        v, code="lead-top-trump", player="bob", trick=2, card="5H", legal="AD", held="AD 5H"
    )


def test_lead_top_trump_kept_at_trick_two() -> None:
    """docs/rules.md §3: the same deal with bob leading A♦ to trick 2."""
    clean(audit(_top_trump_at_trick_two_deal("AD")))


# =========================================================================================
# §4 Following
# =========================================================================================


def _five_card_pam_deal(bob_hand: str, announce: bool) -> dict[str, Any]:
    """Five-card (♦ trumps, Pam = J♣): ann leads A♦, bob plays Pam to it.

    ``bob_hand`` is ``"JC 5D 4S 3H 2C"`` (Pam and 5♦) or ``"JC 6S 4S 3H 2C"`` (Pam his
    only trump)."""
    extra = {"announce": "pam_be_civil"} if announce else {}
    has_five = "5D" in bob_hand
    bob_t2 = "5D" if has_five else "4S"
    if has_five:
        later = [
            *plays("bob 5D", "cat 9C", "ann 6C"),  # trump after trick; bob wins
            *plays("bob 4S", "cat KS", "ann 8S"),
            *plays("cat QH", "ann 7H", "bob 3H"),
            *plays("cat TC", "ann 9S", "bob 2C"),
        ]
    else:
        later = [
            *plays(f"bob {bob_t2}", "cat KS", "ann 8S"),
            *plays("cat QH", "ann 7H", "bob 3H"),
            *plays("cat TC", "ann 6C", "bob 2C"),
            *plays("cat 9C", "ann 9S", "bob 6S"),
        ]
    return deal_doc(
        {"ann": "AD 9S 8S 7H 6C", "bob": bob_hand, "cat": "3D KS QH TC 9C"},
        [
            *ALL_PLAY,
            play("ann", "AD", **extra),
            *plays("bob JC", "cat 3D"),  # Pam wins trick 1
            *later,
        ],
        turn_up="2D",
    )


def test_pam_be_civil_announced_pam_must_not_fall_on_the_ace() -> None:
    """docs/rules.md §4 step 1, ``follow.pam_civil = "announced"`` (five-card): ann leads A♦
    announcing "Pam, be civil"; bob holds Pam and 5♦ and plays Pam. Pam is barred, so he
    must follow with 5♦."""
    result = audit(_five_card_pam_deal("JC 5D 4S 3H 2C", True), ruleset="five-card")
    (v,) = only(result, "pam-be-civil")
    check_revoke(
        v,
        code="pam-be-civil",
        player="bob",
        trick=1,
        card="JC",
        legal="5D",
        held="JC 5D 4S 3H 2C",
        penalty=20,
    )


def test_pam_be_civil_announced_not_bound_without_the_announcement() -> None:
    """docs/rules.md §4 step 1, ``announced``: the same deal without the announcement: Pam is a
    trump that heads the ace, so bob must play it."""
    clean(audit(_five_card_pam_deal("JC 5D 4S 3H 2C", False), ruleset="five-card"))


def test_pam_be_civil_not_strict_pam_may_fall_when_it_is_the_only_trump() -> None:
    """docs/rules.md §4 step 1, ``pam_civil_strict = false`` (five-card): announced, but Pam is
    bob's only trump, so Pam may (indeed must) be played."""
    clean(audit(_five_card_pam_deal("JC 6S 4S 3H 2C", True), ruleset="five-card"))


def test_pam_be_civil_strict_bars_pam_unless_it_is_the_last_card() -> None:
    """docs/rules.md §4 step 1, ``follow.pam_civil_strict`` (modern-pam): the same deal as
    above; Pam is bob's only trump but not his last card, so it is barred; without it he
    is void in trumps and (``follow.void = "trump"``, no other trump) may play any other
    card."""
    result = audit(_five_card_pam_deal("JC 6S 4S 3H 2C", True), ruleset="modern-pam")
    (v,) = only(result, "pam-be-civil")
    check_revoke(
        v,
        code="pam-be-civil",
        player="bob",
        trick=1,
        card="JC",
        legal="6S 4S 3H 2C",
        held="JC 6S 4S 3H 2C",
        penalty=10,
    )


def test_pam_be_civil_strict_not_bound_without_the_announcement() -> None:
    """docs/rules.md §4 step 1, modern-pam has ``pam_civil = "announced"``: no announcement,
    no bar."""
    clean(audit(_five_card_pam_deal("JC 6S 4S 3H 2C", False), ruleset="modern-pam"))


def _hoyle_pam_deal(bob_first: str) -> dict[str, Any]:
    """hoyle-pam (three cards, ♦ trumps): ann leads A♦ without announcing; bob holds Pam
    and 5♦. A double pool (``recorded.pool_start`` 9), so the deal is not a must."""
    if bob_first == "JC":
        later = [
            *plays("bob 5D", "cat KS", "ann 9S"),  # trump_if = 1: bob leads his trump
            *plays("bob 3H", "cat QH", "ann 7H"),
        ]
    else:
        later = [
            *plays("ann 9S", "bob JC", "cat KS"),  # bob, void in spades, must trump
            *plays("bob 3H", "cat QH", "ann 7H"),
        ]
    return deal_doc(
        {"ann": "AD 9S 7H", "bob": "JC 5D 3H", "cat": "3D KS QH"},
        [*ALL_PLAY, *plays("ann AD", f"bob {bob_first}", "cat 3D"), *later],
        miss="4C 5C 6C",
        turn_up="2D",
        recorded={"pool_start": 9},
    )


def test_pam_be_civil_always_needs_no_announcement() -> None:
    """docs/rules.md §4 step 1, ``follow.pam_civil = "always"`` (hoyle-pam): the ace of trumps
    led without a word still bars Pam while bob holds another trump."""
    (v,) = only(audit(_hoyle_pam_deal("JC"), ruleset="hoyle-pam"), "pam-be-civil")
    check_revoke(v, code="pam-be-civil", player="bob", trick=1, card="JC", legal="5D", penalty=6)


def test_pam_be_civil_always_kept_by_following_with_another_trump() -> None:
    """docs/rules.md §4 step 1, ``always``: bob follows the ace with 5♦ and keeps Pam."""
    clean(audit(_hoyle_pam_deal("5D"), ruleset="hoyle-pam"))


def test_pam_be_civil_announced_rule_ignores_an_unannounced_ace() -> None:
    """docs/rules.md §4 step 1: the ``always`` revoke deal under ``announced``: no bar."""
    result = audit(
        _hoyle_pam_deal("JC"), ruleset="hoyle-pam", rules={"follow.pam_civil": "announced"}
    )
    clean(result)


def _follow_deal(bob_t1: str, bob_t3: str, bob_hand: str = "2S 4H 2C") -> dict[str, Any]:
    """ann leads 9♠, 9♥, 5♣ and wins every trick; no one holds a trump."""
    return deal_doc(
        {"ann": "9S 9H 5C", "bob": bob_hand, "cat": "3S 8H 4C"},
        [
            *ALL_PLAY,
            *plays("ann 9S", f"bob {bob_t1}", "cat 3S"),
            *plays("ann 9H", "bob 4H", "cat 8H"),
            *plays("ann 5C", f"bob {bob_t3}", "cat 4C"),
        ],
        miss="AD 6H 7C",
        turn_up="7D",
    )


def test_follow_suit_holding_the_suit_led_play_it() -> None:
    """docs/rules.md §4 step 2: bob holds 2♠ and discards 2♣ on ann's 9♠."""
    (v,) = only(audit(_follow_deal("2C", "2S")), "follow-suit")
    check_revoke(
        v, code="follow-suit", player="bob", trick=1, card="2C", legal="2S", held="2S 4H 2C"
    )


def test_follow_suit_kept() -> None:
    """docs/rules.md §4 step 2: bob follows with 2♠ and plays 2♣ to the club lead."""
    clean(audit(_follow_deal("2S", "2C")))


def test_only_the_first_revoke_of_a_player_is_penalised() -> None:
    """docs/rules.md §5.1, §6: bob revokes at tricks 1 and 2 — only the first is penalised; cat's
    revoke at trick 2 is his first and is penalised too (forfeit: 12 each, once)."""
    deal = deal_doc(
        {"ann": "9S 9H 5C", "bob": "2S 4H 2C", "cat": "3S 8H 4C"},
        [
            *ALL_PLAY,
            *plays("ann 9S", "bob 2C", "cat 3S"),  # bob: follow-suit (2♠)
            *plays("ann 9H", "bob 2S", "cat 4C"),  # bob: follow-suit (4♥); cat: (8♥)
            *plays("ann 5C", "bob 4H", "cat 8H"),
        ],
        miss="AD 6H 7C",
        turn_up="7D",
    )
    result = audit(deal)
    first, second, third = only(result, "follow-suit", "follow-suit", "follow-suit")
    check_revoke(first, code="follow-suit", player="bob", trick=1, card="2C", legal="2S")
    check_revoke(
        second,
        code="follow-suit",
        player="bob",
        trick=2,
        card="2S",
        legal="4H",
        penalized=False,
        penalty=0,
    )
    check_revoke(third, code="follow-suit", player="cat", trick=2, card="4C", legal="8H")
    assert result.penalties == {"bob": 12, "cat": 12}


def test_a_record_may_stop_after_a_penalised_revoke() -> None:
    """docs/rules.md §2.9: a record that stops before the last trick after a penalised revoke was
    abandoned there; the revoke is still found and nothing else."""
    deal = _follow_deal("2C", "2S")
    deal["events"] = deal["events"][:6]  # declarations and trick 1
    result = audit(deal)
    (v,) = only(result, "follow-suit")
    check_revoke(v, code="follow-suit", player="bob", trick=1, card="2C", legal="2S")
    assert result.status == "audited"
    assert result.tricks == {"ann": 1, "bob": 0, "cat": 0}


def test_head_trick_must_beat_the_winning_card_when_able() -> None:
    """docs/rules.md §4 step 3, ``follow.head``: ann leads 9♠; bob holds K♠ 2♠ and plays 2♠."""
    result = audit(_follow_deal("2S", "KS", bob_hand="KS 2S 4H"))
    (v,) = only(result, "head-trick")
    check_revoke(
        v, code="head-trick", player="bob", trick=1, card="2S", legal="KS", held="KS 2S 4H"
    )


def test_head_trick_not_bound_when_no_card_beats() -> None:
    """docs/rules.md §4 step 3: bob's K♠ replaced by 8♠, which cannot beat the 9♠."""
    clean(audit(_follow_deal("2S", "8S", bob_hand="8S 2S 4H")))


def test_follow_suit_wins_over_head_trick() -> None:
    """docs/rules.md §4 step order: bob holds K♠ 2♠ 4♥ and plays 4♥ on the 9♠: he breaks
    follow-suit and head-trick; the code is ``follow-suit``, the legal set K♠."""
    deal = deal_doc(
        {"ann": "9S 9H 5C", "bob": "KS 2S 4H", "cat": "3S 8H 4C"},
        [
            *ALL_PLAY,
            *plays("ann 9S", "bob 4H", "cat 3S"),
            *plays("ann 9H", "bob 2S", "cat 8H"),  # bob is void in hearts now
            *plays("ann 5C", "bob KS", "cat 4C"),
        ],
        miss="AD 6H 7C",
        turn_up="7D",
    )
    (v,) = only(audit(deal), "follow-suit")
    check_revoke(v, code="follow-suit", player="bob", trick=1, card="4H", legal="KS")


def _trumped_trick_deal(bob_card: str) -> dict[str, Any]:
    """ann leads 9♠; bob is void in spades with ``bob_card``; cat holds Q♠ 2♠ and plays 2♠."""
    if bob_card == "5D":  # bob trumps and wins trick 1
        later = [
            *plays("bob 4H", "cat 8H", "ann 5H"),
            *plays("cat QS", "ann 6S", "bob 2C"),
        ]
    else:  # bob discards, the 9♠ wins
        later = [
            *plays("ann 6S", "bob 2C", "cat QS"),
            *plays("cat 8H", "ann 5H", "bob 4H"),
        ]
    return deal_doc(
        {"ann": "9S 6S 5H", "bob": f"{bob_card} 4H 2C", "cat": "QS 2S 8H"},
        [*ALL_PLAY, *plays("ann 9S", f"bob {bob_card}", "cat 2S"), *later],
        miss="AD 6H 7C",
        turn_up="7D",
    )


def test_head_trick_lapses_once_the_trick_is_trumped() -> None:
    """docs/rules.md §4 step 3: "unless the trick is already trumped": bob trumps the 9♠ with 5♦,
    so cat may follow with 2♠ although he holds Q♠."""
    clean(audit(_trumped_trick_deal("5D")))


def test_head_trick_binds_when_the_trick_is_not_trumped() -> None:
    """docs/rules.md §4 step 3: bob's 5♦ replaced by 4♣ (he discards): cat must head with Q♠."""
    (v,) = only(audit(_trumped_trick_deal("4C")), "head-trick")
    check_revoke(v, code="head-trick", player="cat", trick=1, card="2S", legal="QS")


def _void_deal(cat_hand: str, cat_t1: str, cat_t3: str) -> dict[str, Any]:
    """ann leads 9♠, bob (void) trumps with 5♦; cat, void in spades, plays ``cat_t1``."""
    return deal_doc(
        {"ann": "9S 9H 5C", "bob": "5D 4H 2C", "cat": cat_hand},
        [
            *ALL_PLAY,
            *plays("ann 9S", "bob 5D", f"cat {cat_t1}"),  # bob wins
            *plays("bob 4H", "cat 8H", "ann 9H"),  # ann wins
            *plays("ann 5C", "bob 2C", f"cat {cat_t3}"),
        ],
        miss="AD 6H 7C",
        turn_up="7D",
    )


def _must_trump_deal(bob_t1: str, bob_t3: str) -> dict[str, Any]:
    """ann leads 9♠; bob, void in spades, holds 5♦ and plays ``bob_t1``."""
    if bob_t1 == "5D":
        later = [
            *plays("bob 4H", "cat 8H", "ann 9H"),
            *plays("ann 5C", f"bob {bob_t3}", "cat 4C"),
        ]
    else:
        later = [
            *plays("ann 9H", "bob 4H", "cat 8H"),
            *plays("ann 5C", f"bob {bob_t3}", "cat 4C"),  # bob trumps; cat need not head
        ]
    return deal_doc(
        {"ann": "9S 9H 5C", "bob": "5D 4H 2C", "cat": "3S 8H 4C"},
        [*ALL_PLAY, *plays("ann 9S", f"bob {bob_t1}", "cat 3S"), *later],
        miss="AD 6H 7C",
        turn_up="7D",
    )


def test_must_trump_overtrump_rule_void_must_trump_an_untrumped_trick() -> None:
    """docs/rules.md §4 step 4, ``follow.void = "overtrump"`` (three-card): bob is void in
    spades and holds 5♦, which beats the 9♠; the trick is not trumped, so discarding 2♣ is
    ``must-trump``."""
    (v,) = only(audit(_must_trump_deal("2C", "5D")), "must-trump")
    check_revoke(
        v, code="must-trump", player="bob", trick=1, card="2C", legal="5D", held="5D 4H 2C"
    )


def test_must_trump_overtrump_rule_kept() -> None:
    """docs/rules.md §4 step 4, ``overtrump``: bob trumps trick 1 with 5♦."""
    clean(audit(_must_trump_deal("5D", "2C")))


def test_must_overtrump_overtrump_rule_trick_already_trumped() -> None:
    """docs/rules.md §4 step 4, ``overtrump``: bob trumped with 5♦; cat, void, holds K♦ and
    discards 3♣: breaking the rule on a trumped trick is ``must-overtrump``."""
    (v,) = only(audit(_void_deal("KD 3C 8H", "3C", "KD")), "must-overtrump")
    check_revoke(
        v, code="must-overtrump", player="cat", trick=1, card="3C", legal="KD", held="KD 3C 8H"
    )


def test_must_overtrump_overtrump_rule_lower_trump_is_also_a_breach() -> None:
    """docs/rules.md §4 step 4, ``overtrump``: cat holds K♦ 2♦ and under-trumps with 2♦."""
    (v,) = only(audit(_void_deal("KD 2D 8H", "2D", "KD")), "must-overtrump")
    check_revoke(v, code="must-overtrump", player="cat", trick=1, card="2D", legal="KD")


def test_must_overtrump_overtrump_rule_free_without_a_higher_trump() -> None:
    """docs/rules.md §4 step 4, ``overtrump``: cat's K♦ replaced by 2♦, which cannot beat 5♦:
    "Holding none, he may play any card"."""
    clean(audit(_void_deal("2D 3C 8H", "3C", "2D")))


def test_must_trump_trump_rule_any_trump_even_one_that_cannot_win() -> None:
    """docs/rules.md §4 step 4, ``follow.void = "trump"``: the deal just above; cat holds only
    2♦, which cannot beat 5♦, yet "holding any trump, he must play a trump"."""
    result = audit(_void_deal("2D 3C 8H", "3C", "2D"), rules={"follow.void": "trump"})
    (v,) = only(result, "must-trump")
    check_revoke(v, code="must-trump", player="cat", trick=1, card="3C", legal="2D")


def test_must_trump_trump_rule_kept_without_a_trump() -> None:
    """docs/rules.md §4 step 4, ``trump``: cat holds no trump (3♣ 4♣ 8♥) and discards 3♣."""
    result = audit(_void_deal("3C 4C 8H", "3C", "4C"), rules={"follow.void": "trump"})
    clean(result)


def test_must_overtrump_trump_rule_a_trump_that_beats_if_held() -> None:
    """docs/rules.md §4 step 4, ``trump``: cat holds K♦ 2♦ and plays 2♦ on bob's 5♦: a trump,
    but not one that beats the winning card: ``must-overtrump``."""
    result = audit(_void_deal("KD 2D 8H", "2D", "KD"), rules={"follow.void": "trump"})
    (v,) = only(result, "must-overtrump")
    check_revoke(v, code="must-overtrump", player="cat", trick=1, card="2D", legal="KD")


def test_must_trump_wins_over_must_overtrump() -> None:
    """docs/rules.md §4 step order, ``trump``: cat holds K♦ and discards 3♣: he breaks both
    parts of step 4; the code is the first, ``must-trump``, the legal set K♦."""
    result = audit(_void_deal("KD 3C 8H", "3C", "KD"), rules={"follow.void": "trump"})
    (v,) = only(result, "must-trump")
    check_revoke(v, code="must-trump", player="cat", trick=1, card="3C", legal="KD")


def test_void_any_allows_any_card() -> None:
    """docs/rules.md §4 step 4, ``follow.void = "any"``: cat's discard under K♦ is no revoke."""
    clean(audit(_void_deal("KD 3C 8H", "3C", "KD"), rules={"follow.void": "any"}))


# =========================================================================================
# §2.9 Playing out of turn
# =========================================================================================

BASE_HANDS = {"ann": "9S 9H 5C", "bob": "2S 4H 2C", "cat": "KS 8H 4C"}
BASE_MISS = "AD 6H 7C"
BASE_TURN = "7D"
# cat heads trick 1, ann wins tricks 2 and 3; no one holds a trump
BASE_PLAYS = [
    *plays("ann 9S", "bob 2S", "cat KS"),
    *plays("cat 8H", "ann 9H", "bob 4H"),
    *plays("ann 5C", "bob 2C", "cat 4C"),
]


def base_deal(events: list[dict[str, Any]], **kw: Any) -> dict[str, Any]:
    kw.setdefault("miss", BASE_MISS)
    kw.setdefault("turn_up", BASE_TURN)
    return deal_doc(dict(BASE_HANDS), events, **kw)


def test_out_of_turn_card_is_dead_and_the_offender_retires() -> None:
    """docs/rules.md §2.9: at trick 3 cat plays 4♣ before bob: ``out-of-turn``; cat retires
    (his trick's share stays in the pool, he cannot be looed) and pays a single (3) into
    the current pool: pool 3 + 3 = 6, share 2; ann takes 4, bob is looed."""
    deal = base_deal(
        [
            *ALL_PLAY,
            *plays("ann 9S", "bob 2S", "cat KS"),
            *plays("cat 8H", "ann 9H", "bob 4H"),
            *plays("ann 5C", "cat 4C", "bob 2C"),
        ]
    )
    result = audit(deal)
    (v,) = only(result, "out-of-turn")
    check_other(v, code="out-of-turn", player="cat", penalized=True, penalty=3, trick=3, card="4C")
    assert result.tricks == {"ann": 2, "bob": 0, "cat": 1}
    assert result.settlement is not None and result.settlement.pool == 6
    assert result.penalties == {"cat": 3}
    assert result.payouts == {"ann": 4}
    assert result.looed == {"bob": 3}
    assert result.pool_next == 5


def test_out_of_turn_not_found_when_played_in_turn() -> None:
    """docs/rules.md §2.9: the same deal with bob and cat in clockwise order at trick 3."""
    clean(audit(base_deal([*ALL_PLAY, *BASE_PLAYS])))


def test_out_of_turn_dead_card_is_not_checked() -> None:
    """docs/rules.md §2.9: "his card is dead and not checked": at trick 2 bob plays 2♣ before ann
    while holding 4♥ — no follow-suit; bob retires, the trick and the deal go on between
    ann and cat."""
    deal = base_deal(
        [
            *ALL_PLAY,
            *plays("ann 9S", "bob 2S", "cat KS"),
            *plays("cat 8H", "bob 2C", "ann 9H"),
            *plays("ann 5C", "cat 4C"),
        ]
    )
    result = audit(deal)
    (v,) = only(result, "out-of-turn")
    check_other(v, code="out-of-turn", player="bob", penalized=True, penalty=3, trick=2, card="2C")
    assert result.tricks == {"ann": 2, "bob": 0, "cat": 1}
    assert result.payouts == {"ann": 4, "cat": 2}
    assert result.looed == {}
    assert result.pool_next == 0


# =========================================================================================
# §2.5 Declarations
# =========================================================================================


def test_declare_out_of_turn_pays_a_single_to_the_current_pool() -> None:
    """docs/rules.md §2.5: bob declares before ann, the eldest: ``declare-out-of-turn``, the
    declaration stands and bob pays 3 into this pool (6: share 2)."""
    deal = base_deal(
        [declare("bob", "play"), declare("ann", "play"), declare("cat", "play"), *BASE_PLAYS]
    )
    result = audit(deal)
    (v,) = only(result, "declare-out-of-turn")
    check_other(v, code="declare-out-of-turn", player="bob", penalized=True, penalty=3)
    assert result.settlement is not None and result.settlement.pool == 6
    assert result.penalties == {"bob": 3}
    assert result.payouts == {"cat": 2, "ann": 4}
    assert result.looed == {"bob": 3}


def test_declare_in_turn() -> None:
    """docs/rules.md §2.5: the same declarations in clockwise order from the eldest."""
    clean(audit(base_deal([*ALL_PLAY, *BASE_PLAYS])))


def _all_passed_first_deal() -> dict[str, Any]:
    """Deal 1: everyone passes, cat takes the pool: deal 2's pool is single (a must)."""
    return base_deal(ALL_PASS)


def _must_second_deal(bob: str, **kw: Any) -> dict[str, Any]:
    """Deal 2, dealt by ann (no Miss in a must); bob, the eldest, declares ``bob``."""
    hands = {"bob": "9S 9H 5C", "cat": "2S 4H 2C", "ann": "KS 8H 4C"}
    if bob == "pass":  # cat and ann play it out
        events = [
            declare("bob", "pass"),
            *plays("cat 4H", "ann 8H"),
            *plays("ann KS", "cat 2S"),
            *plays("ann 4C", "cat 2C"),
        ]
    else:
        events = [
            declare("bob", bob),
            *plays("bob 9S", "cat 2S", "ann KS"),
            *plays("ann 8H", "bob 9H", "cat 4H"),
            *plays("bob 5C", "cat 2C", "ann 4C"),
        ]
    return deal_doc(hands, events, number=2, dealer="ann", turn_up="7D", **kw)


def test_forced_play_pass_in_a_must_deal() -> None:
    """docs/rules.md §2.5: three-card, deal 2 of the session after an all-passed deal 1: a single
    pool, a must. bob's recorded ``pass`` is ``forced-play`` (no chips); he is out and cat
    and ann play."""
    _, result = audit_deals([_all_passed_first_deal(), _must_second_deal("pass")], players=TRIO)
    assert result.must is True
    (v,) = only(result, "forced-play")
    check_other(v, code="forced-play", player="bob", penalized=False, penalty=0)
    assert result.tricks == {"cat": 0, "ann": 3}


def test_forced_play_must_deal_played() -> None:
    """docs/rules.md §2.5: the same must deal with bob declaring ``play``."""
    first, result = audit_deals([_all_passed_first_deal(), _must_second_deal("play")], players=TRIO)
    clean(first)
    assert result.must is True
    clean(result)


def test_forced_play_dealer_defends() -> None:
    """docs/rules.md §2.5, ``declare.dealer_defends`` (three-card): ann alone stands on her own
    hand; cat, the dealer, passes: ``forced-play`` (no chips). The pass stands: ann is
    unopposed and takes the pool."""
    result = audit(
        base_deal([declare("ann", "play"), declare("bob", "pass"), declare("cat", "pass")])
    )
    (v,) = only(result, "forced-play")
    check_other(v, code="forced-play", player="cat", penalized=False, penalty=0)
    assert result.outcome == "unopposed"
    assert result.payouts == {"ann": 3}


def test_forced_play_dealer_not_bound_against_the_miss() -> None:
    """docs/rules.md §2.5, ``dealer_defends``: ann takes the Miss instead — she does not stand on
    her own hand, so cat may pass."""
    result = audit(
        base_deal([declare("ann", "take_miss"), declare("bob", "pass"), declare("cat", "pass")])
    )
    clean(result)
    assert result.outcome == "unopposed"


@pytest.mark.parametrize(
    ("decls", "offenders", "outcome"),
    [
        (["ann pass", "bob pass"], ["bob", "cat"], "all_passed"),  # the dealer silent
        (["ann pass", "bob pass", "cat pass"], ["bob", "cat"], "all_passed"),
        (["ann pass", "bob play", "cat pass"], ["cat"], "unopposed"),
        (["ann pass", "bob pass", "cat play"], ["bob"], "all_passed"),
    ],
    ids=["dealer-silent", "both-pass", "dealer-passes", "last-passes"],
)
def test_forced_play_last_must_play_single(
    decls: list[str], offenders: list[str], outcome: str
) -> None:
    """docs/rules.md §2.5, ``declare.last_must_play_single`` (modern): a single pool that every
    seat before bob (the last non-dealer) passed: bob and cat (the dealer) must play; each
    ``pass`` — and the dealer's silence when all the others passed — is ``forced-play``."""
    events = [declare(*d.split()) for d in decls]
    result = audit(base_deal(events), ruleset="modern")
    found = only(result, *["forced-play"] * len(offenders))
    for v, who in zip(found, offenders, strict=True):
        check_other(v, code="forced-play", player=who, penalized=False, penalty=0)
    assert result.outcome == outcome


def test_forced_play_last_must_play_single_not_bound_when_someone_before_played() -> None:
    """docs/rules.md §2.5, ``last_must_play_single``: ann plays, so bob and cat may pass."""
    events = [declare("ann", "play"), declare("bob", "pass"), declare("cat", "pass")]
    result = audit(base_deal(events), ruleset="modern")
    clean(result)
    assert result.outcome == "unopposed"


def test_forced_play_last_must_play_single_not_bound_in_a_double_pool() -> None:
    """docs/rules.md §2.5, ``last_must_play_single`` binds only in a single pool: the all-pass
    deal with 9 carried in (``recorded.pool_start``)."""
    result = audit(base_deal(ALL_PASS, recorded={"pool_start": 9}), ruleset="modern")
    clean(result)
    assert result.pool == "double"
    assert result.outcome == "all_passed"


# =========================================================================================
# §2.2 Misdeals
# =========================================================================================


def check_misdeal(result: DealAudit, dealer: str = "cat", pool_start: int = 3) -> None:
    """docs/rules.md §2.2: the dealer forfeits ``penalties.misdeal`` (3) into the pool; nothing
    else happens."""
    (v,) = only(result, "misdeal")
    check_other(v, code="misdeal", player=dealer, penalized=True, penalty=3)
    assert result.status == "misdeal"
    assert result.outcome == "misdeal"
    assert result.penalties == {dealer: 3}
    assert result.payouts == {}
    assert result.pool_next == pool_start + 3


@pytest.mark.parametrize(
    "change",
    [
        {"hands": {"ann": ["9S", "9H", "5C"], "bob": ["2S", "4H"], "cat": ["KS", "8H", "4C"]}},
        {
            "hands": {
                "ann": ["9S", "9H", "5C"],
                "bob": ["2S", "4H", "2C", "3D"],
                "cat": ["KS", "8H", "4C"],
            }
        },
        {"miss": None},
        {"miss": ["AD", "6H"]},
        {"turn_up": None},
        {"misdeal": True},
    ],
    ids=[
        "hand-too-few",
        "hand-too-many",
        "no-miss",
        "miss-too-few",
        "no-turn-up",
        "recorded-misdeal",
    ],
)
def test_misdeal_dealer_forfeits(change: dict[str, Any]) -> None:
    """docs/rules.md §2.2: a hand or the Miss too few or too many cards, a missing Miss or
    turn-up where three-card deals them, or ``"misdeal": true``."""
    deal = base_deal(ALL_PASS)
    for key, value in change.items():
        if value is None:
            del deal[key]
        else:
            deal[key] = value
    check_misdeal(audit(deal))


def test_misdeal_recorded_without_hands() -> None:
    """docs/rules.md §2.2, docs/log-format.md: with ``"misdeal": true`` the hands may be absent."""
    check_misdeal(audit({"deal": 1, "dealer": "cat", "misdeal": True, "events": []}))


def test_misdeal_not_found_in_a_proper_deal() -> None:
    """docs/rules.md §2.2: the deal the misdeals above are made from."""
    result = audit(base_deal(ALL_PASS))
    clean(result)
    assert result.outcome == "all_passed"


def test_misdeal_a_miss_in_a_must_deal() -> None:
    """docs/rules.md §2.2: a must deal (three-card deal 2 in a single pool) has no Miss; one
    dealt is a misdeal by ann, deal 2's dealer (pool 0 carried + 3 ante)."""
    _, result = audit_deals(
        [_all_passed_first_deal(), _must_second_deal("play", miss=BASE_MISS)], players=TRIO
    )
    check_misdeal(result, dealer="ann")


def _irish_deal(turn_up: str | None) -> dict[str, Any]:
    """modern-irish: trumps by the first lead, no Miss; ann alone plays (unopposed)."""
    events = [declare("ann", "play"), declare("bob", "pass"), declare("cat", "pass")]
    return deal_doc(dict(BASE_HANDS), events, turn_up=turn_up)


def test_misdeal_a_turn_up_where_trumps_are_fixed_otherwise() -> None:
    """docs/rules.md §2.2: modern-irish fixes trumps by the first lead; a turn-up is a misdeal."""
    check_misdeal(audit(_irish_deal("7D"), ruleset="modern-irish"))


def test_misdeal_no_turn_up_where_trumps_are_fixed_by_the_lead() -> None:
    """docs/rules.md §2.2: the same modern-irish deal without the turn-up."""
    result = audit(_irish_deal(None), ruleset="modern-irish")
    clean(result)
    assert result.outcome == "unopposed"


# =========================================================================================
# §2.9 Trump turns (on_void)
# =========================================================================================


def _hoyle_must_deal(bob_hand: str, bob_t1: str, bob_t3: str, turn_card: bool) -> dict[str, Any]:
    """hoyle, first deal: a single pool is a must, trumps fixed on a void; no declarations."""
    return deal_doc(
        {"ann": "9S 9H 5C", "bob": bob_hand, "cat": "KS 8H 4C"},
        [
            *plays("ann 9S", f"bob {bob_t1}", "cat KS"),
            *([turn("7D")] if turn_card else []),
            *plays("cat 8H", "ann 9H", "bob 4H"),
            *plays("ann 5C", f"bob {bob_t3}", "cat 4C"),
        ],
    )


def test_trump_turn_missing_after_a_void() -> None:
    """docs/rules.md §2.9, ``trump_in_must = "on_void"`` (hoyle must deal): bob is void in spades
    at trick 1, but cat, the dealer, turns no trump before trick 2: ``trump-turn``, no chips
    (reported at trick 2, README)."""
    result = audit(_hoyle_must_deal("4H 3H 2C", "2C", "3H", False), ruleset="hoyle")
    assert result.must is True
    (v,) = only(result, "trump-turn")
    check_other(v, code="trump-turn", player="cat", penalized=False, penalty=0, trick=2)
    assert result.trump is None


def test_trump_turn_made_when_due() -> None:
    """docs/rules.md §2.9: the same deal with 7♦ turned before trick 2."""
    result = audit(_hoyle_must_deal("4H 3H 2C", "2C", "3H", True), ruleset="hoyle")
    clean(result)
    assert result.trump == 2  # diamonds


def test_trump_turn_unwarranted_still_fixes_trumps() -> None:
    """docs/rules.md §2.9: bob's 2♣ is a 2♠ here, so no one was void at trick 1; the 7♦ turned
    before trick 2 is ``trump-turn`` and still fixes trumps."""
    result = audit(_hoyle_must_deal("4H 3H 2S", "2S", "3H", True), ruleset="hoyle")
    (v,) = only(result, "trump-turn")
    check_other(v, code="trump-turn", player="cat", penalized=False, penalty=0, trick=2, card="7D")
    assert result.trump == 2


def test_trump_turn_none_due_without_a_void() -> None:
    """docs/rules.md §2.9: the same deal without the turn: none was due."""
    clean(audit(_hoyle_must_deal("4H 3H 2S", "2S", "3H", False), ruleset="hoyle"))


def test_trump_turn_a_revoke_does_not_make_a_turn_due() -> None:
    """docs/rules.md §2.9: "a revoke does not count": bob holds 2♠ but discards 2♣ on the 9♠
    (a follow-suit revoke, penalised: divide, 6); no turn follows and none was due."""
    result = audit(_hoyle_must_deal("2S 4H 2C", "2C", "2S", False), ruleset="hoyle")
    (v,) = only(result, "follow-suit")
    check_revoke(v, code="follow-suit", player="bob", trick=1, card="2C", legal="2S", penalty=6)


# =========================================================================================
# §2.8 Flushes shown
# =========================================================================================


def _flush_deal(shown: bool) -> dict[str, Any]:
    """hoyle-flushes (a flush is all trumps, double pools only): bob holds 2♠ 3♠ 4♠, all one
    suit but not trumps (♦). 9 carried in, so the pool is double and not a must."""
    return deal_doc(
        {"ann": "9S 9H 5C", "bob": "2S 3S 4S", "cat": "KS 8H 4C"},
        [
            *ALL_PLAY,
            *([show_flush("bob")] if shown else []),
            *plays("ann 9S", "bob 2S", "cat KS"),
            *plays("cat 8H", "ann 9H", "bob 3S"),
            *plays("ann 5C", "bob 4S", "cat 4C"),
        ],
        miss=BASE_MISS,
        turn_up=BASE_TURN,
        recorded={"pool_start": 9},
    )


def test_false_flush_shown_without_a_flush() -> None:
    """docs/rules.md §2.8: bob shows three spades as a flush where only trumps make one:
    ``false-flush`` (no chips) and play goes on."""
    result = audit(_flush_deal(True), ruleset="hoyle-flushes")
    (v,) = only(result, "false-flush")
    check_other(v, code="false-flush", player="bob", penalized=False, penalty=0)
    assert result.outcome == "played"
    assert result.tricks == {"ann": 2, "bob": 0, "cat": 1}


def test_false_flush_not_found_without_a_show() -> None:
    """docs/rules.md §2.8: the same deal without the ``show_flush`` event."""
    result = audit(_flush_deal(False), ruleset="hoyle-flushes")
    clean(result)
    assert result.outcome == "played"


def test_false_flush_five_card() -> None:
    """docs/rules.md §2.8, five-card: cat shows a flush holding 3♦ K♠ Q♥ 10♣ 9♣; play goes on."""
    deal = _five_card_pam_deal("JC 5D 4S 3H 2C", False)
    deal["events"].insert(3, show_flush("cat"))
    result = audit(deal, ruleset="five-card")
    (v,) = only(result, "false-flush")
    check_other(v, code="false-flush", player="cat", penalized=False, penalty=0)
    assert result.outcome == "played"


# =========================================================================================
# §5.5 Dealer rotation
# =========================================================================================


def _unopposed(number: int, dealer: str) -> dict[str, Any]:
    """modern: the eldest plays, the other two pass; no cards are played."""
    order = list(TRIO)
    start = (order.index(dealer) + 1) % 3
    eldest, second = order[start], order[(start + 1) % 3]
    events = [declare(eldest, "play"), declare(second, "pass"), declare(dealer, "pass")]
    deal = base_deal(events, number=number, dealer=dealer)
    return deal


def test_dealer_rotation_deal_passes_clockwise() -> None:
    """docs/rules.md §5.5: cat dealt deal 1, so ann deals deal 2; bob dealing it is
    ``dealer-rotation`` (no chips)."""
    first, second = audit_deals(
        [_unopposed(1, "cat"), _unopposed(2, "bob")], players=TRIO, ruleset="modern"
    )
    clean(first)
    (v,) = only(second, "dealer-rotation")
    check_other(v, code="dealer-rotation", player="bob", penalized=False, penalty=0)


def test_dealer_rotation_kept() -> None:
    """docs/rules.md §5.5: ann deals deal 2."""
    first, second = audit_deals(
        [_unopposed(1, "cat"), _unopposed(2, "ann")], players=TRIO, ruleset="modern"
    )
    clean(first)
    clean(second)


def _after_misdeal(dealer: str) -> list[dict[str, Any]]:
    """Deal 1 is cat's misdeal; deal 2, by ``dealer``, is passed out."""
    misdeal = {"deal": 1, "dealer": "cat", "misdeal": True, "events": []}
    order = list(TRIO)
    start = (order.index(dealer) + 1) % 3
    events = [declare(order[start], "pass"), declare(order[(start + 1) % 3], "pass")]
    return [misdeal, base_deal(events, number=2, dealer=dealer)]


def test_dealer_rotation_same_dealer_after_a_misdeal() -> None:
    """docs/rules.md §5.5, ``misdeal_redeal = "same_dealer"`` (three-card): cat misdeals and
    deals again — correct; ann dealing instead is ``dealer-rotation``."""
    misdeal, redeal = audit_deals(_after_misdeal("cat"), players=TRIO)
    check_misdeal(misdeal)
    clean(redeal)
    misdeal, wrong = audit_deals(_after_misdeal("ann"), players=TRIO)
    check_misdeal(misdeal)
    (v,) = only(wrong, "dealer-rotation")
    check_other(v, code="dealer-rotation", player="ann", penalized=False, penalty=0)


def test_dealer_rotation_next_dealer_after_a_misdeal() -> None:
    """docs/rules.md §5.5, ``misdeal_redeal = "next_dealer"`` (hoyle): after cat's misdeal ann
    deals — correct; cat dealing again is ``dealer-rotation``."""
    misdeal, nxt = audit_deals(_after_misdeal("ann"), players=TRIO, ruleset="hoyle")
    check_misdeal(misdeal)
    clean(nxt)
    misdeal, wrong = audit_deals(_after_misdeal("cat"), players=TRIO, ruleset="hoyle")
    check_misdeal(misdeal)
    (v,) = only(wrong, "dealer-rotation")
    check_other(v, code="dealer-rotation", player="cat", penalized=False, penalty=0)
