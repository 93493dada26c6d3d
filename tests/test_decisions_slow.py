"""The judged values agree with a slow implementation written from docs/judging-decisions.md alone.

Decisions are real: simulated sessions of built-in rulesets, played by the simulator's
bots through the engine.  For each decision the slow implementation draws the same
worlds (the public sampler, seeded as the docs say; the sampler itself is checked
against an exhaustive enumeration in test_decisions_worlds.py), builds each world as a
whole hand log of its own, plays the rest of the deal by a plain max^n recursion that
replays the log from scratch at every node and tries every legal card, settles the
deal with the engine's audit, and averages.  No table, no reduction, no shared state.

The sessions include "Pam, be civil" announced (the ace of trumps led is two moves),
discard and draw (the worlds are the hands after the exchanges, which the model does not
play), and a flush at the deal (``flush.when = "dealt"``: a declaration's world in which
a hand was dealt one is not possible); each case counts that its path was taken.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache

import pytest

from loo_replay.engine.cards import FULL_DECK, canonical, mask_of
from loo_replay.engine.judging import GIVEN_UP, MISS, judge_deal, snapshot
from loo_replay.engine.model import DealRecord, Declare, Event, Exchange, Play
from loo_replay.engine.options import Options
from loo_replay.engine.replay import DealContext, Replay
from loo_replay.engine.replay_base import DealResult
from loo_replay.engine.session import DealAudit
from loo_replay.engine.settle import settle
from loo_replay.engine.worlds import Check, Worlds
from loo_replay.rulesets import builtin
from loo_replay.simulate import Simulator
from tests.loo_helpers import audit_session, legal_choices

K = 3  # worlds a decision: the agreement is exact, world by world
# The paths a case is there for, counted as the decisions are compared.
ANNOUNCE = "announce"  # a card decision whose "+announce" option is worth another value
EXCHANGED = "exchanged"  # a card decision after another player discarded and drew
DISCARDED = "discarded"  # a card decision of a player who discarded and drew
FLUSH_DEALT = "flush_dealt"  # a declaration's world left out: a hand was dealt a flush
FLUSH_FINAL = "flush_final"  # a card's world left out: a final hand after discard and draw
BLIND = "blind"  # announcing offered where Pam lies out of play, unknown to the player


def _key(card: int, announce: bool) -> tuple[int, int, int]:
    """docs/judging-decisions.md, "The play model": lowest rank, then clubs, diamonds, hearts,
    spades, then not announcing."""
    return (card % 13, 3 - card // 13, announce)


def maxn(
    record: DealRecord, options: Options, context: DealContext, events: list[Event], judged: int
) -> DealResult:
    """The deal finished by the play model, replayed from scratch at every node."""
    replay = Replay(record, options, context)
    for event in events:
        replay.apply(event)
    replay.begin_play()
    seat = replay.on_turn()
    if seat is None:
        return replay.finish()
    best: tuple[tuple[int, int, tuple[int, int, int]], DealResult] | None = None
    for card, announce in legal_choices(replay, seat):
        child = [*events, Play(len(events), seat, card, announce)]
        result = maxn(record, options, context, child, judged)
        rank = (-result.tricks_won[seat], result.tricks_won[judged], _key(card, announce))
        if best is None or rank < best[0]:
            best = (rank, result)
    assert best is not None
    return best[1]


def _net(result: DealResult, options: Options, pool_start: int, seat: int) -> int:
    s = settle(result, options, pool_start)
    return s.payouts.get(seat, 0) - s.paid_by(seat)


def _mean(values: list[int]) -> float:
    return sum(values) / len(values)


def _rng(seed: int, session: str, record: DealRecord, index: int) -> random.Random:
    return random.Random(f"{seed}/{session}/{record.number}/{index}")


def _fill(record: DealRecord, places: dict[int, int], free: list[int]) -> DealRecord:
    """A whole deal: ``places`` (seat or MISS -> its cards as dealt), the others dealt
    from ``free``."""
    size = len(record.hands[0] or ())
    hands = []
    for seat in range(len(record.seats)):
        if seat in places:
            hands.append(tuple(c for c in range(52) if places[seat] >> c & 1))
        else:
            hands.append(tuple(free.pop() for _ in range(size)))
    miss = None
    if record.miss is not None:
        miss = (
            tuple(c for c in range(52) if places[MISS] >> c & 1)
            if MISS in places
            else tuple(free.pop() for _ in range(size))
        )
    return DealRecord(
        record.number, record.seats, record.dealer, tuple(hands), miss, record.turn_up
    )


def _flush_dealt(deal: DealRecord, options: Options, context: DealContext) -> bool:
    """docs/rules.md §2.4 and §5.3: a seated player dealt a flush that counts (every card a
    trump, or with ``any_suit`` every card one suit; in the pools ``flush.pools`` names)
    ends the deal at once, before any declaration.  Written for rules without Pam, trumps
    turned up."""
    if options.flush_kind == "none" or options.flush_when != "dealt":
        return False
    if options.flush_pools == "double" and context.single:
        return False
    assert not options.deal_pam and deal.turn_up is not None
    trump = deal.turn_up // 13
    for hand in deal.hands:
        suits = {card // 13 for card in hand or ()}
        if suits == {trump} or (options.flush_kind == "any_suit" and len(suits) == 1):
            return True
    return False


def slow_declaration(
    audit: DealAudit,
    options: Options,
    event: Declare,
    seed: int,
    session: str,
    paths: Counter[str],
) -> dict[str, float]:
    r = audit.result
    assert r is not None and audit.settlement is not None
    record = r.record
    seat = event.seat
    context = audit.context or DealContext()
    replay = Replay(record, options, context)
    declared = [e for e in record.events if isinstance(e, Declare)]
    for e in declared:
        if e.index == event.index:
            break
        replay.apply(e)
    actions = replay.legal_actions(seat)
    hand = mask_of(record.hands[seat] or ())
    unseen = FULL_DECK & ~hand & ~(1 << record.turn_up if record.turn_up is not None else 0)
    size: int = options.deal_hand_size
    sizes: dict[int, int] = {s: size for s in range(len(record.seats)) if s != seat}
    if record.miss is not None:
        sizes[MISS] = size
    worlds = Worlds(unseen, sizes, [], _rng(seed, session, record, event.index))
    nets: dict[str, list[int]] = {str(a): [] for a in actions}
    drawn = 0
    while drawn < K:
        world = worlds.draw()
        assert world is not None
        deal = _fill(record, {**world, seat: hand}, [])
        if _flush_dealt(deal, options, context):
            paths[FLUSH_DEALT] += 1
            continue  # the deal would have ended as dealt: not a possible world
        drawn += 1
        for action in actions:
            events: list[Event] = [
                Declare(e.index, e.seat, action if e.index == event.index else e.action)
                for e in declared
            ]
            result = maxn(deal, options, context, events, seat)
            nets[str(action)].append(_net(result, options, audit.settlement.pool_start, seat))
    return {k: _mean(v) for k, v in nets.items()}


@dataclass
class CardWorlds:
    """The worlds of a card decision, and each world as a whole log of its own."""

    worlds: Worlds
    replay: Replay  # the record replayed up to the decision
    whole: Callable[[dict[int, int]], DealRecord]
    flushes: bool
    final_flushes: bool  # with discard and draw: no active player's final hand a flush
    before: list[Event]  # the events before the decision, as a whole log replays them
    rules: Options  # the options a whole log is replayed with
    unseen: int  # the cards the player has not seen


def card_worlds(
    audit: DealAudit, options: Options, event: Play, seed: int, session: str
) -> CardWorlds:
    r = audit.result
    assert r is not None and audit.settlement is not None
    record = r.record
    seat = event.seat
    context = audit.context or DealContext()
    before = [e for e in record.events if e.index < event.index]
    replay = Replay(record, options, context)
    checks_at: list[tuple[Play, object]] = []
    for e in before:
        if isinstance(e, Play):
            replay.begin_play()
            checks_at.append((e, snapshot(replay.state)))
        replay.apply(e)
    replay.begin_play()
    state = replay.state
    played_by: dict[int, int] = {}
    for e in before:
        if isinstance(e, Play):
            played_by[e.seat] = played_by.get(e.seat, 0) | 1 << e.card
    seen = mask_of(record.hands[seat] or ()) | state.hands[seat] | state.played | state.turned
    if r.miss_taker == seat:
        seen |= mask_of(record.miss or ())
    unseen = FULL_DECK & ~seen
    playing = state.playing()
    sizes = {s: state.hands[s].bit_count() for s in playing if s != seat}
    checks = []
    for e, snap in checks_at:
        if e.seat == seat:
            continue
        later = 0
        for f, _ in checks_at:
            if f.seat == e.seat and f.index >= e.index:
                later |= 1 << f.card
        checks.append(Check(snap, e.seat, e.card, later))  # type: ignore[arg-type]
    # With discard and draw the hands as dealt are not part of a world: no flush at the
    # deal leaves worlds out, only one in the final hands (docs/judging-decisions.md §2).
    exchange = options.deal_exchange
    flushes = options.flush_kind != "none" and not exchange
    if flushes:  # every place is drawn: a flush shown by none must be in no hand
        for s in range(len(record.seats)):
            if s != seat and s not in sizes:
                sizes[s] = options.deal_hand_size
        if r.miss_taker is None and record.miss is not None:
            sizes[MISS] = options.deal_hand_size
        elif r.miss_taker is not None and r.miss_taker != seat:
            sizes[GIVEN_UP] = options.deal_hand_size
    worlds = Worlds(unseen, sizes, checks, _rng(seed, session, record, event.index))

    def whole(world: dict[int, int]) -> DealRecord:
        # each player's hand as dealt is their hand now and the cards they have played
        # (with discard and draw: the hand after the exchanges, dealt as such);
        # whoever took the Miss holds it; the rest from the unseen
        places: dict[int, int] = {seat: state.hands[seat] | played_by.get(seat, 0)}
        for s, h in world.items():
            places[s] = h | played_by.get(s, 0)
        if r.miss_taker is not None:
            places[MISS] = places.pop(r.miss_taker)
            if r.miss_taker == seat:
                places[seat] = mask_of(record.hands[seat] or ())
            else:
                places[r.miss_taker] = places.pop(GIVEN_UP, 0) if flushes else 0
                if not places[r.miss_taker]:
                    del places[r.miss_taker]
        used = 0
        for h in places.values():
            used |= h
        free = [c for c in range(52) if (unseen & ~used) >> c & 1]
        return _fill(record, places, free)

    # With discard and draw, a world's log deals each hand as it stood after the exchanges
    # and exchanges nothing; the model finishes every world by play, so the flush step,
    # which would judge those hands, is left out of its replay (settled with the rules).
    logged = [e for e in before if not (exchange and isinstance(e, Exchange))]
    rules = options.override({"flush.kind": "none"}) if exchange else options
    final = exchange and options.flush_kind != "none" and options.flush_when == "declared"
    return CardWorlds(worlds, replay, whole, flushes, final, logged, rules, unseen)


def slow_card(
    audit: DealAudit, options: Options, event: Play, seed: int, session: str, paths: Counter[str]
) -> dict[str, float]:
    r = audit.result
    assert r is not None and audit.settlement is not None
    record = r.record
    seat = event.seat
    context = audit.context or DealContext()
    cw = card_worlds(audit, options, event, seed, session)
    nets: dict[str, list[int]] = {}
    drawn = 0
    while drawn < K:
        world = cw.worlds.draw()
        assert world is not None
        deal = cw.whole(world)
        if cw.flushes:
            again = Replay(deal, options, context)
            for e in record.events:
                if isinstance(e, Declare):
                    again.apply(e)
            again.begin_play()
            if again.on_turn() is None:
                continue  # a flush would have ended the deal: not a possible world
        if cw.final_flushes:  # the world's hands are the final ones, dealt as such
            again = Replay(deal, options.override({"deal.exchange": False}), context)
            for e in record.events:
                if isinstance(e, Declare):
                    again.apply(e)
            again.begin_play()
            if again.on_turn() is None:
                paths[FLUSH_FINAL] += 1
                continue  # a flush after declaring would have ended the deal
        drawn += 1
        choices = legal_choices(cw.replay, seat, cw.unseen)  # as the player knew them
        solver = legal_choices(cw.replay, seat)  # announcing only where Pam is in play
        paths[BLIND] += any(a for _, a in choices) and not any(a for _, a in solver)
        for card, announce in choices:
            key = canonical(card) + ("+announce" if announce else "")
            events: list[Event] = [*cw.before, Play(event.index, seat, card, announce)]
            result = maxn(deal, cw.rules, context, events, seat)
            net = _net(result, options, audit.settlement.pool_start, seat)
            nets.setdefault(key, []).append(net)
    return {k: _mean(v) for k, v in nets.items()}


Rules = tuple[tuple[str, object], ...]  # options changed from the ruleset's, as the log says


@cache
def _sessions(
    ruleset: str, players: int, seed: int, rules: Rules = ()
) -> tuple[tuple[DealAudit, Options, str], ...]:
    options = builtin(ruleset).options.override(dict(rules))
    doc = Simulator(options, ruleset, players, seed).session(f"sim-{seed}", 12)
    if rules:
        doc["session"]["rules"] = dict(rules)
    report = audit_session(doc)
    assert report.options == options
    return tuple((d, report.options, report.id) for d in report.deals)


def _exchanged(record: DealRecord, event: Play) -> tuple[bool, bool]:
    """Whether, before ``event``, another player and its own player discarded and drew."""
    cards = [e for e in record.events if isinstance(e, Exchange) and e.draw]
    other = any(e.seat != event.seat and e.index < event.index for e in cards)
    own = any(e.seat == event.seat and e.index < event.index for e in cards)
    return other, own


# Three-card rulesets without discard and draw: a Miss or none, Pam, flushes, trumps by the
# lead; then the paths those leave out, each case with the paths it must take.  In five-card
# deals the slow recursion takes seconds a decision at the first trick: cards from the second.
FROM_TRICK = 2
CASES = [
    pytest.param("three-card", 4, 1, (), frozenset(), id="three-card-4"),
    pytest.param("three-card", 3, 2, (), frozenset(), id="three-card-3"),
    pytest.param("hoyle-pam", 4, 3, (), frozenset(), id="hoyle-pam-4"),
    pytest.param("hoyle-flushes", 3, 4, (), frozenset(), id="hoyle-flushes-3"),
    pytest.param("modern-irish", 4, 5, (), frozenset(), id="modern-irish-4"),
    pytest.param(
        "hoyle-pam",
        4,
        33,
        (("follow.pam_civil", "announced"),),
        frozenset({ANNOUNCE, BLIND}),
        id="hoyle-pam-announced-4",
    ),
    pytest.param(
        "hoyle-irish", 4, 1, (), frozenset({EXCHANGED, DISCARDED}), id="hoyle-irish-exchange-4"
    ),
    pytest.param(
        "hoyle-flushes",
        4,
        1,
        (("flush.when", "dealt"), ("flush.pools", "all")),
        frozenset({FLUSH_DEALT}),
        id="hoyle-flushes-dealt-4",
    ),
    pytest.param(
        "five-card", 3, 1, (), frozenset({EXCHANGED, DISCARDED}), id="five-card-exchange-3"
    ),
    pytest.param(
        "modern-pam", 3, 2, (), frozenset({EXCHANGED, DISCARDED, FLUSH_FINAL}), id="modern-pam-3"
    ),
]


@pytest.mark.parametrize(("ruleset", "players", "seed", "rules", "paths"), CASES)
def test_fast_values_equal_the_slow_implementation(
    ruleset: str, players: int, seed: int, rules: Rules, paths: frozenset[str]
) -> None:
    """Every judged decision of a simulated session: each option's value equals the slow
    implementation's, on the same worlds (docs/judging-decisions.md §2-§4); and the
    case's paths (an announcement, discard and draw, a flush at the deal) were taken."""
    taken: Counter[str] = Counter()
    compared = 0
    for audit, options, session in _sessions(ruleset, players, seed, rules):
        judged = judge_deal(audit, options, K, 7, session)
        if judged.status != "judged":
            continue
        assert audit.result is not None
        record = audit.result.record
        if options.deal_exchange and not audit.result.must:  # the docs, §1
            assert judged.declarations == "exchange"
            assert all(d.kind == "card" for d in judged.items)
        by_index = {e.index: e for e in record.events}
        for d in judged.items:
            event = by_index[d.index]
            if isinstance(event, Declare):
                slow = slow_declaration(audit, options, event, 7, session, taken)
            else:
                assert isinstance(event, Play) and d.trick is not None
                if options.deal_hand_size == 5 and d.trick < FROM_TRICK:
                    continue
                slow = slow_card(audit, options, event, 7, session, taken)
                other, own = _exchanged(record, event)
                taken[EXCHANGED] += other
                taken[DISCARDED] += own
            fast = {o.key: o.value for o in d.options}
            assert fast == pytest.approx(slow, abs=1e-9), (session, audit.number, d)
            taken[ANNOUNCE] += any(
                fast[k] != fast[k.removesuffix("+announce")]
                for k in fast
                if k.endswith("+announce")
            )
            compared += 1
    assert compared >= 25
    for path in paths:
        assert taken[path] >= 1, (path, taken)


def test_the_cases_take_every_path() -> None:
    """An announcement, discard and draw by others and by the judged player, and a flush
    at the deal: each is some case's path."""
    taken: set[str] = set()
    for case in CASES:
        paths = case.values[4]
        assert isinstance(paths, frozenset)
        taken |= paths
    assert taken == {ANNOUNCE, BLIND, EXCHANGED, DISCARDED, FLUSH_DEALT, FLUSH_FINAL}
