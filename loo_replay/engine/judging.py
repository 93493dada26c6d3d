"""Every decision judged on what its player knew: docs/judging-decisions.md.

For each declaration and each card where the player had a choice, ``judge_deal`` draws
K possible worlds from where they sat (worlds.py), finishes the deal in each world for
every option with the open-cards max^n play (maxn.py), settles it as the engine settles
(settle.py) and compares the mean net chips of the options, all on the same worlds.
Pure: the result is data, advice only.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from math import sqrt

from loo_replay.engine.cards import (
    FULL_DECK,
    PAM,
    canonical,
    display,
    display_cards,
    mask_of,
    parse_card,
)
from loo_replay.engine.flush import best_flush
from loo_replay.engine.maxn import MaxN, order_key
from loo_replay.engine.model import PASS, DealRecord, Declare, Exchange, Play
from loo_replay.engine.options import Options
from loo_replay.engine.records import record, replace
from loo_replay.engine.replay import DECLARING, PLAYING, DealContext, Replay
from loo_replay.engine.replay_base import DealResult
from loo_replay.engine.session import DealAudit
from loo_replay.engine.settle import settle
from loo_replay.engine.solver import ANNOUNCE, CARD, Search
from loo_replay.engine.state import DealState
from loo_replay.engine.tables import ACES, NO_TRUMP
from loo_replay.engine.vocab import Action, Knowledge, Outcome, Status
from loo_replay.engine.worlds import Check, Worlds, cards_of

JUDGED, SKIPPED = "judged", "skipped"
DECLARE, CARD_KIND = "declare", "card"
# A loss, in units (the chips a trick is worth), from which a decision is classed.
CLASSES = ((1.0, "blunder"), (0.5, "mistake"), (0.25, "inaccuracy"))
DECLARED_OUTCOMES = (Outcome.PLAYED, Outcome.REVOKE, Outcome.ALL_PASSED, Outcome.UNOPPOSED)
PLAYED_OUTCOMES = (Outcome.PLAYED, Outcome.REVOKE)
NO_BUDGET = 1 << 62  # the finish is not a guarantee search: no node budget
MISS = -1  # the Miss, as a place of a world
GIVEN_UP = -2  # the hand given up for the Miss by another player
# What each declaration is called in a message: done, and doing.
DID = {
    Action.PLAY: "stood",
    Action.PASS: "passed",
    Action.TAKE_MISS: "took the Miss",
    Action.DEFEND: "defended the pool",
}
DOING = {
    Action.PLAY: "standing",
    Action.PASS: "passing",
    Action.TAKE_MISS: "taking the Miss",
    Action.DEFEND: "defending",
}


@record
class OptionValue:
    key: str  # a declaration, or a canonical card with "+announce" for the announcing move
    value: float  # mean net chips over the worlds
    se: float  # its standard error


@record
class Decision:
    player: str
    kind: str  # declare | card
    trick: int | None
    index: int  # the event's place in the deal's events
    chosen: str
    best: str
    options: tuple[OptionValue, ...]  # in option order
    loss: float
    loss_se: float
    klass: str | None  # inaccuracy | mistake | blunder, or None
    accuracy: float | None  # None where every option is worth the same
    message: str


@record
class Unjudged:
    player: str
    index: int
    reason: str  # later_declarations | worlds


@record
class PlayerDecisions:
    player: str
    decisions: int
    loss: float
    accuracy: float | None
    accuracy_sum: float  # the sum of the accuracies that make ``accuracy``, and their number:
    accuracy_n: int  # a summary over many deals adds these
    inaccuracies: int
    mistakes: int
    blunders: int


@record
class DealDecisions:
    status: str  # judged | skipped
    reason: str | None = None
    samples: int = 0
    unit: int = 1
    declarations: str | None = None  # "exchange": declarations not judged in this ruleset
    items: tuple[Decision, ...] = ()
    unjudged: tuple[Unjudged, ...] = ()
    players: tuple[PlayerDecisions, ...] = ()


def judge_deal(
    audit: DealAudit, options: Options, samples: int, seed: int, session: str
) -> DealDecisions:
    """The decisions of one audited deal judged on K = ``samples`` worlds each, drawn from
    a generator seeded by ``seed``, ``session``, the deal's number and the decision's index
    (docs/judging-decisions.md, "Seeds"): the same figures in any process and any order."""
    result = audit.result
    if audit.status != Status.AUDITED or result is None:
        return DealDecisions(SKIPPED, "not_audited")
    if result.knowledge == Knowledge.PARTIAL:
        return DealDecisions(SKIPPED, "partial")
    if result.outcome not in DECLARED_OUTCOMES:
        return DealDecisions(SKIPPED, str(result.outcome))
    if audit.settlement is None:
        return DealDecisions(SKIPPED, "no_pool")
    record = result.record
    context = audit.context or DealContext()
    replay = Replay(record, options, context)
    if replay.method == "on_void":
        return DealDecisions(SKIPPED, "on_void")
    pool_start = audit.settlement.pool_start
    unit = max(1, audit.settlement.pool // options.deal_hand_size)
    judge = _Judge(record, options, context, pool_start, samples, seed, session)
    stop = min((v.event for v in result.violations if v.event is not None), default=None)
    exchange = options.deal_exchange
    declarations = not result.must and not exchange
    cards = result.outcome in PLAYED_OUTCOMES
    for event in record.events:
        if stop is not None and event.index >= stop:
            break
        if isinstance(event, Declare) and declarations and replay.phase == DECLARING:
            actions = replay.legal_actions(event.seat)
            if len(actions) >= 2:
                judge.declaration(event, actions)
        elif isinstance(event, Play) and cards:
            replay.begin_play()
            if replay.phase != PLAYING or replay.on_turn() != event.seat:
                break
            search = Search(replay, NO_BUDGET)
            moves = judge.moves(event.seat, replay, search)
            if len(moves) >= 2:
                judge.card(event, replay, search, moves)
            judge.remember(event, replay.state)
        applied = replay.apply(event)
        if applied.violations or applied.error is not None:
            break
    items = tuple(_classed(d, unit) for d in judge.items)
    return DealDecisions(
        JUDGED,
        samples=samples,
        unit=unit,
        declarations="exchange" if exchange and not result.must else None,
        items=items,
        unjudged=tuple(judge.unjudged),
        players=_players(record, items),
    )


def _classed(d: Decision, unit: int) -> Decision:
    """The decision with its class (docs/judging-decisions.md, "Classes")."""
    if d.loss > 2 * d.loss_se:
        for units, name in CLASSES:
            if d.loss >= units * unit:
                return replace(d, klass=name)
    return d


def _players(record: DealRecord, items: tuple[Decision, ...]) -> tuple[PlayerDecisions, ...]:
    out = []
    for name in record.seats:
        mine = [d for d in items if d.player == name]
        if not mine:
            continue
        rated = [d.accuracy for d in mine if d.accuracy is not None]
        out.append(
            PlayerDecisions(
                name,
                len(mine),
                sum(d.loss for d in mine),
                sum(rated) / len(rated) if rated else None,
                sum(rated),
                len(rated),
                sum(d.klass == "inaccuracy" for d in mine),
                sum(d.klass == "mistake" for d in mine),
                sum(d.klass == "blunder" for d in mine),
            )
        )
    return tuple(out)


def _mean_se(values: Sequence[int]) -> tuple[float, float]:
    k = len(values)
    mean = sum(values) / k
    if k < 2:
        return mean, 0.0
    var = sum((v - mean) ** 2 for v in values) / (k - 1)
    return mean, sqrt(var / k)


def snapshot(state: DealState) -> DealState:
    """A copy of ``state`` that legality can be asked of while the replay goes on: the
    trick under way copied, the closed ones shared (they no longer change)."""
    tricks = list(state.tricks)
    current = state.current()
    if current is not None:
        tricks[-1] = current.copy()
    return state.copy(tricks, state.announce)


class _Judge:
    """One deal's decisions, judged as the replay of the record reaches them."""

    def __init__(
        self,
        record: DealRecord,
        options: Options,
        context: DealContext,
        pool_start: int,
        samples: int,
        seed: int,
        session: str,
    ) -> None:
        self.record = record
        self.o = options
        self.context = context
        self.pool_start = pool_start
        self.samples = samples
        self.seed = seed
        self.session = session
        self.items: list[Decision] = []
        self.unjudged: list[Unjudged] = []
        # A flush at the deal would have ended it: worlds that hold one are not possible.
        self.flush_at_deal = options.flush_kind != "none" and options.flush_when == "dealt"
        # Cards judged where flushes count: worlds whose hands would have shown one are not
        # possible (without discard and draw: with it, the hands as dealt are not known).
        self.flushes = options.flush_kind != "none" and not options.deal_exchange
        self.flushes_any = options.flush_kind != "none"
        # With discard and draw, play began, so no active player's final hand was a flush
        # that counts: worlds where one is are not possible (the hands as dealt are not).
        self.final_flushes = (
            options.deal_exchange
            and options.flush_kind != "none"
            and options.flush_when == "declared"
            and (options.flush_pools == "all" or not context.single)
        )
        self.announced = options.deal_pam and options.follow_pam_civil == "announced"
        self.plays: list[tuple[Play, DealState]] = []  # every card so far, the state before it

    def rng(self, index: int) -> random.Random:
        return random.Random(f"{self.seed}/{self.session}/{self.record.number}/{index}")

    def remember(self, event: Play, state: DealState) -> None:
        self.plays.append((event, snapshot(state)))

    def net(self, result: DealResult, seat: int) -> int:
        """``seat``'s net chips for the deal, settled as the engine settles it."""
        s = settle(result, self.o, self.pool_start)
        return s.payouts.get(seat, 0) - s.paid_by(seat)

    def looed(self, result: DealResult, seat: int) -> bool:
        return settle(result, self.o, self.pool_start).looed.get(seat, 0) > 0

    # -- declarations ----------------------------------------------------------

    def declaration(self, event: Declare, actions: tuple[Action, ...]) -> None:
        seat, index = event.seat, event.index
        who = self.record.seats[seat]
        before = [e for e in self.record.events if isinstance(e, Declare) and e.index < index]
        after = [e for e in self.record.events if isinstance(e, Declare) and e.index > index]
        plans: dict[Action, _Plan] = {}
        for action in actions:
            declared = self._declared_real(before, Declare(index, seat, action), after)
            if declared is None:
                self.unjudged.append(Unjudged(who, index, "later_declarations"))
                return
            plans[action] = _Plan(self, declared, seat)
        rng = self.rng(index)
        hand = mask_of(self.record.hands[seat] or ())
        unseen = FULL_DECK & ~hand
        if self.record.turn_up is not None:
            unseen &= ~(1 << self.record.turn_up)
        size: int = self.o.deal_hand_size
        sizes: dict[int, int] = {s: size for s in range(len(self.record.seats)) if s != seat}
        if self.record.miss is not None:
            sizes[MISS] = size
        possible = None
        if self.flush_at_deal:  # a deal that would have ended in a flush then is not possible
            possible = self._no_flush_dealt(seat)
        worlds = Worlds(unseen, sizes, [], rng, possible)
        nets: dict[Action, list[int]] = {a: [] for a in actions}
        looed: dict[Action, int] = dict.fromkeys(actions, 0)
        for _ in range(self.samples):
            world = worlds.draw()
            if world is None:
                self.unjudged.append(Unjudged(who, index, "worlds"))
                return
            if self.flushes_any:  # who stands may meet a flush: the world's deal replayed
                deal = self._world_record(seat, world)
                for action in actions:
                    result = self._declared(deal, before, Declare(index, seat, action), after)
                    nets[action].append(self.net(result, seat))
                    looed[action] += self.looed(result, seat)
                continue
            for action in actions:
                net, was_looed = plans[action].value(world)
                nets[action].append(net)
                looed[action] += was_looed
        keys = [str(a) for a in actions]
        chosen = str(event.action)
        decision = self._decision(
            who, DECLARE, None, index, keys, chosen, [nets[a] for a in actions], seat
        )
        held = display_cards(self.record.hands[seat] or ())
        share = looed[event.action] / self.samples
        self.items.append(
            _with_message(decision, _declare_message(who, held, decision, event.action, share))
        )

    def _declared_real(
        self, before: list[Declare], option: Declare, after: list[Declare]
    ) -> Replay | None:
        """The deal as recorded with ``option`` declared, to the start of play; None when a
        later declaration, as logged, is no longer legal after it, or one it would call
        for is missing (the dealer's, once someone stands)."""
        replay = Replay(self.record, self.o, self.context)
        for e in before:
            replay.apply(e)
        replay.apply(option)
        for e in after:
            if e.action not in replay.legal_actions(e.seat):
                return None
            replay.apply(e)
        replay.begin_play()
        return replay if replay.result.status == Status.AUDITED else None

    def _no_flush_dealt(self, seat: int) -> Callable[[dict[int, int]], bool]:
        def possible(world: dict[int, int]) -> bool:
            deal = self._world_record(seat, world)
            return Replay(deal, self.o, self.context).phase == DECLARING

        return possible

    def _world_record(self, seat: int, world: dict[int, int]) -> DealRecord:
        """A world of a declaration as a deal: every place is as dealt."""
        rec = self.record
        hands = tuple(
            rec.hands[s] if s == seat else tuple(cards_of(world[s])) for s in range(len(rec.seats))
        )
        miss = tuple(cards_of(world[MISS])) if MISS in world else None
        return DealRecord(rec.number, rec.seats, rec.dealer, hands, miss, rec.turn_up)

    def _dealt(self, seat: int, replay: Replay, world: dict[int, int]) -> DealRecord:
        """A world of a card as a deal: each hand as dealt is the hand now and the cards
        played from it; the Miss is its taker's; every other place is the world's."""
        rec = self.record
        r = replay.result
        played = self._played()
        now = {**world, seat: replay.state.hands[seat]}
        dealt = {s: h | played.get(s, 0) for s, h in now.items() if s >= 0}
        miss = world.get(MISS)
        taker = r.miss_taker
        if taker is not None:
            miss = dealt[taker]
            dealt[taker] = mask_of(rec.hands[taker] or ()) if taker == seat else world[GIVEN_UP]
        hands = tuple(
            rec.hands[s] if s == seat and taker != seat else tuple(cards_of(dealt[s]))
            for s in range(len(rec.seats))
        )
        return DealRecord(
            rec.number,
            rec.seats,
            rec.dealer,
            hands,
            None if miss is None else tuple(cards_of(miss)),
            rec.turn_up,
        )

    def _no_flush_declared(self, seat: int, replay: Replay) -> Callable[[dict[int, int]], bool]:
        """Play began, so no flush ended the deal: a world where one would have is not
        possible (rulesets without discard and draw, where the hands as dealt are known
        from the hands now)."""
        declared = [e for e in self.record.events if isinstance(e, Declare)]

        def possible(world: dict[int, int]) -> bool:
            again = Replay(self._dealt(seat, replay, world), self.o, self.context)
            for e in declared:
                again.apply(e)
            again.begin_play()
            return again.phase == PLAYING

        return possible

    def _declared(
        self, deal: DealRecord, before: list[Declare], option: Declare, after: list[Declare]
    ) -> DealResult:
        """The deal of a world with ``option`` declared, finished by the play model."""
        replay = Replay(deal, self.o, self.context)
        for e in (*before, option, *after):
            replay.apply(e)
        replay.begin_play()
        result = replay.result
        if replay.phase == PLAYING and option.seat in replay.state.playing():
            search = Search(replay, NO_BUDGET)
            finish = MaxN(search, option.seat)
            packed = finish.finish()
            for s in search.playing:
                result.tricks_won[s] = finish.tricks(packed, s)
        # A player out of the play: their chips do not depend on the others' tricks.
        return result

    # -- cards -------------------------------------------------------------------

    def moves(self, seat: int, replay: Replay, search: Search) -> tuple[int, ...]:
        """The moves ``seat`` had as they knew them: each legal card and, leading the ace of
        trumps where "Pam, be civil" is announced, announcing it too while Pam may be in
        another hand for all they know.  The solver offers the announcement only where Pam
        really is in a hand in play, which no player sees (docs/judging-decisions.md,
        "What is judged")."""
        trump = replay.state.trump
        leading = not search.trick.live
        may_announce = (
            self.announced
            and leading
            and trump != NO_TRUMP
            and self._unseen(seat, replay) >> PAM & 1 == 1
        )
        out: list[int] = []
        for move in search.legal_moves():
            if move & ANNOUNCE:
                continue
            out.append(move)
            if may_announce and move == ACES[trump]:
                out.append(move | ANNOUNCE)
        return tuple(out)

    def _unseen(self, seat: int, replay: Replay) -> int:
        """The cards ``seat`` has not seen: neither held, played, turned up, nor seen before."""
        state = replay.state
        seen = state.hands[seat] | self._seen_by(seat, replay) | state.played | state.turned
        return FULL_DECK & ~seen

    def card(self, event: Play, replay: Replay, search: Search, moves: tuple[int, ...]) -> None:
        seat, index = event.seat, event.index
        who = self.record.seats[seat]
        state = replay.state
        moves = tuple(sorted(moves, key=order_key))
        announced = event.card | ANNOUNCE
        chosen = announced if event.announce and announced in moves else event.card
        unseen = self._unseen(seat, replay)
        sizes = {s: state.hands[s].bit_count() for s in search.playing if s != seat}
        possible = None
        if self.final_flushes:
            possible = self._no_final_flush(seat, replay)
        elif self.flushes:
            possible = self._no_flush_declared(seat, replay)
            size = self.o.deal_hand_size
            for s in range(len(self.record.seats)):
                if s not in sizes and s != seat:
                    sizes[s] = size  # the hands of those who passed, as dealt
            taker = replay.result.miss_taker
            if taker is None and self.record.miss is not None:
                sizes[MISS] = size
            elif taker is not None and taker != seat:
                sizes[GIVEN_UP] = size
        worlds = Worlds(unseen, sizes, self._checks(seat), self.rng(index), possible)
        won = search.won[seat]
        nets_by_tricks = [self._card_net(replay, seat, t) for t in range(self.o.deal_hand_size + 1)]
        # Where the tricks still to come cannot change the seat's chips, every card is
        # worth the same in every world: the worlds are drawn, not searched.
        depends = len(set(nets_by_tricks[won : won + search.left + 1])) > 1
        finish = MaxN(search, seat)
        hands = list(state.hands)
        nets: list[list[int]] = [[] for _ in moves]
        for _ in range(self.samples):
            world = worlds.draw()
            if world is None:
                self.unjudged.append(Unjudged(who, index, "worlds"))
                return
            if not depends:
                for values in nets:
                    values.append(nets_by_tricks[won])
                continue
            for s in search.playing:
                if s != seat:
                    hands[s] = world[s]
            finish.deal(hands)
            for i, move in enumerate(moves):
                nets[i].append(nets_by_tricks[won + finish.tricks(finish.after(move), seat)])
        keys = [_move_key(m) for m in moves]
        trick = search.trick.number
        decision = self._decision(who, CARD_KIND, trick, index, keys, _move_key(chosen), nets, seat)
        self.items.append(_with_message(decision, _card_message(who, trick, decision)))

    def _no_final_flush(self, seat: int, replay: Replay) -> Callable[[dict[int, int]], bool]:
        """Play began after discard and draw, so no active player's final hand (their hand now
        and the cards they played from it) was a flush that counts."""
        played = self._played()
        active = list(replay.result.active)
        trump = replay.state.trump
        own = replay.state.hands[seat] | played.get(seat, 0)

        def possible(world: dict[int, int]) -> bool:
            hands = {s: world[s] | played.get(s, 0) for s in active if s in world}
            hands[seat] = own
            return best_flush(hands, [s for s in active if s in hands], trump, self.o) is None

        return possible

    def _played(self) -> dict[int, int]:
        """The cards each seat has played so far, as a mask a seat."""
        played: dict[int, int] = {}
        for event, _ in self.plays:
            played[event.seat] = played.get(event.seat, 0) | 1 << event.card
        return played

    def _seen_by(self, seat: int, replay: Replay) -> int:
        """Cards ``seat`` has seen beyond their hand and the table: the hand dealt them (given
        up for the Miss, or partly discarded), and the Miss they took."""
        rec = self.record
        seen = mask_of(rec.hands[seat] or ())
        if replay.result.miss_taker == seat:
            seen |= mask_of(rec.miss or ())
        for e in rec.events:
            if isinstance(e, Exchange) and e.seat == seat:
                seen |= mask_of(e.draw)
        return seen

    def _checks(self, seat: int) -> list[Check]:
        """The others' cards so far, each with what its player played from it on."""
        checks = []
        later: dict[int, int] = {}
        for event, state in reversed(self.plays):
            later[event.seat] = later.get(event.seat, 0) | 1 << event.card
            if event.seat != seat:
                checks.append(Check(state, event.seat, event.card, later[event.seat]))
        checks.reverse()
        return checks

    def _card_net(self, replay: Replay, seat: int, tricks: int) -> int:
        """``seat``'s net chips had they ended the deal, as it stands, with ``tricks``
        tricks: their chips depend on their own tricks only."""
        r = replay.result
        result = DealResult(self.record, Status.AUDITED)
        result.outcome = Outcome.PLAYED
        result.active = list(r.active)
        result.defender = r.defender
        result.miss_taker = r.miss_taker
        result.current_penalties = dict(r.current_penalties)
        result.tricks_won[seat] = tricks
        return self.net(result, seat)

    # -- values ------------------------------------------------------------------

    def _decision(
        self,
        who: str,
        kind: str,
        trick: int | None,
        index: int,
        keys: list[str],
        chosen: str,
        nets: list[list[int]],
        seat: int,
    ) -> Decision:
        """Values, best, loss and accuracy (docs/judging-decisions.md, "Values"); exact ties are
        found on the sums, which are integers."""
        sums = [sum(v) for v in nets]
        c = keys.index(chosen)
        top = max(sums)
        tied = [i for i, s in enumerate(sums) if s == top]
        b = c if c in tied else tied[0]
        values = [_mean_se(v) for v in nets]
        diffs = [x - y for x, y in zip(nets[b], nets[c], strict=True)]
        loss, loss_se = _mean_se(diffs)
        worst = min(sums)
        accuracy = None if top == worst else 100 * (sums[c] - worst) / (top - worst)
        return Decision(
            who,
            kind,
            trick,
            index,
            chosen,
            keys[b],
            tuple(OptionValue(k, v, se) for k, (v, se) in zip(keys, values, strict=True)),
            loss,
            loss_se,
            None,
            accuracy,
            "",
        )


class _Plan:
    """One option of a declaration where flushes cannot end the deal: who plays, the Miss
    and the settlement are the same in every world, so the deal is replayed once with
    the hands as recorded, and each world only changes the hands of the search."""

    def __init__(self, judge: _Judge, replay: Replay, seat: int) -> None:
        self.seat = seat
        self.taker = replay.result.miss_taker
        self.finish: MaxN | None = None
        self.playing: list[int] = []
        self.hands = list(replay.state.hands)
        result = replay.result
        self.nets: list[int] = []
        self.looed: list[bool] = []
        for tricks in range(judge.o.deal_hand_size + 1):
            result.tricks_won[seat] = tricks
            self.nets.append(judge.net(result, seat))
            self.looed.append(judge.looed(result, seat))
        result.tricks_won[seat] = 0
        # No search where the seat's chips do not depend on its tricks (a dealer who
        # defends the pool plays for it, not for themself).
        depends = len(set(zip(self.nets, self.looed, strict=True))) > 1
        if depends and replay.phase == PLAYING and seat in replay.state.playing():
            search = Search(replay, NO_BUDGET)
            self.finish = MaxN(search, seat)
            self.playing = list(search.playing)

    def value(self, world: dict[int, int]) -> tuple[int, bool]:
        """The seat's net chips in ``world``, and whether they were looed."""
        tricks = 0
        finish = self.finish
        if finish is not None:
            hands = self.hands
            for s in self.playing:
                if s == self.taker:
                    hands[s] = world[MISS]
                elif s != self.seat:
                    hands[s] = world[s]
            finish.deal(hands)
            tricks = finish.tricks(finish.finish(), self.seat)
        return self.nets[tricks], self.looed[tricks]


def _move_key(move: int) -> str:
    return canonical(move & CARD) + ("+announce" if move & ANNOUNCE else "")


def _with_message(d: Decision, message: str) -> Decision:
    return replace(d, message=message)


def _value_of(d: Decision, key: str) -> float:
    return next(o.value for o in d.options if o.key == key)


def _worth(value: float, average: str = " on average") -> str:
    if round(value, 1) == 0:
        return "lost nothing" if value <= 0 else "won next to nothing"
    verb = "won" if value > 0 else "lost"
    return f"{verb} {abs(value):.1f} chips{average}"


def _cost(d: Decision, chosen: str, best: str, looed: str = "") -> str:
    """A choice that was not the best, named by what it cost against the best: "passing
    cost 1.4 chips on average against taking the Miss (passing lost nothing; taking the
    Miss won 1.4 chips)"."""
    mine, theirs = _worth(_value_of(d, d.chosen), ""), _worth(_value_of(d, d.best), "")
    return (
        f"{chosen} cost {d.loss:.1f} chips on average against {best} "
        f"({chosen} {mine}{looed}; {best} {theirs})"
    )


def _declare_message(who: str, held: str, d: Decision, chosen: Action, looed_share: float) -> str:
    head = f"{who} {DID[chosen]} with {held}: from where they sat, "
    looed = "" if chosen == PASS else f"looed in {looed_share:.0%} of the possible deals"
    if d.best != d.chosen:
        return head + _cost(d, DOING[chosen], DOING[Action(d.best)], looed and f", {looed}")
    worth = f"{DOING[chosen]} {_worth(_value_of(d, d.chosen))}"
    return head + worth + (f" ({looed})" if looed else "") + "; it was the best choice"


def _card_name(key: str) -> str:
    card = key.removesuffix("+announce")
    said = ' announcing "Pam, be civil"' if key.endswith("+announce") else ""
    return display(parse_card(card)) + said


def _card_message(who: str, trick: int, d: Decision) -> str:
    head = f"{who} played {_card_name(d.chosen)} at trick {trick}: from where they sat, "
    if d.best == d.chosen:
        return head + f"it {_worth(_value_of(d, d.chosen))}; it was the best card"
    return head + _cost(d, _card_name(d.chosen), _card_name(d.best))
