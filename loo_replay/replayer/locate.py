"""Find one deal of one session in hand-log files, or say in one sentence why not.

The command reads and audits the logs through the driver every command uses
(``run.driver.each_document`` running ``run.audit.audit_documents``, here in one
process), so the deal's verdict and its pool are exactly the validator's; this module
takes the audited sessions as they come and stops at the one asked for.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from loo_replay.engine.session import DealAudit
from loo_replay.engine.vocab import Status
from loo_replay.errors import InputError, RejectedDeal
from loo_replay.output.text import safe
from loo_replay.run.audit import AuditItem, SessionReport, UnreadableDocument, UnreadableFile


class NotFound(InputError, LookupError):
    """No such file, session or deal: bad usage (exit status 2)."""


class Rejected(RejectedDeal, ValueError):
    """The deal is rejected (a log error): it cannot be replayed (exit status 1).  Its log
    errors are the ``details``."""

    def __init__(self, report: SessionReport, deal: DealAudit) -> None:
        super().__init__(
            f"deal {deal.number} of session {safe(report.id)} was rejected (a log error), "
            "so it cannot be replayed"
        )
        self.report = report
        self.deal = deal
        self.details = tuple(f"error {safe(e.path)}: {safe(e.message, 400)}" for e in deal.errors)


def find_session(
    audited: Iterable[AuditItem], session: str | None, paths: Iterable[Path]
) -> SessionReport:
    """The session ``session`` (or the only one) among ``audited``, the sessions under
    ``paths`` in order; the rest is not audited once it is found."""
    found: list[SessionReport] = []
    unreadable = 0
    first: UnreadableDocument | None = None  # kept to say why; the others' bytes are not
    for item in audited:
        if isinstance(item, UnreadableFile):
            raise NotFound(safe(item.message, 400))
        if isinstance(item, UnreadableDocument):
            unreadable += 1
            first = first or item
            continue
        if session is not None and item.id == session:
            return item
        found.append(item)
    where = ", ".join(safe(str(p)) for p in paths)
    if session is not None or not found:
        what = f"no session '{safe(session)}'" if session is not None else "no session"
        ids = ", ".join(safe(r.id) for r in found[:10])
        hint = f" (it holds {ids})" if ids else ""
        if first is not None:  # the first says why: past a limit, which option raises it
            at = f"{safe(first.file)}:{first.line or 1}"
            hint += (
                f" ({unreadable} document(s) could not be read; {at}: {safe(first.message, 300)})"
            )
        raise NotFound(f"{where} holds {what}{hint}")
    if len(found) > 1:
        ids = ", ".join(safe(r.id) for r in found[:10])
        raise NotFound(f"{where} holds {len(found)} sessions ({ids}): choose one with --session")
    return found[0]


def find_deal(report: SessionReport, number: int) -> DealAudit:
    """Deal ``number`` of ``report``; ``Rejected`` when its log cannot be replayed."""
    deal = next((d for d in report.deals if d.number == number), None)
    if deal is None:
        numbers = [d.number for d in report.deals if d.number is not None]
        span = f" (deals {min(numbers)} to {max(numbers)})" if numbers else " (it has no deals)"
        raise NotFound(f"session {safe(report.id)} has no deal {number}{span}")
    if deal.status == Status.REJECTED or deal.result is None or report.options is None:
        raise Rejected(report, deal)
    return deal
