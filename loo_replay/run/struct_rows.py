"""The rows of the rarer tables, a row struct at a time (``run.rows``): sessions and their
players, rejects, findings and discrepancies, and the double-dummy analysis.

A function a table or two, each yielding the rows one audited session, deal, reject or
analysis gives; ``frames.FrameBuilder`` adds them to its columns.  The tables with a row a
deal, a seat, a trick or a card played are the hot path and go straight into their columns
(``run.deal_frames``).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator, Sequence
from typing import Any

import orjson

from loo_replay.engine.analysis import DealAnalysis
from loo_replay.engine.model import LogError
from loo_replay.engine.replay_base import DealResult
from loo_replay.engine.session import DealAudit
from loo_replay.run.audit import SessionReport, UnreadableDocument
from loo_replay.run.columns import CARD_CODES
from loo_replay.run.rows import (
    AnalysisCardRow,
    AnalysisDealRow,
    AnalysisNoteRow,
    AnalysisPlayerRow,
    DiscrepancyRow,
    FindingRow,
    PlayerRow,
    RejectRow,
    Row,
    SessionRow,
)

_CARD = CARD_CODES


def cards(values: Sequence[int] | None) -> list[str] | None:
    return None if values is None else _card_list(values)


def _card_list(values: Sequence[int]) -> list[str]:
    return [_CARD[c] for c in values]


def json_bytes(value: Any, *, sort_keys: bool = False) -> bytes:
    """Compact JSON; Python's encoder where orjson refuses (lone surrogates, integers
    beyond 64 bits), escaping what is not valid UTF-8 so the text still means the value."""
    try:
        return orjson.dumps(value, option=orjson.OPT_SORT_KEYS if sort_keys else 0)
    except TypeError:
        return json.dumps(value, separators=(",", ":"), sort_keys=sort_keys).encode()


def errors_of(errors: Sequence[LogError]) -> list[dict[str, str]]:
    return [{"path": e.path, "message": e.message} for e in errors]


def _json_text(value: Any) -> str | None:
    return None if value is None else json_bytes(value, sort_keys=True).decode()


def session_rows(
    report: SessionReport, sid: str, file: str, digest: str, fingerprint: str
) -> Iterator[Row]:
    """The session's row of ``sessions`` and its rows of ``players``, one a seat."""
    header = report.header
    yield SessionRow(
        session_id=sid,
        digest=digest,
        rules_fingerprint=fingerprint,
        file=file,
        line=report.line,
        ruleset=report.ruleset,
        rules=_json_text(report.options.dotted() if report.options else None),
        started_at=header.started_at if header else None,
        venue=header.venue if header else None,
        meta=_json_text(header.meta if header else None),
        deals=len(report.raw_deals),  # one verdict each, as the audit makes them
        errors=errors_of(report.errors),
    )
    if header is not None:
        chips = header.chips or {}
        for seat, player in enumerate(header.players):
            yield PlayerRow(
                session_id=sid,
                seat=seat,
                player=player,
                name=header.names.get(player),
                chips=chips.get(player),
            )


def document_reject_row(doc: UnreadableDocument, file: str, digest: str) -> RejectRow:
    """An unreadable document's row of ``rejects``."""
    return RejectRow(
        kind="document",
        session_id=None,
        deal_index=None,
        deal=None,
        dealer=None,
        file=file,
        line=doc.line,
        path=doc.path,
        message=doc.message,
        errors=[{"path": doc.path, "message": doc.message}],
        raw=doc.raw,
        digest=digest,
    )


def deal_reject_row(
    sid: str, file: str, line: int | None, index: int, deal: DealAudit, raw: Any
) -> RejectRow:
    """A rejected deal's row of ``rejects``: its first error, all of them, and the deal as
    the log gave it."""
    text = json_bytes(raw)
    first = deal.errors[0] if deal.errors else LogError(f"/deals/{index}", "rejected")
    return RejectRow(
        kind="deal",
        session_id=sid,
        deal_index=index,
        deal=deal.number,
        dealer=deal.dealer,
        file=file,
        line=line,
        path=first.path,
        message=first.message,
        errors=errors_of(deal.errors),
        raw=text,
        digest=hashlib.sha256(text).hexdigest(),
    )


def finding_rows(sid: str, index: int, d: DealAudit) -> Iterator[Row]:
    """The deal's rows of ``findings`` (one a violation) and of ``discrepancies`` (one a
    recorded value that is not what the rules give)."""
    result: DealResult | None = d.result
    assert result is not None
    number = result.record.number
    for k, v in enumerate(d.violations):
        yield FindingRow(
            session_id=sid,
            deal_index=index,
            deal=number,
            finding=k,
            code=v.code,
            family="revoke" if v.is_revoke else v.code,
            player=v.player,
            trick=v.trick,
            card=None if v.card is None else _CARD[v.card],
            held=_card_list(v.held),
            legal=cards(v.legal),
            penalized=v.penalized,
            penalty=v.penalty,
            event=v.event,
            message=v.message,
            proved_by=None if v.proved_by is None else _CARD[v.proved_by],
            proved_trick=v.proved_trick,
        )
    for x in d.discrepancies:
        item, _, player = x.field.partition(".")
        yield DiscrepancyRow(
            session_id=sid,
            deal_index=index,
            deal=number,
            field=x.field,
            item=item,
            player=player or None,
            recorded=x.recorded,
            expected=x.expected,
        )


def analysis_rows(
    sid: str, index: int, number: int, seats: tuple[str, ...], a: DealAnalysis
) -> Iterator[Row]:
    """The deal's double-dummy analysis: its row of ``analysis_deals``, and its rows of
    ``analysis_players``, ``analysis_notes`` and ``analysis_cards``."""
    yield AnalysisDealRow(
        session_id=sid,
        deal_index=index,
        deal=number,
        status=a.status,
        reason=a.reason,
        nodes=a.nodes,
        cards=a.cards,
        stopped=a.stopped,
    )
    for p in a.players:
        yield AnalysisPlayerRow(
            session_id=sid,
            deal_index=index,
            deal=number,
            player=p.player,
            guarantee=p.guarantee,
            tricks=p.tricks,
            lost=p.lost,
        )
    for k, n in enumerate(a.notes):
        yield AnalysisNoteRow(
            session_id=sid,
            deal_index=index,
            deal=number,
            note=k,
            code=n.code,
            player=n.player,
            trick=n.trick,
            card=None if n.card is None else _CARD[n.card],
            before=n.before,
            after=n.after,
            better=cards(n.better) if n.card is not None else None,
            message=n.message,
        )
    for k, c in enumerate(a.steps):
        yield AnalysisCardRow(
            session_id=sid,
            deal_index=index,
            deal=number,
            step=k,
            seat=c.seat,
            player=seats[c.seat],
            trick=c.trick,
            card=_CARD[c.card],
            before=c.before,
            after=c.after,
            better=[_CARD[b] for b in c.better],
            announced=c.announced,
        )
