"""What the recorder asks next and what it refuses, from the engine's own answers, on
concrete deals typed as a scorer types them (docs/record.md)."""

from __future__ import annotations

from typing import Any

from loo_replay.engine.vocab import Action
from loo_replay.recorder.book import session_entry
from loo_replay.recorder.judge import Stage, Standing, judge

PLAYERS = ("ann", "bob", "cat", "dan")


def _session(ruleset: str, players: tuple[str, ...] = PLAYERS) -> dict[str, Any]:
    return session_entry({"id": "j", "ruleset": ruleset, "players": [{"id": p} for p in players]})


def _declare(player: str, action: str) -> dict[str, Any]:
    return {"kind": "event", "event": {"type": "declare", "player": player, "action": action}}


def _play(player: str, card: str) -> dict[str, Any]:
    return {"kind": "event", "event": {"type": "play", "player": player, "card": card}}


def _deal(number: int, dealer: str, turn_up: str | None = None) -> list[dict[str, Any]]:
    begun = [{"kind": "deal", "deal": number, "dealer": dealer}]
    return begun + ([{"kind": "turn_up", "card": turn_up}] if turn_up else [])


def _asked(standing: Standing) -> tuple[Stage, str | None]:
    assert not standing.errors, standing.errors
    return standing.ask.stage, standing.ask.player


def test_record_declarations_go_clockwise_from_the_eldest_with_the_legal_actions() -> None:
    """docs/rules.md §2.5: the eldest (dealer's left) declares first; with a Miss on the table
    the dealer may defend only against exactly one player standing on his own hand."""
    entries = [_session("three-card"), *_deal(1, "ann", "9D")]
    assert _asked(judge(entries)) == (Stage.DECLARE, "bob")
    assert judge(entries).ask.actions == (Action.PLAY, Action.PASS, Action.TAKE_MISS)
    entries += [_declare("bob", "play"), _declare("cat", "pass"), _declare("dan", "pass")]
    standing = judge(entries)
    assert _asked(standing) == (Stage.DECLARE, "ann")
    assert Action.DEFEND in standing.ask.actions


def test_record_all_passing_to_the_dealer_closes_the_deal_without_asking_him() -> None:
    """docs/rules.md §2.6: when all before him pass, the dealer takes the pool."""
    entries = [_session("three-card"), *_deal(1, "ann", "9D")]
    entries += [_declare(p, "pass") for p in ("bob", "cat", "dan")]
    standing = judge(entries)
    assert _asked(standing) == (Stage.DEALER, "bob")  # the next dealer clockwise
    assert standing.audits[-1].outcome == "all_passed"


def test_record_a_must_deal_asks_no_declaration_and_the_dealer_turns_a_trump_on_a_void() -> None:
    """hoyle: the first pool is single, so a must (declare.must = single); trumps in a must
    are fixed when someone first cannot follow (deal.trump_in_must = on_void)."""
    entries = [_session("hoyle"), *_deal(1, "ann")]
    assert _asked(judge(entries)) == (Stage.PLAY, "bob")
    entries += [_play(p, c) for p, c in (("bob", "AH"), ("cat", "2H"), ("dan", "3H"))]
    entries += [_play("ann", "KH"), _play("bob", "4H"), _play("cat", "2C")]
    entries += [_play("dan", "5H"), _play("ann", "6H")]
    assert _asked(judge(entries)) == (Stage.TRUMP_TURN, "ann")
    entries.append({"kind": "event", "event": {"type": "turn_up", "card": "6D"}})
    assert _asked(judge(entries)) == (Stage.PLAY, "ann")  # her 6♥ took trick 2: she leads


def test_record_exchanges_are_asked_of_those_standing_on_their_own_hands() -> None:
    """five-card: after the declarations, each player who declared play may exchange
    (deal.exchange), clockwise; a count alone is an exchange of no cards with its count."""
    entries = [_session("five-card"), *_deal(1, "ann", "2S")]
    entries += [_declare("bob", "play"), _declare("cat", "pass"), _declare("dan", "play")]
    entries.append(_declare("ann", "pass"))
    assert _asked(judge(entries)) == (Stage.EXCHANGE, "bob")
    count = {"type": "exchange", "player": "bob", "discard": [], "draw": []}
    entries.append({"kind": "event", "event": count | {"meta": {"count": 2}}})
    assert _asked(judge(entries)) == (Stage.EXCHANGE, "dan")
    entries.append(
        {
            "kind": "event",
            "event": {"type": "exchange", "player": "dan", "discard": ["KH"], "draw": ["7D"]},
        }
    )
    assert _asked(judge(entries)) == (Stage.PLAY, "bob")


def test_record_the_same_dealer_deals_again_after_a_misdeal() -> None:
    """three-card: penalties.misdeal_redeal = same_dealer (docs/rules.md §5.5)."""
    entries = [_session("three-card"), *_deal(1, "ann"), {"kind": "misdeal"}]
    assert _asked(judge(entries)) == (Stage.DEALER, "ann")


def test_record_a_card_already_played_is_refused_with_the_reason() -> None:
    """docs/log-format.md: a card in two places is a log error; the recorder refuses it."""
    entries = [_session("three-card"), *_deal(1, "ann", "9D")]
    entries += [_declare("bob", "play"), _declare("cat", "play")]
    entries += [_declare("dan", "pass"), _declare("ann", "pass"), _play("bob", "AD")]
    standing = judge([*entries, _play("cat", "AD")])
    assert standing.errors and "A♦" in standing.errors[0].message
    assert "two places" in standing.errors[0].message
    assert "played by cat, but it was already played by bob" in standing.errors[0].message
    turned = judge([*entries, _play("cat", "9D")])  # the turn-up is on the table
    assert turned.errors and "9♦ is played by cat, but it was already turned up" in (
        turned.errors[0].message
    )


def test_record_a_failure_to_follow_is_flagged_then_proved_by_a_later_card() -> None:
    """docs/log-format.md, "Hands left out": cat does not follow trumps at trick 1 and plays one at trick 2."""
    entries = [_session("three-card"), *_deal(1, "ann", "9D")]
    entries += [_declare("bob", "play"), _declare("cat", "play")]
    entries += [_declare("dan", "pass"), _declare("ann", "pass")]
    entries += [_play("bob", "AD"), _play("cat", "5H")]
    flagged = judge(entries)
    assert list(flagged.hints.values()) == [
        "cat played 5♥ to A♦ (trick 1): revoke if cat shows ♦ later"
    ]
    assert flagged.replay is not None and not flagged.replay.result.violations
    entries += [_play("bob", "KD"), _play("cat", "2D")]
    proved = judge(entries)
    assert proved.replay is not None
    (revoke,) = proved.replay.result.violations
    assert (revoke.code, revoke.player, revoke.trick) == ("follow-suit", "cat", 1)
    assert not proved.hints  # proved, no longer a flag


def test_record_end_closes_an_abandoned_hand_and_settles_it() -> None:
    """docs/log-format.md, "Hands left out": a hand abandoned after a revoke is settled on the tricks played."""
    entries = [_session("three-card"), *_deal(1, "ann", "9D")]
    entries += [_declare("bob", "play"), _declare("cat", "play")]
    entries += [_declare("dan", "pass"), _declare("ann", "pass")]
    entries += [_play("bob", "AD"), _play("cat", "5H"), _play("bob", "KD"), _play("cat", "2D")]
    standing = judge([*entries, {"kind": "end"}])
    assert _asked(standing) == (Stage.DEALER, "bob")
    assert standing.audits[-1].violations[0].code == "follow-suit"
