"""Replay one recorded deal event by event: docs/rules.md §2, with §3-§4 via ``legal``.

``Replay`` is an event-sourced state machine: ``apply`` takes one event and
updates ``state``; the replayer renders the state after each event, the
validator only wants ``run``'s ``DealResult``.  Rule breaches become
``Violation`` data and play goes on; a record that cannot be a real game
stops the replay with a ``LogError`` and the deal is rejected.

The steps are split by the kind of event, one class deriving from the other:
``engine.replay_base`` holds the state and the deal itself, ``engine.replay_declaring`` the
declarations, exchanges and flushes shown, and this module drives them and replays the
play (cards, tricks, trump turns).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NoReturn

import cython

from loo_replay.engine.cards import display, display_cards
from loo_replay.engine.legal import add_card, breach, describe_play, explain, legal_cards
from loo_replay.engine.model import (
    DEAD,
    UNCHECKED_CHECKS,
    Applied,
    DealRecord,
    Declare,
    Event,
    Exchange,
    Play,
    ShowFlush,
    Trick,
    TurnUp,
)
from loo_replay.engine.options import Method, Options
from loo_replay.engine.replay_base import (
    DECLARING,
    OVER,
    PLAYING,
    DealContext,
    DealPlan,
    DealResult,
    Rejected,
    deal_plan,
)
from loo_replay.engine.replay_declaring import DeclaringReplay
from loo_replay.engine.state import DealState
from loo_replay.engine.tables import NO_TRUMP
from loo_replay.engine.vocab import Outcome, Phase, Status

_AUDITED = Status.AUDITED
_PLAYED, _ALL_PASSED, _UNOPPOSED = Outcome.PLAYED, Outcome.ALL_PASSED, Outcome.UNOPPOSED

AtPlay = Callable[["Replay"], object]  # see ``Replay.run``

# What the engine's readers import from here, wherever it is defined.  Not ``DealResult``:
# this module cimports it, so compiled it is no name of this module (import it from
# ``engine.replay_base``).
__all__ = [
    "DECLARING",
    "OVER",
    "PLAYING",
    "AtPlay",
    "DealContext",
    "DealPlan",
    "Replay",
    "deal_plan",
    "replay_deal",
]


class Replay(DeclaringReplay):
    """The deal as it unfolds; ``state`` is valid after every ``apply``."""

    # -- read-only views of the internals -------------------------------------

    @property
    def phase(self) -> Phase:
        return self._phase

    @property
    def method(self) -> Method:
        """How trumps are fixed in this deal (``deal.trump`` or ``deal.trump_in_must``)."""
        return self._method

    @property
    def leader(self) -> int:
        """Who leads the next trick (-1 before play)."""
        return self._leader

    @property
    def turn_due(self) -> bool:
        """``on_void``: a player could not follow, so a trump turn is due before the next trick."""
        return self._turn_due

    # -- driving -----------------------------------------------------------

    def run(self, at_play: AtPlay | None = None) -> DealResult:
        """Replay every event.  ``at_play`` is called with the replay when play begins (the
        declarations closed, no card played yet), and what it gives is kept in
        ``result.at_play``: the analysis takes its position there instead of replaying the
        deal a second time.  (A hook kept on the replay would cost every deal: one more
        attribute ends the instance's shared-key dictionary.)"""
        for event in self.record.events:
            if at_play is not None and isinstance(event, Play):
                self.begin_play()  # as the card would close the declarations
                if self._phase is PLAYING:
                    self.result.at_play = at_play(self)
                at_play = None
            self._take(event)  # the validator needs no records: none are built
        return self.finish()

    def apply(self, event: Event) -> Applied:
        """Take one event and say what it did; after a rejection or the end of the deal,
        events are ignored (``judged`` False)."""
        r: DealResult = self.result
        found, errors, trump = len(r.violations), len(r.errors), self.state.trump
        judged = self._take(event)
        legal = self._legal
        return Applied(
            event,
            judged,
            self._began,
            self._led,
            judged and legal == DEAD,
            None if legal < 0 else legal,  # DEAD or UNJUDGED: no legal mask to give
            tuple(r.violations[found:]),
            self._closed,
            None if self.state.trump == trump else self.state.trump,
            r.errors[-1] if len(r.errors) > errors else None,
        )

    def _take(self, event: Event) -> bool:
        """Whether ``event`` was judged (not ignored); what it did is left in ``_began``,
        ``_led``, ``_legal`` and ``_closed``."""
        self._did_nothing()
        if self._phase is OVER:
            if self.result.status is _AUDITED:
                self._ignored += 1
            return False
        try:
            if isinstance(event, Play):
                return self._play(event)
            if isinstance(event, Declare):
                self._declare(event)
            elif isinstance(event, Exchange):
                self._exchange(event)
            elif isinstance(event, ShowFlush):
                self._show_flush(event)
            else:
                self._turn_up(event)
        except Rejected:
            self._did_nothing()  # a rejected event began, led and closed nothing
            self._phase = OVER
        return True

    def begin_play(self) -> None:
        """Close the declarations now (the first card does it too); idempotent."""
        if self._phase == DECLARING:
            try:
                self._close_declarations()
            except Rejected:
                self._phase = OVER

    def on_turn(self) -> int | None:
        """The seat due to play the next card, or None when no card is due."""
        if self._phase != PLAYING:
            return None
        trick = self.state.trick
        if trick is None:
            return None if len(self.state.tricks) == self.o.deal_hand_size else self._leader
        return trick.order[trick.live] if trick.live < len(trick.order) else None

    def finish(self) -> DealResult:
        r: DealResult = self.result
        try:
            if self._phase == DECLARING:
                self._close_declarations()
            if self._phase == PLAYING:
                self._check_complete()
        except Rejected:
            pass
        if self._ignored:
            r.notes.append(
                f"{self._ignored} event(s) after the deal ended ({r.outcome}) were not judged"
            )
        if self._partial:
            r.unchecked = [c for c in UNCHECKED_CHECKS if c in self._unchecked]
        r.trump = self.state.trump
        r.retired = self.state.retired
        r.hands = list(self.state.hands)
        if r.outcome == _PLAYED and r.revokers and self.o.penalties_revoke == "divide":
            r.outcome = Outcome.REVOKE
        self._phase = OVER
        return r

    def _proof(self, seat: int, legal: int, index: int) -> Play | None:
        """The first card ``seat`` plays after event ``index`` among ``legal``: the card that
        proves a revoke from a derived hand (every card left in it is played later)."""
        if not self._derived_now[seat]:
            return None
        return next(
            (
                e
                for e in self.record.events
                if isinstance(e, Play)
                and e.seat == seat
                and e.index > index
                and legal >> e.card & 1
            ),
            None,
        )

    def _trick_of(self, play: Play) -> int | None:
        """The trick ``play`` falls to, from a replay of the record up to it (tricks are
        formed as the cards come, so the one way to know is to play them)."""
        ahead = Replay(self.record, self.o, self.context, prove=False)
        for event in self.record.events[: play.index + 1]:
            if ahead.apply(event).error is not None:
                return None
        return len(ahead.state.tricks) or None

    def _turn_up(self, ev: TurnUp) -> None:
        path = f"/events/{ev.index}"
        state = self.state
        if state.trump != NO_TRUMP:
            raise self.reject(path, "a second trump turn: trumps are already fixed")
        if state.trick is not None:
            raise self.reject(path, "a trump turned in the middle of a trick")
        if self._seen >> ev.card & 1:
            raise self.reject(
                f"{path}/card", f"{display(ev.card)} is turned up but was already dealt or drawn"
            )
        self._seen |= 1 << ev.card
        if not self._turn_due:
            why = (
                "no player was void in the suit led"
                if self._method == "on_void"
                else "trumps are not fixed by a turn during play in this deal"
            )
            self.violate(
                "trump-turn",
                self.record.dealer,
                f"{self.name(self.record.dealer)} turned {display(ev.card)} for trumps, but {why}; "
                "the turn still fixes trumps",
                card=ev.card,
                trick=len(state.tricks) + 1,
                event=ev.index,
            )
        self._turn_due = False
        self._fix_trump(ev.card)

    # -- play (§2.9) -----------------------------------------------------------

    def _play(self, ev: Play) -> bool:
        began = self._phase is DECLARING
        if began:
            self._close_declarations()
        if self._phase is OVER:
            r: DealResult = self.result
            if r.outcome in (_ALL_PASSED, _UNOPPOSED):
                raise self.reject(
                    f"/events/{ev.index}",
                    f"{self.name(ev.seat)} plays, but the deal ended before play "
                    f"({r.outcome.replace('_', ' ')})",
                )
            self._ignored += 1
            self._began = began
            return False
        state: DealState = self.state
        seat: cython.int = ev.seat
        card: cython.int = ev.card
        trick: Trick | None = state.current()
        if trick is None:
            trick = self._new_trick(ev)
        if not self._active_mask >> seat & 1 or seat in state.retired or trick.seats >> seat & 1:
            self._impossible_play(ev, trick)
        held: cython.ulonglong = state.hands[seat]
        if not held >> card & 1:
            raise self.reject(
                f"/events/{ev.index}/card",
                f"{self.name(seat)} plays {display(card)} but does not hold it "
                f"({self.name(seat)} holds {display_cards(state.held(seat))})",
            )
        order: list[int] = trick.order
        on_turn: cython.int = order[trick.live]
        self._began = began
        if seat != on_turn:
            self._out_of_turn(ev, trick, on_turn)
            self._legal = DEAD
        else:
            self._led = not trick.live
            self._legal = self._judge(ev, trick, seat, card)
        if trick.live == len(order):
            self._close_trick(trick)
            self._closed = trick
        return True

    def _new_trick(self, ev: Play) -> Trick:
        state = self.state
        number = len(state.tricks) + 1
        if number > self.o.deal_hand_size:
            raise self.reject(
                f"/events/{ev.index}",
                f"{self.name(ev.seat)} plays after the last trick: more plays than tricks",
            )
        if self._turn_due:
            self._turn_due = False
            self.violate(
                "trump-turn",
                self.record.dealer,
                f"a player was void in the suit led to trick {number - 1}, but "
                f"{self.name(self.record.dealer)} turned no trump before trick {number}",
                trick=number,
                event=ev.index,
            )
        trick = Trick(number, self._leader)  # positional: keywords take a slower call
        playing: list[int] = state.playing()
        n: cython.Py_ssize_t = len(playing)
        start: cython.Py_ssize_t = 0
        i: cython.Py_ssize_t
        for i in range(n):  # the order of play: the seats playing, from the leader's
            if playing[i] == self._leader:
                start = i
                break
        trick.order = [playing[(start + i) % n] for i in range(n)]
        state.tricks.append(trick)
        return trick

    def _impossible_play(self, ev: Play, trick: Trick) -> NoReturn:
        who = self.name(ev.seat)
        path = f"/events/{ev.index}"
        if ev.seat in self.state.retired:
            raise self.reject(path, f"{who} plays, but retired after playing out of turn")
        if trick.seats >> ev.seat & 1:
            raise self.reject(path, f"{who} plays a second card to trick {trick.number}")
        raise self.reject(path, f"{who} plays, but passed and is not in the play")

    def _out_of_turn(self, ev: Play, trick: Trick, on_turn: int) -> None:
        state = self.state
        amount = self.o.penalties_out_of_turn
        held = state.held(ev.seat)
        # The card's bit in 64 bits: compiled, ``1 << ev.card`` is a C int, which shifted
        # past bit 31 dropped or marked another card (every club, the diamonds' high cards).
        bit: cython.ulonglong = cython.cast(cython.ulonglong, 1) << ev.card
        state.hands[ev.seat] &= ~bit
        state.played |= bit
        state.retired.add(ev.seat)
        trick.order.remove(ev.seat)
        trick.cards.append((ev.seat, ev.card, DEAD, ev.index))
        self.charge_current(ev.seat, amount)
        self.violate(
            "out-of-turn",
            ev.seat,
            f"{self.name(ev.seat)} played {display(ev.card)} to trick {trick.number} out of turn "
            f"({self.name(on_turn)} was to play): the card is dead and {self.name(ev.seat)} retires "
            "from the deal",
            penalized=True,
            penalty=amount,
            trick=trick.number,
            card=ev.card,
            held=held,
            event=ev.index,
        )

    def _judge(self, ev: Play, trick: Trick, seat: cython.int, card: cython.int) -> cython.longlong:
        """Check ``seat``'s ``card`` (the event ``ev``) against ``legal_cards`` and play it;
        the legal mask."""
        state: DealState = self.state
        if not trick.live:
            state.announce = ev.announce
        legal: cython.ulonglong = legal_cards(state, seat)
        if not legal >> card & 1:
            self._revoke(ev, trick, legal)
        if trick.live:
            held: cython.ulonglong = state.hands[seat]
            suit: cython.ulonglong = state.suit_masks[trick.led]
            if not held & suit:
                trick.void = True
        elif state.trump == NO_TRUMP and self._method == "first_lead":
            state.fix_trump(card // 13)
        add_card(state, trick, seat, card, legal, ev.index)
        return legal

    def _revoke(self, ev: Play, trick: Trick, legal: int) -> None:
        state, r = self.state, self.result
        code = breach(state, ev.seat, ev.card) or "follow-suit"
        first = ev.seat not in r.revokers
        if first:
            r.revokers.append(ev.seat)
        held = state.held(ev.seat)
        said = f"{describe_play(state, ev.seat, ev.card)}: {explain(code, state, ev.seat)}"
        proof = self._proof(ev.seat, legal, ev.index) if self._partial else None
        proved_by = proved_trick = None
        if proof is not None:
            proved_by = proof.card
            proved_trick = self._trick_of(proof) if self._prove else None
            where = "later" if proved_trick is None else f"at trick {proved_trick}"
            said += f" (proved by {display(proof.card)} played {where})"
        self.violate(
            code,
            ev.seat,
            said,
            penalized=first,
            penalty=self.o.penalties_revoke_amount if first else 0,
            trick=trick.number,
            card=ev.card,
            held=held,
            legal=tuple(c for c in held if legal >> c & 1),
            event=ev.index,
            proved_by=proved_by,
            proved_trick=proved_trick,
        )

    def _close_trick(self, trick: Trick) -> None:
        state = self.state
        if trick.live:
            winner = trick.cards[trick.win][0]
            trick.winner = winner
            self.result.tricks_won[winner] += 1
            self._leader = winner
        else:
            trick.winner = -1  # everyone retired: a trick nobody won
        last = trick.number == self.o.deal_hand_size
        if trick.void and state.trump == NO_TRUMP and self._method == "on_void" and not last:
            self._turn_due = True

    def _check_complete(self) -> None:
        done = sum(1 for t in self.state.tricks if t.winner is not None)
        size = self.o.deal_hand_size
        if done >= size:
            return
        if self.result.revokers or self._partial:
            self.result.abandoned = True
            why = ", after a penalised revoke" if self.result.revokers else ""
            self.result.notes.append(
                f"the record stops after {done} of {size} tricks{why}: the hand was abandoned there"
            )
            if self._partial:
                self.result.notes.append(
                    "cards never played stay unknown: what they would have decided "
                    "(a revoke not proved, the tricks left) is not judged"
                )
            return
        raise self.reject("", f"the record stops after {done} of {size} tricks")


def replay_deal(
    record: DealRecord, options: Options, context: DealContext, at_play: AtPlay | None = None
) -> DealResult:
    """Replay ``record`` to its end and return what happened."""
    return Replay(record, options, context).run(at_play)
