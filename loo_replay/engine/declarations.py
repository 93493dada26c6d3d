"""The rules of declaring (docs/rules.md §2.5-2.6), apart from the replay that applies them.

``Declaring`` holds one deal's table (the options, the seats clockwise from eldest, the
dealer, whether the pool is single) and answers, from the declarations made so far: whose
turn it is, who may not pass and why, whether the dealer may defend, which declarations a
seat may make, whose declaration is missing, why a Miss may not be taken, and, once all
have declared, who plays and how the deal goes on.  It changes nothing: ``engine.replay``
applies each declaration event and records the violations; the simulator, the recorder
and the judging of decisions ask ``Replay.legal_actions``, which asks this.
"""

from __future__ import annotations

import cython

from loo_replay.engine.model import DEFEND, PASS, PLAY, TAKE_MISS
from loo_replay.engine.options import Options
from loo_replay.engine.vocab import Action, Outcome

_PLAYED, _ALL_PASSED, _UNOPPOSED = Outcome.PLAYED, Outcome.ALL_PASSED, Outcome.UNOPPOSED

Declarations = list[Action | None]  # a seat's declaration, None while it has not declared


@cython.cclass
class Declaring:
    """One deal's table, as the rules of declaring see it."""

    o: Options
    single: cython.bint
    dealer: cython.int
    clockwise: list[int]
    names: tuple[str, ...]

    def __init__(
        self, o: Options, single: bool, dealer: int, clockwise: list[int], names: tuple[str, ...]
    ) -> None:
        self.o = o
        self.single = single
        self.dealer = dealer
        self.clockwise = clockwise  # eldest first, the dealer last
        self.names = names

    def turn(self, decl: Declarations) -> int:
        """The seat whose turn it is to declare: the first clockwise not yet declared, or -1."""
        for seat in self.clockwise:
            if decl[seat] is None:
                return seat
        return -1

    def forced_reason(self, decl: Declarations, seat: int) -> str | None:
        """Why ``seat`` may not pass outside a must deal, given the declarations before his
        (§2.5: ``dealer_defends``, ``last_must_play_single``); None if he may."""
        o = self.o
        others = self.clockwise[:-1]
        if seat == self.dealer and o.declare_dealer_defends:
            standing = [s for s in others if decl[s] not in (PASS, None)]
            if len(standing) == 1 and decl[standing[0]] == PLAY:
                return (
                    f"with {self.names[standing[0]]} alone standing on their own hand, the "
                    "dealer must play, take the Miss or defend the pool"
                )
        if (
            o.declare_last_must_play_single
            and self.single
            and seat in (self.dealer, others[-1])
            and all(decl[s] == PASS for s in others[:-1])
        ):
            return "in a single pool that all before them passed, the last player and the dealer must play"
        return None

    def defend_allowed(self, decl: Declarations) -> bool:
        """The dealer may defend: exactly one other stands, on his own hand (§2.5)."""
        standing = [s for s in self.clockwise[:-1] if decl[s] not in (None, PASS)]
        return len(standing) == 1 and decl[standing[0]] == PLAY

    def actions(
        self, decl: Declarations, seat: int, *, must: bool, miss_open: bool
    ) -> tuple[Action, ...]:
        """The declarations ``seat`` may make now without a violation or a log error;
        ``miss_open``: a Miss was dealt and nobody has taken it."""
        if must:
            return (PLAY,)
        actions = [PLAY]
        if self.forced_reason(decl, seat) is None:
            actions.append(PASS)
        if miss_open:
            actions.append(TAKE_MISS)
            if seat == self.dealer and self.defend_allowed(decl):
                actions.append(DEFEND)
        return tuple(actions)

    def miss_problem(
        self,
        decl: Declarations,
        seat: int,
        action: Action,
        *,
        must: bool,
        miss_dealt: bool,
        miss_taker: int | None,
    ) -> str | None:
        """Why ``seat`` may not take the Miss or defend with it (a log error: the deal cannot
        have happened so), or None."""
        who = self.names[seat]
        if not miss_dealt:
            return f"{who} declares {action}, but no Miss was dealt"
        if must:
            return f"{who} takes the Miss in a must deal"
        if miss_taker is not None:
            return f"{who} takes the Miss, already taken by {self.names[miss_taker]}"
        if action == DEFEND:
            if seat != self.dealer:
                return f"{who} defends, but only the dealer may"
            if not self.defend_allowed(decl):
                return (
                    f"{who} defends, but the dealer defends only against exactly one player "
                    "standing on their own hand"
                )
        return None

    def missing(self, decl: Declarations, must: bool) -> int:
        """A seat whose declaration the record lacks when the declarations close, or -1: in a
        must deal none is needed, and the dealer need not declare when all before passed."""
        if must:
            return -1
        others = self.clockwise[:-1]
        for seat in self.clockwise:
            if decl[seat] is None:
                if seat == self.dealer and all(decl[s] == PASS for s in others):
                    continue
                return seat
        return -1

    def outcome(self, decl: Declarations, must: bool) -> tuple[list[int], Outcome]:
        """The seats in the play, clockwise from eldest, and how the deal goes on (§2.6):
        played, everyone passed, or one player unopposed."""
        active = [s for s in self.clockwise if decl[s] != PASS]
        if not must:
            active = [s for s in active if decl[s] is not None]
        if not active or active == [self.dealer]:
            return active, _ALL_PASSED
        if len(active) == 1:
            return active, _UNOPPOSED
        return active, _PLAYED
