"""A card played out of turn is dead: it leaves its player's hand and counts as played,
whatever its suit (docs/rules.md §6, the `out-of-turn` finding).

The compiled replay had shifted a C int to find the card's bit, so a dead card past bit 31
(every club, the high diamonds) stayed in the hand and another card was marked played; the
pure build was right.  Deal 2 of the five-card sample is such a deal: Ann plays 3♣ out of
turn.  These run in whichever build the suite runs (compiled in ``make test``).
"""

from __future__ import annotations

from pathlib import Path

from loo_replay.engine.cards import parse_card
from loo_replay.engine.vocab import Status
from loo_replay.replayer.steps import build_replay
from loo_replay.run.audit import SessionReport
from tests.loo_helpers import audited

ROOT = Path(__file__).resolve().parents[1]


def _dead_steps() -> list[tuple[str, int, int, tuple[int, ...], tuple[int, ...]]]:
    """Every dead card of the sample logs: (session, deal, card, held before, hand after)."""
    found = []
    for report in audited([ROOT / "sample_logs"]):
        assert isinstance(report, SessionReport)
        for deal in report.deals:
            if deal.status == Status.REJECTED or deal.result is None:
                continue  # nothing to replay
            replay = build_replay(report, deal, analyse=False)
            for step in replay.steps:
                if step.kind != "play" or step.trick is None or step.seat is None:
                    continue
                if step.card is not None and (step.seat, step.card, True) in step.trick.plays:
                    after = step.hands[step.seat]
                    found.append((report.id, replay.number, step.card, step.held, after))
    return found


def test_a_club_played_out_of_turn_leaves_the_hand() -> None:
    dead = {(s, n, c): (held, after) for s, n, c, held, after in _dead_steps()}
    held, after = dead[("pam-loo-2026-11-23", 2, parse_card("3C"))]
    assert parse_card("3C") in held
    assert parse_card("3C") not in after
    assert set(after) == set(held) - {parse_card("3C")}


def test_every_dead_card_leaves_the_hand_and_no_other_card_does() -> None:
    dead = _dead_steps()
    assert any(card >= 32 for _, _, card, _, _ in dead)  # a card past a C int's bits
    for _session, _deal, card, held, after in dead:
        assert set(after) == set(held) - {card}
