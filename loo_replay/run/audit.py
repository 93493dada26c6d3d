"""Audit hand logs: read, parse, resolve rules and run each session through the engine.

This is the audit step of the run layer behind ``validate``, ``ingest``, ``audit`` and
the replayer.  It yields one ``SessionReport`` per session document (or an
``UnreadableDocument`` for input that is not a session at all), streaming, so
memory holds one session at a time.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

from loo_replay.engine.model import LogError
from loo_replay.engine.options import OptionError, Options
from loo_replay.engine.records import field, fields, record
from loo_replay.engine.replay import AtPlay
from loo_replay.engine.session import DealAudit, DealInput, SessionReplay
from loo_replay.engine.vocab import Knowledge, Status
from loo_replay.evidence.seals import SealCheck, check_read
from loo_replay.logs.fast_reader import FASTER, read_plain
from loo_replay.logs.limits import LIMITS, Limits
from loo_replay.logs.parse import (
    Bad,
    ParsedDocument,
    SessionHeader,
    parse_deal,
    parse_document,
    too_many_seated,
)
from loo_replay.logs.reader import Document, decode
from loo_replay.rulesets import RuleChoice, resolve


@record(frozen=False)
class SessionReport:
    """One session document audited: its header, options and every deal's verdict."""

    id: str
    file: str
    line: int | None
    ruleset: str | None
    options: Options | None
    header: SessionHeader | None
    deals: list[DealAudit] = field(default_factory=list)
    raw_deals: Sequence[Any] = field(default_factory=list)  # JSON of each deal, for rejects
    errors: list[LogError] = field(default_factory=list)  # errors of the document itself
    raw: bytes = field(default=b"", repr=False)  # the document's bytes as read
    envelope: dict[str, Any] | None = field(default=None, repr=False)  # all but the deals

    @property
    def seals(self) -> SealCheck:
        """Whether the session's seals hold (docs/evidence.md), computed when asked."""
        return check_read(self.envelope, self.raw_deals, self.raw)

    @property
    def digest(self) -> str:
        """sha256 of the document's bytes as read: same digest, same content.  Computed when
        asked (the database keeps it), not by every audit (docs/performance.md, "What
        limits `ingest` and `report`")."""
        return hashlib.sha256(self.raw).hexdigest()


@record
class UnreadableDocument:
    """Input that is not a session document at all (bad JSON, no deals array)."""

    file: str
    line: int | None
    path: str
    message: str
    raw: bytes


@record
class UnreadableFile:
    """A file that could not be opened or broke off while reading; or, ``skipped``, an entry
    of a folder that looks like input and could not be read (``logs.paths.Skipped``)."""

    message: str
    file: str | None = None  # the entry skipped
    skipped: bool = False


AuditItem = SessionReport | UnreadableDocument | UnreadableFile

# Bound once: in Python 3.11 a member lookup on an Enum class goes through EnumType.__getattr__.
_AUDITED, _MISDEAL, _REJECTED = Status.AUDITED, Status.MISDEAL, Status.REJECTED
_PARTIAL = Knowledge.PARTIAL


@record(frozen=False)
class Summary:
    """What an audit found, counted: its exit status, the JSON audit's ``summary``."""

    sessions: int = 0
    deals: int = 0
    audited: int = 0
    misdeals: int = 0
    rejected: int = 0
    violations: int = 0
    discrepancies: int = 0
    unreadable: int = 0
    partial: int = 0  # deals recorded with hands left out (docs/log-format.md, "Hands left out")
    unreadable_files: int = 0
    session_errors: int = 0  # sessions with an error of their own (version, rules, players)
    skipped_entries: int = 0  # entries of input folders that could not be read (logs/paths.py)

    def merge(self, other: Summary) -> None:
        for name in fields(self):
            setattr(self, name, getattr(self, name) + getattr(other, name))

    def add(self, item: AuditItem) -> None:
        if isinstance(item, UnreadableFile):
            if item.skipped:
                self.skipped_entries += 1
            else:
                self.unreadable_files += 1
            return
        if isinstance(item, UnreadableDocument):
            self.unreadable += 1
            return
        self.sessions += 1
        self.session_errors += bool(item.errors)
        deal: DealAudit
        for deal in item.deals:
            self.deals += 1
            if deal.status == _AUDITED:
                self.audited += 1
            elif deal.status == _MISDEAL:
                self.misdeals += 1
            else:
                self.rejected += 1
            self.violations += len(deal.violations)
            self.discrepancies += len(deal.discrepancies)
            self.partial += deal.knowledge is _PARTIAL

    @property
    def nothing_read(self) -> bool:
        """No session document and nothing unreadable: no hand logs in the input at all."""
        return not (
            self.sessions or self.unreadable or self.unreadable_files or self.skipped_entries
        )

    @property
    def exit_code(self) -> int:
        """docs/log-format.md, exit status: 2 when no logs were found, a file or document could
        not be read or parsed, or an entry of a folder was skipped (the rest is still
        audited), else 1 for findings, 0 clean (docs/limits.md, "Exit statuses")."""
        if self.unreadable_files or self.unreadable or self.skipped_entries or self.nothing_read:
            return 2
        found = self.rejected + self.violations + self.discrepancies + self.session_errors
        return 1 if found else 0

    def as_json(self) -> dict[str, int]:
        return {
            "sessions": self.sessions,
            "deals": self.deals,
            "audited": self.audited,
            "misdeals": self.misdeals,
            "rejected": self.rejected,
            "violations": self.violations,
            "discrepancies": self.discrepancies,
            "unreadable": self.unreadable,
            "partial": self.partial,
            "skipped_entries": self.skipped_entries,
        }


# Called with a session, a deal's index and its verdict, as soon as the deal is audited.
DealHook = Callable[[SessionReport, int, DealAudit], object]  # what it returns is not used


def audit_document(
    doc: Document,
    choice: RuleChoice,
    at_play: AtPlay | None = None,
    plain: bool = FASTER,
    keep: bool = True,
    each: DealHook | None = None,
    limits: Limits = LIMITS,
) -> SessionReport | UnreadableDocument:
    """Audit one session document (parsing its bytes first if need be) within ``limits``
    (``logs/limits.py``); ``at_play`` goes to
    each deal's replay (``Replay.run``).  With ``plain``, a document written plainly is read
    by the fast reader (``logs/fast_reader.py``), any other by the full one: the verdicts are
    the same.  The default uses the fast reader where it is the faster: compiled.
    ``each`` is called with every deal's verdict as soon as it is made, its replay still on
    it.  ``keep`` False: each verdict then drops its replay (``result``, ``settlement``,
    ``context``), for callers that need no more: a session's replays live one deal at a
    time instead of a hundred, and stay in the processor's caches."""
    if plain and doc.value is None and doc.error is None:
        found = read_plain(doc.raw, limits)
        if found is not None:
            return _audit_parsed(
                doc, found.parsed, choice, at_play, found.deals, keep, each, limits
            )
    doc = decode(doc, limits)
    if doc.error is not None:
        return UnreadableDocument(doc.file, doc.line, "", doc.error, doc.raw)
    try:
        parsed = parse_document(doc.value)
    except Bad as bad:
        return UnreadableDocument(doc.file, doc.line, bad.path, bad.message, doc.raw)
    return _audit_parsed(doc, parsed, choice, at_play, None, keep, each, limits)


# Why every deal of a session is rejected when its header has an error of its own.
HEADER_UNUSABLE = "the session's header is unusable"


def _audit_parsed(
    doc: Document,
    parsed: ParsedDocument,
    choice: RuleChoice,
    at_play: AtPlay | None = None,
    inputs: Iterable[DealInput] | None = None,
    keep: bool = True,
    each: DealHook | None = None,
    limits: Limits = LIMITS,
) -> SessionReport:
    header = parsed.header
    sid = parsed.session_id or f"{doc.file}:{doc.line or 1}"
    report = SessionReport(
        sid,
        doc.file,
        doc.line,
        None,
        None,
        header,
        raw_deals=parsed.raw_deals,
        raw=doc.raw,
        envelope=parsed.envelope,
    )
    options = None
    if header is not None:
        try:
            report.ruleset, options = resolve(choice, header.ruleset, header.rules)
        except OptionError as exc:
            report.errors.append(LogError("/session/rules", str(exc)))
    if parsed.header_error is not None:
        report.errors.append(parsed.header_error)
    if header is None or options is None:
        # One error of the session, said once; its deals are rejected (the JSON contract),
        # each named by the number the log gives it, or else by where it is.
        first = report.errors[0]
        for i, raw in enumerate(parsed.raw_deals):
            number = raw.get("deal") if isinstance(raw, dict) else None
            number = number if isinstance(number, int) and not isinstance(number, bool) else None
            named = f"deal {number}" if number is not None else f"the deal at /deals/{i}"
            said = f"{named} not audited: {HEADER_UNUSABLE} ({first.message})"
            rejected = DealAudit(number, Status.REJECTED, None, errors=[LogError(first.path, said)])
            report.deals.append(rejected)
            if each is not None:
                each(report, i, rejected)
        return report
    report.options = options
    chain = SessionReplay(header.players, options, header.chips, at_play)
    if inputs is None:
        inputs = (
            parse_deal(raw, f"/deals/{i}", header, limits) for i, raw in enumerate(parsed.raw_deals)
        )
    most = most_seated(options)
    for index, deal in enumerate(inputs):
        if deal.record is not None and len(deal.record.seats) > most:
            deal = _overseated(deal, header, options)
        audit = chain.audit(deal)  # the chain keeps only the verdict of the deal before
        report.deals.append(audit)
        if each is not None:
            each(report, index, audit)
        if not keep:
            audit.result = audit.settlement = audit.context = None
    return report


def most_seated(options: Options) -> int:
    """The players one pack of 52 deals a hand to under ``options``, the miss (an extra
    hand) too where the ruleset deals one: a deal that seats more cannot have been played,
    whatever its hands left out might hide."""
    return 52 // options.deal_hand_size - options.deal_miss


def _overseated(deal: DealInput, header: SessionHeader, options: Options) -> DealInput:
    """``deal`` rejected for seating more players than the pack deals to."""
    assert deal.record is not None
    seats = deal.record.seats
    where = "/session/players" if seats == header.players else f"{deal.pointer}/players"
    hand, most = options.deal_hand_size, most_seated(options)
    message = too_many_seated(len(seats), hand, most, options.deal_miss)
    return DealInput(
        deal.number, None, None, (LogError(where, message),), deal.dealer, deal.pointer
    )


# A task's documents as the driver reads them (``run.driver``), with a file that broke off
# (or a path that cannot be read) in its place: what every command's work takes.
Documents = Iterable[Document | UnreadableFile]


def audit_documents(setup: tuple[RuleChoice, Limits], documents: Documents) -> Iterator[AuditItem]:
    """replay's work on the driver's documents (``run.driver.each_document``): each session
    audited under the rules and within the limits of ``setup``, its replays kept; a file
    that cannot be read in its place."""
    choice, limits = setup
    for doc in documents:
        if isinstance(doc, UnreadableFile):
            yield doc
        else:
            yield audit_document(doc, choice, limits=limits)
