"""Hand-worked deals for the analysis: docs/analysis.md, "How it works" (what is analysed), §2 (the
guarantee G), §3 (the notes).

Each deal is small enough to follow by hand; the docstring gives the lines of
play that prove the values asserted.  Trumps are diamonds and nobody holds
one unless said, so the suits play as plain suits.
"""

from __future__ import annotations

from typing import Any

from loo_replay.engine.analysis import SKIPPED, SOLVED, DealAnalysis, analyse_deal
from loo_replay.engine.cards import parse_card
from loo_replay.engine.session import DealAudit
from tests.loo_helpers import (
    audit_session,
    deal_doc,
    declarations,
    play,
    session_doc,
    trick_plays,
)

TRIO = ("ann", "bob", "cat")
ALL_PLAY = declarations("ann play", "bob play", "cat play")
PLAIN_LEADS = {  # no leading law binds: what a deal shows comes from following alone
    "lead.top_trump": "off",
    "lead.highest_trump": "never",
    "lead.trump_if": 0,
    "lead.trump_after_trick": False,
}


def analyse(deal: dict[str, Any], **kw: Any) -> tuple[DealAudit, DealAnalysis]:
    kw.setdefault("players", TRIO)
    report = audit_session(session_doc([deal], **kw))
    assert report.options is not None
    (audit,) = report.deals
    return audit, analyse_deal(audit, report.options)


def guarantees(a: DealAnalysis) -> dict[str, int]:
    return {p.player: p.guarantee for p in a.players}


def cards(text: str) -> tuple[int, ...]:
    return tuple(parse_card(c) for c in text.split())


def notes(a: DealAnalysis, player: str) -> list[str]:
    return [n.code for n in a.notes if n.player == player]


def _thrown_ace() -> dict[str, Any]:
    """ann leads 2♥ although A♠ is the only spade: led now it wins; kept, it is
    discarded at the last trick when cat leads a club and ann holds nothing else."""
    return deal_doc(
        {"ann": "AS 2H 3C", "bob": "4H 5C 6C", "cat": "5H 7C 8C"},
        ALL_PLAY
        + trick_plays("ann 2H bob 4H cat 5H", "cat 7C ann 3C bob 5C", "cat 8C ann AS bob 6C"),
        number=1,
        dealer="cat",
        miss="9D 9S 9H",
        turn_up="2D",
    )


def test_lost_trick_a_card_that_lowers_the_guarantee_analysis_2_3() -> None:
    """docs/analysis.md, "What a player can make sure of"-§3: before 2♥ ann is sure of a trick (A♠ led wins: nobody else holds a
    spade or a trump); after it cat wins with 5♥ and runs 7♣ (ann must follow with 3♣) and
    8♣, on which ann's A♠ is a discard.  3♣ led instead loses the same way, so A♠ is the
    one better card."""
    audit, a = analyse(_thrown_ace())
    assert audit.status == "audited" and audit.outcome == "played"
    assert a.status == SOLVED and a.cards == 9 and a.stopped is None
    assert guarantees(a)["ann"] == 1
    (first, *_) = a.steps
    assert (first.card, first.before, first.after, first.better) == (
        parse_card("2H"),
        1,
        0,
        cards("AS"),
    )
    (lost,) = [n for n in a.notes if n.code == "lost-trick"]
    assert (lost.player, lost.trick, lost.card, lost.before, lost.after, lost.better) == (
        "ann",
        1,
        parse_card("2H"),
        1,
        0,
        cards("AS"),
    )
    assert lost.message == (
        "ann played 2♥ at trick 1: with A♠ they were sure of a trick (the others could "
        "not stop it); after 2♥ they could be looed, and were"
    )
    assert {p.player: p.lost for p in a.players}["ann"] == 1


def test_avoidable_loo_names_the_card_that_gave_the_trick_away_analysis_3() -> None:
    """docs/analysis.md, "The notes": ann was looed although G(ann) = 1 at the start: the note names 2♥
    at trick 1, the first card that took her guarantee from 1 to 0, and A♠."""
    _, a = analyse(_thrown_ace())
    (loo,) = [n for n in a.notes if n.code == "avoidable-loo"]
    assert (loo.player, loo.trick, loo.card, loo.before, loo.after, loo.better) == (
        "ann",
        1,
        parse_card("2H"),
        1,
        0,
        cards("AS"),
    )
    assert "ann was looed" in loo.message and "A♠" in loo.message


def test_no_safe_trick_for_a_player_the_others_can_loo_analysis_3() -> None:
    """docs/analysis.md, "The notes": every card of bob (4♥ 5♣ 6♣) is beaten by one of cat's (5♥ 7♣ 8♣) in
    the same suit, and cat plays after him whoever leads: G(bob) = 0, and he was looed."""
    _, a = analyse(_thrown_ace())
    assert guarantees(a)["bob"] == 0
    assert notes(a, "bob") == ["no-safe-trick"]
    (note,) = [n for n in a.notes if n.player == "bob"]
    assert note.card is None and "looed" in note.message


def test_pam_is_the_highest_trump_and_a_sure_trick_analysis_2() -> None:
    """docs/analysis.md, "What a player can make sure of" with docs/rules.md's Pam (five-card): ann holds Pam (J♣) and A♥ with
    hearts trumps and nobody else a trump, so she is sure of two tricks; her spades fall to
    bob's A♠ K♠ Q♠.  Without Pam, J♣ is a club that cat's Q♣ covers: one trick."""
    hands = {"ann": "JC AH 2S 3S 4S", "bob": "AS KS QS 5D 6D", "cat": "7D 8D 9D TD QC"}
    with_pam = deal_doc(
        hands,
        ALL_PLAY
        + trick_plays(
            "ann JC bob 5D cat 7D",
            "ann AH bob 6D cat 8D",
            "ann 2S bob QS cat 9D",
            "bob KS cat TD ann 3S",
            "bob AS cat QC ann 4S",
        ),
        number=1,
        dealer="cat",
        turn_up="2H",
    )
    audit, a = analyse(with_pam, ruleset="five-card")
    assert audit.violations == [] and a.status == SOLVED
    assert guarantees(a)["ann"] == 2
    plain = deal_doc(
        hands,
        ALL_PLAY
        + trick_plays(
            "ann AH bob 5D cat 7D",
            "ann JC bob 6D cat QC",
            "cat 8D ann 2S bob QS",
            "cat 9D ann 3S bob KS",
            "cat TD ann 4S bob AS",
        ),
        number=1,
        dealer="cat",
        turn_up="2H",
    )
    audit, a = analyse(plain, ruleset="five-card", rules={"deal.pam": False})
    assert audit.violations == [] and a.status == SOLVED
    assert guarantees(a)["ann"] == 1


def _civil(announce: bool, civil: str = "announced") -> tuple[DealAudit, DealAnalysis]:
    """Five-card, hearts trumps: ann holds A♥ and low spades, bob Pam, 2♥ and diamonds, cat
    the five top spades (no flushes here); any card may be played when void."""
    lead = play("ann", "AH", **({"announce": "pam_be_civil"} if announce else {}))
    rest = (
        ["ann 2S bob 6D cat JS", "cat TS ann 3S bob 7D", "cat QS ann 4S bob 8D", "cat KS ann 5S bob JC"]
        if announce
        else ["bob 6D cat JS ann 2S", "bob 7D cat QS ann 3S", "bob 8D cat KS ann 4S", "bob 2H cat AS ann 5S"]
    )  # fmt: skip
    first = [play("bob", "2H" if announce else "JC"), play("cat", "AS" if announce else "TS")]
    deal = deal_doc(
        {"ann": "AH 2S 3S 4S 5S", "bob": "JC 2H 6D 7D 8D", "cat": "AS KS QS JS TS"},
        [*ALL_PLAY, lead, *first, *trick_plays(*rest)],
        number=1,
        dealer="cat",
        turn_up="3H",
    )
    rules = {**PLAIN_LEADS, "follow.void": "any", "follow.pam_civil": civil, "flush.kind": "none"}
    audit, a = analyse(deal, ruleset="five-card", rules=rules)
    assert audit.violations == [] and a.status == SOLVED, audit.violations
    return audit, a


def test_pam_be_civil_announced_is_a_choice_of_the_leader_analysis_1_2() -> None:
    """docs/analysis.md, "How it works": with follow.pam_civil = "announced" announcing is a move of the
    leader of the ace of trumps.  A♥ led announced: bob holds 2♥ beside Pam, so Pam may not
    fall on the ace (docs/rules.md §4.1) and ann takes the trick; her spades all fall to cat's.
    So G(ann) = 1, and only by announcing."""
    audit, a = _civil(announce=True)
    assert guarantees(a)["ann"] == 1 and audit.tricks == {"ann": 1, "bob": 1, "cat": 3}
    assert notes(a, "ann") == []


def test_pam_be_civil_not_announced_loses_the_trick_analysis_2_3() -> None:
    """The same lead without the announcement: bob plays Pam on the ace and ann is looed.
    The better choice is the same card announced, and the notes say so."""
    _, a = _civil(announce=False)
    assert guarantees(a)["ann"] == 1
    (lost,) = [n for n in a.notes if n.code == "lost-trick"]
    assert (lost.card, lost.before, lost.after, lost.better) == (
        parse_card("AH"),
        1,
        0,
        cards("AH"),
    )
    assert 'A♥ announcing "Pam, be civil"' in lost.message
    assert notes(a, "ann") == ["avoidable-loo", "lost-trick"]


def test_pam_be_civil_off_the_ace_cannot_be_made_sure_of_analysis_2() -> None:
    """With follow.pam_civil = "off" Pam may always fall on the ace: G(ann) = 0."""
    _, a = _civil(announce=False, civil="off")
    assert guarantees(a)["ann"] == 0 and notes(a, "ann") == ["no-safe-trick"]


def _heading(head: bool) -> tuple[DealAudit, DealAnalysis]:
    deal = deal_doc(
        {"ann": "KS 6S 3S", "bob": "4S AS 3H", "cat": "TS 4H QS"},
        ALL_PLAY
        + trick_plays("ann 6S bob AS cat TS", "bob 4S cat QS ann KS", "ann 3S bob 3H cat 4H"),
        number=1,
        dealer="cat",
        miss="5C 6C 7C",
        turn_up="9D",
    )
    audit, a = analyse(deal, rules={**PLAIN_LEADS, "follow.head": head})
    assert audit.violations == [] and a.status == SOLVED
    return audit, a


def test_must_head_forces_the_ace_out_and_makes_a_trick_sure_analysis_2() -> None:
    """docs/rules.md §4 follow.head: ann leads 6♠ and bob must head it with A♠ (his 4♠ is lower).
    Then K♠ is the top spade: bob leads 4♠ (cat heads with a spade, ann heads with K♠) or
    3♥ (cat wins with 4♥, ann throws 3♠, and on cat's last spade ann's K♠ wins).
    G(ann) = 1."""
    _, a = _heading(True)
    assert guarantees(a)["ann"] == 1


def test_without_heading_the_ace_waits_for_the_king_analysis_2() -> None:
    """Without follow.head bob ducks 6♠ with 4♠ and keeps A♠ over ann's K♠; cat wins with
    10♠ and the others can loo ann: G(ann) = 0 though she took two tricks, so the note is
    no-safe-trick (the others let her)."""
    audit, a = _heading(False)
    assert guarantees(a)["ann"] == 0 and audit.tricks is not None and audit.tricks["ann"] == 2
    (note,) = [n for n in a.notes if n.player == "ann"]
    assert note.code == "no-safe-trick" and "the others let them" in note.message


def _ruffing(void: str) -> tuple[DealAudit, DealAnalysis]:
    deal = deal_doc(
        {"ann": "AH 8S 9S", "bob": "AS KS QS", "cat": "2D 3H 4H"},
        declarations("bob play", "cat play", "ann play")
        + trick_plays("bob AS cat 2D ann 8S", "cat 3H ann AH bob KS", "ann 9S bob QS cat 4H"),
        number=1,
        dealer="ann",
        miss="5C 6C 7C",
        turn_up="9D",
    )
    audit, a = analyse(deal, rules={"follow.void": void})
    assert audit.violations == [] and a.status == SOLVED
    return audit, a


def test_must_trump_spends_the_stopper_of_the_ace_analysis_2() -> None:
    """docs/rules.md §4 follow.void (three-card: a player void must trump when he can): bob leads
    a spade, cat is void and must trump with 2♦, his only trump, and wins; then cat holds
    only hearts and must lead one into ann's A♥.  G(ann) = 1."""
    _, a = _ruffing("overtrump")
    assert guarantees(a)["ann"] == 1


def test_free_discard_keeps_the_stopper_analysis_2() -> None:
    """With follow.void = "any" cat throws hearts on bob's spades and keeps 2♦ for ann's A♥,
    which she must keep to the last trick (she has to follow spades): G(ann) = 0."""
    _, a = _ruffing("any")
    assert guarantees(a)["ann"] == 0


def test_deals_without_play_are_skipped_with_the_reason_analysis_1() -> None:
    """docs/analysis.md, "How it works": all passed, a misdeal and a rejected deal are not analysed."""
    passed = deal_doc(
        {"ann": "AS 2H 3C", "bob": "4H 5C 6C", "cat": "5H 7C 8C"},
        declarations("ann pass", "bob pass"),
        number=1,
        dealer="cat",
        miss="9D 9S 9H",
        turn_up="2D",
    )
    _, a = analyse(passed)
    assert (a.status, a.reason, a.players, a.notes) == (SKIPPED, "all_passed", (), ())
    short = deal_doc(
        {"ann": "AS 2H", "bob": "4H 5C 6C", "cat": "5H 7C 8C"}, [], number=1, dealer="cat"
    )
    _, a = analyse({**short, "miss": ["9D", "9S", "9H"], "turn_up": "2D"})
    assert (a.status, a.reason) == (SKIPPED, "misdeal")


def test_a_flush_ends_the_deal_before_play_and_is_skipped_analysis_1() -> None:
    deal = deal_doc(
        {"ann": "2H 3H 5H", "bob": "4S 5C 6C", "cat": "5S 7C 8C"},
        ALL_PLAY,
        number=1,
        dealer="cat",
        miss="9D 9S 9H",
        turn_up="2D",
    )
    audit, a = analyse(deal, rules={"flush.kind": "any_suit"})
    assert audit.outcome == "flush"
    assert (a.status, a.reason) == (SKIPPED, "flush")


def test_trumps_turned_on_a_void_are_not_known_at_the_start_analysis_1() -> None:
    """docs/analysis.md, "How it works": with deal.trump = "on_void" trumps are fixed during play by a card
    the log reveals later; a solver that knew it would know the stock: skipped."""
    deal = deal_doc(
        {"ann": "2S 2H 2C", "bob": "3S 3H 3C", "cat": "4S 4H 4C"},
        ALL_PLAY
        + trick_plays("ann 2S bob 3S cat 4S", "cat 4H ann 2H bob 3H", "cat 4C ann 2C bob 3C"),
        number=1,
        dealer="cat",
        miss="9D 9S 9H",
    )
    audit, a = analyse(deal, rules={"deal.trump": "on_void"})
    assert audit.status == "audited" and audit.outcome == "played"
    assert (a.status, a.reason) == (SKIPPED, "on_void")


def test_a_deal_with_hands_left_out_is_skipped_as_partial_analysis_1() -> None:
    """docs/analysis.md, "How it works" with docs/log-format.md, "Hands left out": a deal recorded at a table, no hand written
    down, is audited from the plays but not analysed: a solver needs every hand."""
    deal = deal_doc(
        None,
        ALL_PLAY
        + trick_plays("ann 2S bob 3S cat 4S", "cat 4H ann 2H bob 3H", "cat 4C ann 2C bob 3C"),
        number=1,
        dealer="cat",
        turn_up="9D",
    )
    audit, a = analyse(deal)
    assert audit.status == "audited" and audit.knowledge == "partial"
    assert (a.status, a.reason) == (SKIPPED, "partial")


def test_a_violation_ends_the_analysed_stretch_analysis_1() -> None:
    """docs/analysis.md, "How it works": play is followed up to the first violation: ann leads 3♣ at trick 2
    and bob, holding 6♣, plays 4♥ (a revoke); the four cards before it are analysed."""
    deal = deal_doc(
        {"ann": "AS 2H 3C", "bob": "4H 5C 6C", "cat": "5H 7C 8C"},
        ALL_PLAY
        + trick_plays("ann AS bob 5C cat 7C", "ann 3C bob 4H cat 8C", "cat 5H ann 2H bob 6C"),
        number=1,
        dealer="cat",
        miss="9D 9S 9H",
        turn_up="2D",
    )
    audit, a = analyse(deal)
    assert [v.code for v in audit.violations][:1] == ["follow-suit"]
    assert a.status == SOLVED and a.cards == 4 and len(a.steps) == 4
    assert a.stopped is not None and a.stopped.startswith("follow-suit by bob at trick 2")
    assert guarantees(a)["ann"] == 1
