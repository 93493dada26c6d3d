"""The solver is exact: docs/analysis.md, "What a player can make sure of"'s guarantee G against a plain minimax.

Positions are real: a simulated session of a built-in ruleset is played by
the simulator's bots through the engine, and a deal's recorded play is cut
short of its end.  The plain minimax knows nothing of the solver: it
replays the record from scratch for every node and tries every card that
``legal_cards`` allows there (and both choices of an announced "Pam, be
civil"), with no pruning, no table, no reduction.
"""

from __future__ import annotations

from functools import cache

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from loo_replay.engine.analysis import analyse_deal, start_of_play
from loo_replay.engine.cards import PAM
from loo_replay.engine.model import DealRecord, Event, Play
from loo_replay.engine.options import Options
from loo_replay.engine.replay import DealContext, Replay
from loo_replay.engine.session import DealAudit
from loo_replay.engine.solver import ANNOUNCE, Search, taker
from loo_replay.engine.tables import NO_TRUMP
from loo_replay.logs.reader import Document
from loo_replay.rulesets import RuleChoice, builtin, builtin_names
from loo_replay.run.audit import SessionReport, audit_document
from loo_replay.simulate import Simulator, max_players
from tests.loo_helpers import audit_session, legal_choices


def _replay(
    record: DealRecord, options: Options, context: DealContext, events: list[Event]
) -> Replay:
    replay = Replay(record, options, context)
    for event in events:
        replay.apply(event)
    replay.begin_play()
    return replay


def minimax(
    record: DealRecord, options: Options, context: DealContext, events: list[Event]
) -> dict[int, int]:
    """Each playing seat's paranoid value: the most tricks he can make sure of, all the
    others against him, by trying every line of play to the end."""
    replay = _replay(record, options, context, events)
    seat = replay.on_turn()
    playing = replay.state.playing()
    if seat is None:
        return {s: replay.result.tricks_won[s] for s in playing}
    values = [
        minimax(record, options, context, [*events, Play(len(events), seat, card, announce)])
        for card, announce in legal_choices(replay, seat)
    ]
    return {
        s: max(v[s] for v in values) if s == seat else min(v[s] for v in values) for s in playing
    }


@cache
def _deals(ruleset: str, players: int, seed: int) -> tuple[tuple[DealAudit, Options], ...]:
    """Deals of a simulated session that reach play with trumps known to the solver."""
    options = builtin(ruleset).options
    doc = Simulator(options, ruleset, players, seed).session(f"sim-{seed}", 12)
    report = audit_session(doc)
    assert report.options is not None
    out = []
    for deal in report.deals:
        r = deal.result
        if deal.status != "audited" or r is None or r.outcome != "played":
            continue
        if r.trump == NO_TRUMP and options.deal_trump != "first_lead":
            continue  # trumps fixed by a turn during play (on_void): not analysed
        out.append((deal, report.options))
    return tuple(out)


RULESETS = builtin_names()


@st.composite
def positions(
    draw: st.DrawFn, ruleset: str
) -> tuple[DealRecord, Options, DealContext, list[Event]]:
    options = builtin(ruleset).options
    players = draw(st.integers(3, min(6, max_players(options))))
    deals = _deals(ruleset, players, draw(st.integers(1, 40)))
    if not deals:
        return draw(positions(ruleset))
    deal, options = draw(st.sampled_from(deals))
    r = deal.result
    assert r is not None
    record = r.record
    plays = [i for i, e in enumerate(record.events) if isinstance(e, Play)]
    per_trick = len(r.active)
    tricks_left = draw(st.integers(1, 3 if per_trick <= 4 else 2))
    cut = max(0, len(plays) - tricks_left * per_trick)
    cut = draw(st.integers(cut, len(plays) - 1))
    events = list(record.events[: plays[cut]])
    return record, options, deal.context or DealContext(), events


@pytest.mark.parametrize("ruleset", RULESETS)
@settings(
    max_examples=250,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(data=st.data())
def test_guarantee_equals_plain_minimax_every_ruleset(ruleset: str, data: st.DataObject) -> None:
    """docs/analysis.md, "What a player can make sure of": G(P) for every player, and for the mover after each of his legal
    cards, equals the plain minimax value, in real positions of each built-in ruleset."""
    record, options, context, events = data.draw(positions(ruleset))
    replay = _replay(record, options, context, events)
    expected = minimax(record, options, context, events)
    search = Search(replay, 10**9)
    for seat, value in expected.items():
        assert search.won[seat] + search.future(seat) == value, (seat, events)
    seat = search.to_move()
    for move in search.legal_moves():
        card, announce = move & 63, bool(move & ANNOUNCE)
        child = [*events, Play(len(events), seat, card, announce)]
        undo = search.play(move)
        got = search.won[seat] + (taker(undo) == seat) + search.future(seat)
        search.unplay(undo)
        assert got == minimax(record, options, context, child)[seat], (move, events)


def test_pam_reaches_the_positions_it_should() -> None:
    """The generator is not blind to Pam: some simulated deals hold him in play."""
    held = 0
    for seed in range(1, 6):
        for deal, _ in _deals("five-card", 5, seed):
            assert deal.result is not None
            held += any(h >> PAM & 1 for h in deal.result.hands) or any(
                c == PAM for t in deal.result.tricks for _, c, _, _ in t.cards
            )
    assert held > 0


@pytest.mark.parametrize("ruleset", RULESETS)
def test_the_start_of_play_kept_by_the_audit_gives_the_same_analysis_analysis_1(
    ruleset: str,
) -> None:
    """docs/analysis.md, "How it works": an audit that keeps the start of play (``start_of_play``, as ingest
    and analyse do) spares the analysis its own replay; every deal, clean or with findings
    (which replay again, to stop at the first), gets the analysis the replay gives."""
    options = builtin(ruleset).options
    players = min(5, max_players(options))
    doc = Simulator(options, ruleset, players, 11, violations=0.2).session("sim", 30)
    plain = audit_session(doc)
    keeping = audit_document(Document("test.json", None, b"", doc), RuleChoice(), start_of_play)
    assert isinstance(keeping, SessionReport) and plain.options is not None
    kept = [d for d in keeping.deals if d.result is not None and d.result.at_play is not None]
    assert any(not d.violations for d in kept) and any(d.violations for d in kept)
    for before, after in zip(plain.deals, keeping.deals, strict=True):
        assert before.result is None or before.result.at_play is None
        expected = analyse_deal(before, plain.options)
        assert analyse_deal(after, plain.options) == expected
        if after in kept and not after.violations:
            assert after.result is not None and after.result.at_play is None  # used once
