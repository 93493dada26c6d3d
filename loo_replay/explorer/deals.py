"""Any deal's replay, rendered on demand from the database alone.

The session's stored document (``db/documents.py``) is audited again under
exactly the rules it was loaded under (``reports.replays.loaded_report``), and
the deal rendered by the replay renderer the reports use, with the analysis
and the judged decisions the load stored, and the seat views.  Everything is
read from the database first (``Loaded``); the audit and the rendering run
after the connection is closed, so that a request holds the database only
while it reads.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import orjson

from loo_replay.db.documents import DocumentDamaged, DocumentTooLarge, read_document
from loo_replay.db.keys import BY_KEY
from loo_replay.db.stored_analysis import stored_analyses
from loo_replay.db.stored_decisions import stored_decisions
from loo_replay.engine.session import DealAudit
from loo_replay.engine.vocab import Status
from loo_replay.evidence.seals import check
from loo_replay.logs.limits import LIMITS, Limits
from loo_replay.replayer.html import Links, render_page
from loo_replay.replayer.judged import as_loaded
from loo_replay.replayer.steps import ReplayError, build_replay
from loo_replay.reports.replays import ReplayJob, loaded_report
from loo_replay.run.audit import SessionReport

if TYPE_CHECKING:
    import duckdb

    from loo_replay.engine.analysis import DealAnalysis
    from loo_replay.engine.judging import DealDecisions


class NoSuchDeal(LookupError):
    """No such session, or no such deal in it: the page is not found."""


class NoReplay(ValueError):
    """The deal exists but cannot be replayed from the database; the message says why."""


@dataclass(frozen=True)
class Loaded:
    """What a deal's replay needs from the database, read in one short visit."""

    job: ReplayJob
    raw: bytes | None  # None: no document stored (loaded before they were)
    analyses: dict[int, DealAnalysis]
    deals: dict[int, int]  # deal number -> deal index, of every audited deal and misdeal
    decisions: dict[int, DealDecisions] = field(default_factory=dict)  # the deal's, if judged


def read(
    con: duckdb.DuckDBPyConnection, session_id: str, number: int, limits: Limits = LIMITS
) -> Loaded:
    """The session's row, document, deals and deal ``number``'s stored analysis (the one
    the page shows); ``NoSuchDeal`` without the session, ``NoReplay`` when its document is
    damaged or larger than ``limits`` allow (judged by its stored size, not decompressed)."""
    found = con.execute(
        """
        SELECT session_key, file, line, digest, rules_fingerprint, ruleset, rules
        FROM sessions WHERE session_id = ?
        """,
        [session_id],
    ).fetchall()
    if not found:
        raise NoSuchDeal(f"no session {session_id!r} in the database")
    key, file, line, digest, fingerprint, ruleset, rules = found[0]
    by_key = [key, session_id]  # its rows found by key and id (db/keys.py)
    ((analysed,),) = con.execute(
        f"SELECT EXISTS (SELECT 1 FROM analysis_deals WHERE {BY_KEY})", by_key
    ).fetchall()
    job = ReplayJob(session_id, file, line, digest, fingerprint, ruleset, rules, False, analysed)
    try:
        stored = read_document(con, session_id, limits.document_bytes)
    except DocumentDamaged as exc:
        raise NoReplay(str(exc)) from None
    except DocumentTooLarge as exc:
        why = f"the stored document of {session_id!r} is not replayed here ({exc})"
        raise NoReplay(why) from None
    numbers = dict(
        con.execute(
            f"SELECT deal, deal_index FROM deals WHERE {BY_KEY} ORDER BY deal_index", by_key
        ).fetchall()
    )
    at = numbers.get(number)
    analyses = stored_analyses(con, session_id, at, key) if analysed and at is not None else {}
    decided = stored_decisions(con, session_id, at, key) if at is not None else {}
    return Loaded(job, None if stored is None else stored.raw, analyses, numbers, decided)


def seals_line(con: duckdb.DuckDBPyConnection, session_id: str, limits: Limits) -> str:
    """Whether the session's seals hold, checked on the document the database keeps
    (docs/evidence.md): a line for its page."""
    try:
        stored = read_document(con, session_id, limits.document_bytes)
    except (DocumentDamaged, DocumentTooLarge) as exc:
        return f"not checked ({exc})"
    if stored is None:
        return "not checked (the database keeps no copy of the log)"
    try:
        document = orjson.loads(stored.raw)
    except orjson.JSONDecodeError:
        return "not checked (the stored log is not read by this check)"
    if not isinstance(document, dict):
        return "not checked (the stored log is not a session document)"
    return check(document).line()


def session_link(session_id: str) -> str:
    from urllib.parse import urlencode

    return "session?" + urlencode({"id": session_id})


def deal_link(session_id: str, number: int) -> str:
    from urllib.parse import urlencode

    return "replay?" + urlencode({"session": session_id, "deal": number})


def replay_page(loaded: Loaded, number: int, limits: Limits = LIMITS) -> str:
    """Deal ``number``'s replay page, linked to its session and to the deals either side
    that can be replayed, its document audited within ``limits``; ``NoSuchDeal`` or
    ``NoReplay`` (with why) where there is none."""
    job = loaded.job
    if loaded.raw is None:
        raise NoReplay(
            f"the database holds no document for session {job.session_id!r}: it was loaded "
            "by a loo-replay that did not keep them; load its log again with "
            "`loo-replay ingest --replace` to replay its deals here"
        )
    # The deals after this one change nothing in it: they are not audited (half the work, on
    # average).  A deal the database does not list is rejected or absent: the whole session
    # is audited to say which.
    at = loaded.deals.get(number)
    report = loaded_report(job, loaded.raw, limits, first=None if at is None else at + 1)
    if isinstance(report, str):
        raise NoReplay(report)
    index, deal = _find(report, number)
    try:
        rp = build_replay(report, deal, job.analysed, analysis=loaded.analyses.get(index))
        rp = as_loaded(rp, loaded.decisions.get(index))
    except ReplayError as exc:
        raise NoReplay(str(exc)) from None
    previous = max((n for n in loaded.deals if n < number), default=None)
    following = min((n for n in loaded.deals if n > number), default=None)
    links = Links(
        session_link(job.session_id),
        None if previous is None else (previous, deal_link(job.session_id, previous)),
        None if following is None else (following, deal_link(job.session_id, following)),
    )
    return render_page(rp, links)


def _replayable(deal: DealAudit) -> bool:
    return deal.status != Status.REJECTED and deal.result is not None and deal.number is not None


def _find(report: SessionReport, number: int) -> tuple[int, DealAudit]:
    for index, deal in enumerate(report.deals):
        if deal.number == number:
            if not _replayable(deal):
                raise NoReplay(
                    f"deal {number} of session {report.id!r} was rejected (a log error), so it "
                    "cannot be replayed"
                )
            return index, deal
    raise NoSuchDeal(f"session {report.id!r} has no deal {number}")
