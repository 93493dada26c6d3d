"""Discrepancies in words (issue 13, point 7): every field the engine compares (docs/rules.md §6,
the record against the audit) reads as a sentence that names the player, never as a raw
field name like ``payouts.cat``."""

from __future__ import annotations

from db_helpers import hand_worked_doc

from loo_replay.logs.reader import Document
from loo_replay.output.wording import (
    DEAL_FIELDS,
    PLAYER_FIELDS,
    discrepancy,
    display_names,
    stack,
)
from loo_replay.rulesets import RuleChoice
from loo_replay.run.audit import SessionReport, audit_document

NAMES = {"ann": "Ann Pepys", "bob": None, "cat": "Catherine Sedley"}


def test_a_wrong_payout_names_the_player_and_both_amounts() -> None:
    assert discrepancy("payouts.cat", 6, 3) == "cat's payout: recorded 6, the rules give 3"
    assert (
        discrepancy("payouts.cat", 6, 3, NAMES)
        == "Catherine Sedley's payout: recorded 6, the rules give 3"
    )
    assert discrepancy("looed.bob", 0, 3, NAMES) == "bob's loo: recorded 0, the rules give 3"


def test_stacks_below_zero_read_as_debts() -> None:
    assert stack(-811_188) == "owes 811,188"
    assert stack(0) == "0" and stack(1_500) == "1,500"
    assert (
        discrepancy("stacks.ann", -2, 5, NAMES)
        == "Ann Pepys's stack after the deal: recorded a debt of 2, the rules give 5"
    )


def test_every_field_the_engine_compares_reads_as_words() -> None:
    """The hand-worked session (tests/db_helpers.py) with stacks of 10 and a record of deal 2
    wrong in every field.  Deal 2: deal 1 carried 0, so the pool is ann's ante of 3; bob wins 2 tricks (2 chips), ann 1 (1), cat none and
    is looed 3; carried 3.  Stacks: after deal 1 ann 12, bob 10, cat 8 (cat anted 3, won 1);
    after deal 2 ann 12 - 3 + 1 = 10, bob 12, cat 8 - 3 = 5."""
    doc = hand_worked_doc("words")
    doc["session"]["chips"] = {"ann": 10, "bob": 10, "cat": 10}
    doc["deals"][1]["recorded"] = {
        "pool_start": 4,
        "pool_next": 9,
        "tricks": {"ann": 1, "bob": 1, "cat": 1},
        "payouts": {"ann": 1, "bob": 1, "cat": 1},
        "looed": {"cat": 0},
        "penalties": {"bob": 12},
        "stacks": {"ann": 10, "bob": 12, "cat": -2},
    }
    report = audit_document(Document("words.json", None, b"", doc), RuleChoice())
    assert isinstance(report, SessionReport)
    found = {
        x.field: discrepancy(x.field, x.recorded, x.expected, NAMES)
        for x in report.deals[1].discrepancies
    }
    assert found == {
        "pool_start": "the pool at the deal: recorded 4, the rules give 3",
        "pool_next": "the pool carried to the next deal: recorded 9, the rules give 3",
        "tricks.bob": "bob's tricks won: recorded 1, the play gives 2",
        "tricks.cat": "Catherine Sedley's tricks won: recorded 1, the play gives 0",
        "payouts.bob": "bob's payout: recorded 1, the rules give 2",
        "payouts.cat": "Catherine Sedley's payout: recorded 1, the rules give 0",
        "looed.cat": "Catherine Sedley's loo: recorded 0, the rules give 3",
        "penalties.bob": "bob's penalty: recorded 12, the rules give 0",
        "stacks.cat": "Catherine Sedley's stack after the deal: recorded a debt of 2, "
        "the rules give 5",
    }
    kinds = {f.partition(".")[0] for f in found}
    assert kinds == set(PLAYER_FIELDS) | set(DEAL_FIELDS)  # every kind the engine has


def test_a_field_the_wording_does_not_know_still_reads_plainly() -> None:
    assert discrepancy("bonus.cat", 2, 1, NAMES) == (
        "Catherine Sedley's bonus: recorded 2, the rules give 1"
    )
    assert discrepancy("pool_extra", 2, 1) == "pool extra: recorded 2, the rules give 1"


def test_players_are_shown_by_name_and_a_shared_name_gets_its_id() -> None:
    shown = display_names(["ann", "bob", "cat", "ann2"], {**NAMES, "ann2": "Ann Pepys"})
    assert shown == {
        "ann": "Ann Pepys (ann)",
        "bob": "bob",
        "cat": "Catherine Sedley",
        "ann2": "Ann Pepys (ann2)",
    }
