"""Whole simulated sessions typed into the recorder entry by entry, with the hands left out as
a scorer would see them (docs/record.md): every entry is accepted and each question asked is
the one the next entry answers: the dealer due, the turn-up, the player due to declare or to
exchange, the player on turn, the dealer turning a trump."""

from __future__ import annotations

from typing import Any

import pytest

from loo_replay.recorder.book import session_entry
from loo_replay.recorder.journal import Entry
from loo_replay.recorder.judge import Stage, Standing, judge
from loo_replay.rulesets import builtin
from loo_replay.simulate import Simulator

STAGE_OF = {"declare": Stage.DECLARE, "exchange": Stage.EXCHANGE, "play": Stage.PLAY}


def _typed(doc: dict[str, Any]) -> list[Entry]:
    """The entries a scorer types for ``doc``: no hands, no Miss, in table order."""
    entries = [session_entry(doc["session"])]
    for deal in doc["deals"]:
        entries.append({"kind": "deal", "deal": deal["deal"], "dealer": deal["dealer"]})
        if "turn_up" in deal:
            entries.append({"kind": "turn_up", "card": deal["turn_up"]})
        if deal.get("misdeal"):
            entries.append({"kind": "misdeal"})
        entries += [{"kind": "event", "event": ev} for ev in deal.get("events", [])]
    return entries


def _expected(entry: Entry) -> tuple[Stage, str | None]:
    kind = entry["kind"]
    if kind == "deal":
        return Stage.DEALER, entry["dealer"]
    if kind == "turn_up":
        return Stage.TURN_UP, None
    event = entry["event"]
    if event["type"] == "turn_up":
        return Stage.TRUMP_TURN, None
    return STAGE_OF[event["type"]], event["player"]


@pytest.mark.parametrize(
    ("ruleset", "seed"), [("three-card", 3), ("hoyle", 5), ("five-card", 8), ("modern-pam", 2)]
)
def test_record_a_simulated_session_is_asked_for_in_the_order_it_was_played(
    ruleset: str, seed: int
) -> None:
    doc = Simulator(builtin(ruleset).options, ruleset, 4, seed).session(f"sim-{seed}", 8)
    to_type = _typed(doc)
    typed = to_type[:1]
    for entry in to_type[1:]:
        standing = judge(typed)
        assert not standing.errors, (len(typed), standing.errors)
        stage, player = _expected(entry)
        while standing.ask.stage is Stage.EXCHANGE and (stage, player) != _expected_ask(standing):
            # the log records only the exchanges made; the scorer answers 0 for the others
            none = {"type": "exchange", "player": standing.ask.player, "discard": [], "draw": []}
            typed.append({"kind": "event", "event": none})
            standing = judge(typed)
        if stage is Stage.DECLARE and standing.ask.stage is Stage.PLAY:
            # a must deal asks for no declaration; one typed at the first card is taken
            assert standing.replay is not None and standing.replay.result.must
        else:
            assert standing.ask.stage is stage, (len(typed), entry, standing.ask)
            if player is not None and len(typed) > 1:  # the first dealer is anyone's guess
                assert standing.ask.player == player, (len(typed), entry, standing.ask)
        typed.append(entry)
    assert not judge(typed).errors


def _expected_ask(standing: Standing) -> tuple[Stage, str | None]:
    return standing.ask.stage, standing.ask.player
