"""Audited sessions to Arrow tables, one column list per table column.

The database is loaded in bulk from these tables (PERF-NOTES.md: DuckDB takes
Arrow frames far faster than row inserts).  A ``FrameBuilder`` gathers the
rows of a bounded batch of sessions and remembers, per session, which rows of
each table are its own, so that the loader can keep or drop a session (a
re-ingest, a conflict) by slicing, without looking at the rows.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import orjson
import pyarrow as pa  # type: ignore[import-untyped]
from msgspec.structs import astuple

from loo_replay import __version__
from loo_replay.audit import SessionReport, UnreadableDocument
from loo_replay.db.rows import (
    ROWS,
    TABLE_OF,
    AnalysisCardRow,
    AnalysisDealRow,
    AnalysisNoteRow,
    AnalysisPlayerRow,
    DealRow,
    DiscrepancyRow,
    FindingRow,
    PlayerRow,
    PlayRow,
    RejectRow,
    Row,
    SeatRow,
    SessionRow,
    TrickRow,
)
from loo_replay.db.rows import (
    schema as row_schema,
)
from loo_replay.engine.analysis import DealAnalysis, analyse_deal
from loo_replay.engine.cards import SUITS, canonical
from loo_replay.engine.model import DEAD, LogError
from loo_replay.engine.options import Options
from loo_replay.engine.session import DealAudit
from loo_replay.engine.vocab import Status
from loo_replay.output.audit_json import Summary

SCHEMAS: dict[str, pa.Schema] = {table: row_schema(row) for table, row in ROWS.items()}
TABLES = tuple(SCHEMAS)

_CARD = tuple(canonical(c) for c in range(52))


def cards(values: Sequence[int] | None) -> list[str] | None:
    return None if values is None else _card_list(values)


def _card_list(values: Sequence[int]) -> list[str]:
    return [_CARD[c] for c in values]


def rules_fingerprint(ruleset: str | None, options: Options | None) -> str:
    """What the verdicts depend on besides the document: the ruleset, every option and the
    engine that applied them (this loo-replay's version), so that a session audited by
    another version is audited again, not taken as loaded.

    Empty when no options could be resolved (then every deal is rejected
    whatever the command line says).
    """
    if options is None:
        return ""
    judged = [__version__, ruleset, options.dotted()]
    return hashlib.sha256(json_bytes(judged, sort_keys=True)).hexdigest()


def clean(value: Any) -> Any:
    """``value`` with lone surrogates (which JSON's ``\\ud800`` escapes can make) replaced by
    ``?``: Arrow and DuckDB take only valid UTF-8, and a log must not stop a load."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return value.encode("utf-8", "replace").decode("utf-8")
        return value
    if isinstance(value, list | tuple):
        return [clean(v) for v in value]
    if isinstance(value, dict):
        return {clean(k): clean(v) for k, v in value.items()}
    return value


def json_bytes(value: Any, *, sort_keys: bool = False) -> bytes:
    """Compact JSON; Python's encoder where orjson refuses (lone surrogates, integers
    beyond 64 bits), escaping what is not valid UTF-8 so the text still means the value."""
    try:
        return orjson.dumps(value, option=orjson.OPT_SORT_KEYS if sort_keys else 0)
    except TypeError:
        return json.dumps(value, separators=(",", ":"), sort_keys=sort_keys).encode()


def _errors(errors: Sequence[LogError]) -> list[dict[str, str]]:
    return [{"path": e.path, "message": e.message} for e in errors]


def _json_text(value: Any) -> str | None:
    return None if value is None else json_bytes(value, sort_keys=True).decode()


Rows = tuple[int, int]  # [start, stop) of one item's rows in a table


@dataclass
class SessionItem:
    """A session of the input; ``audited`` is False when it was recognised as already
    loaded and not audited again (then it has no rows and no ``counts``)."""

    session_id: str
    digest: str
    fingerprint: str
    file: str
    line: int | None
    deals: int
    rejected: int
    audited: bool = True
    rows: dict[str, Rows] = field(default_factory=dict)
    counts: Summary | None = None  # what this audit found, loaded or not (a conflict)


@dataclass
class DocumentItem:
    """An unreadable document, kept as one row of ``rejects``."""

    file: str
    line: int | None
    digest: str
    message: str
    rows: dict[str, Rows] = field(default_factory=dict)


@dataclass
class FileItem:
    """A file that could not be opened or broke off; nothing of it past the break is known."""

    message: str


Item = SessionItem | DocumentItem | FileItem


@dataclass
class Batch:
    """The frames of a bounded run of consecutive documents, and what each one is."""

    items: list[Item]
    tables: dict[str, pa.Table]

    @property
    def deals(self) -> int:
        return sum(i.deals for i in self.items if isinstance(i, SessionItem))


class FrameBuilder:
    """Column lists per table; ``batch`` turns them into Arrow tables.  With ``analyse``,
    each loaded deal gets its double-dummy analysis (ANALYSIS.md) in the analysis tables."""

    def __init__(self, analyse: bool = False) -> None:
        self.analyse = analyse
        self.rows: dict[str, list[Row]] = {}
        self.items: list[Item] = []
        self.deal_count = 0
        self._reset()

    def _reset(self) -> None:
        self.rows = {name: [] for name in TABLES}
        self.items = []
        self.deal_count = 0

    def _size(self, table: str) -> int:
        return len(self.rows[table])

    def _mark(self) -> dict[str, int]:
        return {name: self._size(name) for name in TABLES}

    def _rows(self, start: dict[str, int]) -> dict[str, Rows]:
        return {name: (start[name], self._size(name)) for name in TABLES}

    def _add(self, row: Row) -> None:
        self.rows[TABLE_OF[type(row)]].append(row)  # columns are made by transposing at the end

    # -- items ---------------------------------------------------------------

    def skipped(self, item: SessionItem) -> None:
        """A session recognised as already loaded: counted, not audited, no rows."""
        item.rows = self._rows(self._mark())
        self.items.append(item)
        self.deal_count += item.deals

    def file_error(self, message: str) -> None:
        self.items.append(FileItem(message))

    def unreadable(self, doc: UnreadableDocument) -> None:
        start = self._mark()
        file = clean(doc.file)
        digest = hashlib.sha256(doc.raw).hexdigest()
        errors = [{"path": doc.path, "message": doc.message}]
        self._add(
            RejectRow(
                kind="document",
                session_id=None,
                deal_index=None,
                deal=None,
                dealer=None,
                file=file,
                line=doc.line,
                path=doc.path,
                message=doc.message,
                errors=errors,
                raw=doc.raw,
                digest=digest,
            )
        )
        self.items.append(DocumentItem(file, doc.line, digest, doc.message, self._rows(start)))

    def session(self, report: SessionReport) -> None:
        start = self._mark()
        sid, file = clean(report.id), clean(report.file)
        header, digest = report.header, report.digest
        fingerprint = rules_fingerprint(report.ruleset, report.options)
        self._add(
            SessionRow(
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
                deals=len(report.deals),
                errors=_errors(report.errors),
            )
        )
        if header is not None:
            chips = header.chips or {}
            for seat, player in enumerate(header.players):
                self._add(
                    PlayerRow(
                        session_id=sid,
                        seat=seat,
                        player=player,
                        name=header.names.get(player),
                        chips=chips.get(player),
                    )
                )
        rejected = 0
        for index, deal in enumerate(report.deals):
            if deal.status == Status.REJECTED or deal.result is None:
                rejected += 1
                raw = report.raw_deals[index] if index < len(report.raw_deals) else None
                self._reject(sid, file, report.line, index, deal, raw)
            else:
                self._deal(sid, index, deal)
                if self.analyse and report.options is not None:
                    record = deal.result.record
                    analysis = analyse_deal(deal, report.options)
                    self._analysis(sid, index, record.number, record.seats, analysis)
        counts = Summary()
        counts.add(report)
        self.items.append(
            SessionItem(
                sid,
                digest,
                fingerprint,
                file,
                report.line,
                len(report.deals),
                rejected,
                True,
                self._rows(start),
                counts,
            )
        )
        self.deal_count += len(report.deals)

    def _reject(
        self, sid: str, file: str, line: int | None, index: int, deal: DealAudit, raw: Any
    ) -> None:
        text = json_bytes(raw)
        first = deal.errors[0] if deal.errors else LogError(f"/deals/{index}", "rejected")
        self._add(
            RejectRow(
                kind="deal",
                session_id=sid,
                deal_index=index,
                deal=deal.number,
                dealer=deal.dealer,
                file=file,
                line=line,
                path=first.path,
                message=first.message,
                errors=_errors(deal.errors),
                raw=text,
                digest=hashlib.sha256(text).hexdigest(),
            )
        )

    # -- one audited deal ------------------------------------------------------

    def _deal(self, sid: str, index: int, d: DealAudit) -> None:
        result = d.result
        assert result is not None
        rec = result.record
        ids = rec.seats
        number = rec.number
        self._add(
            DealRow(
                session_id=sid,
                deal_index=index,
                deal=number,
                status=d.status,
                dealer=ids[rec.dealer],
                seated=len(ids),
                pool=d.pool,
                pool_start=d.pool_start,
                must=d.must,
                trump=None if d.trump is None else SUITS[d.trump],
                turn_up=None if rec.turn_up is None else _CARD[rec.turn_up],
                miss=cards(rec.miss),
                miss_taker=None if result.miss_taker is None else ids[result.miss_taker],
                defender=None if result.defender is None else ids[result.defender],
                outcome=d.outcome,
                pool_next=d.pool_next,
                violations=len(d.violations),
                discrepancies=len(d.discrepancies),
                notes=list(d.notes),
                knowledge=d.knowledge,
                unchecked=list(d.unchecked),
            )
        )
        self._seats(sid, index, d)
        self._tricks(sid, index, d)
        for k, v in enumerate(d.violations):
            self._add(
                FindingRow(
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
            )
        for x in d.discrepancies:
            item, _, player = x.field.partition(".")
            self._add(
                DiscrepancyRow(
                    session_id=sid,
                    deal_index=index,
                    deal=number,
                    field=x.field,
                    item=item,
                    player=player or None,
                    recorded=x.recorded,
                    expected=x.expected,
                )
            )

    def _analysis(
        self, sid: str, index: int, number: int, seats: tuple[str, ...], a: DealAnalysis
    ) -> None:
        self._add(
            AnalysisDealRow(
                session_id=sid,
                deal_index=index,
                deal=number,
                status=a.status,
                reason=a.reason,
                nodes=a.nodes,
                cards=a.cards,
                stopped=a.stopped,
            )
        )
        for p in a.players:
            self._add(
                AnalysisPlayerRow(
                    session_id=sid,
                    deal_index=index,
                    deal=number,
                    player=p.player,
                    guarantee=p.guarantee,
                    tricks=p.tricks,
                    lost=p.lost,
                )
            )
        for k, n in enumerate(a.notes):
            self._add(
                AnalysisNoteRow(
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
            )
        for k, c in enumerate(a.steps):
            self._add(
                AnalysisCardRow(
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
            )

    def _seats(self, sid: str, index: int, d: DealAudit) -> None:
        result = d.result
        assert result is not None
        rec = result.record
        known = d.payouts is not None
        payouts = d.payouts or {}
        looed = d.looed or {}
        penalties = d.penalties or {}
        stacks = d.stacks
        active = set(result.active)
        declarations = result.declarations or [None] * len(rec.seats)
        tricks_won = result.tricks_won or [0] * len(rec.seats)
        for seat, player in enumerate(rec.seats):
            ante = d.antes.get(player, 0)
            payout = payouts.get(player, 0) if known else None
            loo = looed.get(player, 0) if known else None
            penalty = penalties.get(player, 0) if known else None
            net = None
            if payout is not None and loo is not None and penalty is not None:
                net = payout - loo - penalty - ante
            self._add(
                SeatRow(
                    session_id=sid,
                    deal_index=index,
                    deal=rec.number,
                    seat=seat,
                    player=player,
                    dealer=seat == rec.dealer,
                    declaration=declarations[seat],
                    active=seat in active,
                    retired=seat in result.retired,
                    hand=cards(rec.hands[seat]),
                    tricks=tricks_won[seat],
                    ante=ante,
                    payout=payout,
                    loo=loo,
                    looed=None if loo is None else loo > 0,
                    penalties=penalty,
                    net=net,
                    stack=None if stacks is None else stacks.get(player),
                )
            )

    def _tricks(self, sid: str, index: int, d: DealAudit) -> None:
        """Tricks and their cards; the hot path of the loader (one row per card played)."""
        result = d.result
        assert result is not None
        rec = result.record
        ids = rec.seats
        number = rec.number
        card_name = _CARD
        found = {
            (v.event, v.player, v.card): v.code
            for v in reversed(d.violations)  # the first finding at a card wins
            if v.event is not None and v.card is not None
        }
        add_play = self.rows["plays"].append
        add_trick = self.rows["tricks"].append
        for t in result.tricks:
            trick = t.number
            winner = t.winner if t.winner is not None and t.winner >= 0 else None
            add_trick(
                TrickRow(
                    session_id=sid,
                    deal_index=index,
                    deal=number,
                    trick=trick,
                    leader=ids[t.leader],
                    led=card_name[t.lead] if t.live else None,
                    winner=None if winner is None else ids[winner],
                    cards=t.live,
                    dead=len(t.cards) - t.live,
                )
            )
            for position, (seat, card, mask, event) in enumerate(t.cards, start=1):
                player = ids[seat]
                legal: list[str] | None = None
                if mask != DEAD:
                    legal = []
                    m = mask
                    while m:
                        low = m & -m
                        legal.append(card_name[low.bit_length() - 1])
                        m ^= low
                add_play(
                    PlayRow(
                        session_id=sid,
                        deal_index=index,
                        deal=number,
                        trick=trick,
                        position=position,
                        event=event,
                        seat=seat,
                        player=player,
                        card=card_name[card],
                        dead=mask == DEAD,
                        legal=None if mask == DEAD else mask >> card & 1 == 1,
                        legal_cards=legal,
                        wins=mask != DEAD and seat == winner,
                        finding=found.get((event, player, card)) if found else None,
                    )
                )

    # -- output ------------------------------------------------------------------

    def batch(self) -> Batch:
        """The gathered rows as Arrow tables; the builder starts over empty."""
        tables = {}
        for name, schema in SCHEMAS.items():
            rows = self.rows[name]
            columns = list(zip(*map(astuple, rows), strict=True)) if rows else [()] * len(schema)
            arrays = [_array(col, f.type) for col, f in zip(columns, schema, strict=True)]
            tables[name] = pa.Table.from_arrays(arrays, schema=schema)
        out = Batch(self.items, tables)
        self._reset()
        return out


def _array(values: Sequence[Any], kind: Any) -> Any:
    """An Arrow array; only when Arrow refuses a value is every value looked at."""
    try:
        return pa.array(values, type=kind)
    except OverflowError:  # amounts grown past 64 bits (unlimited loo, ballooning pools)
        return pa.array(
            [v if v is None or _I64_MIN <= v <= _I64_MAX else None for v in values], type=kind
        )
    except (UnicodeEncodeError, pa.ArrowException):
        return pa.array(clean(values), type=kind)


_I64_MIN, _I64_MAX = -(2**63), 2**63 - 1
