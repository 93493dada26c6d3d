"""Audited sessions to Arrow tables, gathered column by column.

The database is loaded in bulk from these tables: DuckDB takes Arrow tables
far faster than rows inserted one at a time.  A ``FrameBuilder`` gathers the
rows of a bounded batch of sessions and remembers, per session, which rows of
each table are its own, so that the loader can keep or drop a session (a
re-ingest, a conflict) by slicing, without looking at the rows.

The tables of every deal (deals, seats, tricks, plays) are the loader's hot
path, compiled with the audit (docs/performance.md): their values go straight
into typed columns (``db.columns``), named as ``db.rows`` declares them:
integers and card numbers as C integers, texts as codes into the batch's
distinct texts, lists of cards as card numbers; Arrow makes each column from
its stored bytes.  The rarer tables take a row struct at a time.
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
from loo_replay.db.columns import (
    CARD_CODES,
    INT_KINDS,
    CardLists,
    Ints,
    Objects,
    Texts,
    clean,
)
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
from loo_replay.engine.analysis import DealAnalysis
from loo_replay.engine.cards import SUITS
from loo_replay.engine.model import DEAD, LogError, Trick
from loo_replay.engine.options import Options
from loo_replay.engine.replay import DealResult
from loo_replay.engine.session import DealAudit
from loo_replay.engine.vocab import Status
from loo_replay.run.audit import SessionReport, Summary, UnreadableDocument

SCHEMAS: dict[str, pa.Schema] = {table: row_schema(row) for table, row in ROWS.items()}
TABLES = tuple(SCHEMAS)

_CARD = CARD_CODES


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
class Columns:
    """One table's values, a column per field of the row type that declares the table, in
    its order, each kept as its type is best kept (``db.columns``)."""

    names: tuple[str, ...]
    values: list[Any]

    def __init__(
        self,
        row: type[Row],
        schema: pa.Schema,
        card_lists: frozenset[str] = frozenset(),
        card_names: frozenset[str] = frozenset(),
    ) -> None:
        self.names = row.__struct_fields__
        self.values = [
            _column(n, f.type, card_lists, card_names)
            for n, f in zip(self.names, schema, strict=True)
        ]

    def __len__(self) -> int:
        return len(self.values[0])

    def fresh(self) -> Columns:
        """An empty table of the same columns, each with room for what this one's holds."""
        out: Columns = Columns.__new__(Columns)
        out.names = self.names
        out.values = [column.fresh() for column in self.values]
        return out

    def columns(self, *names: str) -> tuple[Any, ...]:
        """The columns called ``names``, for a hot path to add to."""
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
            arrays.append(column.array(f.type))
        return pa.Table.from_arrays(arrays, names=list(self.names))  # texts: dictionaries


def _column(name: str, kind: Any, card_lists: frozenset[str], card_names: frozenset[str]) -> Any:
    if name in card_lists:
        return CardLists()
    if name in card_names or kind in INT_KINDS:
        return Ints()  # card numbers, in a column of card names
    if pa.types.is_string(kind):
        return Texts()
    return Objects()


# The columns that the hot path fills with card numbers: lists of cards, and single cards.
_CARD_LISTS = {
    "deals": frozenset({"miss"}),
    "seats": frozenset({"hand"}),
    "plays": frozenset({"legal_cards"}),
}
_CARD_COLUMNS = {
    "deals": frozenset({"turn_up"}),
    "plays": frozenset({"card"}),
    "tricks": frozenset({"led"}),
}


class FrameBuilder:
    """Column lists per table; ``batch`` turns them into Arrow tables.  It builds rows only:
    what goes in them (the audit, the double-dummy analysis) is computed by the caller."""

    def __init__(self) -> None:
        self.tables: dict[str, Columns] = {}
        self.deal_columns: tuple[Any, ...] = ()
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
        """Empty tables for the next batch, sized as the last one's (``Columns.fresh``)."""
        none: frozenset[str] = frozenset()
        if self.tables:
            self.tables = {name: columns.fresh() for name, columns in self.tables.items()}
        else:
            self.tables = {
                name: Columns(
                    row, SCHEMAS[name], _CARD_LISTS.get(name, none), _CARD_COLUMNS.get(name, none)
                )
                for name, row in ROWS.items()
            }
        self.items = []
        self.deal_count = 0
        # The hot tables' columns, named here once a batch and unpacked by name per deal.
        self.deal_columns = self.tables["deals"].columns(*DealRow.__struct_fields__)
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

    def deal(self, report: SessionReport, index: int, deal: DealAudit) -> bool:
        """The rows of deal ``index`` of ``report``, its replay still on it: the loader takes
        them as the audit makes each verdict (``audit_document``'s ``each``), while the deal
        is in the processor's caches.  The session's own rows come before its first deal's;
        ``close_session`` ends it.  True when the deal was audited, not rejected."""
        if report is not self._open:
            self._open_session(report)
        if deal.status == Status.REJECTED or deal.result is None:
            self._rejected += 1
            raw = report.raw_deals[index] if index < len(report.raw_deals) else None
            self._reject(self._sid, self._file, report.line, index, deal, raw)
            return False
        self._deal(self._sid, index, deal)
        return True

    def analysis(self, index: int, deal: DealAudit, analysis: DealAnalysis) -> None:
        """The analysis rows of deal ``index`` of the open session, just taken by ``deal``."""
        assert deal.result is not None  # an audited deal: ``deal`` said so
        record = deal.result.record
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
        number = result.record.number
        self._deal_row(sid, index, d)
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

    def _deal_row(self, sid: str, index: int, d: DealAudit) -> None:
        """The deal's row, a value a column as ``_seats`` adds them (a ``DealRow`` and its
        generic path cost a tenth of the frames)."""
        result: DealResult | None = d.result
        assert result is not None
        rec = result.record
        ids = rec.seats
        c_session_id: Texts
        c_deal_index: Ints
        c_deal: Ints
        c_status: Texts
        c_dealer: Texts
        c_seated: Ints
        c_pool: Texts
        c_pool_start: Ints
        c_must: Ints
        c_trump: Texts
        c_turn_up: Ints
        c_miss: CardLists
        c_miss_taker: Texts
        c_defender: Texts
        c_outcome: Texts
        c_pool_next: Ints
        c_violations: Ints
        c_discrepancies: Ints
        c_knowledge: Texts
        (
            c_session_id, c_deal_index, c_deal, c_status, c_dealer, c_seated, c_pool,
            c_pool_start, c_must, c_trump, c_turn_up, c_miss, c_miss_taker, c_defender,
            c_outcome, c_pool_next, c_violations, c_discrepancies, c_notes, c_knowledge,
            c_unchecked,
        ) = self.deal_columns  # fmt: skip
        c_session_id.append(sid)
        c_deal_index.add(index)
        c_deal.add(rec.number)
        c_status.append(d.status)
        c_dealer.append(ids[rec.dealer])
        c_seated.add(len(ids))
        c_pool.append(d.pool)
        c_pool_start.append(d.pool_start)
        c_must.add(d.must)
        c_trump.append(None if d.trump is None else SUITS[d.trump])
        c_turn_up.append(rec.turn_up)
        c_miss.append(rec.miss)
        c_miss_taker.append(None if result.miss_taker is None else ids[result.miss_taker])
        c_defender.append(None if result.defender is None else ids[result.defender])
        c_outcome.append(d.outcome)
        c_pool_next.append(d.pool_next)
        c_violations.add(len(d.violations))
        c_discrepancies.add(len(d.discrepancies))
        c_notes.append(list(d.notes))
        c_knowledge.append(d.knowledge)
        c_unchecked.append(list(d.unchecked))

    def _seats(self, sid: str, index: int, d: DealAudit) -> None:
        result: DealResult | None = d.result
        assert result is not None
        rec = result.record
        known = d.payouts is not None
        payouts: dict[str, int] = d.payouts or {}
        looed_by: dict[str, int] = d.looed or {}
        penalties: dict[str, int] = d.penalties or {}
        stacks: dict[str, int] | None = d.stacks
        antes: dict[str, int] = d.antes
        active = set(result.active)
        retired = result.retired
        declarations = result.declarations or [None] * len(rec.seats)
        tricks_won = result.tricks_won or [0] * len(rec.seats)
        dealer: cython.int = rec.dealer
        number: cython.longlong = rec.number
        hands = rec.hands
        c_session_id: Texts
        c_deal_index: Ints
        c_deal: Ints
        c_seat: Ints
        c_player: Texts
        c_dealer: Ints
        c_declaration: Texts
        c_active: Ints
        c_retired: Ints
        c_hand: CardLists
        c_tricks: Ints
        c_ante: Ints
        c_payout: Ints
        c_loo: Ints
        c_looed: Ints
        c_penalties: Ints
        c_net: Ints
        c_stack: Ints
        (
            c_session_id, c_deal_index, c_deal, c_seat, c_player, c_dealer, c_declaration,
            c_active, c_retired, c_hand, c_tricks, c_ante, c_payout, c_loo, c_looed,
            c_penalties, c_net, c_stack,
        ) = self.seat_columns  # fmt: skip
        session: cython.longlong = c_session_id.code(sid)
        seat: cython.int
        for seat, player in enumerate(rec.seats):
            ante = antes.get(player, 0)
            payout = payouts.get(player, 0) if known else None
            loo = looed_by.get(player, 0) if known else None
            penalty = penalties.get(player, 0) if known else None
            net = None
            if payout is not None and loo is not None and penalty is not None:
                net = payout - loo - penalty - ante
            c_session_id.add(session)
            c_deal_index.add(index)
            c_deal.add(number)
            c_seat.add(seat)
            c_player.append(player)
            c_dealer.add(seat == dealer)
            c_declaration.append(declarations[seat])
            c_active.add(seat in active)
            c_retired.add(seat in retired)
            c_hand.append(hands[seat])
            c_tricks.add(tricks_won[seat])
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
        number: cython.longlong = rec.number
        found = {
            (v.event, v.player, v.card): v.code
            for v in reversed(d.violations)  # the first finding at a card wins
            if v.event is not None and v.card is not None
        }
        t_session_id: Texts
        t_deal_index: Ints
        t_deal: Ints
        t_trick: Ints
        t_leader: Texts
        t_led: Ints
        t_winner: Texts
        t_cards: Ints
        t_dead: Ints
        (
            t_session_id, t_deal_index, t_deal, t_trick, t_leader, t_led, t_winner, t_cards,
            t_dead,
        ) = self.trick_columns  # fmt: skip
        p_session_id: Texts
        p_deal_index: Ints
        p_deal: Ints
        p_trick: Ints
        p_position: Ints
        p_event: Ints
        p_seat: Ints
        p_player: Texts
        p_card: Ints
        p_dead: Ints
        p_legal: Ints
        p_legal_cards: CardLists
        p_wins: Ints
        p_finding: Texts
        (
            p_session_id, p_deal_index, p_deal, p_trick, p_position, p_event, p_seat,
            p_player, p_card, p_dead, p_legal, p_legal_cards, p_wins, p_finding,
        ) = self.play_columns  # fmt: skip
        # Each text of the deal's rows looked up once: the rows take its code.
        trick_session: cython.longlong = t_session_id.code(sid)
        play_session: cython.longlong = p_session_id.code(sid)
        leaders = [t_leader.code(p) for p in ids]
        winners = [t_winner.code(p) for p in ids]
        players = [p_player.code(p) for p in ids]
        no_finding: cython.longlong = p_finding.code(None)
        not_judged: cython.longlong = DEAD  # a C constant, not a Python integer a card
        position: cython.int
        seat: cython.int
        card: cython.int
        event: cython.int
        winner: cython.int
        mask: cython.longlong
        dead: cython.bint
        t: Trick
        for t in result.tricks:
            winner = t.winner if t.winner is not None and t.winner >= 0 else -1
            t_session_id.add(trick_session)
            t_deal_index.add(index)
            t_deal.add(number)
            t_trick.add(t.number)
            t_leader.add(leaders[t.leader])
            if t.live:
                t_led.add(t.lead)
            else:
                t_led.add_null()
            t_winner.add(winners[winner] if winner >= 0 else t_winner.code(None))
            t_cards.add(t.live)
            t_dead.add(len(t.cards) - t.live)
            played = t.cards
            for position in range(1, len(played) + 1):
                seat, card, mask, event = played[position - 1]
                dead = mask == not_judged
                p_session_id.add(play_session)
                p_deal_index.add(index)
                p_deal.add(number)
                p_trick.add(t.number)
                p_position.add(position)
                p_event.add(event)
                p_seat.add(seat)
                p_player.add(players[seat])
                p_card.add(card)
                p_dead.add(dead)
                if dead:
                    p_legal.add_null()
                else:
                    p_legal.add(mask >> card & 1)
                p_legal_cards.append_mask(mask)
                p_wins.add(not dead and seat == winner)
                if found:
                    p_finding.append(found.get((event, ids[seat], card)))
                else:
                    p_finding.add(no_finding)

    # -- output ------------------------------------------------------------------

    def batch(self) -> Batch:
        """The gathered rows as Arrow tables; the builder starts over empty."""
        tables = {name: self.tables[name].table(schema) for name, schema in SCHEMAS.items()}
        out = Batch(self.items, tables)
        self._reset()
        return out
