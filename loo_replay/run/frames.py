"""Audited sessions to Arrow tables, gathered column by column.

The database is loaded in bulk from these tables: DuckDB takes Arrow tables
far faster than rows inserted one at a time.  A ``FrameBuilder`` gathers the
rows of a bounded batch of sessions and remembers, per session, which rows of
each table are its own, so that the loader can keep or drop a session (a
re-ingest, a conflict) by slicing, without looking at the rows.

Each table's columns are declared by its row in ``run.rows``; the rows themselves are made
a table at a time elsewhere: the tables of every deal (deals, seats, tricks, plays), the
loader's hot path, straight into typed columns (``run.deal_frames``, ``run.columns``), and
the rarer tables a row struct at a time (``run.struct_rows``, ``run.decision_rows``).  Arrow
makes each column from its stored bytes.
"""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING, Any

import cython
import pyarrow as pa  # type: ignore[import-untyped]
from msgspec.structs import astuple

from loo_replay import __version__
from loo_replay.engine.analysis import DealAnalysis
from loo_replay.engine.options import Options
from loo_replay.engine.records import field, record
from loo_replay.engine.session import DealAudit
from loo_replay.engine.vocab import Status
from loo_replay.run.audit import SessionReport, Summary, UnreadableDocument
from loo_replay.run.columns import INT_KINDS, CardLists, Ints, Objects, Texts, clean
from loo_replay.run.deal_frames import deal_row, seat_rows, trick_and_play_rows
from loo_replay.run.render import Sampling
from loo_replay.run.rows import ROWS, TABLE_OF, Row
from loo_replay.run.rows import schema as row_schema
from loo_replay.run.struct_rows import (
    analysis_rows,
    deal_reject_row,
    document_reject_row,
    finding_rows,
    json_bytes,
    session_rows,
)

if TYPE_CHECKING:  # judged with --decisions alone, and imported then (decisions)
    from loo_replay.engine.judging import DealDecisions

SCHEMAS: dict[str, pa.Schema] = {table: row_schema(row) for table, row in ROWS.items()}
TABLES = tuple(SCHEMAS)


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


Rows = tuple[int, int]  # [start, stop) of one item's rows in a table


def rows_in(table: pa.Table, ranges: list[Rows]) -> pa.Table:
    """The rows of ``table`` in ``ranges`` (in order), adjacent ranges merged: slices, not
    Arrow's ``take``, which would import ``pyarrow.compute`` (a tenth of a second) in the
    loading process."""
    merged: list[Rows] = []
    for start, stop in ranges:
        if stop <= start:
            continue
        if merged and merged[-1][1] == start:
            merged[-1] = (merged[-1][0], stop)
        else:
            merged.append((start, stop))
    if not merged:
        return table.slice(0, 0)
    if len(merged) == 1:
        start, stop = merged[0]
        return table.slice(start, stop - start)
    return pa.concat_tables([table.slice(a, b - a) for a, b in merged])


@record(frozen=False)
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


@record(frozen=False)
class DocumentItem:
    """An unreadable document, kept as one row of ``rejects``."""

    file: str
    line: int | None
    digest: str
    message: str
    rows: dict[str, Rows] = field(default_factory=dict)


@record(frozen=False)
class FileItem:
    """A file that could not be opened or broke off; nothing of it past the break is known."""

    message: str


Item = SessionItem | DocumentItem | FileItem


@record(frozen=False)
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
    its order, each kept as its type is best kept (``run.columns``)."""

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

    def in_order(self) -> tuple[Any, ...]:
        """Every column, in the order the table's row declares them, for a hot path to
        unpack by name and add to (``run.deal_frames``)."""
        return tuple(self.values)

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
        # The hot tables' columns, taken here once a batch; ``run.deal_frames`` unpacks each
        # tuple by name, in the order ``run.rows`` declares the table.
        self.deal_columns = self.tables["deals"].in_order()
        self.seat_columns = self.tables["seats"].in_order()
        self.trick_columns = self.tables["tricks"].in_order()
        self.play_columns = self.tables["plays"].in_order()

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
        self._add(document_reject_row(doc, file, digest))
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
            self._add(deal_reject_row(self._sid, self._file, report.line, index, deal, raw))
            return False
        sid = self._sid
        deal_row(self.deal_columns, sid, index, deal)
        seat_rows(self.seat_columns, sid, index, deal)
        trick_and_play_rows(self.trick_columns, self.play_columns, sid, index, deal)
        if deal.violations or deal.discrepancies:
            for row in finding_rows(sid, index, deal):
                self._add(row)
        return True

    def analysis(self, index: int, deal: DealAudit, analysis: DealAnalysis) -> None:
        """The analysis rows of deal ``index`` of the open session, just taken by ``deal``."""
        assert deal.result is not None  # an audited deal: ``deal`` said so
        record = deal.result.record
        for row in analysis_rows(self._sid, index, record.number, record.seats, analysis):
            self._add(row)

    def decisions(self, index: int, deal: DealAudit, judged: DealDecisions, s: Sampling) -> None:
        """The judged decisions' rows of deal ``index`` of the open session, just taken by
        ``deal`` (``run.decision_rows``, imported here: ingest without ``--decisions`` does
        without the judging)."""
        from loo_replay.run.decision_rows import decision_rows

        for row in decision_rows(self._sid, index, deal, judged, s):
            self._add(row)

    def close_session(self, report: SessionReport) -> SessionItem:
        """The session audited, every deal's rows taken (``deal``): its item, whose
        ``digest`` was taken once, when the session's rows began (``report.digest`` hashes
        the document again at every call)."""
        if report is not self._open:
            self._open_session(report)  # a session without deals
        counts = Summary()
        counts.add(report)
        item = SessionItem(
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
        self.items.append(item)
        self.deal_count += len(report.deals)
        self._open = None
        return item

    def _open_session(self, report: SessionReport) -> None:
        self._open = report
        self._start = self._mark()
        self._rejected = 0
        sid, file = clean(report.id), clean(report.file)
        digest = report.digest
        fingerprint = rules_fingerprint(report.ruleset, report.options)
        self._sid, self._file, self._digest, self._fingerprint = sid, file, digest, fingerprint
        for row in session_rows(report, sid, file, digest, fingerprint):
            self._add(row)

    # -- output ------------------------------------------------------------------

    def batch(self) -> Batch:
        """The gathered rows as Arrow tables; the builder starts over empty."""
        tables = {name: self.tables[name].table(schema) for name, schema in SCHEMAS.items()}
        out = Batch(self.items, tables)
        self._reset()
        return out
