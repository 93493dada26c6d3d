"""Which cards threw a trick away, which loos were avoidable: docs/analysis.md.

``analyse_deal`` replays an audited deal to the start of play, then follows
the recorded cards with a ``Search`` beside the replay: before and after each
card it asks the mover's guarantee G, and lists their legal cards that would
have kept it.  The result is data, advice only: no chips move, no status
changes.  A deal is solved exactly, skipped with its reason, or unsolved when
the node budget runs out (never half reported).
"""

from __future__ import annotations

import cython

from loo_replay.engine.cards import display
from loo_replay.engine.model import Event, Play, Violation
from loo_replay.engine.options import Options
from loo_replay.engine.replay import PLAYING, DealContext, Replay
from loo_replay.engine.replay_base import DealResult
from loo_replay.engine.session import DealAudit
from loo_replay.engine.solver import ANNOUNCE, CARD, OverBudget, Search, taker
from loo_replay.engine.tables import NO_TRUMP
from loo_replay.engine.vocab import Knowledge, Outcome, Status

DEFAULT_MAX_NODES = 2_000_000
SOLVED, SKIPPED, UNSOLVED = "solved", "skipped", "unsolved"
ANALYSED_OUTCOMES = (Outcome.PLAYED, Outcome.REVOKE)


# The results are frozen dataclasses; compiled, extension types (as ``Play`` in model.py),
# whose ``__init__`` does not run in the interpreter: a deal makes one for each card analysed.


@cython.dataclasses.dataclass(frozen=True)
@cython.cclass
class CardStep:
    """One analysed card: its player's guarantee just before and just after it."""

    seat: cython.int
    trick: cython.int
    card: cython.int
    before: cython.int
    after: cython.int
    better: tuple[int, ...]  # their legal cards that kept ``before``, when ``after`` is lower
    announced: cython.bint = False  # led with "Pam, be civil" announced; ``better`` may then hold
    # ``card`` itself: the other choice of announcement kept ``before``


NOTE_CODES = ("lost-trick", "avoidable-loo", "no-safe-trick")  # docs/analysis.md, "The notes"


@cython.dataclasses.dataclass(frozen=True)
@cython.cclass
class Note:
    """A note of docs/analysis.md, "The notes"; card fields are None for ``no-safe-trick``."""

    code: str  # lost-trick | avoidable-loo | no-safe-trick
    player: str
    message: str
    trick: int | None = None
    card: int | None = None
    before: int | None = None
    after: int | None = None
    better: tuple[int, ...] = ()


@cython.dataclasses.dataclass(frozen=True)
@cython.cclass
class PlayerAnalysis:
    player: str
    guarantee: cython.int  # G at the start of play
    tricks: cython.int  # tricks taken in the deal
    lost: cython.int  # tricks their own cards threw away


@cython.dataclasses.dataclass(frozen=True)
@cython.cclass
class DealAnalysis:
    status: str  # solved | skipped | unsolved
    reason: str | None = None  # why skipped or unsolved (plain text: the type is exact, compiled)
    nodes: cython.longlong = 0
    cards: cython.int = 0  # cards analysed
    total: cython.int = 0  # cards of the deal's play
    stopped: str | None = None  # why the analysed stretch ends before the deal does
    players: tuple[PlayerAnalysis, ...] = ()
    notes: tuple[Note, ...] = ()
    steps: tuple[CardStep, ...] = ()


def analyse_deal(
    audit: DealAudit, options: Options, max_nodes: int = DEFAULT_MAX_NODES
) -> DealAnalysis:
    """The analysis of one audited deal (docs/analysis.md, "How it works": what is analysed, what skipped)."""
    result = audit.result
    if audit.status != Status.AUDITED or result is None:
        return DealAnalysis(SKIPPED, str(audit.status))
    if result.outcome not in ANALYSED_OUTCOMES:
        return DealAnalysis(SKIPPED, str(result.outcome))
    # A solver needs every hand (docs/log-format.md, "Hands left out").
    if result.knowledge == Knowledge.PARTIAL:
        return DealAnalysis(SKIPPED, "partial")
    record = result.record
    events = record.events
    first = next((i for i, e in enumerate(events) if isinstance(e, Play)), len(events))
    kept = result.at_play
    if isinstance(kept, Search) and not result.violations:
        # The audit kept the start of play (``start_of_play``) and found the cards within
        # the rules: no replay to set the position up, none to judge the cards again.
        result.at_play = None  # a search is used once
        kept.max_nodes = max_nodes
        run = _Run(None, kept, result)
    else:
        replay = Replay(record, options, audit.context or DealContext())
        for event in events[:first]:
            replay.apply(event)
        replay.begin_play()
        if replay.phase != PLAYING:
            return DealAnalysis(SKIPPED, str(result.outcome))
        if _unfixed(replay):
            return DealAnalysis(SKIPPED, "on_void")
        run = _Run(replay, Search(replay, max_nodes), result)
    try:
        run.follow(events[first:])
    except OverBudget:
        return DealAnalysis(
            UNSOLVED,
            f"passed the budget of {max_nodes} nodes after {len(run.steps)} of {run.total} cards",
            nodes=run.search.nodes,
            cards=len(run.steps),
            total=run.total,
        )
    return run.analysis()


def start_of_play(replay: Replay) -> Search | None:
    """The search at the start of play, for the audit to keep (``Replay.run``'s ``at_play``):
    ``analyse_deal`` then takes it instead of replaying the deal a second time."""
    return None if _unfixed(replay) else Search(replay, DEFAULT_MAX_NODES)


def _unfixed(replay: Replay) -> bool:
    """Trumps are not fixed at the start of play, and an ``on_void`` turn may fix them
    during it: the search does not know that turn (docs/analysis.md, "How it works")."""
    return replay.state.trump == NO_TRUMP and replay.method == "on_void"


def _why_stopped(found: tuple[Violation, ...]) -> str:
    if found:
        v = found[0]
        where = f" at trick {v.trick}" if v.trick is not None else ""
        return f"{v.code} by {v.player}{where} broke a rule: the cards after it are not analysed"
    return "the record leaves the rules here"


class _Run:
    """Follows the recorded cards with the search, collecting each card's step."""

    def __init__(self, replay: Replay | None, search: Search, result: DealResult) -> None:
        """``replay`` None: the audit found no violation, so no card needs judging again."""
        self.replay = replay
        self.search = search
        self.result = result
        self.total = search.n * search.left
        self.steps: list[CardStep] = []
        self.stopped: str | None = None
        self.guarantee: dict[int, int] = {}  # G at the start of play
        self.known: dict[int, int] = {}  # what each player is sure of now; others' cards raise it

    def follow(self, events: tuple[Event, ...]) -> None:
        replay, search = self.replay, self.search
        taken_by = self.result.tricks_won
        # Those who took most first: what they are sure of caps the others' queries (``_cap``),
        # and those who took nothing often have nothing left to ask.
        for seat in sorted(search.playing, key=lambda s: -taken_by[s]):
            won = search.won[seat]
            taken = taken_by[seat] - won  # a first guess at what they were sure of
            self.known[seat] = won + search.future(seat, 0, taken, self._cap(seat))
        self.guarantee = dict(self.known)
        for event in events:
            if search.left == 0:
                break
            if replay is not None:
                applied = replay.apply(event)  # the engine judges the card; the search is before it
                if applied.violations or applied.error is not None:
                    self.stopped = _why_stopped(applied.violations)
                    return
            if isinstance(event, Play):
                seat = event.seat
                step = self._step(seat, event.card, event.announce, self.known[seat])
                self.known[seat] = step.after
                self.steps.append(step)
                search.advance(event.card, event.announce)

    def _step(self, seat: int, card: int, announce: bool, known: int) -> CardStep:
        search = self.search
        trick = search.trick.number
        won = search.won[seat]
        before = won + search.future(seat, known - won, high=self._cap(seat))
        played = search.move(card, announce)
        said = bool(played & ANNOUNCE)
        if self._keeps(seat, played, before):
            return CardStep(seat, trick, card, before, before, (), said)
        undo = search.play(played)
        after = search.won[seat] + (taker(undo) == seat) + search.future(seat)
        search.unplay(undo)
        better = sorted(
            {m & CARD for m in search.legal_moves() if m != played and self._keeps(seat, m, before)}
        )
        return CardStep(seat, trick, card, before, after, tuple(better), said)

    def _cap(self, seat: int) -> int:
        """At most what ``seat`` can make sure of from here on: the tricks left less what
        the others are already known to be sure of.  Every player can follow the play that
        makes sure of their own guarantee at once, so the guarantees of the tricks still to
        come add up to no more than those tricks."""
        search = self.search
        others = sum(max(0, g - search.won[s]) for s, g in self.known.items() if s != seat)
        return search.left - others

    def _keeps(self, seat: int, move: int, target: int) -> bool:
        """Whether ``move`` still leaves ``seat`` sure of ``target`` tricks."""
        search = self.search
        undo = search.play(move)
        need = target - search.won[seat] - (taker(undo) == seat)
        search.study(seat)
        ok = need <= 0 or search.can(need)
        search.unplay(undo)
        return ok

    def analysis(self) -> DealAnalysis:
        r = self.result
        seats = r.record.seats
        lost: dict[int, int] = {}
        for step in self.steps:
            lost[step.seat] = lost.get(step.seat, 0) + step.before - step.after
        players = tuple(
            PlayerAnalysis(seats[s], self.guarantee[s], r.tricks_won[s], lost.get(s, 0))
            for s in self.search.playing
        )
        notes = self._avoidable() + self._lost() + self._no_safe()
        return DealAnalysis(
            SOLVED,
            nodes=self.search.nodes,
            cards=len(self.steps),
            total=self.total,
            stopped=self.stopped,
            players=players,
            notes=tuple(notes),
            steps=tuple(self.steps),
        )

    def _looed(self, seat: int) -> bool:
        r = self.result
        return (
            r.outcome == Outcome.PLAYED
            and r.tricks_won[seat] == 0
            and seat != r.defender
            and seat not in r.retired
        )

    def _lost(self) -> list[Note]:
        name = self.result.record.seats
        notes = []
        for s in self.steps:
            if s.after < s.before:
                looed = self._looed(s.seat)
                notes.append(
                    Note(
                        "lost-trick",
                        name[s.seat],
                        _lost_message(name[s.seat], s, looed),
                        s.trick,
                        s.card,
                        s.before,
                        s.after,
                        s.better,
                    )
                )
        return notes

    def _avoidable(self) -> list[Note]:
        name = self.result.record.seats
        notes = []
        for seat in self.search.playing:
            if not self._looed(seat):
                continue
            step = next(
                (s for s in self.steps if s.seat == seat and s.before >= 1 and s.after == 0), None
            )
            if step is None:
                continue
            who = name[seat]
            instead = f"; with {_better(step)} they could not have been" if step.better else ""
            notes.append(
                Note(
                    "avoidable-loo",
                    who,
                    f"{who} was looed, but could have made sure of a trick until "
                    f"{display(step.card)} at trick {step.trick}{instead}",
                    step.trick,
                    step.card,
                    step.before,
                    step.after,
                    step.better,
                )
            )
        return notes

    def _no_safe(self) -> list[Note]:
        r = self.result
        name = r.record.seats
        notes = []
        for seat in self.search.playing:
            if self.guarantee[seat] != 0:
                continue
            who = name[seat]
            taken = r.tricks_won[seat]
            if taken:
                message = (
                    f"{who} could not make sure of any trick at the start of play, yet took "
                    f"{_tricks(taken)}: the others let them"
                )
            elif self._looed(seat):
                message = (
                    f"{who} could not make sure of any trick at the start of play: the others "
                    "could loo them whatever they played, and they were looed"
                )
            else:
                continue
            notes.append(Note("no-safe-trick", who, message))
        return notes


def _tricks(n: int) -> str:
    return "a trick" if n == 1 else f"{n} tricks"


def _better(s: CardStep) -> str:
    """The better cards in words; the card played itself is named with the other choice of
    announcement ("Pam, be civil") that would have kept the guarantee."""
    words = []
    for card in s.better:
        if card == s.card:
            said = "not announcing" if s.announced else 'announcing "Pam, be civil"'
            words.append(f"{display(card)} {said}")
        else:
            words.append(display(card))
    return " or ".join(words)


def _lost_message(who: str, s: CardStep, looed: bool) -> str:
    card = display(s.card)
    means = f"with {_better(s)} they" if s.better else "they"
    text = (
        f"{who} played {card} at trick {s.trick}: {means} were sure of {_tricks(s.before)} "
        "(the others could not stop it); "
    )
    if s.after:
        return text + f"after {card} only of {_tricks(s.after)}"
    return text + f"after {card} they could be looed" + (", and were" if looed else "")
