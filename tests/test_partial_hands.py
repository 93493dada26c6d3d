"""Deals recorded at a real table, with hands left out (docs/log-format.md, "Hands left out").

Each hand-worked deal is audited twice where it helps: with the hands a scorer never sees
left out, and with every hand listed, so that one rule path (``legal_cards`` on the derived
hand) is seen to give the verdict the record proves.  Conventions as in test_findings.py:
ann, bob and cat sit clockwise, cat deals, ann is the eldest; three-card, first deal of
the session (a Miss is dealt and a card turned up); 9♦ turned makes diamonds trumps.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from loo_helpers import audit_deal, audit_session, audited, codes, deal_doc, declarations, plays

from loo_replay.engine.cards import canonical
from loo_replay.engine.model import UNCHECKED_CHECKS, Exchange, Play
from loo_replay.engine.session import DealAudit
from loo_replay.engine.vocab import Outcome
from loo_replay.output.json_document import session_json
from loo_replay.rulesets import builtin, builtin_names
from loo_replay.run.audit import SessionReport
from loo_replay.simulate import Simulator, max_players

TRIO = ("ann", "bob", "cat")


def audit(deal: dict[str, Any], **kw: Any) -> DealAudit:
    kw.setdefault("players", TRIO)
    return audit_deal(deal, **kw)


def dealt(events: list[dict[str, Any]]) -> DealAudit:
    """The deals of bob's 5♥ below, with every hand and the Miss written down."""
    hands = {"ann": "4S KC 2C", "bob": "5H 3C 7S", "cat": "QD 8H 6C"}
    return audit(deal_doc(hands, events, miss="JD TH 9S", turn_up="9D"))


def cards(found: tuple[int, ...] | None) -> list[str]:
    assert found is not None
    return sorted(canonical(c) for c in found)


# -- a revoke proved by a later card -----------------------------------------------------

PROVED = [
    *declarations("ann play", "bob play", "cat pass"),
    *plays("ann 4S", "bob 5H"),  # bob does not follow ♠ ...
    *plays("ann KC", "bob 3C"),
    *plays("ann 2C", "bob 7S"),  # ... and shows 7♠ at trick 3
]


def test_revoke_by_a_derived_hand_is_proved_by_the_later_card_it_names() -> None:
    """docs/log-format.md, "Hands left out": bob's unknown hand is derived from his plays (5♥ 3♣ 7♠); he did not
    follow ♠ at trick 1 and played 7♠ at trick 3: an established revoke, proved by 7♠."""
    result = audit(deal_doc(None, PROVED, turn_up="9D"))
    assert result.knowledge == "partial"
    assert result.status == "audited" and result.errors == []
    (v,) = result.violations
    assert (v.code, v.player, v.trick) == ("follow-suit", "bob", 1)
    assert v.card is not None and canonical(v.card) == "5H"
    assert cards(v.legal) == ["7S"]
    assert cards(v.held) == ["3C", "5H", "7S"]
    assert v.proved_by is not None and canonical(v.proved_by) == "7S"
    assert v.proved_trick == 3
    assert v.message.endswith("(proved by 7♠ played at trick 3)")
    assert v.penalized and v.penalty == 12
    # ann led the three tricks and bob never beat her: ann takes the single pool of 3,
    # bob is looed 3 and pays the revoke's 12 into the next pool.
    assert result.tricks == {"ann": 3, "bob": 0}
    assert (result.payouts, result.looed, result.penalties) == ({"ann": 3}, {"bob": 3}, {"bob": 12})
    assert result.pool_next == 15


def test_revoke_proved_from_the_record_is_the_one_the_full_hands_give() -> None:
    """docs/log-format.md, "Hands left out": the same deal with every hand listed gives the same finding and the
    same settlement; only the proof is the partial record's own."""
    full = dealt(PROVED)
    partial = audit(deal_doc(None, PROVED, turn_up="9D"))
    assert full.knowledge == "full" and full.unchecked == []
    assert [(v.code, v.player, v.trick, v.card, v.legal) for v in full.violations] == [
        (v.code, v.player, v.trick, v.card, v.legal) for v in partial.violations
    ]
    assert full.violations[0].proved_by is None
    amounts = ("tricks", "payouts", "looed", "penalties", "pool_next", "stacks", "outcome")
    assert [getattr(full, a) for a in amounts] == [getattr(partial, a) for a in amounts]


# -- a revoke the record does not prove --------------------------------------------------


def test_unproved_revoke_on_an_abandoned_hand_is_not_judged_and_the_deal_says_so() -> None:
    """docs/log-format.md, "Hands left out": bob did not follow ♠ and the table abandoned the hand; his other
    cards were never played, so the record proves nothing: no finding, the record is not
    rejected for stopping early, and the notes say what was not judged."""
    events = [*declarations("ann play", "bob play", "cat pass"), *plays("ann 4S", "bob 5H")]
    result = audit(deal_doc(None, events, turn_up="9D"))
    assert result.status == "audited" and result.errors == []
    assert result.violations == []
    assert result.result is not None and result.result.abandoned
    assert any("stops after 1 of 3 tricks" in n for n in result.notes)
    assert any("never played stay unknown" in n and "not judged" in n for n in result.notes)
    # with every hand listed, the same record is judged: bob held 7♠
    assert codes(dealt(events)) == ["follow-suit"]


def test_full_record_that_stops_early_without_a_revoke_is_still_rejected() -> None:
    """docs/log-format.md, "Hands left out" concerns hands left out: with every hand listed, a record that stops
    before the last trick with no penalised revoke remains a log error (docs/log-format.md)."""
    events = [*declarations("ann play", "bob play", "cat pass"), *plays("ann 4S", "bob 7S")]
    assert dealt(events).status == "rejected"


# -- a flush nobody saw --------------------------------------------------------------------

FLUSH_EVENTS = [
    *declarations("ann pass", "bob play", "cat play"),
    *plays("bob AS", "cat KS"),
    *plays("bob 3C", "cat 5C"),
    *plays("cat 6H", "bob 4H"),
]


def flush_deal(ann: str | None) -> DealAudit:
    """Flushes judged at the deal; ann passes, holding ``ann`` or a hand left out (None,
    and then every hand is)."""
    hands = None if ann is None else {"ann": ann, "bob": "AS 3C 4H", "cat": "KS 5C 6H"}
    deal = deal_doc(hands, FLUSH_EVENTS, miss=None if ann is None else "JD TH 9S", turn_up="9D")
    return audit(deal, rules={"flush.kind": "any_suit", "flush.when": "dealt"})


def test_passed_players_unknown_flush_is_listed_as_unchecked() -> None:
    """docs/log-format.md, "Hands left out": flushes are judged at the deal, among every seated player; ann
    passed and her hand was never shown, so whether she held a flush is not checked and
    ``flush-at-deal`` is listed; bob's and cat's derived hands are whole (three cards
    each) and hold none, so the deal is played out."""
    result = flush_deal(None)
    assert result.knowledge == "partial"
    assert result.outcome == "played" and result.violations == []
    assert "flush-at-deal" in result.unchecked
    assert result.tricks == {"bob": 1, "cat": 2}
    # had ann's hearts been written down, her flush would have taken the pool at the deal
    full = flush_deal("2H 5H 9H")
    assert full.outcome == "flush" and full.payouts == {"ann": 3}


def test_unchecked_lists_only_known_check_names_in_order_and_nothing_when_full() -> None:
    """docs/log-format.md, "Hands left out": ``unchecked`` is a list of check names, empty for a full deal."""
    result = flush_deal(None)
    assert result.unchecked == [c for c in UNCHECKED_CHECKS if c in result.unchecked]
    assert {"misdeal-hand-size", "misdeal-miss", "duplicate-card"} <= set(result.unchecked)
    full = flush_deal("2C 5D 9H")
    assert (full.knowledge, full.unchecked) == ("full", [])


# -- a Miss taken, its cards never written down ------------------------------------------


def test_taken_miss_is_derived_from_its_takers_plays() -> None:
    """docs/log-format.md, "Hands left out": ann takes the Miss, which nobody wrote down; it is derived from her
    plays (3♣ 4♠ 8♥). At trick 2 she does not follow bob's K♥ and shows 8♥ at trick 3: a
    revoke proved by 8♥, judged on the Miss she held."""
    events = [
        *declarations("ann take_miss", "bob play", "cat pass"),
        *plays("ann 3C", "bob AC"),  # bob heads and leads next
        *plays("bob KH", "ann 4S"),
        *plays("bob 2H", "ann 8H"),
    ]
    result = audit(deal_doc(None, events, turn_up="9D"))
    assert result.status == "audited" and result.errors == []
    assert result.result is not None and result.result.miss_taker == TRIO.index("ann")
    (v,) = result.violations
    assert (v.code, v.player, v.trick) == ("follow-suit", "ann", 2)
    assert cards(v.held) == ["4S", "8H"]
    assert cards(v.legal) == ["8H"]
    assert v.proved_by is not None and canonical(v.proved_by) == "8H"
    assert v.proved_trick == 3
    assert result.tricks == {"ann": 1, "bob": 2}
    assert "misdeal-miss" in result.unchecked


def test_after_an_exchange_the_cards_played_are_the_hand_and_the_discards_were_dealt() -> None:
    """docs/log-format.md, "Hands left out" in five-card Loo (trumps ♦, no Miss): bob discards 9♠ 8♠ and draws
    K♥ Q♥, his discards seen; the cards he then plays are his hand after the exchange. He
    plays the drawn K♥ to ann's A♠ and shows 2♠ at trick 3: a revoke proved by 2♠. The
    cards drawn might have lain in cat's unknown hand (``draw-unseen``), and cat, who
    passed, might have held a flush (``flush-at-deal``)."""
    events = [
        *declarations("ann play", "bob play", "cat pass"),
        {"type": "exchange", "player": "bob", "discard": ["9S", "8S"], "draw": ["KH", "QH"]},
        *plays("ann AS", "bob KH"),
        *plays("ann 3H", "bob QH"),  # bob heads
        *plays("bob 2S", "ann 4C"),
        *plays("bob 7C", "ann 5C"),
        *plays("bob 8C", "ann 6C"),
    ]
    result = audit(deal_doc(None, events, turn_up="2D"), ruleset="five-card")
    assert result.status == "audited" and result.errors == []
    (v,) = result.violations
    assert (v.code, v.player, v.trick) == ("follow-suit", "bob", 1)
    assert cards(v.held) == ["2S", "7C", "8C", "KH", "QH"]
    assert cards(v.legal) == ["2S"]
    assert v.proved_by is not None and canonical(v.proved_by) == "2S"
    assert v.proved_trick == 3
    assert result.tricks == {"ann": 1, "bob": 4}
    assert {"draw-unseen", "flush-at-deal"} <= set(result.unchecked)


def test_derived_card_also_listed_elsewhere_is_a_card_in_two_places() -> None:
    """docs/log-format.md, "Hands left out" with docs/log-format.md: a card bob is recorded playing cannot also be in
    cat's listed hand; the error points at the play."""
    events = [*declarations("ann play", "bob play", "cat pass"), *plays("ann 4S", "bob QD")]
    result = audit(deal_doc({"cat": "QD 8H 6C"}, events, turn_up="9D"))
    assert result.status == "rejected"
    (error,) = result.errors
    assert error.path == "/deals/0/events/4/card"
    assert "two places" in error.message


def test_derived_card_played_by_two_players_points_at_the_second_play() -> None:
    """docs/log-format.md, "Hands left out" with docs/log-format.md: two unknown hands cannot both hold a card; the
    second play of it is the slip, and the error says who played it first."""
    events = [*declarations("ann play", "bob play", "cat pass"), *plays("ann 4S", "bob 4S")]
    result = audit(deal_doc({}, events, turn_up="9D"))
    assert result.status == "rejected"
    (error,) = result.errors
    assert error.path == "/deals/0/events/4/card"
    assert error.message.startswith("4♠ is played by bob, but it was already played by ann")


# -- the property: a complete record proves what the full hands give ------------------------


def _complete(deal: DealAudit, hand_size: int) -> bool:
    """No exchange, played out, and every active player played all his cards."""
    r = deal.result
    if r is None or r.outcome not in (Outcome.PLAYED, Outcome.REVOKE):
        return False
    events = r.record.events
    if any(isinstance(e, Exchange) for e in events):
        return False
    played = Counter(e.seat for e in events if isinstance(e, Play))
    return bool(played) and all(played[s] == hand_size for s in r.active)


def _verdict(deal: DealAudit) -> tuple[Any, ...]:
    found = [(v.code, v.player, v.trick, v.card, v.penalty, v.penalized) for v in deal.violations]
    legal = [None if v.legal is None else sorted(v.legal) for v in deal.violations]
    gaps = [(x.field, x.recorded, x.expected) for x in deal.discrepancies]
    amounts = (deal.outcome, deal.pool_start, deal.tricks, deal.payouts, deal.looed)
    return (deal.status, found, legal, gaps, *amounts, deal.penalties, deal.pool_next, deal.stacks)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.sampled_from(builtin_names()),
    st.integers(0, 2**32),
    st.integers(1, 12),
    st.data(),
)
def test_complete_records_without_hands_give_the_verdicts_of_full_hands(
    ruleset: str, seed: int, deals: int, data: st.DataObject
) -> None:
    """docs/log-format.md, "Hands left out": remove the hands and the Miss from every deal whose record is
    complete (a player who shows a flush shows his hand, so his stays); the violations,
    discrepancies and settlement are those of the full hands, deal by deal."""
    options = builtin(ruleset).options
    players = data.draw(st.integers(3, max_players(options)))
    sim = Simulator(options, ruleset, players, seed, violations=0.5, corrupt=0.2)
    doc = sim.session("partial", deals)
    full = audit_session(doc).deals
    stripped = 0
    for raw, deal in zip(doc["deals"], full, strict=True):
        if _complete(deal, options.deal_hand_size):
            shown = {e["player"] for e in raw["events"] if e["type"] == "show_flush"}
            raw["hands"] = {p: h for p, h in raw["hands"].items() if p in shown}
            raw.pop("miss", None)
            stripped += 1
    partial = audit_session(doc).deals
    assert [_verdict(d) for d in partial] == [_verdict(d) for d in full]
    assert sum(d.knowledge == "partial" for d in partial) == stripped


def test_logs_with_every_hand_gain_full_and_nothing_unchecked_in_the_json_audit() -> None:
    """docs/log-format.md, "Hands left out": a deal given with full hands is audited exactly as before; in the
    JSON audit it only gains ``knowledge`` ``full``, an empty ``unchecked`` and a null
    ``proved_by`` on each violation (every sample log but the one recorded at a table)."""
    root = Path(__file__).resolve().parents[1] / "sample_logs"
    seen = 0
    for item in audited([root]):
        assert isinstance(item, SessionReport)
        doc = session_json(item)
        for deal in doc["deals"]:
            full = item.id != "kitchen-table-2026-11-29"
            assert (deal["knowledge"] == "full") is full, (item.id, deal["deal"])
            assert (deal["unchecked"] == []) is full
            assert not full or all(v["proved_by"] is None for v in deal["violations"])
            seen += full
    assert seen == 300
