"""Audited sessions to Arrow tables, gathered column by column.

The database is loaded in bulk from these tables (PERF-NOTES.md: DuckDB takes
Arrow frames far faster than row inserts).  A ``FrameBuilder`` gathers the
rows of a bounded batch of sessions and remembers, per session, which rows of
each table are its own, so that the loader can keep or drop a session (a
re-ingest, a conflict) by slicing, without looking at the rows.

The tables of every deal (deals, seats, tricks, plays) are the loader's hot
path, compiled with the audit (docs/performance.md): their values go straight
into one list per column, named as ``db.rows`` declares them, and lists of
cards into ``CardLists``, which Arrow builds from card numbers; the rarer
tables take a row struct at a time.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import cython
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
    RejectRow,
    Row,
    SessionRow,
)
from loo_replay.db.rows import (
    schema as row_schema,
)
from loo_replay.engine.analysis import DealAnalysis, analyse_deal
from loo_replay.engine.cards import SUITS, canonical
from loo_replay.engine.model import DEAD, LogError, Trick
from loo_replay.engine.options import Options
from loo_replay.engine.replay import DealResult
from loo_replay.engine.session import DealAudit
from loo_replay.engine.vocab import Status
from loo_replay.output.audit_json import Summary

SCHEMAS: dict[str, pa.Schema] = {table: row_schema(row) for table, row in ROWS.items()}
TABLES = tuple(SCHEMAS)

_CARD = tuple(canonical(c) for c in range(52))
_CARD_NAMES = pa.array(_CARD, pa.string())
_CARDS_TYPE = pa.list_(pa.string())


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


@cython.cclass
class CardLists:
    """A column of card lists (``Cards``/``OptCards``) kept as card numbers and offsets:
    Arrow makes the strings by taking from the 52 card names, not one Python string at a
    time."""

    cards: list[int]  # every list's cards, one after another
    offsets: list[int]  # where each list starts in ``cards``, then where the last ends
    missing: list[bool]  # per list: None rather than a list

    def __init__(self) -> None:
        self.cards = []
        self.offsets = [0]
        self.missing = []

    def __len__(self) -> int:
        return len(self.missing)

    @cython.ccall
    def append(self, values: Sequence[int] | None) -> None:
        if values is not None:
            self.cards.extend(values)
        self.offsets.append(len(self.cards))
        self.missing.append(values is None)

    @cython.ccall
    def append_mask(self, mask: cython.longlong) -> None:
        """The cards of a legal mask, lowest first; ``DEAD`` (a dead card, never judged) is
        None."""
        if mask == DEAD:
            self.append(None)
            return
        cards = self.cards
        while mask:
            low: cython.longlong = mask & -mask
            cards.append(_bit(low))
            mask ^= low
        self.offsets.append(len(cards))
        self.missing.append(False)

    def array(self) -> Any:
        values = _CARD_NAMES.take(pa.array(self.cards, pa.int8()))
        offsets = pa.array(self.offsets, pa.int32())
        mask = pa.array(self.missing, pa.bool_()) if True in self.missing else None
        return pa.ListArray.from_arrays(offsets, values, type=_CARDS_TYPE, mask=mask)


@cython.cfunc
@cython.inline
def _bit(low: cython.longlong) -> cython.int:
    """The card whose one bit ``low`` is."""
    if cython.compiled:  # count the zeros below it: no Python integer made
        n: cython.int = 0
        while not low & 1:
            low >>= 1
            n += 1
        return n
    return int(low).bit_length() - 1


@cython.cclass
class Columns:
    """One table's values, a column (a list, or ``CardLists``) per field of the row type
    that declares the table, in its order."""

    names: tuple[str, ...]
    values: list[Any]

    def __init__(self, row: type[Row], card_lists: frozenset[str] = frozenset()) -> None:
        self.names = row.__struct_fields__
        self.values = [CardLists() if n in card_lists else [] for n in self.names]

    def __len__(self) -> int:
        return len(self.values[0])

    def columns(self, *names: str) -> tuple[Any, ...]:
        """The columns called ``names``, for a hot path to append to."""
        return tuple(self.values[self.names.index(n)] for n in names)

    def add(self, row: Row) -> None:
        for column, value in zip(self.values, astuple(row), strict=True):
            column.append(value)

    def table(self, schema: pa.Schema) -> pa.Table:
        rows = len(self)
        arrays = []
        for name, column, f in zip(self.names, self.values, schema, strict=True):
            if len(column) != rows:  # a hot path forgot a column: never load skewed rows
                raise RuntimeError(f"column {name} has {len(column)} values, not {rows}")
            arrays.append(
                column.array() if isinstance(column, CardLists) else _array(column, f.type)
            )
        return pa.Table.from_arrays(arrays, schema=schema)


# The list-of-cards columns that the hot path fills from card numbers.
_CARD_LISTS = {"seats": frozenset({"hand"}), "plays": frozenset({"legal_cards"})}


class FrameBuilder:
    """Column lists per table; ``batch`` turns them into Arrow tables.  With ``analyse``,
    each loaded deal gets its double-dummy analysis (ANALYSIS.md) in the analysis tables."""

    def __init__(self, analyse: bool = False) -> None:
        self.analyse = analyse
        self.tables: dict[str, Columns] = {}
        self.seat_columns: tuple[Any, ...] = ()
        self.trick_columns: tuple[Any, ...] = ()
        self.play_columns: tuple[Any, ...] = ()
        self.items: list[Item] = []
        self.deal_count = 0
        # The session whose deals' rows are being taken (``deal``), and what its rows share.
        self._open: SessionReport | None = None
        self._start: dict[str, int] = {}
        self._rejected = 0
        self._sid = self._file = self._digest = self._fingerprint = ""
        self._reset()

    def _reset(self) -> None:
        self.tables = {
            name: Columns(row, _CARD_LISTS.get(name, frozenset())) for name, row in ROWS.items()
        }
        self.items = []
        self.deal_count = 0
        # The hot tables' columns, named here once a batch and unpacked by name per deal.
        self.seat_columns = self.tables["seats"].columns(
            "session_id",
            "deal_index",
            "deal",
            "seat",
            "player",
            "dealer",
            "declaration",
            "active",
            "retired",
            "hand",
            "tricks",
            "ante",
            "payout",
            "loo",
            "looed",
            "penalties",
            "net",
            "stack",
        )
        self.trick_columns = self.tables["tricks"].columns(
            "session_id",
            "deal_index",
            "deal",
            "trick",
            "leader",
            "led",
            "winner",
            "cards",
            "dead",
        )
        self.play_columns = self.tables["plays"].columns(
            "session_id",
            "deal_index",
            "deal",
            "trick",
            "position",
            "event",
            "seat",
            "player",
            "card",
            "dead",
            "legal",
            "legal_cards",
            "wins",
            "finding",
        )

    def _mark(self) -> dict[str, int]:
        return {name: len(columns) for name, columns in self.tables.items()}

    def _rows(self, start: dict[str, int]) -> dict[str, Rows]:
        return {name: (start[name], len(columns)) for name, columns in self.tables.items()}

    def _add(self, row: Row) -> None:
        self.tables[TABLE_OF[type(row)]].add(row)

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

    def deal(self, report: SessionReport, index: int, deal: DealAudit) -> None:
        """The rows of deal ``index`` of ``report``, its replay still on it: the loader takes
        them as the audit makes each verdict (``audit_document``'s ``each``), while the deal
        is in the processor's caches.  The session's own rows come before its first deal's;
        ``close_session`` ends it."""
        if report is not self._open:
            self._open_session(report)
        if deal.status == Status.REJECTED or deal.result is None:
            self._rejected += 1
            raw = report.raw_deals[index] if index < len(report.raw_deals) else None
            self._reject(self._sid, self._file, report.line, index, deal, raw)
        else:
            self._deal(self._sid, index, deal)
            if self.analyse and report.options is not None:
                record = deal.result.record
                analysis = analyse_deal(deal, report.options)
                self._analysis(self._sid, index, record.number, record.seats, analysis)

    def close_session(self, report: SessionReport) -> None:
        """The session audited, every deal's rows taken (``deal``)."""
        if report is not self._open:
            self._open_session(report)  # a session without deals
        counts = Summary()
        counts.add(report)
        self.items.append(
            SessionItem(
                self._sid,
                self._digest,
                self._fingerprint,
                self._file,
                report.line,
                len(report.deals),
                self._rejected,
                True,
                self._rows(self._start),
                counts,
            )
        )
        self.deal_count += len(report.deals)
        self._open = None

    def _open_session(self, report: SessionReport) -> None:
        self._open = report
        self._start = self._mark()
        self._rejected = 0
        sid, file = clean(report.id), clean(report.file)
        header, digest = report.header, report.digest
        fingerprint = rules_fingerprint(report.ruleset, report.options)
        self._sid, self._file, self._digest, self._fingerprint = sid, file, digest, fingerprint
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
                deals=len(report.raw_deals),  # one verdict each, as the audit makes them
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
        result: DealResult | None = d.result
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
        result: DealResult | None = d.result
        assert result is not None
        rec = result.record
        known = d.payouts is not None
        payouts = d.payouts or {}
        looed_by = d.looed or {}
        penalties = d.penalties or {}
        stacks = d.stacks
        antes = d.antes
        active = set(result.active)
        retired = result.retired
        declarations = result.declarations or [None] * len(rec.seats)
        tricks_won = result.tricks_won or [0] * len(rec.seats)
        dealer = rec.dealer
        number = rec.number
        hands = rec.hands
        (
            c_session_id, c_deal_index, c_deal, c_seat, c_player, c_dealer, c_declaration,
            c_active, c_retired, c_hand, c_tricks, c_ante, c_payout, c_loo, c_looed,
            c_penalties, c_net, c_stack,
        ) = self.seat_columns  # fmt: skip
        for seat, player in enumerate(rec.seats):
            ante = antes.get(player, 0)
            payout = payouts.get(player, 0) if known else None
            loo = looed_by.get(player, 0) if known else None
            penalty = penalties.get(player, 0) if known else None
            net = None
            if payout is not None and loo is not None and penalty is not None:
                net = payout - loo - penalty - ante
            c_session_id.append(sid)
            c_deal_index.append(index)
            c_deal.append(number)
            c_seat.append(seat)
            c_player.append(player)
            c_dealer.append(seat == dealer)
            c_declaration.append(declarations[seat])
            c_active.append(seat in active)
            c_retired.append(seat in retired)
            c_hand.append(hands[seat])
            c_tricks.append(tricks_won[seat])
            c_ante.append(ante)
            c_payout.append(payout)
            c_loo.append(loo)
            c_looed.append(None if loo is None else loo > 0)
            c_penalties.append(penalty)
            c_net.append(net)
            c_stack.append(None if stacks is None else stacks.get(player))

    def _tricks(self, sid: str, index: int, d: DealAudit) -> None:
        """Tricks and their cards; the hot path of the loader (one row per card played)."""
        result: DealResult | None = d.result
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
        (
            t_session_id, t_deal_index, t_deal, t_trick, t_leader, t_led, t_winner, t_cards,
            t_dead,
        ) = self.trick_columns  # fmt: skip
        (
            p_session_id, p_deal_index, p_deal, p_trick, p_position, p_event, p_seat,
            p_player, p_card, p_dead, p_legal, p_legal_cards, p_wins, p_finding,
        ) = self.play_columns  # fmt: skip
        legal_cards: CardLists = p_legal_cards
        position: cython.int
        seat: cython.int
        card: cython.int
        mask: cython.longlong
        t: Trick
        for t in result.tricks:
            trick = t.number
            winner = t.winner if t.winner is not None and t.winner >= 0 else None
            t_session_id.append(sid)
            t_deal_index.append(index)
            t_deal.append(number)
            t_trick.append(trick)
            t_leader.append(ids[t.leader])
            t_led.append(card_name[t.lead] if t.live else None)
            t_winner.append(None if winner is None else ids[winner])
            t_cards.append(t.live)
            t_dead.append(len(t.cards) - t.live)
            for position, (seat, card, mask, event) in enumerate(t.cards, start=1):
                player = ids[seat]
                dead = mask == DEAD
                p_session_id.append(sid)
                p_deal_index.append(index)
                p_deal.append(number)
                p_trick.append(trick)
                p_position.append(position)
                p_event.append(event)
                p_seat.append(seat)
                p_player.append(player)
                p_card.append(card_name[card])
                p_dead.append(dead)
                p_legal.append(None if dead else mask >> card & 1 == 1)
                legal_cards.append_mask(mask)
                p_wins.append(not dead and seat == winner)
                p_finding.append(found.get((event, player, card)) if found else None)

    # -- output ------------------------------------------------------------------

    def batch(self) -> Batch:
        """The gathered rows as Arrow tables; the builder starts over empty."""
        tables = {name: self.tables[name].table(schema) for name, schema in SCHEMAS.items()}
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
