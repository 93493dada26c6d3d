"""``verify`` for hand logs: each session's seals checked, and the codes the table noted
compared with the seals computed from the log (docs/evidence.md).

Seals stored in a file prove nothing against whoever computes them again; the codes do, to
40 bits, since they were written down at the table before anyone could change the log.  A
code names a deal by its number as logged: a code that differs says that deal, or one
before it, is not what the table saw; a deal the table sealed and the log lacks is
missing; the deals after the last code given are confirmed by none.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from loo_replay.evidence.codes import CodeError, code, read_code
from loo_replay.evidence.seals import SEALED, SealCheck, check, deal_label
from loo_replay.logs.reader import Document

MATCH = "match"
MISMATCH = "mismatch"
MISSING = "missing"


@dataclass(frozen=True, slots=True)
class Code:
    """A code the table noted: the session, the deal's number, the code as ``XXXX-XXXX``."""

    session: str
    deal: int
    code: str
    where: str  # the codes file and line, or the option, for messages


def _code(session: str, deal: str, text: str, where: str) -> Code:
    if not session:
        raise CodeError(f"{where}: no session id before the deal number")
    try:
        number = int(deal)
    except ValueError:
        number = 0
    if number < 1 or not deal.isdigit():
        raise CodeError(f"{where}: {deal!r} is not a deal number")
    try:
        return Code(session, number, read_code(text), where)
    except CodeError as exc:
        raise CodeError(f"{where}: {exc}") from None


def read_codes_file(text: str, name: str) -> list[Code]:
    """The codes of a codes file: ``SESSION DEAL CODE`` a line, split from the right (a
    session id may hold spaces); ``#`` starts a comment; blank lines are skipped."""
    codes = []
    for number, line in enumerate(text.splitlines(), 1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        parts = line.rsplit(None, 2)
        if len(parts) != 3:
            raise CodeError(f"{name} line {number}: expected SESSION DEAL CODE, got {line!r}")
        codes.append(_code(parts[0], parts[1], parts[2], f"{name} line {number}"))
    return codes


def read_code_option(text: str) -> Code:
    """One ``--code SESSION:DEAL=CODE``."""
    left, equals, given = text.rpartition("=")
    session, colon, deal = left.rpartition(":")
    if not equals or not colon:
        raise CodeError(f"--code {text!r}: expected SESSION:DEAL=CODE")
    return _code(session, deal, given, f"--code {text!r}")


@dataclass(frozen=True, slots=True)
class CodeResult:
    """One code compared: ``match``, ``mismatch`` or ``missing`` (the log lacks the deal)."""

    given: Code
    result: str
    computed: str | None = None  # the code the log gives that deal

    def line(self) -> str:
        if self.result == MATCH:
            return f"deal {self.given.deal} {self.given.code}: match"
        if self.result == MISSING:
            return f"deal {self.given.deal} {self.given.code}: missing deal {self.given.deal}"
        return (
            f"deal {self.given.deal} {self.given.code}: code mismatch at deal {self.given.deal} "
            f"(the log gives {self.computed}): this deal or one before it is not what the "
            "table saw"
        )


@dataclass
class SessionVerdict:
    """One session of the logs: its seals, its codes compared, the deals no code confirms."""

    session: str
    file: str
    line: int | None
    seals: SealCheck
    deals: int
    codes: list[CodeResult] = field(default_factory=list)
    unconfirmed: list[str] = field(default_factory=list)  # deals after the last code given

    @property
    def holds(self) -> bool:
        return (
            self.seals.status == SEALED
            and all(c.result == MATCH for c in self.codes)
            and not self.unconfirmed
        )


@dataclass(frozen=True, slots=True)
class Unreadable:
    """A document that is not a session document at all (exit status 2)."""

    file: str
    line: int | None
    message: str


def unread(where: str, why: str) -> Unreadable:
    """A path, folder entry or file of the input that could not be read at all, and why
    (``run.driver.documents`` makes one of each)."""
    return Unreadable(where, None, why)


@dataclass
class Verification:
    """Every session of the logs, the documents that could not be read, and the codes
    given for sessions no log holds."""

    sessions: list[SessionVerdict] = field(default_factory=list)
    unreadable: list[Unreadable] = field(default_factory=list)
    unknown: list[Code] = field(default_factory=list)

    @property
    def exit_code(self) -> int:
        """0 when everything holds; 1 when anything is not proven; 2 for unreadable input."""
        if self.unreadable:
            return 2
        holds = all(s.holds for s in self.sessions) and not self.unknown
        return 0 if holds and self.sessions else 1


def _session_id(document: dict[str, Any], file: str, line: int | None) -> str:
    session = document.get("session")
    sid = session.get("id") if isinstance(session, dict) else None
    return sid if isinstance(sid, str) else f"{file}:{line or 1}"


def compare_codes(
    deals: Sequence[Any], seals: Sequence[bytes], codes: Iterable[Code]
) -> tuple[list[CodeResult], list[str]]:
    """Each code against the seal computed for its deal (``seals``: ``seal_0`` first), in
    the order of the deals; and the deals after the last one a code was given for."""
    position: dict[int, int] = {}
    for at, deal in enumerate(deals):
        number = deal.get("deal") if isinstance(deal, dict) else None
        if isinstance(number, int) and not isinstance(number, bool):
            position.setdefault(number, at)
    results = []
    last = -1
    for given in sorted(codes, key=lambda c: c.deal):
        index = position.get(given.deal)
        if index is None or index + 1 >= len(seals):
            results.append(CodeResult(given, MISSING))
            continue
        last = max(last, index)
        computed = code(seals[index + 1])
        results.append(CodeResult(given, MATCH if computed == given.code else MISMATCH, computed))
    unconfirmed = [deal_label(deals[i], i) for i in range(last + 1, len(deals))] if results else []
    return results, unconfirmed


def verify_documents(
    docs: Iterable[Document | Unreadable], codes: Sequence[Code]
) -> Iterator[SessionVerdict | Unreadable]:
    """Each of ``docs`` (the logs' documents, read by the run layer's driver:
    ``run.driver.documents``) verified against ``codes``, in order."""
    by_session: dict[str, list[Code]] = {}
    for given in codes:
        by_session.setdefault(given.session, []).append(given)
    for doc in docs:
        if isinstance(doc, Unreadable):
            yield doc
            continue
        if doc.error is not None:
            yield Unreadable(doc.file, doc.line, doc.error)
            continue
        value = doc.value
        if not isinstance(value, dict) or not isinstance(value.get("deals"), list):
            yield Unreadable(doc.file, doc.line, "not a session document (no deals array)")
            continue
        sid = _session_id(value, doc.file, doc.line)
        deals = value["deals"]
        seals = check(value)
        verdict = SessionVerdict(sid, doc.file, doc.line, seals, len(deals))
        noted = by_session.get(sid, [])
        if noted:
            verdict.codes, verdict.unconfirmed = compare_codes(deals, seals.seals, noted)
        yield verdict


def verify_logs(docs: Iterable[Document | Unreadable], codes: Sequence[Code]) -> Verification:
    """Every document of the logs verified, and the codes of sessions no log holds."""
    out = Verification()
    for item in verify_documents(docs, codes):
        if isinstance(item, Unreadable):
            out.unreadable.append(item)
        else:
            out.sessions.append(item)
    seen = {s.session for s in out.sessions}
    out.unknown = [c for c in codes if c.session not in seen]
    return out


def codes_of(seals: SealCheck) -> list[str]:
    """Each deal's code, in log order."""
    return [code(seal) for seal in seals.seals[1:]]
