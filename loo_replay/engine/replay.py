"""Replay one recorded deal event by event: docs/rules.md §2, with §3-§4 via ``legal``.

``Replay`` is an event-sourced state machine: ``apply`` takes one event and
updates ``state``; the replayer renders the state after each event, the
validator only wants ``run``'s ``DealResult``.  Rule breaches become
``Violation`` data and play goes on; a record that cannot be a real game
stops the replay with a ``LogError`` and the deal is rejected.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NoReturn

import cython

from loo_replay.engine.cards import CLUBS, display, display_cards, mask_of
from loo_replay.engine.declarations import Declaring
from loo_replay.engine.derive import derive, is_partial
from loo_replay.engine.flush import best_flush, is_flush
from loo_replay.engine.legal import add_card, breach, describe_play, explain, legal_cards
from loo_replay.engine.model import (
    DEAD,
    DEFEND,
    PASS,
    PLAY,
    TAKE_MISS,
    UNCHECKED_CHECKS,
    Applied,
    DealRecord,
    Declare,
    Event,
    Exchange,
    LogError,
    Play,
    ShowFlush,
    Trick,
    TurnUp,
    Violation,
)
from loo_replay.engine.options import Method, Options
from loo_replay.engine.state import DealState
from loo_replay.engine.tables import NO_TRUMP
from loo_replay.engine.vocab import Action, Knowledge, Outcome, Phase, Status

# Bound once: in Python 3.11 a member lookup on an Enum class goes through EnumType.__getattr__.
DECLARING, PLAYING, OVER = Phase.DECLARING, Phase.PLAYING, Phase.OVER
_AUDITED, _MISDEAL, _REJECTED = Status.AUDITED, Status.MISDEAL, Status.REJECTED
_PLAYED, _ALL_PASSED, _UNOPPOSED = Outcome.PLAYED, Outcome.ALL_PASSED, Outcome.UNOPPOSED


@cython.dataclasses.dataclass(frozen=True)
@cython.cclass
@cython.annotation_typing(False)  # fields stay Python objects
class DealContext:
    """What the session knows before the deal: is its pool single, is it the first deal."""

    single: bool = True
    first: bool = False


@cython.cclass
class DealResult:
    """Everything the settlement, the reports and the replayer need of a replayed deal.

    Compiled, an extension type whose fields ``replay.pxd`` declares, so the replay reads
    and writes them as C struct members; an explicit ``__init__``, because a dataclass's
    would import ``dataclasses`` again for each of its many list fields, every deal."""

    def __init__(self, record: DealRecord, status: Status) -> None:
        self.record: DealRecord = record
        self.status: Status = status
        self.must: bool = False
        self.trump: cython.int = NO_TRUMP
        self.outcome: Outcome | None = None
        self.declarations: list[Action | None] = [None] * len(record.seats)  # by seat
        self.active: list[int] = []
        self.miss_taker: int | None = None
        self.defender: int | None = None
        self.retired: set[int] = set()
        self.tricks_won: list[int] = [0] * len(record.seats)  # by seat
        self.tricks: list[Trick] = []
        self.revokers: list[int] = []  # seats with a penalised revoke, in order
        self.flush_winner: int | None = None
        self.flush_losers: set[int] = set()
        self.flush_group: list[int] = []  # seats among whom flushes counted
        self.current_penalties: dict[int, int] = {}  # paid into this pool
        self.violations: list[Violation] = []
        self.errors: list[LogError] = []
        self.notes: list[str] = []
        self.abandoned: bool = False
        self.hands: list[int] = []  # what each seat held when the deal ended
        self.knowledge: Knowledge = Knowledge.FULL
        self.unchecked: list[str] = []  # UNCHECKED_CHECKS not made, in order
        self.at_play: object = None  # what ``Replay.run``'s ``at_play`` gave at the start of play

    def __repr__(self) -> str:
        return f"DealResult(number={self.record.number}, status={self.status!s})"


@cython.dataclasses.dataclass(frozen=True)
@cython.cclass
@cython.annotation_typing(False)  # fields stay Python objects
class FlushView:
    """The hands a flush is judged on (docs/rules.md §2.4, §2.8): as dealt, among every seated
    player (``flush.when = "dealt"``), or the final hands of the active players
    (``"declared"``), with the trumps of that moment.  An extension type like ``DealPlan``:
    one is made every deal where flushes are judged."""

    hands: tuple[int, ...]
    trump: int
    group: tuple[int, ...]
    dealt: bool


@cython.dataclasses.dataclass(frozen=True)
@cython.cclass
@cython.annotation_typing(False)  # fields stay Python objects
class DealPlan:
    """What the dealer must lay out for a deal (docs/rules.md §2.2-2.3)."""

    must_pool: bool  # a must by ``declare.must`` (club law is known only from the turn-up)
    method: Method  # how trumps are fixed in this deal
    miss: bool  # a Miss is dealt
    turn_up: bool  # a card is turned at the deal


def deal_plan(o: Options, context: DealContext) -> DealPlan:
    must_pool = context.single and (
        o.declare_must == "single"
        or (o.declare_must == "single_except_first" and not context.first)
    )
    method = o.deal_trump
    if must_pool and o.deal_trump_in_must != "same":
        method = o.deal_trump_in_must
    return DealPlan(must_pool, method, o.deal_miss and not must_pool, method == "turn_up")


# The legal mask ``_take`` leaves when no card was judged (DEAD: a dead card was played).
UNJUDGED: int = cython.declare(cython.longlong, -2)


AtPlay = Callable[["Replay"], object]  # see ``Replay.run``


class _Rejected(Exception):
    """Internal: the record cannot describe a real game; ends the replay."""


class Replay:
    """The deal as it unfolds; ``state`` is valid after every ``apply``."""

    def __init__(
        self, record: DealRecord, options: Options, context: DealContext, *, prove: bool = True
    ) -> None:
        """``prove`` False: a revoke from a derived hand is not given its proof (the replay
        that finds the proof's trick needs none)."""
        self.record: DealRecord = record
        self._prove: bool = prove
        self.o: Options = options
        self.context: DealContext = context
        n: cython.int = len(record.seats)
        dealer: cython.int = record.dealer
        self.n: cython.int = n
        self.clockwise: list[int] = [(dealer + 1 + i) % n for i in range(n)]  # eldest first
        self._declaring: Declaring = Declaring(
            options, context.single, dealer, self.clockwise, record.seats
        )
        self.result: DealResult = DealResult(record, _AUDITED)
        self._phase: Phase = DECLARING
        self._seen: int = 0  # every card that has been dealt, turned or drawn
        self._stock: cython.int = 0  # cards left to draw from
        self._exchanged: set[int] = set()
        self._method: Method = options.deal_trump
        self._leader: cython.int = -1
        self._turn_due: bool = False  # on_void: a trump turn is due before the next trick
        self._ignored: cython.int = 0
        self._did_nothing()
        self._active_mask: cython.ulonglong = 0  # seats in the play, once the declarations close
        self._flush_view: FlushView | None = None  # set where flushes are judged
        self._shown: list[ShowFlush] = []  # flushes shown before that, judged then
        self._plan: DealPlan = deal_plan(options, context)
        # The hands replayed: as recorded, or derived where the record leaves them out.
        self._hands: tuple[tuple[int, ...] | None, ...] = record.hands
        self._miss: tuple[int, ...] | None = record.miss
        self._partial: bool = is_partial(record)
        self._derived_now: list[bool] = []  # partial: the seat's hand now is a derived one
        self._known: list[bool] = []  # partial: the seat's hand now is wholly known
        self._miss_known: bool = False  # partial: the Miss wholly known
        self._miss_derived: bool = False  # partial: the Miss derived
        # partial: the events showing derived cards (pointer, in words)
        self._where: dict[tuple[int, int], tuple[str, str]] = {}
        self._unchecked: set[str] = set()
        if self._partial:
            self._derive()
        self.state: DealState = DealState(
            options=options,
            seats=record.seats,
            dealer=dealer,
            hands=[mask_of(h) if h else 0 for h in self._hands],
            order=[list(h) if h else [] for h in self._hands],
            tricks=self.result.tricks,
        )
        try:
            self._deal()
        except _Rejected:
            self._phase = OVER

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
        except _Rejected:
            self._did_nothing()  # a rejected event began, led and closed nothing
            self._phase = OVER
        return True

    def _did_nothing(self) -> None:
        """What the last event did, as ``_take`` leaves it for ``apply`` (a tuple made for
        every event cost the validator, which reads none of it): it began the play, it led,
        the legal mask (DEAD, UNJUDGED), the trick it closed; here, nothing."""
        self._began: bool = False
        self._led: bool = False
        self._legal: cython.longlong = UNJUDGED
        self._closed: Trick | None = None

    def begin_play(self) -> None:
        """Close the declarations now (the first card does it too); idempotent."""
        if self._phase == DECLARING:
            try:
                self._close_declarations()
            except _Rejected:
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
        except _Rejected:
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

    # -- helpers -----------------------------------------------------------

    def name(self, seat: int) -> str:
        return self.record.seats[seat]

    def reject(self, path: str, message: str) -> _Rejected:
        self.result.status = _REJECTED
        self.result.errors.append(LogError(path, message))
        return _Rejected(message)

    def violate(
        self,
        code: str,
        seat: int,
        message: str,
        *,
        penalty: int = 0,
        penalized: bool | None = None,
        trick: int | None = None,
        card: int | None = None,
        held: tuple[int, ...] = (),
        legal: tuple[int, ...] | None = None,
        event: int | None = None,
        proved_by: int | None = None,
        proved_trick: int | None = None,
    ) -> None:
        """Record a breach; ``penalized`` defaults to whether chips were charged."""
        self.result.violations.append(
            Violation(
                code=code,
                player=self.name(seat),
                message=message,
                penalized=penalty > 0 if penalized is None else penalized,
                penalty=penalty,
                trick=trick,
                card=card,
                held=held,
                legal=legal,
                event=event,
                proved_by=proved_by,
                proved_trick=proved_trick,
            )
        )

    def charge_current(self, seat: int, amount: int) -> None:
        if amount:
            pen = self.result.current_penalties
            pen[seat] = pen.get(seat, 0) + amount

    # -- partial hands (docs/log-format.md, "Hands left out") ----------------------------------------

    def _derive(self) -> None:
        """Replay with the hands the record proves; list the checks that need the rest."""
        d = derive(self.record)
        size = self.o.deal_hand_size
        self._hands, self._miss, self._where = d.hands, d.miss, d.where
        self._derived_now = [not listed for listed in d.listed]
        self._known = [
            listed or len(hand) == size for listed, hand in zip(d.listed, d.hands, strict=True)
        ]
        self._miss_known = d.miss_listed or (d.miss is not None and len(d.miss) == size)
        self._miss_derived = not d.miss_listed
        self.result.knowledge = Knowledge.PARTIAL
        self._unchecked.update(("misdeal-hand-size", "duplicate-card"))
        if self._plan.miss and not d.miss_listed:
            self._unchecked.add("misdeal-miss")

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

    # -- the deal (§2.1-2.4) -----------------------------------------------

    def _deal(self) -> None:
        rec, o, r = self.record, self.o, self.result
        plan = self._plan
        self._method = plan.method
        self._check_unique()
        problems = self._misdeal_problems(plan)
        if problems:
            r.status, r.outcome = _MISDEAL, Outcome.MISDEAL
            amount = o.penalties_misdeal
            self.violate(
                "misdeal",
                rec.dealer,
                f"misdeal by {self.name(rec.dealer)}: {'; '.join(problems)}",
                penalty=amount,
            )
            self._phase = OVER
            return
        self._stock = 52 - self._seen.bit_count()
        if self._partial:  # every hand was dealt (no misdeal is known): the stock is the rest
            dealt = len(rec.seats) + plan.miss
            self._stock = 52 - dealt * o.deal_hand_size - (rec.turn_up is not None)
        if rec.turn_up is not None:
            self._fix_trump(rec.turn_up)
        club_must = o.declare_club_law and rec.turn_up is not None and rec.turn_up // 13 == CLUBS
        r.must = plan.must_pool or club_must
        if o.flush_when == "dealt":
            self._judge_flushes(self.clockwise, dealt=True)

    def _check_unique(self) -> None:
        rec = self.record
        seen: cython.ulonglong = 0
        one: cython.ulonglong = 1
        count: cython.Py_ssize_t = 0
        for hand in self._hands:  # hand by hand: no list of every card, every deal
            if hand:
                seen |= mask_of(hand)
                count += len(hand)
        if self._miss:
            seen |= mask_of(self._miss)
            count += len(self._miss)
        if rec.turn_up is not None:
            seen |= one << rec.turn_up
            count += 1
        self._seen = seen
        if self._seen.bit_count() == count:
            return
        # (pointer, where in words, card, the same after "already"): dealt places first
        places: list[tuple[str, str, int, str]] = []
        for seat, hand in enumerate(rec.hands):
            where = f"{self.name(seat)}'s hand"
            for i, card in enumerate(hand or ()):
                places.append((f"/hands/{self.name(seat)}/{i}", where, card, f"in {where}"))
        for i, card in enumerate(rec.miss or ()):
            places.append((f"/miss/{i}", "the Miss", card, "in the Miss"))
        if rec.turn_up is not None:
            places.append(("/turn_up", "the turn-up", rec.turn_up, "turned up"))
        first: dict[int, tuple[str, str]] = {}
        for path, where, card, already in places:
            if card in first:
                raise self.reject(
                    path,
                    f"{display(card)} is dealt twice, to {where} and to {first[card][0]}: "
                    "a card in two places",
                )
            first[card] = (where, already)
        # then the derived cards: the event that shows one is at fault (a scorer's slip)
        for (_, card), (path, shown) in self._where.items():
            if card in first:
                raise self.reject(
                    path,
                    f"{display(card)} is {shown}, but it was already {first[card][1]}: "
                    "a card in two places",
                )
            first[card] = (shown, shown)

    def _misdeal_problems(self, plan: DealPlan) -> list[str]:
        rec, o = self.record, self.o
        size = o.deal_hand_size
        if rec.misdeal:
            return ["recorded as a misdeal"]
        problems = []
        for seat, hand in enumerate(rec.hands):
            if hand is not None and len(hand) != size:
                problems.append(f"{self.name(seat)} has {len(hand)} cards, not {size}")
        want_miss = plan.miss
        if want_miss and rec.miss is None:
            if not self._partial:  # a partial deal's Miss is unknown, not missing
                problems.append("no Miss dealt")
        elif not want_miss and rec.miss is not None:
            why = "a must deal" if o.deal_miss else "this ruleset"
            problems.append(f"a Miss dealt, but {why} deals none")
        elif rec.miss is not None and len(rec.miss) != size:
            problems.append(f"the Miss has {len(rec.miss)} cards, not {size}")
        want_turn = plan.turn_up
        if want_turn and rec.turn_up is None:
            problems.append("no card turned up for trumps")
        elif not want_turn and rec.turn_up is not None:
            problems.append(
                f"a card turned up, but trumps are fixed {self._method.replace('_', ' ')}"
            )
        return problems

    def _fix_trump(self, card: cython.int) -> None:
        self.state.fix_trump(card // 13)
        self.state.turned |= cython.cast(cython.ulonglong, 1) << card  # in 64 bits

    def _flushes_count(self) -> bool:
        return self.o.flush_kind != "none" and (
            self.o.flush_pools == "all" or not self.context.single
        )

    def _judge_flushes(self, group: list[int], *, dealt: bool) -> None:
        """The flush step (§2.4, §2.8, §5.3): the hands of ``group`` now are the ones flushes
        are judged on; the best flush that counts ends the deal."""
        hands = self.state.hands
        self._flush_view = FlushView(tuple(hands), self.state.trump, tuple(group), dealt)
        if not self._flushes_count():
            return
        held = {s: hands[s] for s in group}
        if self._partial:  # a hand not wholly known is judged on no flush
            held = {s: h for s, h in held.items() if self._known[s]}
            if len(held) < len(group):
                self._unchecked.add("flush-at-deal")
        winner = best_flush(held, group, self.state.trump, self.o)
        if winner is None:
            return
        r: DealResult = self.result
        r.outcome = Outcome.FLUSH
        r.flush_winner = winner
        r.flush_group = list(group)
        r.flush_losers = {
            s for s in group if s != winner and is_flush(held[s], self.state.trump, self.o)
        }
        r.notes.append(
            f"{self.name(winner)} holds a flush ({display_cards(self.state.held(winner))}) "
            "and takes the pool"
        )
        self._phase = OVER

    # -- declarations (§2.5-2.6) --------------------------------------------

    def _declare(self, ev: Declare) -> None:
        r: DealResult = self.result
        rules: Declaring = self._declaring
        seat: int = ev.seat
        if self._phase != DECLARING:  # the pointers are built only to reject
            raise self.reject(f"/events/{ev.index}", f"{self.name(seat)} declares after play began")
        if r.declarations[seat] is not None:
            raise self.reject(f"/events/{ev.index}", f"second declaration by {self.name(seat)}")
        action = ev.action
        if action in (TAKE_MISS, DEFEND):
            problem = rules.miss_problem(
                r.declarations,
                seat,
                action,
                must=r.must,
                miss_dealt=self.miss_dealt(),
                miss_taker=r.miss_taker,
            )
            if problem is not None:
                raise self.reject(f"/events/{ev.index}/action", problem)
        if not r.must:
            expected = rules.turn(r.declarations)
            if expected != seat:
                amount = self.o.penalties_declare_out_of_turn
                self.charge_current(seat, amount)
                self.violate(
                    "declare-out-of-turn",
                    seat,
                    f"{self.name(seat)} declared {action} before {self.name(expected)}, "
                    "whose turn it was",
                    penalty=amount,
                    event=ev.index,
                )
        elif action == PASS:
            self.violate(
                "forced-play",
                seat,
                f"{self.name(seat)} passed in a must deal, where everyone must play; "
                "the pass stands and they are out",
                event=ev.index,
            )
        r.declarations[seat] = action
        if action in (TAKE_MISS, DEFEND):
            miss = self._miss or ()
            self.state.hands[seat] = mask_of(miss)
            self.state.order[seat] = list(miss)
            if self._partial:
                self._derived_now[seat] = self._miss_derived
                self._known[seat] = self._miss_known
            r.miss_taker = seat
            if action == DEFEND:
                r.defender = seat

    def _close_declarations(self) -> None:
        """All declared: find forced-play breaches, the active players and the outcome."""
        r: DealResult = self.result
        rules: Declaring = self._declaring
        missing: int = rules.missing(r.declarations, r.must)
        if missing >= 0:
            raise self.reject(
                "",
                f"no declaration by {self.name(missing)} (declarations go clockwise "
                f"from {self.name(self.clockwise[0])})",
            )
        if not r.must:
            self._forced_play()
        active, r.outcome = rules.outcome(r.declarations, r.must)
        r.active = self.state.active = active
        self._active_mask = sum(1 << s for s in active)
        if r.outcome == _PLAYED:
            self._leader = active[0]
        # §2.6: all_passed and unopposed end the deal before the flush step (§2.8).
        if self.o.flush_when == "declared" and r.outcome == _PLAYED:
            self._judge_flushes(active, dealt=False)
        if self._flush_view is None:
            for ev in self._shown:
                r.notes.append(
                    f"{self.name(ev.seat)}'s flush shown was not judged: the deal ended "
                    f"{r.outcome.replace('_', ' ')}, before any flush"
                )
        else:
            for ev in self._shown:
                self._judge_show(ev)
        self._shown.clear()
        if self._phase == DECLARING:
            self._phase = PLAYING if r.outcome == _PLAYED else OVER

    def miss_dealt(self) -> bool:
        """A Miss lies on the table: recorded, or unknown in a partial deal that deals one."""
        return self.record.miss is not None or (self._partial and self._plan.miss)

    def legal_actions(self, seat: int) -> tuple[Action, ...]:
        """The declarations ``seat`` may make now without a violation or a log error."""
        r: DealResult = self.result
        miss_open = self.miss_dealt() and r.miss_taker is None
        return self._declaring.actions(r.declarations, seat, must=r.must, miss_open=miss_open)

    def _forced_play(self) -> None:
        """§2.5: a pass where the rules say play stands, and is a ``forced-play`` violation."""
        rules: Declaring = self._declaring
        decl = self.result.declarations
        for seat in dict.fromkeys((self.clockwise[-2], self.record.dealer)):
            why = rules.forced_reason(decl, seat)
            if why is None or decl[seat] not in (PASS, None):
                continue
            did = "passed" if decl[seat] == PASS else "did not declare"
            event = next(
                (e.index for e in self.record.events if isinstance(e, Declare) and e.seat == seat),
                None,
            )
            self.violate(
                "forced-play", seat, f"{self.name(seat)} {did}: {why}; the pass stands", event=event
            )
            decl[seat] = PASS

    # -- exchanges, flushes shown, trump turns --------------------------------

    def _exchange(self, ev: Exchange) -> None:
        r: DealResult = self.result
        o = self.o
        path = f"/events/{ev.index}"
        who = self.name(ev.seat)
        if not o.deal_exchange or r.must:
            why = "a must deal" if o.deal_exchange else "this ruleset"
            raise self.reject(path, f"{who} exchanges cards, but {why} allows no exchange")
        if self._phase != DECLARING:
            raise self.reject(path, f"{who} exchanges after the first card was played")
        if r.declarations[ev.seat] != PLAY:
            raise self.reject(path, f"{who} exchanges without having declared play")
        if not ev.discard and not ev.draw:
            return  # §2.7: an exchange of no cards is allowed and changes nothing
        if ev.seat in self._exchanged:
            raise self.reject(path, f"{who} exchanges a second time")
        if len(ev.draw) != len(ev.discard):
            raise self.reject(
                f"{path}/draw",
                f"{who} discards {len(ev.discard)} and draws {len(ev.draw)}: draw as many as discarded",
            )
        hand = self.state.hands[ev.seat]
        for i, card in enumerate(ev.discard):
            if not hand >> card & 1:
                raise self.reject(
                    f"{path}/discard/{i}",
                    f"{who} discards {display(card)} but does not hold it "
                    f"({who} holds {display_cards(self.state.held(ev.seat))})",
                )
        if len(ev.draw) > self._stock:
            raise self.reject(
                f"{path}/draw", f"{who} draws {len(ev.draw)} cards; the stock holds {self._stock}"
            )
        if self._partial and ev.draw:
            self._unchecked.add("draw-unseen")
        for i, card in enumerate(ev.draw):
            if self._seen >> card & 1:
                raise self.reject(
                    f"{path}/draw/{i}",
                    f"{who} draws {display(card)}, which was already dealt or drawn: a card in two places",
                )
            self._seen |= 1 << card
        self._stock -= len(ev.draw)
        self._exchanged.add(ev.seat)
        self.state.hands[ev.seat] = hand & ~mask_of(ev.discard) | mask_of(ev.draw)
        self.state.order[ev.seat].extend(ev.draw)

    def _show_flush(self, ev: ShowFlush) -> None:
        """§2.8: judged on the hand the flush step judges, so one shown during the
        declarations waits for it."""
        if self._flush_view is None:
            self._shown.append(ev)
        else:
            self._judge_show(ev)

    def _judge_show(self, ev: ShowFlush) -> None:
        """A flush shown by a player without a flush that counts is ``false-flush``."""
        view = self._flush_view
        assert view is not None
        seat = ev.seat
        if self._partial and not self._known[seat]:
            self._unchecked.add("flush-shown")
            return
        hand = view.hands[seat]
        dealt = self._hands[seat] if view.dealt else self.state.order[seat]
        held = tuple(c for c in dealt or () if hand >> c & 1)
        if not self._flushes_count():
            why = (
                "this ruleset has no flushes"
                if self.o.flush_kind == "none"
                else "flushes count only in a double pool"
            )
        elif seat not in view.group:
            why = f"{self.name(seat)} is not in the play, so a flush would not count"
        elif not is_flush(hand, view.trump, self.o):
            why = "that is not a flush under this ruleset"
        else:
            return
        self.violate(
            "false-flush",
            seat,
            f"{self.name(seat)} showed a flush holding {display_cards(held)}"
            f"{' as dealt' if view.dealt else ''}, but {why}",
            held=held,
            event=ev.index,
        )

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
        state.hands[ev.seat] &= ~(1 << ev.card)
        state.played |= 1 << ev.card
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
