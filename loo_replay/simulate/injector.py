"""What a simulation breaks on purpose: one violation in a deal where asked (a card outside
the legal set, a card out of turn, a pass where play is forced, ...), and a recorded block
corrupted where asked, each written to the ground truth with its deal, trick and player."""

from __future__ import annotations

import random
from typing import Any

from loo_replay.engine.cards import cards_of
from loo_replay.engine.flush import is_flush
from loo_replay.engine.legal import breach
from loo_replay.engine.model import PASS
from loo_replay.engine.replay import Replay
from loo_replay.engine.tables import NO_TRUMP
from loo_replay.engine.vocab import Action
from loo_replay.simulate.truth import Truth, TruthDiscrepancy, TruthFinding

INJECTABLE = (
    "revoke",
    "out-of-turn",
    "declare-out-of-turn",
    "forced-play",
    "misdeal",
    "trump-turn",
    "false-flush",
    "dealer-rotation",
)
RARE_REVOKES = frozenset(
    {"pam-be-civil", "must-overtrump", "trump-after-trick", "head-trick", "lead-highest-trump"}
)


def pick_code(rng: random.Random, share: float) -> str | None:
    """The violation a deal is to carry, with chance ``share``; None for none."""
    if not share or rng.random() >= share:
        return None
    return rng.choice(INJECTABLE)


def corrupt_record(
    rec: dict[str, Any],
    rng: random.Random,
    share: float,
    players: tuple[str, ...],
    truth: Truth,
    sid: str,
    number: int,
) -> None:
    """With chance ``share``, add a few chips to one amount of the recorded block ``rec``:
    its ``pool_next``, or a player's payout or stack."""
    if not share or rng.random() >= share:
        return
    target = rng.choice(["pool_next", "payouts", "stacks"])
    if target == "pool_next":
        expected = int(rec["pool_next"])
        rec["pool_next"] = expected + rng.randint(1, 5)
        truth.discrepancies.append(
            TruthDiscrepancy(sid, number, "pool_next", rec["pool_next"], expected)
        )
    else:
        player = rng.choice(players)
        amounts = rec.setdefault(target, {})
        expected = int(amounts.get(player, 0))
        amounts[player] = expected + rng.randint(1, 5)
        truth.discrepancies.append(
            TruthDiscrepancy(sid, number, f"{target}.{player}", amounts[player], expected)
        )


class Injector:
    """The one violation a deal is to carry: injected at its first chance, then written to
    the ground truth with its deal, trick, player and code."""

    def __init__(
        self, code: str | None, replay: Replay, rng: random.Random, truth: Truth, sid: str
    ) -> None:
        self.code = code
        self.r = replay
        self.rng = rng
        self.truth = truth
        self.sid = sid

    def due(self, code: str) -> bool:
        return self.code == code

    def found(self, code: str, seat: int, trick: int | None) -> None:
        self.code = None
        self.truth.findings.append(
            TruthFinding(self.sid, self.r.record.number, trick, self.r.record.seats[seat], code)
        )

    def early_declarer(self, order: list[int]) -> int | None:
        """``declare-out-of-turn``: a seat that swaps places with the one after it (never the
        last non-dealer or the dealer), taken out of ``order``."""
        if not self.due("declare-out-of-turn") or self.r.result.must or len(order) < 4:
            return None
        i = self.rng.randrange(len(order) - 3)
        order[i], order[i + 1] = order[i + 1], order[i]
        return order.pop(i)

    def forced_pass(self, seat: int, actions: tuple[Action, ...]) -> bool:
        """``forced-play``: a pass where the rules allow none."""
        if self.due("forced-play") and PASS not in actions:
            self.found("forced-play", seat, None)
            return True
        return False

    def false_flush(self) -> int | None:
        """``false-flush``: the first player in the play whose hand is no flush shows one."""
        state = self.r.state
        if not self.due("false-flush"):
            return None
        for seat in self.r.clockwise:
            if not is_flush(state.hands[seat], state.trump, state.options):
                self.found("false-flush", seat, None)
                return seat
        return None

    def rogue(self, seat: int, trick_no: int) -> tuple[int, int] | None:
        """``out-of-turn``: a player still to play this trick plays before ``seat``."""
        state = self.r.state
        trick = state.trick
        if not self.due("out-of-turn") or trick is None or not trick.live:
            return None
        done = {s for s, _, _, _ in trick.cards}
        others = [s for s in state.playing() if s != seat and s not in done]
        if not others:
            return None
        rogue = self.rng.choice(others)
        card = self.rng.choice(list(cards_of(state.hands[rogue])))
        self.found("out-of-turn", rogue, trick_no)
        return rogue, card

    def revoke(self, seat: int, legal: int, trick_no: int) -> int | None:
        """A card outside ``legal``: a rare code whenever one is on offer, otherwise now and
        then, so that over many deals every code turns up."""
        if not self.due("revoke"):
            return None
        state = self.r.state
        by_code: dict[str, list[int]] = {}
        for card in cards_of(state.hands[seat] & ~legal):
            code = breach(state, seat, card)
            assert code is not None
            by_code.setdefault(code, []).append(card)
        if not by_code:
            return None
        rare = [c for c in by_code if c in RARE_REVOKES]
        if not rare and self.rng.random() > 0.35:
            return None
        code = self.rng.choice(rare or sorted(by_code))
        card = self.rng.choice(by_code[code])
        self.found(code, seat, trick_no)
        return card

    def trump_turn(self, trick_no: int, due: bool) -> bool | None:
        """``trump-turn``: a due turn left out (False), or one where none is due (True);
        None when nothing is injected."""
        r = self.r
        if not self.due("trump-turn"):
            return None
        if due:
            self.found("trump-turn", r.record.dealer, trick_no)
            return False
        if r.state.trump == NO_TRUMP and trick_no > 1 and r.method == "on_void":
            self.found("trump-turn", r.record.dealer, trick_no)
            return True
        return None
