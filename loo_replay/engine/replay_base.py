"""The replay's state and the deal itself: docs/rules.md §2.1-2.4 and the flush step (§2.8).

``ReplayBase`` is the first of the three classes ``engine.replay.Replay`` is built from,
one for each kind of event: here the deal as the record lays it out (hands, the Miss, the
turn-up, misdeals, flushes as dealt), with every field of the replay and the helpers every
kind of event uses to record a breach or reject the record; ``engine.replay_declaring`` adds
the declarations, exchanges and flushes shown, ``engine.replay`` the play.  Compiled, each
is an extension type deriving from the one before (``replay_base.pxd`` declares the
fields), so a step of one kind calls a step of another as a C method, as before the split.
"""

from __future__ import annotations

import cython

from loo_replay.engine.cards import CLUBS, display, display_cards, mask_of
from loo_replay.engine.declarations import Declaring
from loo_replay.engine.derive import derive, is_partial
from loo_replay.engine.flush import best_flush, is_flush
from loo_replay.engine.model import (
    DealRecord,
    LogError,
    ShowFlush,
    Trick,
    Violation,
)
from loo_replay.engine.options import Method, Options
from loo_replay.engine.state import DealState
from loo_replay.engine.tables import NO_TRUMP
from loo_replay.engine.vocab import Action, Knowledge, Outcome, Phase, Status

# Bound once: in Python 3.11 a member lookup on an Enum class goes through EnumType.__getattr__.
DECLARING, PLAYING, OVER = Phase.DECLARING, Phase.PLAYING, Phase.OVER
_AUDITED, _MISDEAL, _REJECTED = Status.AUDITED, Status.MISDEAL, Status.REJECTED


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


class Rejected(Exception):
    """Internal to the replay's modules: the record cannot describe a real game; ends the
    replay."""


class ReplayBase:
    """The replay's state, its helpers and the deal; ``engine.replay.Replay`` is the class
    to use."""

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
        except Rejected:
            self._phase = OVER

    def _did_nothing(self) -> None:
        """What the last event did, as ``_take`` leaves it for ``apply`` (a tuple made for
        every event cost the validator, which reads none of it): it began the play, it led,
        the legal mask (DEAD, UNJUDGED), the trick it closed; here, nothing."""
        self._began: bool = False
        self._led: bool = False
        self._legal: cython.longlong = UNJUDGED
        self._closed: Trick | None = None

    # -- helpers -----------------------------------------------------------

    def name(self, seat: int) -> str:
        return self.record.seats[seat]

    def reject(self, path: str, message: str) -> Rejected:
        self.result.status = _REJECTED
        self.result.errors.append(LogError(path, message))
        return Rejected(message)

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
