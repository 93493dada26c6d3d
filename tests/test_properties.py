"""Property tests over simulated games, for every built-in ruleset (issue: simulated games).

Invariants: a legal game gives no findings and no discrepancies; every
injected violation is found with its code, player and trick and nothing
else is; every corrupted record is a discrepancy and nothing else is;
chips are conserved (docs/rules.md §5.4); legal sets are non-empty subsets of the
hand (docs/rules.md §3-§4); the deck is partitioned; the audit is deterministic.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import orjson
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from loo_replay.engine.cards import parse_card
from loo_replay.engine.legal import legal_cards
from loo_replay.engine.replay import Replay
from loo_replay.engine.session import DealInput
from loo_replay.logs.parse import parse_deal, parse_document
from loo_replay.logs.reader import Document
from loo_replay.output.json_document import session_json
from loo_replay.rulesets import RuleChoice, builtin, builtin_names
from loo_replay.run.audit import SessionReport, audit_document
from loo_replay.simulate import Simulator, max_players

RULESETS = builtin_names()
SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def simulations(draw: st.DrawFn, violations: float = 0.0, corrupt: float = 0.0) -> Simulator:
    ruleset = draw(st.sampled_from(RULESETS))
    options = builtin(ruleset).options
    players = draw(st.integers(3, max_players(options)))
    seed = draw(st.integers(0, 2**32))
    return Simulator(options, ruleset, players, seed, violations, corrupt)


def audit(doc: dict[str, Any]) -> SessionReport:
    report = audit_document(Document("sim.json", None, b"", doc), RuleChoice())
    assert isinstance(report, SessionReport)
    return report


@SETTINGS
@given(simulations(), st.integers(1, 12))
def test_legal_simulated_games_give_no_findings_and_no_discrepancies(
    sim: Simulator, deals: int
) -> None:
    report = audit(sim.session("legal", deals))
    for deal in report.deals:
        assert deal.status == "audited", deal.errors
        assert deal.violations == []
        assert deal.discrepancies == []


@SETTINGS
@given(simulations(violations=0.6, corrupt=0.3), st.integers(1, 12))
def test_every_injected_violation_is_found_with_its_code_player_and_trick_and_nothing_else(
    sim: Simulator, deals: int
) -> None:
    report = audit(sim.session("injected", deals))
    found = Counter(
        (d.number, v.trick, v.player, v.code) for d in report.deals for v in d.violations
    )
    truth = Counter((f.deal, f.trick, f.player, f.code) for f in sim.truth.findings)
    assert found == truth
    found_x = Counter(
        (d.number, x.field, x.recorded, x.expected) for d in report.deals for x in d.discrepancies
    )
    truth_x = Counter((x.deal, x.field, x.recorded, x.expected) for x in sim.truth.discrepancies)
    assert found_x == truth_x
    assert all(d.status != "rejected" for d in report.deals)


@SETTINGS
@given(simulations(violations=0.4), st.integers(1, 12))
def test_chips_are_conserved_at_every_deal_boundary(sim: Simulator, deals: int) -> None:
    """docs/rules.md §5.4: the sum of all stacks plus the pool equals the starting stacks."""
    doc = sim.session("chips", deals)
    total = sum(doc["session"]["chips"].values())
    for deal in audit(doc).deals:
        assert deal.stacks is not None and deal.pool_next is not None
        assert sum(deal.stacks.values()) + deal.pool_next == total


@SETTINGS
@given(simulations(violations=0.3), st.integers(1, 6))
def test_legal_sets_are_non_empty_subsets_of_the_hand_and_the_deck_is_partitioned(
    sim: Simulator, deals: int
) -> None:
    """docs/rules.md §3-§4: ``legal_cards`` never leaves a player without a card to play."""
    doc = sim.session("legal-sets", deals)
    parsed = parse_document(doc)
    assert parsed.header is not None
    options = builtin(sim.ruleset).options
    from loo_replay.engine.session import SessionReplay

    chain = SessionReplay(parsed.header.players, options, None)
    for i, raw in enumerate(parsed.raw_deals):
        dealt = [c for h in raw["hands"].values() for c in h]
        dealt += raw.get("miss", []) + ([raw["turn_up"]] if "turn_up" in raw else [])
        assert len({parse_card(c) for c in dealt}) == len(dealt)
        deal: DealInput = parse_deal(raw, f"/deals/{i}", parsed.header)
        assert deal.record is not None
        opening = chain.open_deal(deal.record.number, str(deal.dealer), deal.record.seats, None)
        replay = Replay(deal.record, options, opening.context)
        for event in deal.record.events:
            seat = replay.on_turn()
            if seat is not None and replay.state.hands[seat]:
                legal = legal_cards(replay.state, seat)
                assert legal and legal & ~replay.state.hands[seat] == 0
            replay.apply(event)
        chain.audit(deal)


@settings(max_examples=10, deadline=None)
@given(simulations(violations=0.5, corrupt=0.2), st.integers(1, 8))
def test_simulation_and_audit_are_deterministic(sim: Simulator, deals: int) -> None:
    twin = Simulator(sim.o, sim.ruleset, len(sim.players), sim.seed, sim.violations, sim.corrupt)
    first, second = sim.session("det", deals), twin.session("det", deals)
    assert orjson.dumps(first) == orjson.dumps(second)
    assert orjson.dumps(session_json(audit(first))) == orjson.dumps(session_json(audit(second)))


def test_every_code_is_injected_and_found_in_some_ruleset() -> None:
    """Over all rulesets, the simulator exercises every finding code of docs/rules.md §6."""
    from loo_replay.engine.model import FINDING_CODES

    seen: set[str] = set()
    for ruleset in RULESETS:
        options = builtin(ruleset).options
        sim = Simulator(options, ruleset, 5, 11, violations=1.0)
        report = audit(sim.session(f"all-{ruleset}", 200))
        seen |= {v.code for d in report.deals for v in d.violations}
    assert seen == set(FINDING_CODES), set(FINDING_CODES) - seen
