"""Simulated players who play for each other (``simulate --colluders A,B[:RATE]``), the
ground truth of the collusion screen (docs/collusion.md, "Simulating colluders").

At each opportunity, with chance RATE, a colluder acts for the partner in one of the four
ways of docs/collusion.md: passes when the partner already stands and their own hand is
not strong; plays a card that lets the partner's card hold the trick rather than beat it;
plays a losing card where the partner, still to play, could win the trick; and does
either for a partner who has no trick yet, to save them from a loo.  Only the legal
cards are ever chosen (``legal_cards`` gives them), and each act is written to the truth
when it changed what the bot would have done.  The choices draw from their own generator,
so that a run without colluders keeps every draw of the game as before.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from loo_replay.engine.cards import cards_of
from loo_replay.engine.model import PASS
from loo_replay.engine.replay import Replay
from loo_replay.engine.tables import POWER
from loo_replay.engine.vocab import Action
from loo_replay.simulate.truth import Truth, TruthAct

STRONG = 3.0  # a hand of ``Bot.strength`` this high is played for its own sake, partner or not


@dataclass(frozen=True)
class Colluders:
    """``--colluders A,B[:RATE]``: two players who act for each other with chance ``rate``."""

    a: str
    b: str
    rate: float = 0.5


def parse_colluders(text: str) -> Colluders:
    pair, _, rate = text.partition(":")
    names = [n.strip() for n in pair.split(",")]
    try:
        value = float(rate) if rate else 0.5
    except ValueError:
        value = -1.0
    if len(names) != 2 or not all(names) or names[0] == names[1] or not 0.0 < value <= 1.0:
        raise ValueError(f"{text!r}: give A,B or A,B:RATE, two players, with 0 < RATE <= 1")
    return Colluders(names[0], names[1], value)


class Partners:
    """The colluding pairs at one table: who plays for whom, their acts in the truth."""

    def __init__(
        self,
        pairs: tuple[Colluders, ...],
        players: tuple[str, ...],
        truth: Truth,
        rng: random.Random,
        sid: str,
    ) -> None:
        self.players, self.truth, self.rng, self.sid = players, truth, rng, sid
        self.of: dict[int, list[tuple[int, float]]] = {}  # seat -> (partner's seat, rate)
        for c in pairs:
            a, b = players.index(c.a), players.index(c.b)
            self.of.setdefault(a, []).append((b, c.rate))
            self.of.setdefault(b, []).append((a, c.rate))

    def _act(self, r: Replay, seat: int, partner: int, behaviour: str, trick: int | None) -> None:
        self.truth.acts.append(
            TruthAct(
                self.sid,
                r.record.number,
                trick,
                self.players[seat],
                self.players[partner],
                behaviour,
            )
        )

    def declare(
        self,
        r: Replay,
        seat: int,
        actions: tuple[Action, ...],
        chosen: Action,
        strength: float,
    ) -> Action:
        """Stepping aside: a pass instead of standing beside a partner who already stands."""
        if chosen == PASS or PASS not in actions or strength >= STRONG:
            return chosen
        declared = r.result.declarations
        for partner, rate in self.of.get(seat, ()):
            if declared[partner] not in (None, PASS) and self.rng.random() < rate:
                self._act(r, seat, partner, "stepping-aside", None)
                return PASS
        return chosen

    def card(self, r: Replay, seat: int, legal: int, chosen: int) -> int:
        """A card that does not beat the trick so far, instead of ``chosen`` that does, when
        the partner holds the trick or is still to play to it; leading, the lowest card
        instead of a stronger one, for a partner in the play.  Under heading (``follow.head``)
        the first is rarely legal: the rules leave the choice open mostly on the lead."""
        state = r.state
        trick = state.trick
        if seat not in self.of:
            return chosen
        if trick is None or not trick.live:
            return self._lead(r, seat, legal, chosen)
        powers = POWER[state.pam][state.trump][trick.led]
        if powers[chosen] <= trick.win_power:
            return chosen
        low = [c for c in cards_of(legal) if powers[c] <= trick.win_power]
        if not low:
            return chosen
        holder = trick.cards[trick.win][0]
        to_play = trick.order[trick.live :]
        for partner, rate in self.of[seat]:
            if partner != holder and partner not in to_play:
                continue
            if self.rng.random() >= rate:
                continue
            if r.result.tricks_won[partner] == 0:
                behaviour = "loo-saving"
            else:
                behaviour = "not-beating" if partner == holder else "gift-tricks"
            self._act(r, seat, partner, behaviour, trick.number)
            return min(low, key=lambda c: (powers[c], c % 13))
        return chosen

    def _lead(self, r: Replay, seat: int, legal: int, chosen: int) -> int:
        state = r.state
        trick = state.trick
        number = trick.number if trick is not None else len(state.tricks) + 1
        low = min(cards_of(legal), key=lambda c: (c // 13 == state.trump, c % 13))
        if low == chosen:
            return chosen
        playing = state.playing()
        for partner, rate in self.of[seat]:
            if partner in playing and self.rng.random() < rate:
                none = r.result.tricks_won[partner] == 0
                self._act(r, seat, partner, "loo-saving" if none else "gift-tricks", number)
                return low
        return chosen
