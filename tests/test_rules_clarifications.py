"""The clarifications of docs/rules.md §2.5-§2.9 and §5.3, each on a concrete deal beside a
near-identical deal on the other side of the rule.

Conventions: ann, bob and cat sit clockwise and cat deals, so ann is the eldest. The
ruleset is three-card (a first deal: a single pool, not a must, with a Miss and a turn-up)
with the options each test names. The turn-up 2♦ makes diamonds trumps and nobody holds
one, so only the rule under test decides.
"""

from __future__ import annotations

from typing import Any

from loo_helpers import audit_deal, codes, deal_doc, declarations, plays

from loo_replay.engine.cards import canonical
from loo_replay.engine.session import DealAudit

TRIO = ("ann", "bob", "cat")
MISS = "AC KC QC"
HANDS = {"ann": "2S 3S 9C", "bob": "9H 8H 5C", "cat": "KH 7C 6C"}
ALL_PLAY = declarations("ann play", "bob play", "cat play")
# ann leads her spades and wins every trick; bob and cat, void, throw what they like.
ANN_SWEEPS = plays("ann 2S", "bob 5C", "cat 6C", "ann 3S", "bob 8H", "cat 7C")


def audit(
    events: list[dict[str, Any]],
    rules: dict[str, Any],
    *,
    hands: dict[str, str] = HANDS,
    turn_up: str = "2D",
    ruleset: str = "three-card",
) -> DealAudit:
    deal = deal_doc(dict(hands), events, number=1, dealer="cat", miss=MISS, turn_up=turn_up)
    return audit_deal(deal, players=TRIO, ruleset=ruleset, rules=rules)


def exchange(player: str, discard: str, draw: str) -> dict[str, Any]:
    return {"type": "exchange", "player": player, "discard": discard.split(), "draw": draw.split()}


def show_flush(player: str) -> dict[str, Any]:
    return {"type": "show_flush", "player": player}


def verdict(a: DealAudit) -> tuple[Any, ...]:
    return (a.status, a.outcome, a.tricks, a.payouts, a.looed, a.pool_next, codes(a))


# =========================================================================================
# §2.7 Exchanges
# =========================================================================================

EXCHANGE = {"deal.exchange": True}


def test_exchange_of_no_cards_is_allowed_and_changes_nothing() -> None:
    """docs/rules.md §2.7: ann's exchange of no cards (as when the stock is spent) is no log
    error, and the deal comes out exactly as without it."""
    rest = plays("ann 9C", "bob 9H", "cat KH")
    without = audit([*ALL_PLAY, *ANN_SWEEPS, *rest], EXCHANGE)
    with_empty = audit([*ALL_PLAY, exchange("ann", "", ""), *ANN_SWEEPS, *rest], EXCHANGE)
    assert with_empty.errors == []
    assert verdict(with_empty) == verdict(without)
    assert with_empty.tricks == {"ann": 3, "bob": 0, "cat": 0}
    assert codes(with_empty) == []


def test_exchange_of_one_card_drawn_none_is_a_log_error() -> None:
    """docs/rules.md §2.7: beside it, discarding 9♣ and drawing nothing is no exchange of no
    cards: the draws must be as many as the discards."""
    rest = plays("ann 9C", "bob 9H", "cat KH")
    result = audit([*ALL_PLAY, exchange("ann", "9C", ""), *ANN_SWEEPS, *rest], EXCHANGE)
    assert result.status == "rejected"
    assert "draw as many as discarded" in result.errors[0].message


def test_exchange_of_no_cards_does_not_use_up_the_exchange() -> None:
    """docs/rules.md §2.7 ("changes nothing"; the project's reading, docs/rules.md): after an
    exchange of no cards ann may still exchange once, 9♣ for 4♠."""
    events = [*ALL_PLAY, exchange("ann", "", ""), exchange("ann", "9C", "4S"), *ANN_SWEEPS]
    result = audit([*events, *plays("ann 4S", "bob 9H", "cat KH")], EXCHANGE)
    assert result.errors == []
    assert result.tricks == {"ann": 3, "bob": 0, "cat": 0}


def test_exchange_only_by_a_player_who_declared_play() -> None:
    """docs/rules.md §2.7: ann plays and exchanges 9♣ for 4♠: audited, no finding."""
    events = [*ALL_PLAY, exchange("ann", "9C", "4S"), *ANN_SWEEPS]
    result = audit([*events, *plays("ann 4S", "bob 9H", "cat KH")], EXCHANGE)
    assert result.errors == []
    assert codes(result) == []


def test_exchange_by_the_taker_of_the_miss_is_a_log_error() -> None:
    """docs/rules.md §2.7: the same exchange after ann took the Miss (not ``play``) is a log error,
    and so is an exchange of no cards by her or by bob, who passed."""
    took = declarations("ann take_miss", "bob play", "cat play")
    for events in (
        [*took, exchange("ann", "AC", "4S")],
        [*took, exchange("ann", "", "")],
        [*declarations("ann play", "bob pass", "cat play"), exchange("bob", "", "")],
    ):
        result = audit(events, EXCHANGE)
        assert result.status == "rejected"
        assert "without having declared play" in result.errors[0].message


# =========================================================================================
# §2.6 all_passed and unopposed end the deal before any flush
# =========================================================================================

FLUSHES = {"flush.kind": "any_suit"}
CAT_FLUSH = {"ann": "9H 8H 5C", "bob": "KH 7C 6C", "cat": "2S 3S 4S"}


def test_all_passed_a_lone_dealer_with_a_flush_takes_the_pool_as_all_passed() -> None:
    """docs/rules.md §2.6: ann and bob pass; cat, the dealer, plays holding three spades, a
    flush: the deal is ``all_passed`` and cat takes the pool (3), nobody is looed."""
    result = audit(declarations("ann pass", "bob pass", "cat play"), FLUSHES, hands=CAT_FLUSH)
    assert verdict(result) == ("audited", "all_passed", {"cat": 0}, {"cat": 3}, {}, 0, [])


def test_all_passed_not_when_another_plays_then_the_flush_takes_the_pool() -> None:
    """docs/rules.md §2.8, §5.3: beside it, bob plays too: cat's flush ends the deal (``flush``),
    cat takes the pool and bob, active, is looed 3."""
    result = audit(declarations("ann pass", "bob play", "cat play"), FLUSHES, hands=CAT_FLUSH)
    assert result.outcome == "flush"
    assert (result.payouts, result.looed, result.pool_next) == ({"cat": 3}, {"bob": 3}, 3)


def test_unopposed_a_lone_player_with_a_flush_takes_the_pool_as_unopposed() -> None:
    """docs/rules.md §2.6: bob alone plays, holding a flush (the dealer may pass: no
    ``dealer_defends``): ``unopposed``, bob takes the pool, his flush changes nothing."""
    hands = {"ann": "9H 8H 5C", "bob": "2S 3S 4S", "cat": "KH 7C 6C"}
    rules = {**FLUSHES, "declare.dealer_defends": False}
    result = audit(declarations("ann pass", "bob play", "cat pass"), rules, hands=hands)
    assert verdict(result) == ("audited", "unopposed", {"bob": 0}, {"bob": 3}, {}, 0, [])


# =========================================================================================
# §2.8 false-flush: a flush that counts, judged on the hand §2.4 / §2.8 judge
# =========================================================================================

PASSER_FLUSH = {"ann": "2S 3S 4S", "bob": "9H 8H 5C", "cat": "KH 7C 6C"}
# bob leads 9♥, cat heads it with K♥ and wins every trick (trumps ♦: nobody holds one).
CAT_SWEEPS = plays("bob 9H", "cat KH", "cat 7C", "bob 5C", "cat 6C", "bob 8H")


def test_false_flush_shown_by_a_player_who_passed() -> None:
    """docs/rules.md §2.8 (``declared``): ann holds three spades but passes; a flush counts only
    among active players, so her show is ``false-flush`` and play goes on."""
    events = [*declarations("ann pass", "bob play", "cat play"), show_flush("ann"), *CAT_SWEEPS]
    result = audit(events, FLUSHES, hands=PASSER_FLUSH)
    assert codes(result) == ["false-flush"]
    (v,) = result.violations
    assert v.player == "ann" and not v.penalized
    assert "ann is not in the play" in v.message
    assert (result.outcome, result.tricks) == ("played", {"bob": 0, "cat": 3})


def test_false_flush_not_when_the_shower_plays_the_flush() -> None:
    """docs/rules.md §2.8: beside it, ann plays: her flush counts, ends the deal and takes the
    pool; her show is no finding (the plays after are noted, not judged)."""
    events = [*declarations("ann play", "bob play", "cat play"), show_flush("ann"), *CAT_SWEEPS]
    result = audit(events, FLUSHES, hands=PASSER_FLUSH)
    assert codes(result) == []
    assert (result.outcome, result.payouts) == ("flush", {"ann": 3})


def test_false_flush_declared_judges_the_final_hand_not_the_cards_left() -> None:
    """docs/rules.md §2.8 (``declared``: the final hand): after two tricks bob holds only 8♥ and
    shows it as a flush; his final hand 9♥ 8♥ 5♣ was none: ``false-flush``."""
    events = [
        *declarations("ann pass", "bob play", "cat play"),
        *CAT_SWEEPS[:4],
        show_flush("bob"),
        *CAT_SWEEPS[4:],
    ]
    result = audit(events, FLUSHES, hands=PASSER_FLUSH)
    assert codes(result) == ["false-flush"]
    (v,) = result.violations
    assert v.player == "bob"
    assert sorted(canonical(c) for c in v.held) == ["5C", "8H", "9H"]


DEALT_EXCHANGE = {**FLUSHES, **EXCHANGE, "flush.when": "dealt"}
MADE_FLUSH = [*ALL_PLAY, exchange("ann", "9C", "4S"), show_flush("ann"), *ANN_SWEEPS]


def test_false_flush_dealt_judges_the_hand_as_dealt() -> None:
    """docs/rules.md §2.8 (``dealt``: the hand dealt): ann makes 2♠ 3♠ 4♠ by exchanging 9♣ for
    4♠ and shows it; as dealt she held 2♠ 3♠ 9♣, no flush: ``false-flush``, play goes on."""
    result = audit([*MADE_FLUSH, *plays("ann 4S", "bob 9H", "cat KH")], DEALT_EXCHANGE)
    assert codes(result) == ["false-flush"]
    (v,) = result.violations
    assert "as dealt" in v.message
    assert sorted(canonical(c) for c in v.held) == ["2S", "3S", "9C"]
    assert (result.outcome, result.tricks) == ("played", {"ann": 3, "bob": 0, "cat": 0})


def test_false_flush_not_under_declared_where_the_exchange_makes_the_flush() -> None:
    """docs/rules.md §2.8: beside it, under ``flush.when = "declared"`` the final hand counts: the
    exchange makes ann's flush, which takes the pool; no finding."""
    rules = {**DEALT_EXCHANGE, "flush.when": "declared"}
    result = audit([*MADE_FLUSH, *plays("ann 4S", "bob 9H", "cat KH")], rules)
    assert codes(result) == []
    assert (result.outcome, result.payouts) == ("flush", {"ann": 3})


# =========================================================================================
# §2.9 trump-turn: the trick before which the turn was due or made
# =========================================================================================

# hoyle, first deal: a single pool is a must, trumps fixed on a void (no Miss, no turn-up).
# Trick 1: ann 9♠, bob 2♠, cat K♠ (nobody void). Trick 2: cat 8♥, ann 9♥, bob void (2♣).
VOID_AT_TWO = {"ann": "9S 9H 5C", "bob": "2S 2C 3C", "cat": "KS 8H 4C"}
TRICKS_1_2 = plays("ann 9S", "bob 2S", "cat KS", "cat 8H", "ann 9H", "bob 2C")
TRICK_3 = plays("ann 5C", "bob 3C", "cat 4C")


def hoyle_must(events: list[dict[str, Any]]) -> DealAudit:
    deal = deal_doc(dict(VOID_AT_TWO), events, number=1, dealer="cat")
    return audit_deal(deal, players=TRIO, ruleset="hoyle")


def test_trump_turn_missing_carries_the_trick_it_was_due_before() -> None:
    """docs/rules.md §2.9: bob was void at trick 2 and cat turned nothing before trick 3: the
    ``trump-turn`` violation carries trick 3."""
    result = hoyle_must([*TRICKS_1_2, *TRICK_3])
    assert codes(result) == ["trump-turn"]
    (v,) = result.violations
    assert (v.player, v.trick, v.card) == ("cat", 3, None)


def test_trump_turn_made_when_due_before_trick_three() -> None:
    """docs/rules.md §2.9: beside it, 7♦ turned before trick 3: no finding, diamonds trumps."""
    result = hoyle_must([*TRICKS_1_2, {"type": "turn_up", "card": "7D"}, *TRICK_3])
    assert codes(result) == []
    assert result.trump == 2


def test_trump_turn_unwarranted_carries_the_trick_it_was_made_before() -> None:
    """docs/rules.md §2.9: 7♦ turned before the first trick, when nobody can have been void:
    ``trump-turn`` carrying trick 1 (and diamonds are trumps from then on)."""
    result = hoyle_must([{"type": "turn_up", "card": "7D"}, *TRICKS_1_2, *TRICK_3])
    assert codes(result) == ["trump-turn"]
    (v,) = result.violations
    assert (v.trick, canonical(v.card or 0)) == (1, "7D")


# =========================================================================================
# §2.5 In a must deal the order of declarations is not judged
# =========================================================================================

CLUB_LAW = {"declare.club_law": True}
NO_TRUMPS_HELD = {"ann": "AS KS QS", "bob": "9H 8H 5H", "cat": "KH 7H 6H"}
BOB_FIRST = declarations("bob play", "ann play", "cat play")
ANN_LEADS_SPADES = plays("ann AS", "bob 5H", "cat 6H", "ann KS", "bob 8H", "cat 7H")
LAST = plays("ann QS", "bob 9H", "cat KH")


def test_must_deal_declarations_out_of_order_are_not_judged() -> None:
    """docs/rules.md §2.5: 2♣ turned under club law makes a must; bob declaring before ann, the
    eldest, is no finding there."""
    events = [*BOB_FIRST, *ANN_LEADS_SPADES, *LAST]
    result = audit(events, CLUB_LAW, hands=NO_TRUMPS_HELD, turn_up="2C")
    assert result.must is True
    assert codes(result) == []


def test_must_deal_not_a_must_then_declare_out_of_turn() -> None:
    """docs/rules.md §2.5: beside it, 2♦ turned: no must, and bob's early declaration is
    ``declare-out-of-turn`` (a single, 3, to the current pool)."""
    events = [*BOB_FIRST, *ANN_LEADS_SPADES, *LAST]
    result = audit(events, CLUB_LAW, hands=NO_TRUMPS_HELD, turn_up="2D")
    assert result.must is False
    assert codes(result) == ["declare-out-of-turn"]
    assert result.violations[0].player == "bob"
