"""The JSON audit document of docs/log-format.md ("Audit output").

Field names and meanings are a contract with other programs.  Extensions,
where the format is silent: ``summary.unreadable`` (documents that are not
sessions), top-level ``errors`` for them, per session ``line``, ``rules``
(the options in force) and per deal ``must``, ``stacks``, ``notes``; per
violation ``held`` and ``penalty``.  docs/record.md adds ``summary.partial``, per
deal ``knowledge`` and ``unchecked``, and per violation ``proved_by``.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Iterable
from typing import IO, Any

import orjson

from loo_replay import __version__
from loo_replay.engine.cards import SUITS, canonical
from loo_replay.engine.model import Violation
from loo_replay.engine.records import record
from loo_replay.engine.session import DealAudit
from loo_replay.engine.vocab import Status
from loo_replay.evidence.seals import SealCheck
from loo_replay.run.audit import (
    AuditItem,
    SessionReport,
    Summary,
    UnreadableDocument,
    UnreadableFile,
)

# Bound once: in Python 3.11 a member lookup on an Enum class goes through EnumType.__getattr__.
_REJECTED = Status.REJECTED


@record
class Rendered:
    """One audited document rendered for output, with its counts: what a worker
    process sends back (``session`` JSON or ``error`` for json, ``lines`` for text)."""

    counts: Summary
    session: bytes | None = None
    error: dict[str, Any] | None = None
    lines: tuple[str, ...] = ()
    warning: str | None = None  # an entry skipped, said on stderr as the audit goes


def rendered_json(
    item: AuditItem,
    indent: bool = False,
    findings_only: bool = False,
    counts: Summary | None = None,
    doc: dict[str, Any] | None = None,
) -> Rendered:
    """``item`` as JSON; with ``findings_only`` a session lists only its deals with a
    finding (violation, discrepancy, log error), and is left out when it has none.  A
    command that adds to the audit passes its own ``counts`` and the session's ``doc``
    with its additions."""
    counts = counts if counts is not None else Summary()
    counts.add(item)
    if isinstance(item, SessionReport):
        opt = orjson.OPT_INDENT_2 if indent else 0
        doc = doc if doc is not None else session_json(item, findings_only)
        if findings_only and not doc["deals"] and not doc["errors"]:
            return Rendered(counts)
        try:
            return Rendered(counts, session=orjson.dumps(doc, option=opt))
        except TypeError:  # a lone surrogate from a log's \ud800 escape: write it escaped
            text = json.dumps(doc, ensure_ascii=True, indent=2 if indent else None)
            return Rendered(counts, session=text.encode("ascii"))
    return Rendered(counts, error=unreadable_json(item), warning=skipped_warning(item))


def has_findings(d: DealAudit) -> bool:
    """A violation, a discrepancy, or a log error that rejected the deal."""
    return d.status == _REJECTED or bool(d.violations or d.discrepancies)


def violation_json(v: Violation) -> dict[str, Any]:
    return {
        "code": v.code,
        "player": v.player,
        "trick": v.trick,
        "card": None if v.card is None else canonical(v.card),
        "legal": None if v.legal is None else [canonical(c) for c in v.legal],
        "penalized": v.penalized,
        "message": v.message,
        "held": [canonical(c) for c in v.held],
        "penalty": v.penalty,
        "proved_by": None
        if v.proved_by is None
        else {"card": canonical(v.proved_by), "trick": v.proved_trick},
    }


def deal_json(d: DealAudit) -> dict[str, Any]:
    return {
        "deal": d.number,
        "status": d.status,
        "dealer": d.dealer,
        "pool": d.pool,
        "pool_start": d.pool_start,
        "trump": None if d.trump is None else SUITS[d.trump],
        "outcome": d.outcome,
        "tricks": d.tricks,
        "payouts": d.payouts,
        "looed": d.looed,
        "penalties": d.penalties,
        "pool_next": d.pool_next,
        "violations": [violation_json(v) for v in d.violations],
        "discrepancies": [
            {"field": x.field, "recorded": x.recorded, "expected": x.expected}
            for x in d.discrepancies
        ],
        "errors": [{"path": e.path, "message": e.message} for e in d.errors],
        "must": d.must,
        "stacks": d.stacks,
        "notes": d.notes,
        "knowledge": d.knowledge,
        "unchecked": d.unchecked,
    }


def session_json(s: SessionReport, findings_only: bool = False) -> dict[str, Any]:
    return {
        "id": s.id,
        "file": s.file,
        "line": s.line,
        "ruleset": s.ruleset,
        "rules": s.options.dotted() if s.options else None,
        "errors": [{"path": e.path, "message": e.message} for e in s.errors],
        "deals": [deal_json(d) for d in s.deals if not findings_only or has_findings(d)],
        "seals": seals_json(s.seals),
    }


def seals_json(seals: SealCheck) -> dict[str, Any]:
    """Whether a session's seals hold (docs/audit-json.md, ``seals``)."""
    return {"status": seals.status, "broken_at": seals.at, "last_code": seals.last_code}


def skipped_warning(item: AuditItem) -> str | None:
    """The stderr line of an entry of a folder that was skipped, else None."""
    return item.message if isinstance(item, UnreadableFile) and item.skipped else None


def unreadable_json(item: UnreadableDocument | UnreadableFile) -> dict[str, Any]:
    if isinstance(item, UnreadableFile):
        return {"file": item.file, "line": None, "path": None, "message": item.message}
    return {"file": item.file, "line": item.line, "path": item.path, "message": item.message}


def write_audit(
    rendered: Iterable[Rendered],
    out: IO[bytes],
    indent: bool = False,
    summary: Summary | None = None,
) -> Summary:
    """Write the audit document; sessions stream through a spool file so that the summary
    can come first, as in docs/log-format.md, while memory stays bounded.  A command whose
    summary says more passes its own (empty) ``summary``."""
    summary = summary if summary is not None else Summary()
    errors: list[dict[str, Any]] = []
    opt = orjson.OPT_INDENT_2 if indent else 0
    with tempfile.SpooledTemporaryFile(max_size=32 << 20) as spool:
        first = True
        for doc in rendered:
            summary.merge(doc.counts)
            if doc.session is not None:
                spool.write(b"" if first else b",")
                spool.write(doc.session)
                first = False
            if doc.error is not None:
                errors.append(doc.error)
        head = {"loo_replay": __version__, "summary": summary.as_json()}
        out.write(orjson.dumps(head, option=opt)[:-1])
        out.write(b',"sessions":[')
        spool.seek(0)
        while chunk := spool.read(1 << 20):
            out.write(chunk)
        out.write(b'],"errors":')
        out.write(orjson.dumps(errors, option=opt))
        out.write(b"}\n")
    return summary
