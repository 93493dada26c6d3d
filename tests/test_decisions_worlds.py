"""The worlds are drawn uniformly among the possible ones: docs/judging-decisions.md §2.

Real decisions late in simulated three-card deals, where the players still to be
guessed hold two cards between them: every assignment of the unseen cards to their
hands is enumerated, each replayed as a whole log by the engine (possible when no card
played so far breaks a rule), and the sampler's draws are compared with that exact set:
each draw is possible, and how often each card falls to each player matches the exact
share (Pearson's chi-square, a fixed seed: the same verdict every run).
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import combinations
from typing import Any

from loo_replay.engine.judging import judge_deal
from loo_replay.engine.model import Play
from loo_replay.engine.options import Options
from loo_replay.engine.replay import DealContext, Replay
from loo_replay.engine.session import DealAudit
from tests.test_decisions_slow import CardWorlds, _sessions, card_worlds

DRAWS = 6000


World = tuple[tuple[int, int], ...]


def _possible(cw: CardWorlds, audit: DealAudit, options: Options, event: Play) -> set[World]:
    """Every assignment of the unseen cards to the hands sought that replays without a
    rule broken up to the decision."""
    sizes = cw.worlds.sizes
    unseen = [c for c in range(52) if cw.worlds.unseen >> c & 1]
    places = sorted(sizes)
    out: set[World] = set()
    assert audit.result is not None
    events = audit.result.record.events

    def assign(i: int, free: list[int], world: dict[int, int]) -> None:
        if i == len(places):
            replay = Replay(cw.whole(world), options, audit.context or DealContext())
            for e in events:
                if e.index >= event.index:
                    break
                applied = replay.apply(e)
                if applied.violations or applied.error is not None:
                    return
            out.add(tuple(sorted(world.items())))
            return
        for hand in combinations(free, sizes[places[i]]):
            mask = sum(1 << c for c in hand)
            assign(i + 1, [c for c in free if c not in hand], {**world, places[i]: mask})

    assign(0, unseen, {})
    return out


def _decisions() -> Iterator[tuple[CardWorlds, DealAudit, Options, Play]]:
    """Card decisions where the hands sought hold 2 cards in all and play has shown
    something (some card is barred to someone)."""
    for seed in range(1, 30):
        for audit, options, session in _sessions("three-card", 3, seed):
            judged = judge_deal(audit, options, 1, 0, session)
            if judged.status != "judged":
                continue
            assert audit.result is not None
            events = {e.index: e for e in audit.result.record.events}
            for d in judged.items:
                event = events[d.index]
                if not isinstance(event, Play):
                    continue
                cw = card_worlds(audit, options, event, 0, session)
                w = cw.worlds
                if sum(w.sizes.values()) == 2 and any(w.allowed[p] != w.unseen for p in w.sizes):
                    yield cw, audit, options, event


def test_the_draws_are_possible_and_uniform(stats: Any) -> None:
    tested = 0
    for cw, audit, options, event in _decisions():
        exact = _possible(cw, audit, options, event)
        assert exact
        counts: dict[tuple[int, int], int] = {}
        for _ in range(DRAWS):
            world = cw.worlds.draw()
            assert world is not None
            key = tuple(sorted(world.items()))
            assert key in exact
            for place, hand in key:
                for card in range(52):
                    if hand >> card & 1:
                        counts[place, card] = counts.get((place, card), 0) + 1
        share: dict[tuple[int, int], float] = {}
        for key in exact:
            for place, hand in key:
                for card in range(52):
                    if hand >> card & 1:
                        share[place, card] = share.get((place, card), 0) + 1 / len(exact)
        assert set(counts) <= set(share)
        cells = [(counts.get(k, 0), DRAWS * v) for k, v in share.items()]
        big = [(o, e) for o, e in cells if e >= 5]
        chi = sum((o - e) ** 2 / e for o, e in big)
        p = stats.chi2.sf(chi, len(big) - len(cw.worlds.sizes))
        assert p > 1e-4, (p, len(exact))
        tested += 1
        if tested == 3:
            break
    assert tested == 3
