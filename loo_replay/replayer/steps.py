"""A deal as a list of frozen steps, one per event, taken from the engine's own replay.

Nothing here decides a rule: each step is a snapshot of ``Replay.state`` and
of ``legal_cards`` after ``Replay.apply``, so the replayer shows exactly what
the validator judged.  The context of the deal (single pool? first deal?)
is the one the session chain opened it with (``DealAudit.context``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from loo_replay.engine.analysis import DealAnalysis, analyse_deal
from loo_replay.engine.cards import SUIT_SYMBOLS, cards_of, display, display_cards
from loo_replay.engine.legal import legal_cards
from loo_replay.engine.model import (
    DEAD,
    Applied,
    Declare,
    Event,
    Exchange,
    Play,
    ShowFlush,
    Trick,
    Violation,
)
from loo_replay.engine.options import Options
from loo_replay.engine.records import record, replace
from loo_replay.engine.replay import DECLARING, DealContext, Replay
from loo_replay.engine.session import DealAudit
from loo_replay.engine.tables import NO_TRUMP
from loo_replay.engine.vocab import Action, Outcome, Status
from loo_replay.errors import RejectedDeal
from loo_replay.output.wording import display_names, who
from loo_replay.replayer.marks import CardMark, Marks, marks_of
from loo_replay.run.audit import SessionReport

if TYPE_CHECKING:
    from loo_replay.engine.judging import DealDecisions

_ACTIONS = {
    Action.PLAY: "plays",
    Action.PASS: "passes",
    Action.TAKE_MISS: "takes the Miss (own hand dead)",
    Action.DEFEND: "defends the pool: takes the Miss and plays for the pool",
}
_OUTCOMES: dict[str, str] = {
    Outcome.PLAYED: "played out",
    Outcome.ALL_PASSED: "all passed: the dealer takes the pool",
    Outcome.UNOPPOSED: "unopposed: the one player standing takes the pool",
    Outcome.FLUSH: "a flush takes the pool",
    Outcome.REVOKE: "the pool is divided after a revoke",
    Outcome.MISDEAL: "a misdeal: nothing is paid out",
}

_METHODS = {
    "on_void": "no turn-up: a trump is turned when a player first cannot follow",
    "first_lead": "no turn-up: the first card led fixes trumps",
    "turn_up": "no turn-up",
}


class ReplayError(RejectedDeal, ValueError):
    """The deal cannot be stepped through (rejected, or not part of the report): exit
    status 1."""


@record(slots=True)
class TrickView:
    """A trick as it lies on the table: plays in the order made, dead cards included."""

    number: int
    leader: int
    plays: tuple[tuple[int, int, bool], ...]  # (seat, card, dead) in the order played
    winner: int | None  # a seat; -1 when everyone retired; None while the trick is open
    winning_card: int | None


@record(slots=True)
class Step:
    """The deal just after one event (or at the deal, the start of play, the end)."""

    kind: str  # deal | declare | exchange | show_flush | turn_up | begin | play | end
    text: str  # what happened, in one line (players as the log names them, cards displayed)
    event: int | None = None  # index in the deal's events: /events/<event>
    seat: int | None = None  # who acted
    card: int | None = None  # the card played or turned
    judged: bool = True  # False for an event the engine did not judge (deal already over)
    held: tuple[int, ...] = ()  # a play: what the player held before it
    played_legal: tuple[int, ...] | None = None  # a judged play: the cards that were legal
    hands: tuple[tuple[int, ...], ...] = ()  # each seat's cards after the step
    miss: tuple[int, ...] | None = None  # the Miss while nobody has taken it
    miss_taker: int | None = None
    trump: int | None = None
    turned: tuple[int, ...] = ()  # cards turned up to fix trumps
    trick: TrickView | None = None  # the trick on the table (the last one between tricks)
    tricks_won: tuple[int, ...] = ()
    declarations: tuple[str | None, ...] = ()
    active: tuple[int, ...] = ()
    retired: frozenset[int] = frozenset()
    on_turn: int | None = None  # the seat due to play next
    legal: tuple[int, ...] = ()  # what ``on_turn`` may play now
    findings: tuple[Violation, ...] = ()  # violations marked at this step


@record(slots=True)
class Revealed:
    """Cards of one suit a player cannot hold, as their legal plays so far showed (the seat
    views' facts, read by ``replayer/judged.py``)."""

    seat: int
    suit: int  # the suit as cards belonged to it then (Pam among the trumps where he counts)
    cards: int  # the mask of the suit's cards still out that they cannot hold
    left: int  # the suit's cards still out that they may hold
    trick: int  # the first trick that revealed one of them

    def text(self) -> str:
        """``no ♠ (trick 2)``, ``no ♥ other than 3♥ 2♥``, ``none of A♦ K♦``."""
        symbol = SUIT_SYMBOLS[self.suit]
        if not self.left:
            said = f"no {symbol}"
        elif self.left.bit_count() < self.cards.bit_count():
            said = f"no {symbol} other than {_high_first(self.left)}"
        else:
            said = f"none of {_high_first(self.cards)}"
        return f"{said} (trick {self.trick})"


def _high_first(mask: int) -> str:
    return " ".join(display(c) for c in sorted(cards_of(mask), key=lambda c: -(c % 13)))


@record(slots=True)
class DealReplay:
    """Everything a renderer needs: who sat where, the steps, and the final verdict."""

    session_id: str
    file: str
    ruleset: str
    venue: str | None
    number: int
    seats: tuple[str, ...]
    names: tuple[str | None, ...]  # display names by seat, as logged (untrusted text)
    dealer: int
    clockwise: tuple[int, ...]  # eldest first, dealer last
    options: Options
    audit: DealAudit
    steps: tuple[Step, ...]
    marks: Marks | None = None  # the double-dummy analysis; None when not asked for
    decisions: DealDecisions | None = None  # the judged decisions (replayer/judged.py)
    revealed: tuple[tuple[Revealed, ...], ...] | None = None  # by step: the seat views' facts

    def unpaid(self, names: Mapping[str, str | None] | None = None) -> list[str]:
        """Why a player's tricks paid nothing, a line each, as the settlement applied the
        rules (docs/rules.md §5.1): a penalised revoke under ``penalties.revoke =
        "forfeit"``, a retired player, a defending dealer.  ``names``: the players as shown."""
        a, r = self.audit, self.audit.result
        settled = a.settlement
        if r is None or settled is None or a.outcome != Outcome.PLAYED:
            return []
        if settled.pool // self.options.deal_hand_size == 0:
            return []  # a trick's share is nothing: nobody's tricks paid
        forfeit = self.options.penalties_revoke == "forfeit"
        lines = []
        for seat in r.active:
            won = r.tricks_won[seat]
            if seat == r.defender:
                why = "a dealer who defends plays for the pool, not for themself"
            elif seat in r.retired:
                why = "a player who retired from the deal is paid for no trick"
            elif forfeit and seat in r.revokers:
                why = "a revoke forfeits the trick money (penalties.revoke = forfeit)"
            else:
                continue
            if won:
                tricks = f"{won} trick{'s' if won > 1 else ''}"
                stay = "its share stays" if won == 1 else "their shares stay"
                player = who(self.seats[seat], names)
                lines.append(f"{player}'s {tricks} paid nothing: {why}; {stay} in the pool")
        return lines

    def mark(self, step: Step) -> CardMark | None:
        """The analysis of the card ``step`` played, when it was analysed."""
        if self.marks is None or step.kind != "play" or step.card is None or not step.judged:
            return None
        return self.marks.cards.get(step.card)


def context_of(report: SessionReport, deal: DealAudit) -> DealContext:
    """The deal's context (docs/rules.md §2.1), as the session chain opened it."""
    if deal.context is None:
        raise ReplayError(f"deal {deal.number} of session {report.id} was rejected")
    return deal.context


def build_replay(
    report: SessionReport,
    deal: DealAudit,
    analyse: bool = True,
    *,
    by_name: bool = True,
    analysis: DealAnalysis | None = None,
) -> DealReplay:
    """Replay ``deal`` of ``report`` event by event and snapshot every step; with
    ``analyse``, mark it with the deal's double-dummy analysis (docs/analysis.md): ``analysis``
    when it is known already (stored by ``ingest``), else analysed now.  The step texts
    name the players as the log does (``display_names``), or by id (``by_name=False``, for
    the terminal, whose table of hands shows both)."""
    result = deal.result
    if deal.status == Status.REJECTED or result is None or report.options is None:
        raise ReplayError(f"deal {deal.number} of session {report.id} was rejected")
    record = result.record
    options = report.options
    replay = Replay(record, options, context_of(report, deal))
    names = report.header.names if report.header is not None else {}
    shown = display_names(record.seats, names if by_name else None)
    builder = _Builder(replay, tuple(shown[p] for p in record.seats))
    steps = builder.run()
    return DealReplay(
        session_id=report.id,
        file=report.file,
        ruleset=report.ruleset or "?",
        venue=report.header.venue if report.header is not None else None,
        number=record.number,
        seats=record.seats,
        names=tuple(names.get(p) for p in record.seats),
        dealer=record.dealer,
        clockwise=tuple(replay.clockwise),
        options=options,
        audit=deal,
        steps=_place_findings(steps, builder, deal),
        marks=marks_of(analysis or analyse_deal(deal, options), record.seats) if analyse else None,
    )


class _Builder:
    """Drives the engine's ``Replay`` and snapshots its state after every event."""

    def __init__(self, replay: Replay, who: tuple[str, ...]) -> None:
        self.replay = replay
        self.who = who  # each seat as the texts name him: the log's name, else the id
        self.steps: list[Step] = []
        self.arose: list[tuple[Violation, int]] = []  # each violation and the step it arose at
        self.by_event: dict[int, int] = {}  # event index -> step index

    def run(self) -> list[Step]:
        r = self.replay
        self._snap("deal", self._deal_text())
        for event in r.record.events:
            if isinstance(event, Play) and r.phase == DECLARING:
                r.begin_play()  # what the first card would do; lets us show the leader's choice
                self._snap("begin", self._begin_text())
            self._apply(event)
        r.finish()
        outcome = r.result.outcome or "?"
        self._snap("end", f"the deal ends: {_OUTCOMES.get(outcome, outcome)}")
        return self.steps

    # -- one event ---------------------------------------------------------

    def _apply(self, event: Event) -> None:
        r = self.replay
        seat = getattr(event, "seat", None)
        held = r.state.held(seat) if seat is not None and isinstance(event, Play) else ()
        applied = r.apply(event)
        judged = applied.judged
        text = _event_text(r, applied, self.who)
        played_legal: tuple[int, ...] | None = None
        card = getattr(event, "card", None)
        if applied.legal is not None:
            played_legal = tuple(c for c in held if applied.legal >> c & 1)
        if applied.dead:
            text += " out of turn (dead)"
        if not judged:
            text += f" — not judged, the deal was over ({r.result.outcome or 'rejected'})"
        kind = {
            Declare: "declare",
            Exchange: "exchange",
            ShowFlush: "show_flush",
            Play: "play",
        }.get(type(event), "turn_up")
        self.by_event[event.index] = len(self.steps)
        self._snap(
            kind,
            text,
            event=event.index,
            seat=seat,
            card=card,
            judged=judged,
            held=held,
            played_legal=played_legal,
        )

    # -- snapshots ---------------------------------------------------------

    def _snap(
        self,
        kind: str,
        text: str,
        *,
        event: int | None = None,
        seat: int | None = None,
        card: int | None = None,
        judged: bool = True,
        held: tuple[int, ...] = (),
        played_legal: tuple[int, ...] | None = None,
    ) -> None:
        r = self.replay
        state, res = r.state, r.result
        on_turn = r.on_turn()
        legal = legal_now(r, on_turn)
        for v in res.violations[len(self.arose) :]:
            self.arose.append((v, len(self.steps)))
        miss_taken = res.miss_taker is not None
        self.steps.append(
            Step(
                kind,
                text,
                hands=tuple(state.held(s) for s in range(r.n)),
                miss=None if miss_taken or r.record.miss is None else tuple(r.record.miss),
                miss_taker=res.miss_taker,
                trump=None if state.trump == NO_TRUMP else state.trump,
                turned=tuple(cards_of(state.turned)),
                trick=_trick_view(state.tricks[-1]) if state.tricks else None,
                tricks_won=tuple(res.tricks_won),
                declarations=tuple(res.declarations),
                active=tuple(state.active),
                retired=frozenset(state.retired),
                on_turn=on_turn,
                legal=legal,
                event=event,
                seat=seat,
                card=card,
                judged=judged,
                held=held,
                played_legal=played_legal,
            )
        )

    # -- words -------------------------------------------------------------

    def _deal_text(self) -> str:
        r = self.replay
        state = r.state
        words = [f"{self.who[r.record.dealer]} deals"]
        if r.result.status == Status.MISDEAL:
            words.append("a misdeal")
        elif r.record.turn_up is not None:
            words.append(
                f"turns up {display(r.record.turn_up)}: trumps {SUIT_SYMBOLS[state.trump]}"
            )
        else:
            words.append(_METHODS.get(r.method, r.method))
        if r.result.must:
            words.append("a must: everyone plays")
        return "; ".join(words)

    def _begin_text(self) -> str:
        r = self.replay
        res = r.result
        if res.outcome != Outcome.PLAYED:
            return f"declarations closed: {_OUTCOMES.get(res.outcome or '', res.outcome)}"
        players = ", ".join(self.who[s] for s in res.active)
        leader = r.on_turn()
        lead = f"; {self.who[leader]} leads" if leader is not None else ""
        return f"declarations closed: {players} play{lead}"


def legal_now(replay: Replay, seat: int | None) -> tuple[int, ...]:
    """The cards ``seat`` may play now, in his hand's order: the engine's ``legal_cards``."""
    if seat is None:
        return ()
    mask = legal_cards(replay.state, seat)
    return tuple(c for c in replay.state.held(seat) if mask >> c & 1)


def _trick_view(trick: Trick) -> TrickView:
    won = trick.winner is not None and trick.winner >= 0
    return TrickView(
        trick.number,
        trick.leader,
        tuple((s, c, legal == DEAD) for s, c, legal, _ in trick.cards),
        trick.winner,
        trick.cards[trick.win][1] if won else None,
    )


def _event_text(r: Replay, applied: Applied, who: tuple[str, ...]) -> str:
    event, judged = applied.event, applied.judged
    if isinstance(event, Declare):
        return f"{who[event.seat]} {_ACTIONS.get(event.action, event.action)}"
    if isinstance(event, Exchange):
        return (
            f"{who[event.seat]} discards {display_cards(event.discard) or 'nothing'}, "
            f"draws {display_cards(event.draw) or 'nothing'}"
        )
    if isinstance(event, ShowFlush):
        return f"{who[event.seat]} shows a flush"
    if isinstance(event, Play):
        verb = "leads" if applied.led else "plays"
        text = f"{who[event.seat]} {verb} {display(event.card)}"
        if event.announce:
            text += ", announcing “Pam, be civil”"
        return text
    text = f"{who[r.record.dealer]} turns {display(event.card)}"
    trump = r.state.trump
    return text + (f": trumps {SUIT_SYMBOLS[trump]}" if judged and trump != NO_TRUMP else "")


def _place_findings(steps: list[Step], builder: _Builder, deal: DealAudit) -> tuple[Step, ...]:
    """Mark each violation at the event it names, else where the engine found it; the
    session's own findings (dealer rotation) at the deal."""
    marks: dict[int, list[Violation]] = {}
    seen: list[Violation] = []
    for v, arose in builder.arose:
        at = builder.by_event.get(v.event, arose) if v.event is not None else arose
        marks.setdefault(at, []).append(v)
        seen.append(v)
    for v in deal.violations:
        if not any(v is s or v == s for s in seen):
            marks.setdefault(0, []).append(v)
    return tuple(
        replace(step, findings=tuple(marks[i])) if i in marks else step
        for i, step in enumerate(steps)
    )
