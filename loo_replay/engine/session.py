"""A session's deals in order: pool continuity, must status, stacks, dealer
rotation and the comparison with what the log recorded (docs/rules.md §2.1, §5.4,
§5.5).

``SessionReplay`` takes deals one at a time so that a session of any length
streams through in constant memory; each call returns that deal's
``DealAudit`` with amounts keyed by player id.
"""

from __future__ import annotations

from collections.abc import Mapping

import cython

from loo_replay.engine.model import DealRecord, LogError, Violation
from loo_replay.engine.options import Options
from loo_replay.engine.records import record
from loo_replay.engine.replay import AtPlay, DealContext, replay_deal
from loo_replay.engine.replay_base import DealResult
from loo_replay.engine.settle import Settlement, settle
from loo_replay.engine.tables import NO_TRUMP
from loo_replay.engine.vocab import Knowledge, Outcome, Status

# Bound once: in Python 3.11 a member lookup on an Enum class goes through EnumType.__getattr__.
_AUDITED, _MISDEAL, _REJECTED = Status.AUDITED, Status.MISDEAL, Status.REJECTED


@cython.dataclasses.dataclass(frozen=True)
@cython.cclass
@cython.annotation_typing(False)  # fields stay Python objects
class Recorded:
    """What the log says happened; each field present is compared."""

    pool_start: int | None = None
    pool_next: int | None = None
    tricks: Mapping[str, int] | None = None
    payouts: Mapping[str, int] | None = None
    looed: Mapping[str, int] | None = None
    penalties: Mapping[str, int] | None = None
    stacks: Mapping[str, int] | None = None


@cython.dataclasses.dataclass(frozen=True)
@cython.cclass
@cython.annotation_typing(False)  # fields stay Python objects
class DealInput:
    """A deal as read: a record to replay, or the log errors that rejected it."""

    number: int | None
    record: DealRecord | None
    recorded: Recorded | None = None
    errors: tuple[LogError, ...] = ()  # paths from the document root
    dealer: str | None = None
    pointer: str = ""  # JSON pointer of the deal in its document, prefixed to engine errors


@record(slots=True)
class Discrepancy:
    field: str  # "pool_next", "payouts.eve", "stacks.bob"
    recorded: int
    expected: int


@cython.dataclasses.dataclass(frozen=True)
@cython.cclass
@cython.annotation_typing(False)  # fields stay Python objects
class Opening:
    """How a deal opens: its pool, the antes paid into it, and the deal's context."""

    pool_start: int | None
    adopted: bool  # pool_start taken from the record (first deal, or after a gap)
    antes: dict[str, int]
    round_antes: int  # antes in the pool of this round (kept over a same-dealer redeal)
    context: DealContext
    notes: tuple[str, ...] = ()


@cython.cclass
class DealAudit:
    """The verdict on one deal, as the JSON audit output and the database carry it.

    Compiled, an extension type whose fields ``session.pxd`` declares, so the session's
    audit sets them as C struct members; an explicit ``__init__``, because a dataclass's
    would import ``dataclasses`` again for each of its list fields, every deal."""

    def __init__(
        self,
        number: int | None,
        status: Status,
        dealer: str | None,
        errors: list[LogError] | None = None,
    ) -> None:
        self.number: int | None = number
        self.status: Status = status
        self.dealer: str | None = dealer
        self.pool: str | None = None
        self.pool_start: int | None = None
        self.trump: int | None = None
        self.outcome: Outcome | None = None
        self.must: bool = False
        self.tricks: dict[str, int] | None = None
        self.payouts: dict[str, int] | None = None
        self.looed: dict[str, int] | None = None
        self.penalties: dict[str, int] | None = None
        self.pool_next: int | None = None
        self.stacks: dict[str, int] | None = None
        self.antes: dict[str, int] = {}
        self.violations: list[Violation] = []
        self.discrepancies: list[Discrepancy] = []
        self.errors: list[LogError] = [] if errors is None else errors
        self.notes: list[str] = []
        # partial: hands left out (docs/log-format.md, "Hands left out")
        self.knowledge: Knowledge = Knowledge.FULL
        self.unchecked: list[str] = []  # checks the unknown cards prevented
        self.result: DealResult | None = None
        self.settlement: Settlement | None = None
        self.context: DealContext | None = None  # how the deal opened: replays start from it

    def __repr__(self) -> str:
        return f"DealAudit(number={self.number}, status={self.status!s})"


class SessionReplay:
    """Carries pools and stacks from deal to deal and audits each in turn."""

    def __init__(
        self,
        players: tuple[str, ...],
        options: Options,
        chips: Mapping[str, int] | None,
        at_play: AtPlay | None = None,
    ) -> None:
        """``at_play``: given to each deal's replay (``Replay.run``)."""
        self.players: tuple[str, ...] = players
        self.o: Options = options
        self.at_play: AtPlay | None = at_play
        self.total: int | None = None
        self.stacks: dict[str, int] | None = None
        if chips is not None and all(p in chips for p in players):
            self.stacks = {p: chips[p] for p in players}
            self.total = sum(self.stacks.values())
        self.carry: int | None = None  # pool_next of the previous deal, when known
        self.prev: DealAudit | None = None
        self.first_number: int | None = None
        self.round_antes: int = 0  # antes in the pool of the current round (same-dealer redeals)

    def audit(self, deal: DealInput) -> DealAudit:
        prev = self.prev
        if (
            deal.number is not None
            and prev is not None
            and prev.number is not None
            and deal.number <= prev.number
        ):
            errors = (
                LogError(
                    f"{deal.pointer}/deal",
                    f"deal {deal.number} follows deal {prev.number}: deal numbers must increase",
                ),
            )
            deal = DealInput(
                deal.number, None, deal.recorded, errors + deal.errors, deal.dealer, deal.pointer
            )
        if deal.record is None:
            audit = DealAudit(deal.number, _REJECTED, deal.dealer, errors=list(deal.errors))
            self.carry = None
            self.stacks = None
            self.prev = audit
            return audit
        audit = self._audit_record(deal, deal.record)
        self.prev = audit
        return audit

    def open_deal(
        self, number: int, dealer: str, seats: tuple[str, ...], recorded_pool_start: int | None
    ) -> Opening:
        """The pool a deal starts with and its context (single? first?), from the session so
        far (docs/rules.md §2.1); changes nothing, so a simulator may ask before dealing."""
        o, prev = self.o, self.prev
        notes: list[str] = []
        consecutive = prev is not None and prev.number == number - 1
        continuous = consecutive and prev is not None and prev.status != _REJECTED
        redeal = (
            continuous and prev is not None and prev.status == _MISDEAL and prev.dealer == dealer
        )
        seated = seats if o.stakes_ante_by == "all" else (dealer,)
        antes = {} if redeal else {p: o.stakes_ante for p in seated}
        round_antes = self.round_antes if redeal else sum(antes.values())
        pool_start: int | None = None
        adopted = False
        if prev is not None and continuous and self.carry is not None:
            pool_start = self.carry + sum(antes.values())
        elif recorded_pool_start is not None:
            pool_start, adopted = recorded_pool_start, True
        elif prev is None:
            pool_start = sum(antes.values())
        else:
            why = "a gap in deal numbers" if not consecutive else "the deal before"
            if consecutive and prev.status == _REJECTED:
                why = "the rejected deal before"
            notes.append(
                f"pool continuity lost after {why}: amounts unknown until a recorded pool_start"
            )
        if prev is not None and not consecutive:
            notes.append(f"gap in deal numbers: deal {prev.number} then deal {number}")
        single = pool_start is not None and pool_start == round_antes
        first = self.first_number is None or number == self.first_number
        return Opening(
            pool_start, adopted, antes, round_antes, DealContext(single, first), tuple(notes)
        )

    def _audit_record(self, deal: DealInput, rec: DealRecord) -> DealAudit:
        o = self.o
        prev = self.prev
        dealer = rec.seats[rec.dealer]
        audit: DealAudit = DealAudit(rec.number, _AUDITED, dealer)
        recorded = deal.recorded or Recorded()
        opening = self.open_deal(rec.number, dealer, rec.seats, recorded.pool_start)
        if self.first_number is None:
            self.first_number = rec.number
        self.round_antes = opening.round_antes
        pool_start, adopted, antes = opening.pool_start, opening.adopted, opening.antes
        if adopted and prev is None and self.total is not None and pool_start is not None:
            self.total += pool_start - sum(antes.values())  # chips carried in
        audit.notes.extend(opening.notes)
        consecutive = prev is not None and prev.number == rec.number - 1
        continuous = consecutive and prev is not None and prev.status != _REJECTED
        single = opening.context.single
        context = opening.context
        result: DealResult = replay_deal(rec, o, context, self.at_play)
        audit.result = result
        audit.context = context
        audit.antes = antes
        audit.notes.extend(result.notes)
        audit.knowledge, audit.unchecked = result.knowledge, result.unchecked
        if result.status == _REJECTED:
            audit.status = _REJECTED
            audit.errors = [LogError(deal.pointer + e.path, e.message) for e in result.errors]
            self.carry = None
            self.stacks = None
            return audit
        audit.status = result.status
        audit.must = result.must
        audit.outcome = result.outcome
        audit.pool = "single" if single else "double"
        audit.trump = None if result.trump == NO_TRUMP else result.trump
        audit.violations = list(result.violations)
        if continuous and prev is not None:
            self._check_rotation(audit, prev, rec)
        ids = rec.seats
        audit.tricks = {ids[s]: result.tricks_won[s] for s in result.active}
        if pool_start is not None:
            settled: Settlement = settle(result, o, pool_start)
            audit.settlement = settled
            audit.pool_start = pool_start
            audit.payouts = {ids[k]: v for k, v in settled.payouts.items() if v}
            audit.looed = {ids[k]: v for k, v in settled.looed.items() if v}
            audit.penalties = {ids[k]: v for k, v in settled.penalties.items() if v}
            audit.pool_next = settled.pool_next
            self.carry = settled.pool_next
        else:
            self.carry = None
        if prev is not None and not continuous:
            self.stacks = None  # the lost deals moved chips nobody recorded
        self._move_chips(audit, recorded)
        self._compare(audit, recorded, adopted)
        return audit

    def _check_rotation(self, audit: DealAudit, prev: DealAudit, rec: DealRecord) -> None:
        """docs/rules.md §5.5: the next seated player clockwise deals, or the same after a misdeal."""
        if prev.dealer is None:
            return
        same = prev.status == _MISDEAL and self.o.penalties_misdeal_redeal == "same_dealer"
        due = prev.dealer
        if not same:
            order = list(self.players)
            start = order.index(prev.dealer) if prev.dealer in order else 0
            seated = set(rec.seats)
            for i in range(1, len(order) + 1):
                candidate = order[(start + i) % len(order)]
                if candidate in seated:
                    due = candidate
                    break
        if audit.dealer != due:  # the reason is worded only for a breach
            if same:
                why = f"after {prev.dealer}'s misdeal the same dealer deals again"
            else:
                why = f"the deal passes clockwise from {prev.dealer}"
                if prev.status == _MISDEAL:
                    why += " (after a misdeal the next dealer deals)"
            seat = rec.dealer
            audit.violations.append(
                Violation(
                    code="dealer-rotation",
                    player=rec.seats[seat],
                    message=f"{audit.dealer} dealt deal {rec.number}, but {due} was due to deal: {why}",
                    penalized=False,
                )
            )

    def _move_chips(self, audit: DealAudit, recorded: Recorded) -> None:
        """docs/rules.md §5.4: stacks pay antes, loos and penalties and take payouts."""
        s: Settlement | None = audit.settlement
        stacks: dict[str, int] | None = self.stacks
        if stacks is not None and s is not None and audit.result is not None:
            ids = audit.result.record.seats
            for player, chips in audit.antes.items():
                stacks[player] = stacks.get(player, 0) - chips
            for seat, player in enumerate(ids):
                if player in stacks:
                    stacks[player] += s.payouts.get(seat, 0) - s.paid_by(seat)
            audit.stacks = dict(stacks)
            if self.total is not None and sum(stacks.values()) + s.pool_next != self.total:
                audit.notes.append(
                    "chip conservation broken: stacks plus pool differ from the start"
                )
        else:
            if self.stacks is not None:
                audit.notes.append("stacks unknown until a deal records them again")
            self.stacks = None
        complete = recorded.stacks is not None and all(p in recorded.stacks for p in self.players)
        if self.stacks is None and recorded.stacks is not None and complete:
            self.stacks = dict(recorded.stacks)
            audit.stacks = dict(recorded.stacks)
            if audit.pool_next is not None:
                self.total = sum(self.stacks.values()) + audit.pool_next
            audit.notes.append("stacks taken from the record")

    def _compare(self, audit: DealAudit, recorded: Recorded, adopted: bool) -> None:
        out = audit.discrepancies
        if audit.pool_start is not None:
            rps = recorded.pool_start
            if rps is not None and not adopted and rps != audit.pool_start:
                out.append(Discrepancy("pool_start", rps, audit.pool_start))
        _compare_map(out, "tricks", recorded.tricks, audit.tricks, True)
        if audit.pool_start is not None:
            for name in ("payouts", "looed", "penalties"):
                _compare_map(out, name, getattr(recorded, name), getattr(audit, name), True)
            if recorded.pool_next is not None and recorded.pool_next != audit.pool_next:
                out.append(Discrepancy("pool_next", recorded.pool_next, audit.pool_next or 0))
        elif any(
            getattr(recorded, name) is not None
            for name in ("pool_next", "payouts", "looed", "penalties")
        ):
            audit.notes.append("recorded amounts not compared: pool continuity was lost")
        if audit.stacks is not None and recorded.stacks is not None:
            _compare_map(out, "stacks", recorded.stacks, audit.stacks, False)


def _compare_map(
    out: list[Discrepancy],
    name: str,
    recorded: Mapping[str, int] | None,
    expected: Mapping[str, int] | None,
    absent_is_zero: bool,
) -> None:
    """Differences player by player; a player a map leaves out has zero when ``absent_is_zero``."""
    if recorded is None or expected is None or recorded == expected:
        return
    keys = list(recorded) if not absent_is_zero else list(dict.fromkeys([*expected, *recorded]))
    for player in keys:
        if not absent_is_zero and player not in expected:
            continue
        got, want = recorded.get(player, 0), expected.get(player, 0)
        if got != want:
            out.append(Discrepancy(f"{name}.{player}", got, want))
